"""torchlite.autograd.variable: the legacy Variable, now a plain tensor."""

from torchlite import _C

__all__ = ["Variable"]


class VariableMeta(type):
    """Makes every tensor an instance of Variable, as in PyTorch."""

    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=VariableMeta):
    """Variable(data, requires_grad=False, volatile=False): a new tensor sharing `data`'s memory,
    with requires_grad as asked (volatile is ignored, as in PyTorch)."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
