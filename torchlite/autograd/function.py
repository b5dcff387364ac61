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
from torchlite.autograd.grad_mode import no_grad

Tensor = _C.Tensor


class FunctionCtx:
    def __init__(self):
        self.to_save = None
        self._saved_handle = None
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self.needs_input_grad = ()

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

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool):
        self._materialize_grads = bool(value)


class _FunctionMeta(type):
    pass


class Function(metaclass=_FunctionMeta):
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


def once_differentiable(fn):
    """Runs a backward with grad recording off (its result is not differentiable again)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper
