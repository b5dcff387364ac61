"""torchlite.functional: the variadic forms of PyTorch's top-level functions
(torch.functional), which take tensors as *args where the operators take a list."""

from torchlite import _C

__all__ = ["einsum"]


def einsum(equation, *operands):
    """einsum("ij,jk->ik", a, b) or einsum("ij,jk->ik", [a, b])."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _C.einsum(equation, list(operands))
