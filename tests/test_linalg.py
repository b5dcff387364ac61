"""mm / bmm / matmul vs NumPy (and PyTorch when installed): layouts, dtypes, broadcasting,
out= and error messages."""

import contextlib

import numpy as np
import pytest

import torchlite as tl
from helpers import assert_close, random_array
from test_reductions import LAYOUTS, TORCH_DTYPE, make, to_torch, torch

DTYPES = [tl.float32, tl.float64, tl.int32, tl.int64, tl.float16]


def ref_matmul(a, b):
    if a.dtype == np.float16:
        return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    if np.issubdtype(a.dtype, np.floating):
        return (a.astype(np.float64) @ b.astype(np.float64)).astype(a.dtype)
    return a @ b


def tol(dtype, k):
    if dtype == tl.float16:
        return dict(rtol=1e-2, atol=1e-1)
    if dtype == tl.float32:
        return dict(rtol=1e-4, atol=1e-4 * max(k, 1))
    return {}


MM_SHAPES = [(3, 4, 5), (1, 7, 3), (6, 5, 1), (1, 9, 1), (70, 130, 90), (0, 3, 4), (3, 0, 4), (3, 4, 0)]


@pytest.mark.parametrize("layout_b", LAYOUTS)
@pytest.mark.parametrize("layout_a", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_mm(dtype, layout_a, layout_b):
    for m, k, n in MM_SHAPES:
        if (m == 0 or k == 0 or n == 0) and (layout_a != "contiguous" or layout_b != "contiguous"):
            continue
        a = random_array((m, k), dtype, low=-3, high=3)
        b = random_array((k, n), dtype, low=-3, high=3)
        got = tl.mm(make(a, layout_a), make(b, layout_b))
        assert_close(got, ref_matmul(a, b), **tol(dtype, k))
        if torch is not None and dtype != tl.float16:
            assert TORCH_DTYPE[got.dtype] == torch.mm(to_torch(a), to_torch(b)).dtype


def test_mm_large_blocks():
    # Crosses the KC and NC block edges and several MR/NR edge tiles.
    a = random_array((37, 300), tl.float32)
    b = random_array((300, 2100), tl.float32)
    assert_close(make(a) @ make(b), ref_matmul(a, b), rtol=1e-4, atol=1e-3)
    a = random_array((300, 260), tl.float64)
    b = random_array((260, 301), tl.float64)
    assert_close(tl.mm(make(a, "transposed"), make(b, "sliced")), a @ b)
    # linear's x @ weight.t(): a column-major B over two depth blocks (the first stores, the next adds)
    x = random_array((37, 300), tl.float32)
    w = random_array((70, 300), tl.float32)
    assert_close(make(x) @ make(w).t(), x @ w.T, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_mm_tile_edges_and_weight_layout(dtype, threads):
    # Row counts around the micro-kernel's tile height (6 or 12; a last panel of 1, 8 or 4 rows)
    # and one parallel tile (96 rows: below it each thread packs its own B panels, or reads them
    # in place); B column-major as in x @ W.T, and row-major.
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        for m, k, n in [(13, 300, 1030), (20, 64, 70), (64, 257, 100), (97, 40, 65)]:
            a = random_array((m, k), dtype)
            b = random_array((n, k), dtype)
            assert_close(make(a) @ make(b).t(), ref_matmul(a, b.T), **tol(dtype, k))
            assert_close(make(a) @ make(b.T.copy()), ref_matmul(a, b.T), **tol(dtype, k))
    finally:
        tl.set_num_threads(before)


def torch_layout(a, layout):
    """`a` as a PyTorch tensor in the layout make() gives torchlite."""
    if layout == "transposed":
        return torch.from_numpy(np.ascontiguousarray(a.T)).t()
    if layout == "sliced":
        big = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
        big[:, ::2] = a
        return torch.from_numpy(big)[:, ::2]
    return torch.from_numpy(np.ascontiguousarray(a))


# Shapes around the thread split of the CPU GEMM (Note [CPU GEMM], Gemm.h): few rows and many
# columns (split over N; B read in place, its rows 4 or 8 KiB apart), many rows and few columns
# (split over M), both, tile edges on each side, and n < NR (computed as C^T = B^T A^T) with A
# column-major, strided and row-major.
GEMM_SPLIT_SHAPES = [(5, 257, 1024), (16, 300, 1030), (37, 64, 2048), (61, 129, 97), (200, 70, 33), (130, 260, 40),
                     (97, 513, 300), (300, 50, 7), (257, 90, 13), (512, 300, 16)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_mm_thread_split_matches_torch(dtype, threads):
    torch = pytest.importorskip("torch")
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        for i, (m, k, n) in enumerate(GEMM_SPLIT_SHAPES):
            a, b = random_array((m, k), dtype), random_array((k, n), dtype)
            lay_a, lay_b = LAYOUTS[i % 3], LAYOUTS[(i // 3 + i) % 3]
            got = tl.mm(make(a, lay_a), make(b, lay_b))
            want = torch.mm(torch_layout(a, lay_a), torch_layout(b, lay_b)).numpy()
            assert_close(got, want, **tol(dtype, k))
    finally:
        tl.set_num_threads(before)



@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_mm_packed_b_blocks_match_torch(dtype, threads):
    # Several row tiles per thread, so that B is packed a KC x NC block at a time: whole and partial
    # panels, products wider than one NC block (1024 float, 256 double columns), and B contiguous
    # or a column slice of a wider matrix (rows further apart than n).
    torch = pytest.importorskip("torch")
    with num_threads(threads):
        for m, k, n in [(100, 300, 1100), (300, 257, 1030), (250, 40, 70), (1024, 64, 1024)]:
            a, wide = random_array((m, k), dtype), random_array((k, n + 37), dtype)
            want = torch.mm(torch.from_numpy(a), torch.from_numpy(wide[:, 37:].copy())).numpy()
            for b in (tl.tensor(wide[:, 37:].copy()), tl.tensor(wide)[:, 37:]):
                assert_close(tl.mm(tl.tensor(a), b), want, **tol(dtype, k))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_mm_misaligned_b_matches_torch(dtype, threads):
    """A row-major B whose rows start off a cache line (NumPy memory, shared by from_numpy): the GEMM
    computes the columns up to the first line boundary as a strip of their own (Note [CPU GEMM])."""
    torch = pytest.importorskip("torch")
    np_dtype = np.float32 if dtype == tl.float32 else np.float64
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        rng = np.random.default_rng(0)
        for m, k, n, offset in [(16, 300, 1024, 1), (5, 70, 512, 3), (13, 257, 80, 7), (40, 33, 1040, 2)]:
            base = rng.standard_normal(k * n + 64).astype(np_dtype)
            start = (-base.ctypes.data // base.itemsize) % (64 // base.itemsize) + offset
            b = base[start:start + k * n].reshape(k, n)
            assert b.ctypes.data % 64 != 0
            a = rng.standard_normal((m, k)).astype(np_dtype)
            tb = tl.from_numpy(b)
            assert tb.data_ptr() == b.ctypes.data
            got = tl.mm(tl.from_numpy(a), tb)
            assert_close(got, torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy(), **tol(dtype, k))
    finally:
        tl.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_mm_tall_column_major_a_matches_torch(dtype, threads):
    """dy^T x of a weight gradient: A column-major and taller than one tile of C, so that its tiles
    are packed one at a time, a depth step across the tile at once, with a last partial tile."""
    torch = pytest.importorskip("torch")
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        for m, k, n in [(200, 300, 70), (1031, 65, 40), (97, 513, 300)]:
            a, b = random_array((m, k), dtype), random_array((k, n), dtype)
            got = tl.mm(make(a, "transposed"), make(b))
            want = torch.mm(torch_layout(a, "transposed"), torch_layout(b, "contiguous")).numpy()
            assert_close(got, want, **tol(dtype, k))
    finally:
        tl.set_num_threads(before)

@contextlib.contextmanager
def num_threads(n):
    """torchlite's intra-op threads set to n inside the block."""
    before = tl.get_num_threads()
    tl.set_num_threads(n)
    try:
        yield
    finally:
        tl.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_mm_narrow_n_matches_torch(dtype, threads):
    """At most 16 float (8 double) columns with contiguous rows: computed unpacked on AVX-512
    (Note [CPU GEMM]); row blocks of 8 with a remainder, 64-row chunks split over threads, depth
    blocks of 256 (the later ones add to C), and rows of A and B further apart than their length."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    with num_threads(threads):
        for m, k, n in [(512, 600, 16), (70, 300, 15), (9, 257, 8), (7, 40, 5), (131, 520, 3), (300, 1000, 2)]:
            a = rng.standard_normal((m, k + 3)).astype(np.float32 if dtype == tl.float32 else np.float64)
            b = rng.standard_normal((k, n + 5)).astype(a.dtype)
            want = torch.mm(torch.from_numpy(a)[:, :k], torch.from_numpy(b)[:, :n]).numpy()
            assert_close(tl.mm(tl.from_numpy(a)[:, :k], tl.from_numpy(b)[:, :n]), want, **tol(dtype, k))
            assert_close(tl.mm(make(a[:, :k]), make(b[:, :n])), want, **tol(dtype, k))


def test_mm_method_and_operator():
    a = random_array((4, 3), tl.float64)
    b = random_array((3, 2), tl.float64)
    assert_close(make(a).mm(make(b)), a @ b)
    assert_close(make(a) @ make(b), a @ b)
    assert_close(make(a).matmul(make(b)), a @ b)


MATMUL_SHAPES = [
    ((3,), (3,)),             # dot -> 0-dim
    ((2, 3), (3,)),           # matrix-vector
    ((3,), (3, 4)),           # vector-matrix
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),      # batch folded into rows
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (4, 3, 2)),  # broadcast batch dims
    ((1, 2, 3), (6, 3, 1)),
    ((0, 2, 3), (3, 4)),
    ((2, 0), (0, 3)),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.int64])
def test_matmul(dtype, layout):
    for sa, sb in MATMUL_SHAPES:
        lay = layout if 0 not in sa + sb else "contiguous"
        a = random_array(sa, dtype, low=-3, high=3)
        b = random_array(sb, dtype, low=-3, high=3)
        got = tl.matmul(make(a, lay), make(b, lay))
        exp = np.asarray(ref_matmul(a, b))
        assert_close(got, exp, **tol(dtype, sa[-1]))
        if torch is not None:
            texp = torch.matmul(to_torch(a), to_torch(b))
            assert tuple(got.shape) == tuple(texp.shape)
            assert TORCH_DTYPE[got.dtype] == texp.dtype


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.int32, tl.float16])
def test_bmm(dtype, layout):
    for bs, m, k, n in [(4, 3, 5, 2), (2, 1, 4, 6), (3, 6, 4, 1), (64, 16, 8, 16), (2, 70, 40, 50), (0, 2, 3, 4)]:
        lay = layout if bs else "contiguous"
        a = random_array((bs, m, k), dtype, low=-3, high=3)
        b = random_array((bs, k, n), dtype, low=-3, high=3)
        got = tl.bmm(make(a, lay), make(b, lay))
        assert_close(got, ref_matmul(a, b), **tol(dtype, k))


def test_large_matvec_paths():
    A = random_array((300, 400), tl.float32)
    v = random_array((400,), tl.float32)
    w = random_array((300,), tl.float32)
    assert_close(make(A) @ make(v), ref_matmul(A, v), rtol=1e-4, atol=1e-3)
    assert_close(make(A, "transposed") @ make(v), ref_matmul(A, v), rtol=1e-4, atol=1e-3)
    assert_close(make(w) @ make(A), ref_matmul(w, A), rtol=1e-4, atol=1e-3)
    assert_close(make(w) @ make(A, "transposed"), ref_matmul(w, A), rtol=1e-4, atol=1e-3)
    assert_close(make(v) @ make(v, "sliced"), ref_matmul(v, v), rtol=1e-4, atol=1e-3)


def test_out_variants():
    a = random_array((4, 3), tl.float32)
    b = random_array((3, 5), tl.float32)
    o = tl.empty(1)
    r = tl.mm(make(a), make(b), out=o)
    assert r is o and tuple(o.shape) == (4, 5)
    assert_close(o, ref_matmul(a, b), rtol=1e-5)
    o = tl.empty((4, 5))
    tl.matmul(make(a), make(b), out=o)
    assert_close(o, ref_matmul(a, b), rtol=1e-5)
    o = tl.empty(0)
    tl.matmul(make(a), make(b[:, 0].copy()), out=o)
    assert_close(o, ref_matmul(a, b[:, 0]), rtol=1e-5)
    ba = random_array((2, 4, 3), tl.float64)
    bb = random_array((2, 3, 5), tl.float64)
    o = tl.empty((2, 4, 5), dtype=tl.float64)
    r = tl.bmm(make(ba), make(bb), out=o)
    assert r is o
    assert_close(o, ba @ bb)
    # out= as a non-contiguous (transposed) view
    base = make(np.zeros((5, 4), np.float32))
    ot = base.as_strided((4, 5), (1, 4))
    tl.mm(make(a), make(b), out=ot)
    assert_close(base, ref_matmul(a, b).T, rtol=1e-5)


def test_errors():
    f32 = lambda *s: make(np.zeros(s, np.float32))  # noqa: E731
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        tl.mm(f32(2, 3), f32(4, 5))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        f32(2, 3) @ f32(4, 5)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        tl.mm(f32(2, 3), make(np.zeros((3, 4))))
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        tl.mm(f32(2, 3, 4), f32(3, 4))
    with pytest.raises(RuntimeError, match="mat2 must be a matrix"):
        tl.mm(f32(2, 3), f32(3))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tl.mm(f32(2, 3), f32(3, 4), out=tl.empty((2, 4), dtype=tl.float64))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.mm(make(np.zeros((2, 3), bool)), make(np.zeros((3, 2), bool)))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        tl.bmm(f32(3, 4), f32(3, 4, 5))
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: \[2, 4\]"):
        tl.bmm(f32(2, 3, 4), f32(2, 5, 5))
    with pytest.raises(RuntimeError, match="expected scalar type"):
        tl.bmm(f32(2, 3, 4), make(np.zeros((2, 4, 5))))
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        tl.matmul(f32(3), f32(4))
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"):
        tl.matmul(f32(2, 3), f32(4))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"):
        tl.matmul(f32(3), f32(4, 5))
    with pytest.raises(RuntimeError, match="must match the size of tensor"):
        tl.matmul(f32(2, 2, 3), f32(3, 3, 4))
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        tl.matmul(make(np.float32(1)), f32(3))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tl.matmul(f32(2, 3), f32(3, 4), out=tl.empty((2, 4), dtype=tl.float64))


def test_dtype_matches_torch():
    if torch is None:
        pytest.skip("torch not installed")
    for dtype in [tl.float32, tl.float64, tl.int64, tl.int32]:
        a = random_array((2, 3), dtype)
        got = make(a) @ make(a.T.copy())
        assert TORCH_DTYPE[got.dtype] == (to_torch(a) @ to_torch(a.T.copy())).dtype
        assert_close(got, (to_torch(a) @ to_torch(a.T.copy())).numpy(), rtol=1e-5)


def test_lu_unpack_out_writes_the_three_factors():
    A = tl.tensor(random_array((3, 4, 4), tl.float64))
    LU, piv = tl.linalg.lu_factor(A)
    P, L, U = tl.lu_unpack(LU, piv)
    outs = tuple(tl.empty(0, dtype=tl.float64) for _ in range(3))
    result = tl.lu_unpack(LU, piv, out=outs)
    assert all(r is o for r, o in zip(result, outs))
    for got, expected in zip(outs, (P, L, U)):
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert_close(P @ L @ U, A.numpy(), atol=1e-12)
    with pytest.raises(RuntimeError, match="dtype"):
        tl.lu_unpack(LU, piv, out=(tl.empty(0), tl.empty(0), tl.empty(0)))


def test_complex_vecdot_and_vector_norm_against_numpy():
    # vecdot conjugates its first argument (the inner product of C^n); norms of complex vectors
    # are norms of their moduli.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    y = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    assert_close(tl.linalg.vecdot(tl.tensor(x), tl.tensor(y)), np.sum(np.conj(x) * y, axis=-1))
    assert_close(tl.linalg.vecdot(tl.tensor(x), tl.tensor(y), dim=0), np.sum(np.conj(x) * y, axis=0))
    for ord in (0, 1, 2, 3.5, float("inf"), -float("inf")):
        got = tl.linalg.vector_norm(tl.tensor(x), ord, dim=1)
        assert got.dtype == tl.float64
        assert_close(got, np.linalg.norm(x, ord, axis=1))


@pytest.mark.parametrize("ord", [1, 2, 3, 0.5, float("inf")])
def test_complex_vector_norm_gradients_against_torch(ord):
    torch = pytest.importorskip("torch")
    z = np.array([[1 + 2j, 3 - 1j, -0.5j], [2 - 2j, 0.25 + 1j, 1.0 + 0j]])
    grads = []
    for lib in (tl, torch):
        t = lib.tensor(z, requires_grad=True)
        lib.linalg.vector_norm(t, ord, dim=1).sum().backward()
        grads.append(np.asarray(t.grad.detach().numpy()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)
    # Forward mode: the tangent of a real norm is real, Re(conj(d) . z_t).
    zt = np.array([[0.5 - 1j, 2 + 0.3j, 1j], [1.0 + 0j, -1j, 0.5 + 0.5j]])
    tangents = []
    for lib in (tl, torch):
        with lib.autograd.forward_ad.dual_level():
            d = lib.autograd.forward_ad.make_dual(lib.tensor(z), lib.tensor(zt))
            tangents.append(lib.autograd.forward_ad.unpack_dual(lib.linalg.vector_norm(d, ord, dim=1)).tangent)
    assert tangents[0].dtype == tl.float64
    assert_close(tangents[0], tangents[1].numpy(), rtol=1e-10, atol=1e-12)


def test_vector_norm_dtype_must_keep_complexness():
    z = tl.tensor(np.array([3 + 4j, 1j]))
    with pytest.raises(RuntimeError, match="dtype should be complex for complex inputs, but got Double"):
        tl.linalg.vector_norm(z, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="dtype should be real for real inputs"):
        tl.linalg.vector_norm(tl.ones(3), dtype=tl.complex64)
    assert_close(tl.linalg.vector_norm(z, dtype=tl.complex128), np.array(np.sqrt(26.0)))


def test_complex_matrix_input_says_it_is_not_supported():
    a = tl.tensor(np.eye(3) * (1 + 1j))
    with pytest.raises(RuntimeError, match="linalg.det: complex inputs are not supported yet"):
        tl.linalg.det(a)
