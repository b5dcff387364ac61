"""Forward-mode automatic differentiation: dual tensors carrying a tangent.

Inside ``with dual_level():``, ``make_dual(x, v)`` gives a tensor equal to x that carries the
tangent v; every differentiable operator applied to it computes its output's tangent (the
Jacobian-vector product) from the forward formula in derivatives.yaml, and ``unpack_dual``
reads it back. The tangents live in C++ (Note [Forward AD] in
torchlite/csrc/autograd/forward_ad.h). As in PyTorch, one level may be open at a time; use
torchlite.func.jvp for higher-order forward derivatives.
"""

from typing import NamedTuple

from torchlite import _C
from torchlite.autograd.grad_mode import _DecoratorContextManager

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_ag = _C._autograd
# The open level (-1 when none): the default `level` of the functions below.
_current_level = -1


def enter_dual_level():
    """Opens a forward AD level (the default level of make_dual and unpack_dual) and returns it."""
    global _current_level
    new_level = _ag._enter_dual_level()
    if new_level != _current_level + 1:
        raise RuntimeError("Entering a new forward AD level but the current level is not valid. Make sure you did "
                           "not modify it directly.")
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None):
    """Closes the forward AD level `level` (the last opened one): its tangents are no longer seen."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _ag._exit_dual_level(level=level)
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` that carries `tangent` (same shape and dtype) at the forward AD level.
    Backward-differentiable in `tensor`.

    >>> x, v = torchlite.tensor([0.0, 1.0]), torchlite.tensor([1.0, 2.0])
    >>> with dual_level():
    ...     print(unpack_dual(make_dual(x, v).sin()).tangent)  # cos(x) * v
    tensor([1.0000, 1.0806])
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    return _ag._make_dual(tensor, tangent, level=level)


class UnpackedDualTensor(NamedTuple):
    """What unpack_dual returns: the primal (a view without tangent) and the tangent (or None)."""

    primal: _C.Tensor
    tangent: _C.Tensor | None


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a dual tensor: the primal is a view of `tensor` without its tangent,
    the tangent is None where `tensor` carries none at the level."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    primal, tangent = _ag._unpack_dual(tensor, level=level)
    return UnpackedDualTensor(primal, tangent)


def _fresh_leaf(tensor, requires_grad=True):
    """tensor.detach().requires_grad_(requires_grad) that keeps tensor's tangent: the reverse-mode
    transforms make their inputs so, and forward over reverse (hessian) then sees through them."""
    leaf = tensor.detach().requires_grad_(requires_grad)
    tangent = unpack_dual(tensor).tangent
    return leaf if tangent is None else make_dual(leaf, tangent)


class dual_level(_DecoratorContextManager):
    """Context manager (and decorator) that opens a forward AD level on entry and closes it on
    exit, dropping the tangents made in it. Levels do not nest."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()
