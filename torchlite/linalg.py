"""torchlite.linalg: PyTorch's torch.linalg over torchlite's operators.

The factorizations and solvers are CPU operators over LAPACK (from the scipy-openblas32 package,
loaded at the first call); the rest compose them. `norm` is the one function written here.
eig and eigvals (real input only) return complex results.
"""

import sys

from torchlite import _C
from torchlite.overrides import _make_overridable

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
    "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor",
    "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
    "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
    "tensorsolve", "vander", "vecdot", "vector_norm",
]

# Raised for singular and non-positive-definite matrices; a RuntimeError subclass.
LinAlgError = _C._LinAlgError

_L = _C._linalg
cholesky = _L.linalg_cholesky
cholesky_ex = _L.linalg_cholesky_ex
cond = _L.linalg_cond
cross = _L.linalg_cross
det = _L.linalg_det
diagonal = _L.linalg_diagonal
eig = _L.linalg_eig
eigh = _L.linalg_eigh
eigvals = _L.linalg_eigvals
eigvalsh = _L.linalg_eigvalsh
householder_product = _L.linalg_householder_product
inv = _L.linalg_inv
inv_ex = _L.linalg_inv_ex
ldl_factor = _L.linalg_ldl_factor
ldl_factor_ex = _L.linalg_ldl_factor_ex
ldl_solve = _L.linalg_ldl_solve
lstsq = _L.linalg_lstsq
lu = _L.linalg_lu
lu_factor = _L.linalg_lu_factor
lu_factor_ex = _L.linalg_lu_factor_ex
lu_solve = _L.linalg_lu_solve
matmul = _L.linalg_matmul
matrix_exp = _L.linalg_matrix_exp
matrix_norm = _L.linalg_matrix_norm
matrix_power = _L.linalg_matrix_power
matrix_rank = _L.linalg_matrix_rank
multi_dot = _L.linalg_multi_dot
pinv = _L.linalg_pinv
qr = _L.linalg_qr
slogdet = _L.linalg_slogdet
solve = _L.linalg_solve
solve_ex = _L.linalg_solve_ex
solve_triangular = _L.linalg_solve_triangular
svd = _L.linalg_svd
svdvals = _L.linalg_svdvals
tensorinv = _L.linalg_tensorinv
tensorsolve = _L.linalg_tensorsolve
vander = _L.linalg_vander
vecdot = _L.linalg_vecdot
vector_norm = _L.linalg_vector_norm


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector norm (1-D `dim` or input), or a matrix norm (2-D `dim` or input, or string ord)."""
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    kw = {} if out is None else {"out": out}
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, **kw)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2):
        if out is not None:
            raise NotImplementedError("torchlite.linalg.norm: out= is not supported for matrix norms yet")
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if dim is None and A.dim() != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.dim()}D.")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype, **kw)


# The functions written in Python honour __torch_function__ as the generated operators do.
_make_overridable(globals(), [sys.modules[__name__]])
