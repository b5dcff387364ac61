"""Randomized low-rank factorizations: svd_lowrank and pca_lowrank.

The range of A is found by randomized subspace iteration (Halko, Martinsson and Tropp, "Finding
structure with randomness", 2011, Algorithm 4.4): Q spans A R for a Gaussian R, refined by
`niter` passes through A^H and A with QR in between; the SVD of the small Q^H A then gives A's
leading singular triplets. For a matrix of rank <= q the result is exact up to rounding; the
random draws use the global generator (torchlite.manual_seed makes them reproducible).
"""

from torchlite import _C, linalg

__all__ = ["pca_lowrank", "svd_lowrank"]


def _mH(x):
    return x.transpose(-2, -1)


def _range(A, q, niter):
    """An orthonormal basis Q (..., m, q) of the approximate range of A (..., m, n)."""
    R = _C.randn((*A.shape[:-2], A.shape[-1], q), dtype=A.dtype, device=A.device)
    Q = linalg.qr(A @ R).Q
    for _ in range(niter):
        Q = linalg.qr(A @ linalg.qr(_mH(A) @ Q).Q).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """svd_lowrank(A, q=6, niter=2, M=None) -> (U, S, V): an approximate rank-q SVD of A - M
    (M broadcast to A; None for none), A ~ U diag(S) V^H, with q at most min(m, n). niter subspace
    iterations sharpen the result for slowly decaying spectra.

    >>> A = torchlite.ones(4, 3)
    >>> U, S, V = torchlite.svd_lowrank(A, q=2)
    >>> S.round(decimals=4)
    tensor([3.4641, 0.0000])
    """
    if not A.is_floating_point():
        raise RuntimeError(f"svd_lowrank: expected a floating-point matrix, got {A.dtype}")
    if A.dim() < 2:
        raise RuntimeError(f"svd_lowrank: expected a matrix or a batch of matrices, got a {A.dim()}-D tensor")
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    if q < 0 or niter < 0:
        raise ValueError(f"svd_lowrank: q and niter must be non-negative, got q={q}, niter={niter}")
    if M is not None:
        A = A - M
    q = min(q, A.shape[-2], A.shape[-1])
    Q = _range(A, q, niter)
    U, S, Vh = linalg.svd(_mH(Q) @ A, full_matrices=False)
    return Q @ U, S, _mH(Vh)


def pca_lowrank(A, q=None, center=True, niter=2):
    """pca_lowrank(A, q=None, center=True, niter=2) -> (U, S, V): svd_lowrank of A with its column
    means removed (center=True); the principal directions are V's columns and S**2 / (m - 1) the
    variances they explain. q defaults to min(6, m, n).

    >>> U, S, V = torchlite.pca_lowrank(torchlite.tensor([[1., 2.], [3., 4.], [5., 6.]]), q=1)
    >>> S
    tensor([4.])
    """
    if A.dim() < 2:
        raise RuntimeError(f"pca_lowrank: expected a matrix or a batch of matrices, got a {A.dim()}-D tensor")
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    if not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    return svd_lowrank(A, q, niter, A.mean(-2, keepdim=True) if center else None)
