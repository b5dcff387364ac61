"""Parametrizations: a module's tensor computed on access from unconstrained originals.

register_parametrization moves `module.<name>` into `module.parametrizations.<name>.original`
(or original0..n when right_inverse returns several tensors) and swaps the module's class for a
subclass `Parametrized<Class>` whose property `<name>` runs the ParametrizationList. Module
names, state_dict keys and the parametrized class match PyTorch's.
"""

import collections.abc
import copy
import copyreg
from contextlib import contextmanager

from torchlite._C import Tensor
from torchlite.autograd.grad_mode import no_grad
from torchlite.nn.modules.container import ModuleDict, ModuleList
from torchlite.nn.parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized", "remove_parametrizations",
           "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Within this context each parametrized tensor is computed once, on first access, and reused."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _check_result(value, dtype, shape, labels, unsafe_hint):
    """The ValueErrors PyTorch raises when a parametrization changes the tensor's dtype or shape;
    labels: templates naming the tensor before and after, filled with 'dtype' or 'shape'."""
    for attr, before in (("dtype", dtype), ("shape", shape)):
        after = getattr(value, attr)
        if after != before:
            raise ValueError(f"Registering a parametrization may not change the {attr} of the tensor, unless "
                             f"{unsafe_hint} flag is enabled.\n{labels[0].format(attr)}: {before}\n"
                             f"{labels[1].format(attr)}: {after}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to its `original` (or original0..n)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        # The originals are the last right_inverse that exists applied to the tensor, going backwards.
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\nright_inverse(original).device: {new.device}")
            with no_grad():
                original.set_(new)  # keeps the Parameter object (optimizers may hold it)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            _check_result(z, original_dtype, original_shape, ("unparametrized {}", "parametrized {}"), "`unsafe`")

    def right_inverse(self, value):
        """Sets the originals so that this list's output is `value` (each parametrization's right_inverse)."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                self.original.set_(value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     f"Got element {i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                     f"`original{i}` has dtype {original_i.dtype}")
                original_i.set_(tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _default_deepcopy(self, memo):
    """Module has no __deepcopy__ and the parametrized class refuses pickling: copy the __dict__."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module):
    """Gives `module` its own subclass, so the properties added for its tensors touch no other instance."""
    cls = module.__class__
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if _cache.get(key) is None:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes `module.<tensor_name>` the output of `parametrization` (stacked after any earlier ones)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            what = (f"module.{tensor_name}.{{}}", f"parametrization(module.{tensor_name}).{{}}")
            _check_result(x, y.dtype, y.shape, what, "the `unsafe`")
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(z).__name__}")
                    for attr in ("dtype", "shape"):
                        if getattr(z, attr) != getattr(y, attr):
                            raise ValueError(f"The tensor returned by parametrization.right_inverse must have the same "
                                             f"{attr} as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                             f"module.{tensor_name}.{attr}: {getattr(y, attr)}\n"
                                             f"returned {attr}: {getattr(z, attr)}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                         f"'{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether `module` has a parametrization (on `tensor_name`, when given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undoes register_parametrization for `tensor_name`: the tensor becomes a plain parameter or buffer again,
    holding its current parametrized value (leave_parametrized) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                original.set_(getattr(module, tensor_name))
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
                         "terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before register_parametrization swapped it."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers from_module's parametrizations (of `tensor_name`, or all) on to_module, sharing their originals."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
