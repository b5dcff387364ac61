"""Function transforms and control flow of the torch namespace, as far as torchlite can keep
their meaning: compile (fuses pointwise chains, torchlite/_compile), vmap (runs the function once per batch
element) and cond (calls the branch the predicate picks).
"""

import builtins
import functools

from torchlite import _C

__all__ = ["compile", "cond", "vmap"]

Tensor = _C.Tensor


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, ...): model
    captured with torchlite.fx, its chains of pointwise operators fused into one generated C++
    loop each (torchlite/_compile). With no model, a decorator that does the same.

    Guards are the exact input shapes, dtypes and devices (dynamic= is accepted; a new shape
    re-traces but reuses the built loops). Operators that are not pointwise run eagerly between
    fused regions; `explain()` on the result lists regions and graph breaks. A callable that
    cannot be traced runs eagerly, with a warning (an error under fullgraph=True). Autograd: a
    value that needs a gradient is computed eagerly (forward and backward), so gradients equal
    eager's. backend= is "inductor" (default, fuse), "eager"/"aot_eager" (capture only) or a
    callable `backend(gm, example_inputs)` returning the function to run; mode= takes PyTorch's
    names and changes nothing.

    >>> f = torchlite.compile(lambda x: x + 1)
    >>> f(torchlite.ones(1))
    tensor([2.])
    """
    from torchlite._compile.compiled import BACKENDS, CompiledFunction, OptimizedModule
    from torchlite.nn import Module

    if mode is not None and mode not in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: default, reduce-overhead, max-autotune, "
                           "max-autotune-no-cudagraphs")
    if isinstance(backend, str) and backend not in BACKENDS:
        raise RuntimeError(f"Invalid backend: {backend!r}, expected one of {', '.join(BACKENDS)} or a callable")

    def wrap(m):
        if not callable(m):
            raise RuntimeError("torch.compile() only works on callables (functions and Modules)")
        if disable:
            return m
        compiled = CompiledFunction(m, backend or "inductor", fullgraph, recompile_limit)
        return OptimizedModule(m, compiled) if isinstance(m, Module) else functools.wraps(m)(compiled)

    return wrap if model is None else wrap(model)


def cond(pred, true_fn, false_fn, operands=()):
    """cond(pred, true_fn, false_fn, operands=()): true_fn(*operands) if pred else
    false_fn(*operands). pred is a bool, a number or a one-element tensor. PyTorch captures both
    branches in a graph; torchlite, running eagerly, calls the one that is taken (the result and
    its gradients are the same).

    >>> torchlite.cond(torchlite.tensor(True), lambda x: x + 1, lambda x: x - 1, (torchlite.ones(2),))
    tensor([2., 2.])
    """
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        pred = pred.item()
    elif not isinstance(pred, (builtins.bool, builtins.int, builtins.float)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(f"Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
                           f"tensor leaves, but got {operands}.")
    return (true_fn if pred else false_fn)(*operands)


_RANDOMNESS = ("error", "different", "same")


def _per_arg(dims, n, what):
    if isinstance(dims, (builtins.int, type(None))):
        return (dims,) * n
    dims = tuple(dims)
    if len(dims) != n:
        raise ValueError(f"vmap(func, {what}={dims}, ...): {what} is not compatible with the structure of the "
                         f"{'inputs' if what == 'in_dims' else 'outputs'}: {len(dims)} entries for {n}")
    return dims


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None): func mapped over
    dim in_dims of its tensor arguments (an int for all, or one int/None per argument), the
    results stacked along out_dims (one per output for tuple results). Keyword arguments are
    passed unmapped.

    torchlite runs func once per batch element and stacks the results: the values and gradients
    are those of PyTorch's vmap, the speed that of a Python loop. Random operators inside func
    draw independently for each element (PyTorch's randomness='different'); torchlite cannot
    detect them, so 'error' does not raise and 'same' is refused.

    Batching rules (one call of each operator on the whole batch, as PyTorch's vmap does) are
    feasible on the same design as forward AD: a batch dim carried by the tensor and a per-op
    rule emitted by the generator next to the forward formula. They are not done yet because
    each op family needs its own rule (broadcasting, reductions and views move the batch dim),
    and this loop already gives the right values, gradients and jvps for every op.

    >>> torchlite.vmap(torchlite.dot)(torchlite.ones(3, 2), torchlite.ones(3, 2))
    tensor([2., 2., 2.])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if randomness == "same":
        raise NotImplementedError("vmap(randomness='same'): torchlite runs func once per element and cannot share "
                                  "random draws between them")

    @functools.wraps(func)
    def mapped(*args, **kwargs):
        dims = _per_arg(in_dims, len(args), "in_dims")
        sizes = set()
        for a, d in zip(args, dims):
            if d is None:
                continue
            if not isinstance(a, Tensor):
                raise ValueError(f"vmap(func, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the "
                                 f"input is of type {type(a)}. We cannot vmap over non-Tensor arguments, please use "
                                 f"None as the respective in_dim")
            if not -builtins.max(a.dim(), 1) <= d < a.dim():
                raise ValueError(f"vmap(func, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but "
                                 f"that input is a Tensor of dimensionality {a.dim()} so expected in_dim to satisfy "
                                 f"-{a.dim()} <= in_dim < {a.dim()}.")
            sizes.add(a.shape[d])
        if not sizes:
            raise ValueError("vmap(func)(<inputs>): at least one input must be a Tensor mapped over a dim (in_dims "
                             "are all None)")
        if len(sizes) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sorted(sizes)} for the mapped dimension")
        n = sizes.pop()
        if n == 0:
            raise RuntimeError("vmap: torchlite runs func once per element, so it cannot map over a dim of size 0")
        results = [func(*[a if d is None else a.select(d, i) for a, d in zip(args, dims)], **kwargs)
                   for i in builtins.range(n)]
        if isinstance(results[0], Tensor):
            return _C.stack(results, out_dims if isinstance(out_dims, builtins.int) else out_dims[0])
        if not isinstance(results[0], tuple) or not builtins.all(isinstance(r, Tensor) for r in results[0]):
            raise ValueError(f"vmap(func, ...): `func` must only return Tensors, got type {type(results[0])}")
        outs = _per_arg(out_dims, len(results[0]), "out_dims")
        return tuple(_C.stack([r[k] for r in results], od) for k, od in enumerate(outs))

    return mapped
