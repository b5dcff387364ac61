"""Custom differentiable operations: torchlite.autograd.Function.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp(); ctx.save_for_backward(y); return y
        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors; return g * y

`Exp.apply(x)` runs forward with grad recording off and, if an input requires grad, makes a
C++ backward node (BackwardCFunction) that calls `backward`. Saved tensors are SavedVariables
(version-checked, freed after backward unless retain_graph).
"""

import functools

from torchlite import _C
from torchlite._C import _autograd as _ag
from torchlite.autograd.grad_mode import is_grad_enabled, no_grad

__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta", "Function", "once_differentiable", "InplaceFunction",
           "NestedIOFunction"]

Tensor = _C.Tensor
BackwardCFunction = _ag.BackwardCFunction


class FunctionCtx:
    def __init__(self):
        self.to_save = None
        self._saved_handle = None
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self.needs_input_grad = ()
        self.saved_for_forward = ()

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    @property
    def saved_tensors(self):
        if self._saved_handle is not None:
            return self._saved_handle.unpack()
        return tuple(self.to_save) if self.to_save is not None else ()

    def save_for_forward(self, *tensors):
        """Accepted for PyTorch compatibility: torchlite has no forward-mode AD to use them."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                     "non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool):
        self._materialize_grads = bool(value)


class FunctionMeta(type):
    """The metaclass of Function (PyTorch's name for it)."""


class Function(metaclass=FunctionMeta):
    """Base class of custom autograd operations (forward/backward static methods)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        record = _ag.is_grad_enabled() and any(ctx.needs_input_grad)
        separate_ctx = cls.setup_context is not Function.setup_context
        with no_grad():
            if separate_ctx:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        if not record:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        backward = cls.backward if cls.backward is not Function.backward else cls.vjp
        result = _ag._function_finish(cls.__name__ + "Backward", backward, ctx, tuple(args), tuple(outs),
                                      ctx.to_save, ctx._dirty, ctx._non_differentiable, ctx._materialize_grads)
        ctx.to_save = None
        return result[0] if single else tuple(result)


class _DifferentiatedTwice(Function):
    """Passes gradients through unchanged; differentiating them again raises (what
    once_differentiable's results turn into under create_graph)."""

    @staticmethod
    def forward(ctx, *grads):
        return grads

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


def once_differentiable(fn):
    """Runs a backward with grad recording off; under create_graph its results refuse a second
    differentiation (RuntimeError) instead of silently giving wrong higher-order gradients."""

    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not is_grad_enabled() or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        marked = _DifferentiatedTwice.apply(*[o.detach().requires_grad_() if isinstance(o, Tensor) else o
                                              for o in ((outputs,) if single else outputs)])
        return marked[0] if single else marked

    return wrapper


class InplaceFunction(Function):
    """A Function that may work in place, as its `inplace` flag says (legacy)."""

    def __init__(self, inplace=False):
        self.inplace = inplace


def _iter_tensors(obj, keep_none=False):
    """The tensors of a nested tuple/list, in order (with its Nones too if keep_none)."""
    if isinstance(obj, Tensor) or (keep_none and obj is None):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _iter_tensors(o, keep_none)


def _unflatten(flat, structure):
    """`structure` with its tensors replaced, in order, by those of `flat`."""
    it = iter(flat)

    def rebuild(obj):
        if isinstance(obj, Tensor):
            return next(it)
        if isinstance(obj, (list, tuple)):
            return type(obj)(rebuild(o) for o in obj)
        return obj

    return rebuild(structure)


class _NestedIOApply(Function):
    """Runs a NestedIOFunction instance `fn` as an ordinary Function over its flat tensors."""

    @staticmethod
    def forward(ctx, fn, *flat_inputs):
        fn._ctx, ctx.fn = ctx, fn
        fn._nested_output = fn.forward_extended(*fn._nested_input)
        del fn._nested_input
        ctx.save_for_backward(*fn.to_save)
        ctx.mark_dirty(*fn.dirty_tensors)
        ctx.mark_non_differentiable(*fn.non_differentiable)
        return tuple(_iter_tensors(fn._nested_output))

    @staticmethod
    def backward(ctx, *grad_outputs):
        fn = ctx.fn
        result = fn.backward_extended(*_unflatten(grad_outputs, fn._nested_output))
        return (None, *_iter_tensors(result, keep_none=True))


class NestedIOFunction(Function):
    """Legacy Function with instance methods over nested tuples/lists of tensors: a subclass
    defines forward_extended(*inputs) and backward_extended(*grad_outputs) and calls an
    instance. New code should use Function with static methods."""

    def __init__(self, *args, **kwargs):
        self.to_save = ()
        self._to_save_nested = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()

    def __call__(self, *input):
        self._nested_input = input
        outputs = _NestedIOApply.apply(self, *_iter_tensors(input))
        return _unflatten(outputs if isinstance(outputs, tuple) else (outputs,), self._nested_output)

    def save_for_backward(self, *args):
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        return _unflatten(self._ctx.saved_tensors, self._to_save_nested)

    def mark_dirty(self, *args, **kwargs):
        self.dirty_tensors = tuple(_iter_tensors((args, tuple(kwargs.values()))))

    def mark_non_differentiable(self, *args, **kwargs):
        self.non_differentiable = tuple(_iter_tensors((args, tuple(kwargs.values()))))

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError
