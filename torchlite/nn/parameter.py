"""nn.Parameter: a Tensor that a Module registers as one of its parameters."""

from torchlite import _C
from torchlite._C import Tensor

__all__ = ["Parameter"]


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigning it as a Module attribute registers it.

    `Parameter(data)` aliases `data`'s storage (no copy) as a new leaf that requires grad by
    default. Ops on a Parameter return plain Tensors; in-place ops return the Parameter itself
    (see Note [Tensor subclasses] in torchlite/csrc/python_tensor.cpp).
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        # Construction happens in __new__; the pybind11 base __init__ must not run again.
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.data, self.requires_grad))

