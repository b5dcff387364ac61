"""softmax and log_softmax (aten/native/SoftMax.cpp) against PyTorch: contiguous float32 rows
take the vector math layer's fused row kernel (vecmath::softmax_row), other layouts and float64
the generic loops; odd row lengths cover the kernel's vector tail."""

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((1,), 0), ((7,), 0), ((3, 17), 1), ((5, 1003), -1), ((4, 33, 6), 1),
                                       ((4, 6, 33), 2), ((2, 3, 5, 7), 0), ((300, 31), 1)])
def test_softmax_matches_pytorch(shape, dim, dtype):
    x = (np.random.default_rng(0).standard_normal(shape) * 20).astype(dtype)
    for name in ("softmax", "log_softmax"):
        ours = getattr(tl, name)(tl.tensor(x), dim).numpy()
        theirs = getattr(torch, name)(torch.from_numpy(x), dim).numpy()
        info = np.finfo(dtype)
        # log_softmax near a row's maximum is -log(sum), which carries the sum's last bits; softmax
        # rounds subnormal results once more.
        atol = 4 * info.eps if name == "log_softmax" else 4 * info.smallest_subnormal
        np.testing.assert_allclose(ours, theirs, rtol=16 * info.eps, atol=atol)


def test_softmax_special_rows():
    # Rows with -inf (a zero), all -inf (NaN), NaN, +inf, and gaps big enough to underflow e^x
    # to subnormals or zero.
    x = np.array([[0.0, -np.inf, 1.0] + [0.5] * 18,
                  [-np.inf] * 21,
                  [np.nan] + [1.0] * 20,
                  [np.inf] + [1.0] * 20,
                  [0.0, -85.0, -95.0, -104.0, -200.0] + [-1e30] * 16], dtype=np.float32)
    for name in ("softmax", "log_softmax"):
        ours = getattr(tl, name)(tl.tensor(x), 1).numpy()
        theirs = getattr(torch, name)(torch.from_numpy(x), 1).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6 if name == "log_softmax" else 0)
    assert tl.softmax(tl.tensor(x), 1).numpy()[4, 2] > 0  # e^-95: subnormal, not flushed


def test_softmax_backward_matches_pytorch():
    x = np.random.default_rng(1).standard_normal((6, 37)).astype(np.float32)
    g = np.random.default_rng(2).standard_normal((6, 37)).astype(np.float32)
    for name in ("softmax", "log_softmax"):
        for dim in (0, 1):
            a = tl.tensor(x, requires_grad=True)
            getattr(tl, name)(a, dim).backward(tl.tensor(g))
            ta = torch.tensor(x, requires_grad=True)
            getattr(torch, name)(ta, dim).backward(torch.from_numpy(g))
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
def test_log_softmax_backward_rows_match_pytorch(threads):
    # Contiguous float32 rows take the vector exp (row lengths around its 16-lane width and its
    # tail); rows with -inf outputs (e^-inf = 0) and a NaN row.
    rng = np.random.default_rng(3)
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        for rows, n in [(3, 1), (5, 15), (4, 17), (512, 1000)]:
            x = (rng.standard_normal((rows, n)) * 5).astype(np.float32)
            g = rng.standard_normal((rows, n)).astype(np.float32)
            if n > 2:
                x[0, 1] = -np.inf
                x[-1, 0] = np.nan
            y = torch.log_softmax(torch.from_numpy(x), 1)
            theirs = torch._log_softmax_backward_data(torch.from_numpy(g), y, 1, torch.float32).numpy()
            ours = tl._C._log_softmax_backward_data(tl.tensor(g), tl.tensor(y.numpy()), 1, tl.float32).numpy()
            # the row sums (about sqrt(n) in size) differ in their last bits: PyTorch adds in float
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6 * np.sqrt(n))
    finally:
        tl.set_num_threads(before)


def test_softmax_rejects_bad_input():
    with pytest.raises(RuntimeError):
        tl.softmax(tl.tensor([1, 2, 3]), 0)  # integer input
    with pytest.raises(IndexError):
        tl.softmax(tl.ones(3, 4), 2)
