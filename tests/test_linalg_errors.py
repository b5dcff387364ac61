"""torch.linalg's error paths: wrong dtype, non-square or too few dims, singular and
non-positive-definite inputs, bad keywords. Each raises PyTorch's exception type with its wording;
the parametrized table checks ours, and PyTorch's when it is installed."""

import math

import numpy as np
import pytest

import torchlite as tl
from helpers import TORCH


def _f64(m, *shape):
    return m.ones(*shape, dtype=m.float64)


def _singular(m):
    return m.zeros(3, 3, dtype=m.float64)


def _batch_singular(m):
    return m.stack([m.eye(3, dtype=m.float64), m.zeros(3, 3, dtype=m.float64)])


def _not_pd(m):
    return -m.eye(3, dtype=m.float64)


CASES = [
    (lambda m: m.linalg.solve(m.ones(3, 3, dtype=m.long), m.ones(3, dtype=m.long)), RuntimeError,
     "linalg.solve: Expected a floating point or complex tensor as input. Got Long"),
    (lambda m: m.linalg.solve(_f64(m, 2, 3), _f64(m, 2)), RuntimeError,
     "linalg.solve: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda m: m.linalg.solve(_singular(m), _f64(m, 3)), RuntimeError,
     "torch.linalg.solve: The solver failed because the input matrix is singular."),
    (lambda m: m.linalg.solve(_batch_singular(m), _f64(m, 3)), RuntimeError,
     "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."),
    (lambda m: m.linalg.solve(m.eye(3), _f64(m, 3)), RuntimeError,
     "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type Double instead"),
    (lambda m: m.linalg.solve(m.eye(3), m.ones(4)), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"),
    (lambda m: m.linalg.solve(m.eye(3), m.ones(1, 4), left=False), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 1x4)"),
    (lambda m: m.linalg.solve_ex(_singular(m), _singular(m), check_errors=True), RuntimeError,
     "torch.linalg.solve_ex: The solver failed because the input matrix is singular."),
    (lambda m: m.linalg.inv(_singular(m)), RuntimeError,
     "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is "
     "singular."),
    (lambda m: m.linalg.inv(m.zeros(2, 3, 3)), RuntimeError,
     "linalg.inv: (Batch element 0): The diagonal element 1 is zero"),
    (lambda m: m.linalg.inv_ex(_singular(m), check_errors=True), RuntimeError, "linalg.inv_ex: The diagonal element 1"),
    (lambda m: m.linalg.inv(m.ones(3, 3, dtype=m.long)), RuntimeError,
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda m: m.linalg.inv(m.ones(3, 3, dtype=m.float16)), RuntimeError,
     "linalg.inv: Low precision dtypes not supported. Got Half"),
    (lambda m: m.inverse(_f64(m, 2, 3)), RuntimeError,
     "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda m: m.linalg.det(m.ones(3)), RuntimeError,
     "linalg.det: The input tensor A must have at least 2 dimensions."),
    (lambda m: m.det(_f64(m, 2, 3)), RuntimeError, "linalg.det: A must be batches of square matrices"),
    (lambda m: m.linalg.slogdet(_f64(m, 2, 3)), RuntimeError, "linalg.slogdet: A must be batches of square matrices"),
    (lambda m: m.logdet(m.ones(3, 3, dtype=m.long)), RuntimeError,
     "logdet: Expected a floating point or complex tensor as input. Got Long"),
    (lambda m: m.linalg.cholesky(_not_pd(m)), RuntimeError,
     "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the "
     "leading minor of order 1 is not positive-definite)."),
    (lambda m: m.linalg.cholesky(m.stack([m.eye(3, dtype=m.float64), _not_pd(m)])), RuntimeError,
     "linalg.cholesky: (Batch element 1): The factorization could not be completed"),
    (lambda m: m.linalg.cholesky_ex(_not_pd(m), check_errors=True), RuntimeError,
     "linalg.cholesky_ex: The factorization could not be completed"),
    (lambda m: m.linalg.cholesky(m.ones(3)), RuntimeError,
     "linalg.cholesky: The input tensor A must have at least 2 dimensions."),
    (lambda m: m.cholesky_solve(m.ones(3), m.eye(3)), RuntimeError,
     "b should have at least 2 dimensions, but has 1 dimensions instead"),
    (lambda m: m.cholesky_solve(m.ones(4, 1), m.eye(3)), RuntimeError,
     "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 4 by 1"),
    (lambda m: m.cholesky_inverse(_f64(m, 2, 3)), RuntimeError,
     "cholesky_inverse: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda m: m.linalg.lu_factor(m.ones(3)), RuntimeError,
     "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead"),
    (lambda m: m.linalg.lu_factor(_f64(m, 2, 3), pivot=False), RuntimeError,
     "linalg.lu_factor: LU without pivoting is not implemented on the CPU"),
    (lambda m: m.linalg.lu_factor(_singular(m)), RuntimeError,
     "torch.linalg.lu_factor: U[1,1] is zero and using it on lu_solve would result in a division by zero."),
    (lambda m: m.linalg.lu_factor(m.ones(3, 3, dtype=m.long)), NotImplementedError,
     "\"lu_cpu\" not implemented for 'Long'"),
    (lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(3)), m.ones(3)), RuntimeError,
     "linalg.lu_solve: The input tensor B must have at least 2 dimensions."),
    (lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(3)), m.ones(4, 1)), RuntimeError,
     "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"),
    (lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(3), upper=True), RuntimeError,
     "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."),
    (lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(1, 4), upper=True, left=False), RuntimeError,
     "linalg.solve_triangular: Incompatible shapes of A and B for the equation XA = B (3x3 and 1x4)"),
    (lambda m: m.linalg.qr(_f64(m, 2, 3), mode="bad"), RuntimeError,
     "qr received unrecognized mode 'bad' but expected one of 'reduced' (default), 'r', or 'complete'"),
    (lambda m: m.linalg.qr(m.ones(3, 3, dtype=m.long)), RuntimeError,
     "linalg.qr: Expected a floating point or complex tensor as input. Got Long"),
    (lambda m: m.linalg.eigh(_f64(m, 2, 3)), RuntimeError, "linalg.eigh: A must be batches of square matrices"),
    (lambda m: m.linalg.eigh(_singular(m), UPLO="X"), RuntimeError,
     "Expected UPLO argument to be 'L' or 'U', but got X"),
    (lambda m: m.linalg.eigh(m.ones(3, 3, dtype=m.long)), NotImplementedError,
     "\"linalg_eigh_cpu\" not implemented for 'Long'"),
    (lambda m: m.linalg.svd(m.ones(3)), RuntimeError, "linalg.svd: The input tensor A must have at least 2 dimensions."),
    (lambda m: m.linalg.svdvals(m.ones(3)), RuntimeError, "linalg.svd: The input tensor A must have at least 2"),
    (lambda m: m.linalg.svd(_f64(m, 2, 3), driver="gesvd"), RuntimeError,
     "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."),
    (lambda m: m.linalg.lstsq(_f64(m, 2, 3), _f64(m, 2, 3), driver="foo"), RuntimeError,
     "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"),
    (lambda m: m.linalg.lstsq(_f64(m, 2, 3), _f64(m, 3, 2)), RuntimeError,
     "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"),
    (lambda m: m.linalg.matrix_power(_f64(m, 2, 3), 2), RuntimeError,
     "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda m: m.linalg.matrix_power(_singular(m), -1), RuntimeError, "linalg.inv: The diagonal element 1 is zero"),
    (lambda m: m.linalg.matrix_exp(_f64(m, 2, 3)), RuntimeError,
     "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda m: m.linalg.multi_dot([_f64(m, 2, 3)]), RuntimeError, "multi_dot(): expected at least 2 tensors but got 1"),
    (lambda m: m.linalg.multi_dot([_f64(m, 2, 3), _f64(m, 3, 2, 2)]), RuntimeError,
     "multi_dot(): the last tensor must be 1D or 2D but got 3D"),
    (lambda m: m.linalg.cross(_f64(m, 2, 2), _f64(m, 2, 2)), RuntimeError,
     "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2"),
    (lambda m: m.linalg.tensorinv(m.ones(2, 3), ind=1), RuntimeError,
     "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got 3 != 2"),
    (lambda m: m.linalg.cond(_singular(m), 3), RuntimeError, "linalg.cond got an invalid norm type: 3"),
    (lambda m: m.linalg.matrix_norm(_singular(m), 3), RuntimeError, "linalg.matrix_norm: Order 3 not supported."),
    (lambda m: m.linalg.householder_product(_f64(m, 3, 2), _f64(m, 3)), RuntimeError,
     "torch.linalg.householder_product: input.shape[-1] must be greater than or equal to tau.shape[-1]"),
    (lambda m: m.linalg.vander(m.ones(2, 2), N=0), RuntimeError, "N must be greater than 1."),
]


@pytest.mark.parametrize("call,exc,message", CASES, ids=[c[2][:50] for c in CASES])
def test_error(call, exc, message):
    with pytest.raises(exc) as e:
        call(tl)
    assert message in str(e.value)
    if TORCH is not None:
        with pytest.raises(exc) as te:
            call(TORCH)
        assert message in str(te.value), "the expected message is not PyTorch's"


# ---- results that are not errors: singular inputs, empty matrices, named tuples, out= -----------

def test_singular_results_match_torch():
    if TORCH is None:
        pytest.skip("PyTorch is not installed")
    A = np.zeros((3, 3))
    ours, theirs = tl.linalg.slogdet(tl.tensor(A)), TORCH.linalg.slogdet(TORCH.from_numpy(A))
    assert float(ours.sign) == float(theirs.sign) == 0 and float(ours.logabsdet) == -math.inf
    assert float(tl.linalg.det(tl.tensor(A))) == 0
    assert int(tl.linalg.solve_ex(tl.tensor(A), tl.ones(3, dtype=tl.float64)).info) == 1
    assert int(tl.linalg.cholesky_ex(-tl.eye(3)).info) == 1
    assert math.isinf(float(tl.linalg.cond(tl.tensor(A), 1)))
    assert math.isnan(float(tl.logdet(-tl.eye(3, dtype=tl.float64))))


def test_named_tuples():
    A = tl.tensor(np.random.default_rng(0).standard_normal((4, 3)))
    assert tl.linalg.qr(A).Q.shape == (4, 3) and tl.linalg.qr(A).R.shape == (3, 3)
    U, S, Vh = tl.linalg.svd(A, full_matrices=False)
    assert tl.linalg.svd(A).Vh.shape == (3, 3) and tl.linalg.svd(A).U.shape == (4, 4)
    np.testing.assert_allclose(((U * S) @ Vh).numpy(), A.numpy(), atol=1e-12)
    S2 = A.T @ A
    assert tl.linalg.eigh(S2).eigenvalues.shape == (3,) and tl.linalg.eigh(S2).eigenvectors.shape == (3, 3)
    assert tl.linalg.slogdet(S2).logabsdet.shape == () and tl.linalg.slogdet(S2).sign.shape == ()
    lu = tl.linalg.lu_factor(S2)
    assert lu.LU.shape == (3, 3) and lu.pivots.dtype == tl.int32
    P, L, U = tl.linalg.lu(S2)
    np.testing.assert_allclose((P @ L @ U).numpy(), S2.numpy(), atol=1e-12)
    r = tl.linalg.lstsq(A, tl.ones(4, 2, dtype=tl.float64), driver="gelsd")
    assert r.solution.shape == (3, 2) and r.residuals.shape == (2,) and r.rank.dtype == tl.int64
    assert r.singular_values.shape == (3,)


def test_empty_matrices():
    E = tl.zeros(0, 0, dtype=tl.float64)
    assert tl.linalg.inv(E).shape == (0, 0)
    assert float(tl.linalg.det(E)) == 1.0
    assert tl.linalg.cholesky(tl.zeros(2, 0, 0)).shape == (2, 0, 0)
    assert tl.linalg.svdvals(tl.zeros(0, 3)).shape == (0,)


def test_out_forms():
    A = tl.tensor(np.random.default_rng(1).standard_normal((3, 3)) + 3 * np.eye(3))
    B = tl.ones(3, 2, dtype=tl.float64)
    out = tl.empty(0, dtype=tl.float64)
    assert tl.linalg.solve(A, B, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(A.numpy(), B.numpy()))
    assert tl.linalg.inv(A, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.linalg.inv(A.numpy()))
    sign, logabs = tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.float64)
    res = tl.linalg.slogdet(A, out=(sign, logabs))
    assert res[0] is sign and res[1] is logabs
    Q, R = tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.float64)
    tl.linalg.qr(A, out=(Q, R))
    np.testing.assert_allclose((Q @ R).numpy(), A.numpy(), atol=1e-12)


@pytest.mark.parametrize("name,args", [
    ("cross", lambda t: (t[:, :3], t[:, 1:])), ("vecdot", lambda t: (t, t)), ("matrix_power", lambda t: (t, 3)),
    ("multi_dot", lambda t: ([t, t, t],)), ("matmul", lambda t: (t, t)), ("matrix_norm", lambda t: (t, "nuc")),
    ("cond", lambda t: (t,)), ("tensorinv", lambda t: (t, 1)), ("inv_ex", lambda t: (t,)),
    ("cholesky_ex", lambda t: (t @ t.T,)), ("ldl_factor", lambda t: (t + t.T,)), ("solve", lambda t: (t, t)),
    ("householder_product", lambda t: (t, t[0, :2])),
])
def test_linalg_out_forms(name, args):
    t = tl.tensor(np.random.default_rng(3).standard_normal((4, 4)) + 4 * np.eye(4))
    expected = getattr(tl.linalg, name)(*args(t))
    if isinstance(expected, tl.Tensor):
        out = tl.empty(0, dtype=expected.dtype)
        assert getattr(tl.linalg, name)(*args(t), out=out) is out
        np.testing.assert_allclose(out.numpy(), expected.numpy())
    else:
        out = tuple(tl.empty(0, dtype=e.dtype) for e in expected)
        result = getattr(tl.linalg, name)(*args(t), out=out)
        for r, o, e in zip(result, out, expected):
            assert r is o
            np.testing.assert_allclose(o.numpy(), e.numpy())


def test_named_tuple_out_forms():
    # (test_ops.py's out= test rebuilds results as plain tuples, which a named tuple's type cannot take)
    X, M = tl.empty(0), tl.empty(0)
    r = tl.triangular_solve(tl.ones(3, 2), 2 * tl.eye(3), out=(X, M))
    assert r.solution is X and r.cloned_coefficient is M
    np.testing.assert_allclose(X.numpy(), np.full((3, 2), 0.5))
    a, tau = tl.empty(0), tl.empty(0)
    assert tl.geqrf(tl.eye(3), out=(a, tau)).tau is tau


def test_cuda_tensor_solves_on_its_device():
    if not tl.cuda.is_available():
        pytest.skip("no GPU")
    x = tl.linalg.solve(2 * tl.eye(3, device="cuda"), tl.ones(3, device="cuda"))  # Note [Host fallback]
    assert x.device.type == "cuda"
    np.testing.assert_allclose(x.cpu().numpy(), np.full(3, 0.5))


def test_complete_qr_of_a_tall_matrix():
    A = np.random.default_rng(2).standard_normal((5, 3))
    Q, R = tl.linalg.qr(tl.tensor(A), mode="complete")
    assert Q.shape == (5, 5) and R.shape == (5, 3)
    np.testing.assert_allclose((Q @ R).numpy(), A, atol=1e-12)
    np.testing.assert_allclose((Q.T @ Q).numpy(), np.eye(5), atol=1e-12)
    assert tl.linalg.qr(tl.tensor(A), mode="r").Q.shape == (0,)


def test_linalg_error_is_a_runtime_error():
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)
    with pytest.raises(tl.linalg.LinAlgError, match="singular"):
        tl.linalg.inv(tl.zeros(2, 2))
    with pytest.raises(tl.linalg.LinAlgError, match="positive-definite"):
        tl.linalg.cholesky(-tl.eye(2))


def test_det_gradient_at_a_singular_matrix():
    A = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])  # rank 2
    x = tl.tensor(A).requires_grad_()
    tl.linalg.det(x).backward()
    # adj(A)^T: the cofactor matrix.
    cof = np.array([[np.linalg.det(np.delete(np.delete(A, i, 0), j, 1)) * (-1) ** (i + j) for j in range(3)]
                    for i in range(3)])
    np.testing.assert_allclose(x.grad.numpy(), cof, atol=1e-10)
