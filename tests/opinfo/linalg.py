"""Registry entries: torch.linalg's factorizations and solvers and their compositions.

References are numpy.linalg. Factorizations whose factors are defined only up to signs (QR, eigh,
SVD) are compared through sign-free quantities (|Q|, eigenvalues and |V|, ...), which also keeps
their gradients well defined. Gradients are checked on well-conditioned inputs: SPD matrices as
A A^T + n I built inside the op (so finite differences perturb a general matrix), matrices
near the identity for solves and inverses.
"""

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, OpInfo, SampleInput, rand

TOL = {"rtol": 1e-4, "atol": 1e-4}


def _mT(x):
    return x.transpose(-2, -1)


def _well(shape, dtype, rng):
    """A well-conditioned (batch of) square matrix: identity-dominated."""
    n = shape[-1]
    return (rand(shape, dtype, rng, -0.5, 0.5) + 2.0 * np.eye(n)).astype(rand((1,), dtype, rng).dtype)


def _spd_op(lib, A):
    n = A.shape[-1]
    return A @ _mT(A) + n * lib.eye(n, dtype=A.dtype, device=A.device)


def _np_spd(A):
    return A @ np.swapaxes(A, -1, -2) + A.shape[-1] * np.eye(A.shape[-1], dtype=A.dtype)


def _sym_op(lib, A):
    return A + _mT(A)


def _square_samples(dtype, rng):
    yield SampleInput((_well((3, 3), dtype, rng),))
    yield SampleInput((_well((2, 3, 3), dtype, rng),))
    yield SampleInput((_well((1, 1), dtype, rng),))


def _general_square_samples(dtype, rng):
    yield SampleInput((rand((3, 3), dtype, rng),))
    yield SampleInput((rand((2, 4, 4), dtype, rng),))


def _rect_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng),))
    yield SampleInput((rand((3, 5), dtype, rng),))
    yield SampleInput((rand((2, 3, 3), dtype, rng),))


def _solve_samples(dtype, rng):
    yield SampleInput((_well((3, 3), dtype, rng), rand((3, 2), dtype, rng)))
    yield SampleInput((_well((3, 3), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((_well((2, 3, 3), dtype, rng), rand((3, 4), dtype, rng)))
    yield SampleInput((_well((3, 3), dtype, rng), rand((2, 3), dtype, rng)), {"left": False})


def _np_solve(A, B, left=True):
    if not left:
        return np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    if B.ndim == 1:
        return np.linalg.solve(A, B[..., None])[..., 0]
    return np.linalg.solve(A, B)


def _np_slogdet(A):
    return tuple(np.linalg.slogdet(A))


def _np_lu_unpack(A):
    """P, L, U with A = P L U, via NumPy-free partial pivoting (the same row choice as getrf)."""
    A = np.array(A, dtype=np.float64)
    batch = A.shape[:-2]
    m, n = A.shape[-2:]
    k = min(m, n)
    P = np.zeros(batch + (m, m))
    L = np.zeros(batch + (m, k))
    U = np.zeros(batch + (k, n))
    for idx in np.ndindex(*batch):
        a = A[idx].copy()
        perm = np.arange(m)
        for j in range(k):
            p = j + int(np.argmax(np.abs(a[j:, j])))
            a[[j, p]] = a[[p, j]]
            perm[[j, p]] = perm[[p, j]]
            if a[j, j] != 0:
                a[j + 1:, j] /= a[j, j]
                a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
        L[idx] = np.tril(a[:, :k], -1) + np.eye(m, k)
        U[idx] = np.triu(a[:k, :])
        P[idx][perm, np.arange(m)] = 1
    return P, L, U


def _lu_factor_ref(A):
    _, L, U = _np_lu_unpack(A)
    return np.tril(L, -1) + U


def _tri_samples(dtype, rng):
    yield SampleInput((_well((3, 3), dtype, rng), rand((3, 2), dtype, rng)), {"upper": True})
    yield SampleInput((_well((2, 3, 3), dtype, rng), rand((3, 2), dtype, rng)), {"upper": False})
    yield SampleInput((_well((3, 3), dtype, rng), rand((2, 3), dtype, rng)), {"upper": True, "left": False})
    yield SampleInput((_well((3, 3), dtype, rng), rand((3, 1), dtype, rng)), {"upper": False, "unitriangular": True})


def _np_solve_triangular(A, B, upper, left=True, unitriangular=False):
    off = 1 if unitriangular else 0
    T = np.triu(A, off) if upper else np.tril(A, -off)
    if unitriangular:
        T = T + np.eye(A.shape[-1])
    return _np_solve(T, B, left)


def _np_triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    T = np.triu(A) if upper else np.tril(A)
    if transpose:
        T = np.swapaxes(T, -1, -2)
    return _np_solve(T, b), A


def _signfree_qr(lib, A, mode="reduced"):
    Q, R = lib.linalg.qr(A, mode=mode)
    return Q.abs(), R.abs()


def _np_signfree_qr(A, mode="reduced"):
    Q, R = np.linalg.qr(A, mode=mode)
    return np.abs(Q), np.abs(R)


def _qr_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng),))
    yield SampleInput((rand((3, 5), dtype, rng),))
    yield SampleInput((rand((2, 3, 3), dtype, rng),))
    yield SampleInput((rand((2, 4), dtype, rng),), {"mode": "complete"})


def _eigh_op(lib, A, **kw):
    L, V = lib.linalg.eigh(_sym_op(lib, A), **kw)
    return L, V.abs()


def _np_eigh(A, UPLO="L"):
    L, V = np.linalg.eigh(A + np.swapaxes(A, -1, -2), UPLO=UPLO)
    return L, np.abs(V)


def _svd_op(lib, A, full_matrices=True):
    U, S, Vh = lib.linalg.svd(A, full_matrices=full_matrices)
    return U.abs(), S, Vh.abs()


def _np_svd(A, full_matrices=True):
    U, S, Vh = np.linalg.svd(A, full_matrices=full_matrices)
    return np.abs(U), S, np.abs(Vh)


def _svd_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng),), {"full_matrices": False})
    yield SampleInput((rand((3, 5), dtype, rng),), {"full_matrices": False})
    yield SampleInput((rand((2, 3, 3), dtype, rng),), {"full_matrices": False})
    yield SampleInput((rand((4, 3), dtype, rng),), {"full_matrices": True}, grad=False)


def _legacy_svd_op(lib, A, some=True):
    U, S, V = lib.svd(A, some=some)
    return U.abs(), S, V.abs()


def _np_legacy_svd(A, some=True):
    U, S, Vh = np.linalg.svd(A, full_matrices=not some)
    return np.abs(U), S, np.abs(np.swapaxes(Vh, -1, -2))


def _lstsq_samples(dtype, rng):
    yield SampleInput((rand((5, 3), dtype, rng), rand((5, 2), dtype, rng)))
    yield SampleInput((rand((2, 4, 3), dtype, rng), rand((2, 4, 1), dtype, rng)), {"driver": "gelsd"})
    yield SampleInput((rand((4, 3), dtype, rng), rand((4, 2), dtype, rng)), {"driver": "gels"})
    yield SampleInput((rand((4, 3), dtype, rng), rand((4, 2), dtype, rng)), {"driver": "gelss"})


def _lstsq_op(lib, A, B, **kw):
    return lib.linalg.lstsq(A, B, **kw).solution


def _np_lstsq(A, B, driver=None):
    return np.linalg.pinv(A) @ B


def _pinv_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng),))
    yield SampleInput((rand((2, 3, 5), dtype, rng),))
    yield SampleInput((rand((3, 3), dtype, rng),), {"hermitian": True})
    yield SampleInput((rand((3, 4), dtype, rng),), {"rtol": 0.1}, grad=False)


def _pinv_op(lib, A, hermitian=False, **kw):
    return lib.linalg.pinv(_sym_op(lib, A) if hermitian else A, hermitian=hermitian, **kw)


def _np_pinv(A, hermitian=False, rtol=None):
    if hermitian:
        A = A + np.swapaxes(A, -1, -2)
    return np.linalg.pinv(A, rcond=1e-15 if rtol is None else rtol, hermitian=hermitian)


def _rank_samples(dtype, rng):
    a = rand((4, 2), dtype, rng)
    yield SampleInput((a @ rand((2, 3), dtype, rng),))
    yield SampleInput((rand((2, 3, 3), dtype, rng),))
    yield SampleInput((rand((3, 3), dtype, rng),), {"hermitian": True})
    yield SampleInput((rand((3, 4), dtype, rng),), {"atol": 1.0, "rtol": 0.0})


def _rank_op(lib, A, hermitian=False, **kw):
    return lib.linalg.matrix_rank(_sym_op(lib, A) if hermitian else A, hermitian=hermitian, **kw)


def _np_rank(A, hermitian=False, atol=None, rtol=None):
    if hermitian:
        A = A + np.swapaxes(A, -1, -2)
    S = np.abs(np.linalg.eigvalsh(A)) if hermitian else np.linalg.svd(A, compute_uv=False)
    if atol is None:
        tol = S.max(-1, keepdims=True) * np.finfo(A.dtype).eps * max(A.shape[-2:])
    else:
        tol = np.maximum(atol, (rtol or 0.0) * S.max(-1, keepdims=True))
    return (S > tol).sum(-1)


def _matrix_norm_samples(dtype, rng):
    for o in ("fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")):
        yield SampleInput((rand((3, 4), dtype, rng), o), grad=o not in (1, -1, float("inf"), -float("inf")))
    yield SampleInput((rand((2, 3, 3), dtype, rng), "nuc"), {"keepdim": True})
    yield SampleInput((rand((3, 2, 4), dtype, rng), 2), {"dim": (0, 2)})


def _np_matrix_norm(A, ord, dim=(-2, -1), keepdim=False):
    return np.linalg.norm(A, ord, axis=dim, keepdims=keepdim)


def _cond_samples(dtype, rng):
    for p in (None, 2, -2, "fro", "nuc", 1, float("inf")):
        yield SampleInput((_well((3, 3), dtype, rng),), {} if p is None else {"p": p})


def _power_samples(dtype, rng):
    for n in (0, 1, 3, -2):
        yield SampleInput((_well((3, 3), dtype, rng), n))
    yield SampleInput((_well((2, 2, 2), dtype, rng), 2))


def _np_matrix_exp(A):
    """Taylor series in float64 (the inputs are small)."""
    A = np.asarray(A, dtype=np.float64)
    out = np.broadcast_to(np.eye(A.shape[-1]), A.shape).copy()
    term = out.copy()
    for k in range(1, 40):
        term = term @ A / k
        out = out + term
    return out


def _exp_samples(dtype, rng):
    yield SampleInput((rand((3, 3), dtype, rng, -1, 1),))
    yield SampleInput((rand((2, 2, 2), dtype, rng, -0.2, 0.2),))
    yield SampleInput((rand((3, 3), dtype, rng, -3, 3),), grad=False)


def _multi_dot_samples(dtype, rng):
    yield SampleInput(([rand((2, 3), dtype, rng), rand((3, 4), dtype, rng), rand((4, 2), dtype, rng)],))
    yield SampleInput(([rand((3,), dtype, rng), rand((3, 4), dtype, rng), rand((4,), dtype, rng)],))


def _np_multi_dot(ts):
    return np.linalg.multi_dot(ts)


def _cross_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng), rand((4, 3), dtype, rng)))
    yield SampleInput((rand((3, 2), dtype, rng), rand((3, 2), dtype, rng)), {"dim": 0})
    yield SampleInput((rand((2, 1, 3), dtype, rng), rand((1, 4, 3), dtype, rng)))


def _np_cross(a, b, dim=-1):
    return np.cross(a, b, axis=dim)


def _vecdot_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng), rand((4, 3), dtype, rng)))
    yield SampleInput((rand((3, 2), dtype, rng), rand((3, 2), dtype, rng)), {"dim": 0})


def _tensorinv_samples(dtype, rng):
    yield SampleInput((_well((6, 6), dtype, rng).reshape(2, 3, 6),), {"ind": 2})
    yield SampleInput((_well((4, 4), dtype, rng).reshape(4, 2, 2),), {"ind": 1})


def _tensorsolve_samples(dtype, rng):
    yield SampleInput((_well((6, 6), dtype, rng).reshape(2, 3, 6), rand((2, 3), dtype, rng)))
    yield SampleInput((_well((6, 6), dtype, rng).reshape(6, 2, 3), rand((2, 3), dtype, rng)), {"dims": (0,)})


def _vander_samples(dtype, rng):
    yield SampleInput((rand((4,), dtype, rng),))
    yield SampleInput((rand((2, 3), dtype, rng),), {"N": 5})


def _householder_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng), rand((3,), dtype, rng, 0.5, 1.5)))
    yield SampleInput((rand((2, 3, 2), dtype, rng), rand((2, 1), dtype, rng, 0.5, 1.5)))


def _np_householder(A, tau):
    A = np.asarray(A, dtype=np.float64)
    batch = A.shape[:-2]
    m, n = A.shape[-2:]
    out = np.zeros(batch + (m, n))
    for idx in np.ndindex(*batch):
        Q = np.eye(m)
        for i in range(tau.shape[-1]):
            v = np.concatenate([np.zeros(i), [1.0], A[idx][i + 1:, i]])
            Q = Q @ (np.eye(m) - tau[idx][i] * np.outer(v, v))
        out[idx] = Q[:, :n]
    return out


def _geqrf_op(lib, A):
    a, tau = lib.geqrf(A)
    return lib.linalg.householder_product(a, tau).abs(), lib.triu(a[..., :A.shape[-1], :]).abs()


def _ormqr_op(lib, A, C, left=True, transpose=False):
    a, tau = lib.geqrf(A)
    return lib.ormqr(a, tau, C, left, transpose)


def _lu_op(lib, A, **kw):
    return lib.linalg.lu(A, **kw)


def _lu_factor_op(lib, A):
    return lib.linalg.lu_factor(A).LU


def _lu_factor_ex_op(lib, A):
    return lib.linalg.lu_factor_ex(A).LU


def _lu_unpack_op(lib, A):
    LU, piv = lib.linalg.lu_factor(A)
    return lib.lu_unpack(LU, piv)


def _lu_solve_op(lib, A, B, **kw):
    LU, piv = lib.linalg.lu_factor(A)
    return lib.linalg.lu_solve(LU, piv, B, **kw)


def _lu_solve_samples(dtype, rng):
    yield SampleInput((_well((3, 3), dtype, rng), rand((3, 2), dtype, rng)))
    yield SampleInput((_well((2, 3, 3), dtype, rng), rand((3, 1), dtype, rng)), {"adjoint": True})
    yield SampleInput((_well((3, 3), dtype, rng), rand((2, 3), dtype, rng)), {"left": False})
    yield SampleInput((_well((3, 3), dtype, rng), rand((2, 3), dtype, rng)), {"left": False, "adjoint": True})


def _np_lu_solve(A, B, left=True, adjoint=False):
    if adjoint:
        A = np.swapaxes(A, -1, -2)
    return _np_solve(A, B, left)


def _cholesky_samples(dtype, rng):
    yield SampleInput((rand((3, 3), dtype, rng),))
    yield SampleInput((rand((2, 3, 3), dtype, rng),), {"upper": True})


def _np_cholesky(A, upper=False):
    L = np.linalg.cholesky(_np_spd(A))
    return np.swapaxes(L, -1, -2) if upper else L


def _cholesky_solve_samples(dtype, rng):
    yield SampleInput((rand((3, 2), dtype, rng), rand((3, 3), dtype, rng)))
    yield SampleInput((rand((3, 1), dtype, rng), rand((2, 3, 3), dtype, rng)), {"upper": True})


def _cholesky_solve_op(lib, B, A, upper=False):
    return lib.cholesky_solve(B, lib.linalg.cholesky(_spd_op(lib, A), upper=upper), upper)


def _np_cholesky_solve(B, A, upper=False):
    return np.linalg.solve(_np_spd(A), B)


def _cholesky_inverse_op(lib, A, upper=False):
    return lib.cholesky_inverse(lib.linalg.cholesky(_spd_op(lib, A), upper=upper), upper)


def _np_cholesky_inverse(A, upper=False):
    return np.linalg.inv(_np_spd(A))


def _eig_invariants(lib, A):
    """What of linalg.eig does not depend on the order of the eigenpairs or the eigenvectors'
    phases: the sorted real and imaginary parts of the eigenvalues, |A V - V diag(L)|^2 (zero), and
    the row sums of |V|^2."""
    L, V = lib.linalg.eig(A)
    residual = A.to(V.dtype) @ V - V * L.unsqueeze(-2)
    return (L.real.sort(-1)[0], L.imag.sort(-1)[0], residual.real ** 2 + residual.imag ** 2,
            (V.real ** 2 + V.imag ** 2).sum(-1))


def _np_eig_invariants(A):
    L, V = np.linalg.eig(A)
    return np.sort(L.real, -1), np.sort(L.imag, -1), np.zeros(A.shape), (np.abs(V) ** 2).sum(-1)


def _ex_first(fn):
    return lambda lib, *a, **kw: fn(lib)(*a, **kw)[0]


OPS = [
    # LU
    OpInfo("linalg_lu_factor_ex", _general_square_samples, ref=_lu_factor_ref, op=_lu_factor_ex_op, **TOL),
    OpInfo("linalg_lu_factor", _general_square_samples, ref=_lu_factor_ref, op=_lu_factor_op, **TOL),
    OpInfo("linalg_lu", _general_square_samples, ref=_np_lu_unpack, op=_lu_op, **TOL),
    OpInfo("lu_unpack", _general_square_samples, ref=_np_lu_unpack, op=_lu_unpack_op, **TOL),
    OpInfo("linalg_lu_solve", _lu_solve_samples, ref=_np_lu_solve, op=_lu_solve_op, **TOL),
    OpInfo("lu_solve", lambda d, r: [SampleInput((_well((3, 3), d, r), rand((3, 2), d, r))),
                                     SampleInput((_well((2, 3, 3), d, r), rand((2, 3, 1), d, r)))],
           ref=np.linalg.solve, op=lambda lib, A, B: lib.lu_solve(B, *lib.linalg.lu_factor(A)), **TOL),
    # LDL^T: the factors are compared with PyTorch's (the same LAPACK routine), the solve with NumPy.
    OpInfo("linalg_ldl_factor", _general_square_samples, op=lambda lib, A: tuple(lib.linalg.ldl_factor(_sym_op(lib, A))),
           differentiable=False, **TOL),
    OpInfo("linalg_ldl_factor_ex", _general_square_samples,
           op=lambda lib, A: tuple(lib.linalg.ldl_factor_ex(_sym_op(lib, A))), differentiable=False, **TOL),
    OpInfo("linalg_ldl_solve", lambda d, r: [SampleInput((rand((3, 3), d, r), rand((3, 2), d, r))),
                                             SampleInput((rand((2, 4, 4), d, r), rand((4, 1), d, r)))],
        ref=lambda A, B: np.linalg.solve(A + np.swapaxes(A, -1, -2), B),
        op=lambda lib, A, B: lib.linalg.ldl_solve(*lib.linalg.ldl_factor(_sym_op(lib, A)), B), differentiable=False,
        **TOL),
    # solve / inv / det
    OpInfo("linalg_solve", _solve_samples, ref=_np_solve, op=lambda lib, *a, **kw: lib.linalg.solve(*a, **kw), **TOL),
    OpInfo("linalg_solve_ex", _solve_samples, ref=_np_solve, op=_ex_first(lambda lib: lib.linalg.solve_ex),
           covers=("_linalg_solve_ex",), **TOL),
    OpInfo("linalg_inv", _square_samples, ref=np.linalg.inv, op=lambda lib, A: lib.linalg.inv(A), **TOL),
    OpInfo("linalg_inv_ex", _square_samples, ref=np.linalg.inv, op=_ex_first(lambda lib: lib.linalg.inv_ex), **TOL),
    OpInfo("inverse", _square_samples, ref=np.linalg.inv, supports_out=True, **TOL),
    OpInfo("linalg_det", _general_square_samples, ref=np.linalg.det, op=lambda lib, A: lib.linalg.det(A),
           covers=("_linalg_det",), **TOL),
    OpInfo("det", _general_square_samples, ref=np.linalg.det, **TOL),
    OpInfo("linalg_slogdet", _general_square_samples, ref=_np_slogdet, op=lambda lib, A: tuple(lib.linalg.slogdet(A)),
           covers=("_linalg_slogdet",), **TOL),
    OpInfo("slogdet", _general_square_samples, ref=_np_slogdet, op=lambda lib, A: tuple(lib.slogdet(A)), **TOL),
    OpInfo("logdet", _square_samples, ref=lambda A: np.linalg.slogdet(A)[1], **TOL),
    # Cholesky
    OpInfo("linalg_cholesky", _cholesky_samples, ref=_np_cholesky,
           op=lambda lib, A, **kw: lib.linalg.cholesky(_spd_op(lib, A), **kw), **TOL),
    OpInfo("linalg_cholesky_ex", _cholesky_samples, ref=_np_cholesky,
           op=lambda lib, A, **kw: lib.linalg.cholesky_ex(_spd_op(lib, A), **kw)[0], **TOL),
    OpInfo("cholesky", _cholesky_samples, ref=_np_cholesky,
           op=lambda lib, A, upper=False: lib.cholesky(_spd_op(lib, A), upper), **TOL),
    OpInfo("cholesky_solve", _cholesky_solve_samples, ref=_np_cholesky_solve, op=_cholesky_solve_op, **TOL),
    OpInfo("cholesky_inverse", _cholesky_samples, ref=_np_cholesky_inverse, op=_cholesky_inverse_op, **TOL),
    # triangular
    OpInfo("linalg_solve_triangular", _tri_samples, ref=_np_solve_triangular,
           op=lambda lib, *a, **kw: lib.linalg.solve_triangular(*a, **kw), **TOL),
    OpInfo("triangular_solve", lambda d, r: [SampleInput((rand((3, 2), d, r), _well((3, 3), d, r))),
                                             SampleInput((rand((3, 1), d, r), _well((2, 3, 3), d, r)),
                                                         {"upper": False, "transpose": True})],
           ref=_np_triangular_solve, op=lambda lib, *a, **kw: tuple(lib.triangular_solve(*a, **kw)), **TOL),
    # QR and Householder
    OpInfo("linalg_qr", _qr_samples, ref=_np_signfree_qr, op=_signfree_qr, **TOL),
    OpInfo("qr", _qr_samples, ref=_np_signfree_qr,
           op=lambda lib, A, mode="reduced": tuple(t.abs() for t in lib.qr(A, some=mode == "reduced")), **TOL),
    OpInfo("geqrf", lambda d, r: [SampleInput((rand((4, 3), d, r),)), SampleInput((rand((2, 3, 3), d, r),))],
           ref=_np_signfree_qr, op=_geqrf_op, differentiable=False, **TOL),
    OpInfo("linalg_householder_product", _householder_samples, ref=_np_householder,
           op=lambda lib, *a: lib.linalg.householder_product(*a), differentiable=False, **TOL),
    OpInfo("orgqr", _householder_samples, ref=_np_householder, differentiable=False, supports_out=True, **TOL),
    OpInfo("ormqr", lambda d, r: [SampleInput((rand((4, 3), d, r), rand((4, 2), d, r))),
                                  SampleInput((rand((3, 3), d, r), rand((2, 3), d, r)), {"left": False}),
                                  SampleInput((rand((4, 4), d, r), rand((4, 2), d, r)), {"transpose": True})],
           ref=None, op=_ormqr_op, differentiable=False, **TOL),
    # symmetric eigen
    OpInfo("linalg_eigh", lambda d, r: [SampleInput((rand((3, 3), d, r),)),
                                        SampleInput((rand((2, 4, 4), d, r),), {"UPLO": "U"})],
           ref=_np_eigh, op=_eigh_op, covers=("_linalg_eigh",), **TOL),
    OpInfo("linalg_eigvalsh", lambda d, r: [SampleInput((rand((3, 3), d, r),)),
                                            SampleInput((rand((2, 4, 4), d, r),), {"UPLO": "U"})],
           ref=lambda A, UPLO="L": np.linalg.eigvalsh(A + np.swapaxes(A, -1, -2), UPLO),
           op=lambda lib, A, **kw: lib.linalg.eigvalsh(_sym_op(lib, A), **kw), **TOL),
    # SVD
    OpInfo("linalg_svd", _svd_samples, ref=_np_svd, op=_svd_op, covers=("_linalg_svd",), **TOL),
    OpInfo("svd", lambda d, r: [SampleInput((rand((4, 3), d, r),)), SampleInput((rand((2, 3, 4), d, r),))],
           ref=_np_legacy_svd, op=_legacy_svd_op, supports_out=True, **TOL),
    OpInfo("linalg_svdvals", _rect_samples, ref=lambda A: np.linalg.svd(A, compute_uv=False),
           op=lambda lib, A: lib.linalg.svdvals(A), **TOL),
    # least squares and pseudo-inverse
    OpInfo("linalg_lstsq", _lstsq_samples, ref=_np_lstsq, op=_lstsq_op, **TOL),
    OpInfo("linalg_pinv", _pinv_samples, ref=_np_pinv, op=_pinv_op, **TOL),
    OpInfo("pinverse", _rect_samples, ref=np.linalg.pinv, **TOL),
    OpInfo("linalg_matrix_rank", _rank_samples, ref=_np_rank, op=_rank_op, differentiable=False),
    # norms and condition numbers
    OpInfo("linalg_matrix_norm", _matrix_norm_samples, ref=_np_matrix_norm,
           op=lambda lib, *a, **kw: lib.linalg.matrix_norm(*a, **kw), **TOL),
    OpInfo("nuclear_norm", lambda d, r: [SampleInput((rand((3, 4), d, r),)),
                                         SampleInput((rand((2, 3, 3), d, r), (0, 2)), {"keepdim": True})],
           ref=lambda A, dim=(-2, -1), keepdim=False: np.linalg.norm(A, "nuc", axis=tuple(dim), keepdims=keepdim),
           supports_out=True, **TOL),
    # torch=False: PyTorch 2.13's backward of cond for 'fro', 1 and inf fails (an in-place write).
    OpInfo("linalg_cond", _cond_samples, ref=lambda A, p=None: np.linalg.cond(A, p),
           op=lambda lib, A, **kw: lib.linalg.cond(A, **kw), torch=False, **TOL),
    # matrix functions and products
    OpInfo("linalg_matrix_power", _power_samples, ref=np.linalg.matrix_power,
           op=lambda lib, *a: lib.linalg.matrix_power(*a), **TOL),
    OpInfo("matrix_power", _power_samples, ref=np.linalg.matrix_power, supports_out=True, **TOL),
    OpInfo("linalg_matrix_exp", _exp_samples, ref=_np_matrix_exp, op=lambda lib, A: lib.linalg.matrix_exp(A), **TOL),
    OpInfo("matrix_exp", _exp_samples, ref=_np_matrix_exp, **TOL),
    OpInfo("linalg_multi_dot", _multi_dot_samples, ref=_np_multi_dot, op=lambda lib, ts: lib.linalg.multi_dot(ts),
           **TOL),
    OpInfo("linalg_cross", _cross_samples, ref=_np_cross, op=lambda lib, *a, **kw: lib.linalg.cross(*a, **kw), **TOL),
    OpInfo("cross", _cross_samples, ref=_np_cross, supports_out=True, **TOL),
    OpInfo("linalg_vecdot", _vecdot_samples, ref=lambda x, y, dim=-1: (x * y).sum(dim),
           op=lambda lib, *a, **kw: lib.linalg.vecdot(*a, **kw), **TOL),
    OpInfo("linalg_tensorinv", _tensorinv_samples, ref=lambda A, ind=2: np.linalg.tensorinv(A, ind),
           op=lambda lib, A, **kw: lib.linalg.tensorinv(A, **kw), **TOL),
    OpInfo("linalg_tensorsolve", _tensorsolve_samples, ref=lambda A, B, dims=None: np.linalg.tensorsolve(A, B, dims),
           op=lambda lib, *a, **kw: lib.linalg.tensorsolve(*a, **kw), **TOL),
    OpInfo("linalg_vander", _vander_samples,
           ref=lambda x, N=None: np.stack([x ** i for i in range(N or x.shape[-1])], -1),
           op=lambda lib, x, **kw: lib.linalg.vander(x, **kw), **TOL),
    OpInfo("linalg_eig", _general_square_samples, ref=_np_eig_invariants, op=_eig_invariants, covers=("_linalg_eig",),
           supports_out=False, gradgrad=False, **TOL),
    OpInfo("linalg_eigvals", _general_square_samples, op=lambda lib, A: tuple(
        p.sort(-1)[0] for p in (lib.linalg.eigvals(A).real, lib.linalg.eigvals(A).imag)),
        ref=lambda A: tuple(np.sort(p, -1) for p in (np.linalg.eigvals(A).real, np.linalg.eigvals(A).imag)),
        gradgrad=False, **TOL),
    # torch=False: PyTorch 2.13's vander backward fails ("modified by an inplace operation"); the
    # values are checked against NumPy and the gradient by gradcheck.
    OpInfo("vander", lambda d, r: [SampleInput((rand((4,), d, r),)), SampleInput((rand((3,), d, r),), {"N": 5}),
                                   SampleInput((rand((3,), d, r),), {"N": 2, "increasing": True}),
                                   SampleInput((rand((3,), d, r),), {"N": 0}, grad=False)],
           ref=lambda x, N=None, increasing=False: np.vander(x.astype(np.int64) if x.dtype.kind in "biu" else x, N,
                                                             increasing), dtypes=(*FLOATING, tl.int32, tl.bool),
           torch=False, **TOL),
    OpInfo("lu", _general_square_samples, yaml=False,
           ref=lambda A, **kw: _lu_factor_ref(A), op=lambda lib, A, **kw: lib.lu(A, **kw)[0], **TOL),
    OpInfo("linalg_diagonal", lambda d, r: [SampleInput((rand((2, 3, 4), d, r),)),
                                            SampleInput((rand((3, 4, 2), d, r),), {"offset": 1, "dim1": 0, "dim2": 1})],
           ref=lambda A, offset=0, dim1=-2, dim2=-1: np.diagonal(A, offset, dim1, dim2),
           op=lambda lib, A, **kw: lib.linalg.diagonal(A, **kw)),
    OpInfo("linalg_matmul", lambda d, r: [SampleInput((rand((2, 3), d, r), rand((3, 4), d, r)))],
           ref=np.matmul, op=lambda lib, *a: lib.linalg.matmul(*a), **TOL),
]

