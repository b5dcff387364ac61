"""The fast paths of the CPU kernels (rows of reductions and layer norm, gather, index_select,
the embedding gradient, max pooling) against PyTorch at 1 and 2 threads. Tensors are above the
kernels' serial cut-offs (32K-64K elements), with odd sizes so thread ranges split unevenly."""

import os
import subprocess
import sys

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


@pytest.fixture(params=[1, 2], ids=["1t", "2t"])
def threads(request):
    before = tl.get_num_threads()
    tl.set_num_threads(request.param)
    yield request.param
    tl.set_num_threads(before)


def _pair(a):
    return tl.tensor(a), torch.tensor(a)


# ---- gather / index_select / embedding ---------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gather_matches_torch(threads, dtype, dim):
    rng = np.random.default_rng(dim)
    x = (rng.standard_normal((37, 45, 61)) * 100).astype(dtype)
    shape = [35, 43, 59]
    shape[dim] = 70  # the gathered dim may be longer than self's
    idx = rng.integers(0, x.shape[dim], shape)
    (tx, px), (ti, pi) = _pair(x), _pair(idx)
    np.testing.assert_array_equal(tl.gather(tx, dim, ti).numpy(), torch.gather(px, dim, pi).numpy())
    # The same values in non-contiguous (transposed) self and index.
    (tx, px), (ti, pi) = (tuple(t.transpose(0, 2) for t in _pair(a.transpose(2, 1, 0).copy())) for a in (x, idx))
    assert not tx.is_contiguous() and not ti.is_contiguous()
    np.testing.assert_array_equal(tl.gather(tx, dim, ti).numpy(), torch.gather(px, dim, pi).numpy())


@pytest.mark.parametrize("bad", [-1, 61])
def test_gather_out_of_range_raises(threads, bad):
    x = tl.zeros(300, 61)
    idx = np.zeros((300, 61), dtype=np.int64)
    idx[250, 7] = bad
    with pytest.raises(RuntimeError, match=f"index {bad} is out of bounds for dimension 1 with size 61"):
        tl.gather(x, 1, tl.tensor(idx))


def test_gather_out_matches_torch_and_is_left_alone_on_a_bad_index(threads):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 61)).astype(np.float32)
    idx = rng.integers(0, 61, (300, 61))
    ref = torch.gather(torch.tensor(x), 1, torch.tensor(idx)).numpy()
    out = tl.full((300, 61), 7.0)
    assert tl.gather(tl.tensor(x), 1, tl.tensor(idx), out=out) is out
    np.testing.assert_array_equal(out.numpy(), ref)
    y = tl.tensor(x)  # out aliasing self: self is read from a copy
    tl.gather(y, 1, tl.tensor(idx), out=y)
    np.testing.assert_array_equal(y.numpy(), ref)
    idx[250, 7] = 61
    out = tl.full((300, 61), 7.0)
    with pytest.raises(RuntimeError, match="index 61 is out of bounds for dimension 1 with size 61"):
        tl.gather(tl.tensor(x), 1, tl.tensor(idx), out=out)
    assert (out.numpy() == 7).all()  # the index is checked before out is written


def test_scatter_index_check_holds_with_fewer_threads_than_chunks():
    """The parallel index check ORs every chunk a thread runs: with OMP_THREAD_LIMIT below
    OMP_NUM_THREADS one thread runs several chunks, and a bad value in an early chunk used to be
    forgotten (then scatter_ wrote out of bounds)."""
    code = (
        "import torchlite as tl\n"
        "n = (1 << 20) + 100\n"
        "x, idx = tl.zeros(n), tl.zeros(n, dtype=tl.int64)\n"
        "idx[0] = n\n"
        "try:\n"
        "    x.scatter_(0, idx, tl.ones(n))\n"
        "except RuntimeError as e:\n"
        "    print('raised', 'out of bounds' in str(e))\n"
    )
    env = dict(os.environ, OMP_NUM_THREADS="4", OMP_THREAD_LIMIT="2")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "raised True"


@pytest.mark.parametrize("dim", [0, 1])
def test_index_select_matches_torch(threads, dim):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((301, 257)).astype(np.float32)
    idx = rng.integers(0, x.shape[dim], 333)
    (tx, px), (ti, pi) = _pair(x), _pair(idx)
    np.testing.assert_array_equal(tl.index_select(tx, dim, ti).numpy(), torch.index_select(px, dim, pi).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [0, 7, 100, 515])
def test_embedding_backward_matches_torch(threads, dtype, width):
    rng = np.random.default_rng(width)
    # Rows 50-499 get no gradient (the kernel zeroes the rows no index hits, stores the first
    # gradient of the others and adds the rest).
    w = rng.standard_normal((500, width)).astype(dtype)
    tok = rng.integers(0, 50, (40, 37))  # many repeats of every row below 50
    g = rng.standard_normal((40, 37, width)).astype(dtype)
    for kwargs in ({}, {"padding_idx": 3, "scale_grad_by_freq": True}):
        tw, pw = (lib.tensor(w, requires_grad=True) for lib in (tl, torch))
        tl.nn.functional.embedding(tl.tensor(tok), tw, **kwargs).backward(tl.tensor(g))
        torch.nn.functional.embedding(torch.tensor(tok), pw, **kwargs).backward(torch.tensor(g))
        tol = 1e-12 if dtype == np.float64 else 1e-5
        np.testing.assert_allclose(tw.grad.numpy(), pw.grad.numpy(), rtol=tol, atol=tol)


# ---- reductions over the inner dim (several rows at a time) ----------------------------------------

INNER_CASES = {
    # name: (shape, how the input is viewed); rows of 301 elements leave a tail after the
    # vector accumulators, 4 * k + 3 rows leave a last group of 3.
    "matrix": ((1023, 301), lambda t: t),
    "uneven rows": ((23, 9, 301), lambda t: t[:, :7]),  # row groups across a gap
    "strided outer": ((600, 2, 301), lambda t: t[:, 1]),
    "expanded": ((1, 301), lambda t: t.expand(700, 301)),
}


@pytest.mark.parametrize("case", list(INNER_CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_sum_inner_dim_matches_torch(threads, case, dtype):
    shape, view = INNER_CASES[case]
    x = np.random.default_rng(3).uniform(-100, 100, shape).astype(dtype)
    tx, px = (view(t) for t in _pair(x))
    ref = view(torch.tensor(x, dtype=torch.float64)).sum(-1, keepdim=True)
    ours = tl.sum(tx, -1, keepdim=True)
    assert ours.shape == ref.shape
    assert ours.dtype == (tl.int64 if dtype == np.int32 else tx.dtype)
    # float32 rows sum in float64: as close to the exact sum as float32 gets.
    np.testing.assert_allclose(ours.numpy().astype(np.float64), ref.numpy(), rtol={np.float32: 1e-6, np.float64: 1e-12}.get(dtype, 0))
    if dtype != np.int32:
        np.testing.assert_allclose(tl.mean(tx, -1).numpy(), px.mean(-1).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["amax", "amin", "prod", "all", "any"])
def test_other_reductions_over_inner_dim(threads, op):
    x = np.random.default_rng(4).uniform(0.9, 1.1, (1023, 301)).astype(np.float32)
    x[5, 17] = np.nan if op in ("amax", "amin") else 0.0  # NaN propagates; a zero decides all()
    tx, px = (t[:, 1:] for t in _pair(x))
    np.testing.assert_allclose(getattr(tl, op)(tx, -1).numpy(), getattr(torch, op)(px, -1).numpy(), rtol=1e-5)


@pytest.mark.parametrize("shape, dims", [((1027, 301), 0), ((6, 4, 7, 300), (0, 2)), ((3, 1021, 65), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_outer_dims_matches_torch(threads, shape, dims, dtype):
    """Reductions whose innermost kept dim is contiguous (rows accumulated four at a time, then
    the rest; one reduced dim or several)."""
    x = np.random.default_rng(5).uniform(-100, 100, shape).astype(dtype)
    ref = torch.tensor(x, dtype=torch.float64).sum(dims)
    ours = tl.sum(tl.tensor(x), dims)
    np.testing.assert_allclose(ours.numpy().astype(np.float64), ref.numpy(), rtol={np.float32: 1e-6}.get(dtype, 1e-12))
    np.testing.assert_array_equal(tl.amax(tl.tensor(x), dims).numpy(), x.max(dims))


# ---- elementwise outputs written with streaming stores -------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_elementwise_outputs_match_numpy(threads, dtype):
    """Outputs of at least 48 MiB (Note [Streaming stores]): out= and copy_ into a misaligned
    view, a broadcast scalar, a strided input, and the vector math path, with odd lengths."""
    n = (50 << 20) // np.dtype(dtype).itemsize + 3
    rng = np.random.default_rng(6)
    x = rng.uniform(-10, 10, 2 * n + 1).astype(dtype)
    a, b = tl.tensor(x[:n]), tl.tensor(x[n:2 * n])
    buf = tl.empty(n + 1, dtype=a.dtype)
    out = buf[1:]  # 4 or 8 bytes past an aligned start: plain stores until 16-byte aligned
    tl.add(a, b, out=out)
    np.testing.assert_array_equal(out.numpy(), x[:n] + x[n:2 * n])
    out.copy_(b)  # the contiguous copy's streaming path
    np.testing.assert_array_equal(out.numpy(), x[n:2 * n])
    np.testing.assert_array_equal((a * 2.5).numpy(), x[:n] * dtype(2.5))
    np.testing.assert_array_equal((tl.tensor(x)[:2 * n:2] - a).numpy(), x[:2 * n:2] - x[:n])
    np.testing.assert_allclose(tl.exp(a).numpy(), np.exp(x[:n]), rtol=1e-6 if dtype == np.float32 else 1e-14)
    # A per-channel bias on 2x2 planes: inner rows of 4 elements take plain stores in a streamed op.
    planes = x[:n // 2048 * 2048].reshape(-1, 512, 2, 2)
    bias = x[:512].reshape(512, 1, 1)
    np.testing.assert_array_equal((tl.tensor(planes) + tl.tensor(bias)).numpy(), planes + bias)


# ---- layer norm rows, max pooling ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [7, 301, 1024])
def test_layer_norm_matches_torch(threads, dtype, width):
    rng = np.random.default_rng(width)
    x = (rng.standard_normal((40000 // width + 3, width)) + 1000).astype(dtype)  # a large mean
    w, b = rng.standard_normal(width).astype(dtype), rng.standard_normal(width).astype(dtype)
    ours = tl.nn.functional.layer_norm(tl.tensor(x), (width,), tl.tensor(w), tl.tensor(b))
    theirs = torch.nn.functional.layer_norm(torch.tensor(x), (width,), torch.tensor(w), torch.tensor(b))
    tol = 1e-10 if dtype == np.float64 else 2e-3
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3), stride=(1, 2), padding=1, dilation=2, ceil_mode=True)])
def test_max_pool2d_nan_ties_and_indices_match_torch(threads, kw):
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 3, (6, 8, 33, 31)).astype(np.float32)  # many ties: the first maximum wins
    x[0, 0, 4:7, 5] = np.nan
    x[1, 2, :, :] = -np.inf
    (tx, px) = _pair(x)
    ours, oi = tl.nn.functional.max_pool2d(tx, return_indices=True, **kw)
    theirs, pi = torch.nn.functional.max_pool2d(px, return_indices=True, **kw)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    np.testing.assert_array_equal(oi.numpy(), pi.numpy())
