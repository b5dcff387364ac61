"""torchlite.functional: the variadic forms of PyTorch's top-level functions
(torch.functional), which take tensors as *args where the operators take a list."""

from torchlite import _C

__all__ = ["broadcast_tensors", "einsum", "meshgrid", "norm"]


def einsum(equation, *operands):
    """einsum("ij,jk->ik", a, b) or einsum("ij,jk->ik", [a, b])."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _C.einsum(equation, list(operands))


def broadcast_tensors(*tensors):
    """The tensors expanded (as views) to their common broadcast shape."""
    return tuple(_C.broadcast_tensors(list(tensors)))


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors; indexing 'ij' (the default) or 'xy'."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return tuple(_C.meshgrid(list(tensors), indexing=indexing or "ij"))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: 'fro' (or None) is the 2-norm over `dim` (all dims by default), a number p the
    vector p-norm over `dim`; see torchlite.linalg for matrix norms."""
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        raise NotImplementedError("norm: the nuclear norm needs singular values, which torchlite lacks")
    ord = 2 if p in ("fro", None) else p
    if out is None:
        return _C._linalg.linalg_vector_norm(input, ord, dim, keepdim, dtype=dtype)
    return _C._linalg.linalg_vector_norm(input, ord, dim, keepdim, dtype=dtype, out=out)


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


_C.Tensor.norm = _tensor_norm  # torch.Tensor.norm is torch.norm
