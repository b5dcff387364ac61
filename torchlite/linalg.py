"""torchlite.linalg: norms (vector_norm is an operator; matrix_norm and norm compose it)."""

import math

from torchlite import _C

__all__ = ["matrix_norm", "norm", "vector_norm"]

vector_norm = _C._linalg.linalg_vector_norm


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """'fro', 1, -1, inf and -inf norms of the matrices in the last two dims (or `dim`)."""
    if dtype is not None:
        A = A.to(dtype)
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
    if ord == "fro":
        return vector_norm(A, 2, dim, keepdim)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs singular values, which torchlite lacks")
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # 1 / -1: max / min column sum of |A|; inf / -inf: the same over rows.
    d0, d1 = (d % A.dim() for d in dim)
    sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = A.abs().sum(sum_dim, keepdim=True)
    r = sums.amax(red_dim, keepdim=True) if ord > 0 else sums.amin(red_dim, keepdim=True)
    return r if keepdim else r.squeeze((d0, d1))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (1-D `dim` or input), or a matrix norm (2-D `dim` or input, or string ord)."""
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2):
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if dim is None and A.dim() != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)
