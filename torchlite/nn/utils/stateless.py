"""functional_call: run a module with some of its parameters and buffers replaced for one call."""

import contextlib
import warnings

from torchlite._C import Tensor
from torchlite.nn.modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()  # the module had no such attribute: swapping it back deletes it


def _swap_tensor(module, path, tensor):
    """Puts `tensor` at `path` ('sub.module.name') and returns what was there (or _MISSING)."""
    prefix, _, name = path.rpartition(".")
    try:
        module = module.get_submodule(prefix)
    except AttributeError as ex:
        raise AttributeError(f"{module._get_name()} has no attribute `{prefix}`") from ex
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for members in (module._parameters, module._buffers):
        if name in members:
            orig = members[name]
            if tensor is _MISSING:
                del members[name]
            else:
                members[name] = tensor  # a plain tensor may stand in for a Parameter for the call
            return orig
    orig = getattr(module, name, _MISSING)
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)  # a plain attribute, or a parametrization's right_inverse
    elif orig is not _MISSING:
        delattr(module, name)
    return orig


def _swap_all(module, named_tensors):
    """Swaps every entry in; on an error swaps the ones done back. Returns the originals."""
    originals = {}
    try:
        for name, tensor in named_tensors.items():
            originals[name] = _swap_tensor(module, name, tensor)
    except Exception:
        for name, orig in originals.items():
            _swap_tensor(module, name, orig)
        raise
    return originals


def _untie(module, parameters_and_buffers):
    """Extends the given tensors to every name tied to (sharing a tensor with) a given name."""
    names_of = {}
    for name, t in [*module.named_parameters(remove_duplicate=False), *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(t), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    given_tied = [name for name in parameters_and_buffers if name in tied]
    untied = dict(parameters_and_buffers)
    for name in given_tied:
        given_group = tied[name].intersection(given_tied)
        if len({id(parameters_and_buffers[n]) for n in given_group}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied[name])}, which are tied. "
                             "Consider using tie_weights=False")
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    tensors = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {name for name, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
        errors = []
        unexpected, missing = sorted(set(tensors) - valid), sorted(valid - set(tensors))
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                  "\n\t".join(errors)))
    originals = {}
    try:
        originals = _swap_all(module, tensors)
        yield
    finally:
        current = _swap_all(module, originals)
        # in-place changes the call made to a given tensor's slot (a buffer reassigned) flow back
        parameters_and_buffers.update({k: current[k] for k in parameters_and_buffers if k in current})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named parameters and buffers replaced by the given tensors.

    tie_weights: a tensor given for one of several tied names is used for all of them.
    strict: the given names must be exactly the module's parameters and buffers.
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers, args, kwargs, *, tie_weights, strict):
    """functional_call without the deprecation warning (torchlite.func.functional_call's body)."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
