"""Convolution, pooling, padding and interpolation: errors, semantics and larger shapes against
PyTorch (the registry in tests/opinfo/conv_pool.py covers values and gradients on small inputs)."""

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F
from helpers import TORCH, assert_close

needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed")


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _both(*arrays, grad=False):
    ours = [tl.tensor(a, requires_grad=grad) for a in arrays]
    theirs = [TORCH.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]
    return ours, theirs


# ---- convolution --------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: F.conv2d(tl.zeros(2, 4, 7, 7), tl.zeros(8, 3, 3, 3)),
     r"Given groups=1, weight of size \[8, 3, 3, 3\], expected input\[2, 4, 7, 7\] to have 3 channels, but got 4"),
    (lambda: F.conv2d(tl.zeros(2, 3, 2, 2), tl.zeros(8, 3, 3, 3)),
     r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\)"),
    (lambda: F.conv2d(tl.zeros(2, 3, 7, 7), tl.zeros(8, 3, 3, 3, dtype=tl.float64)),
     r"Input type \(float\) and weight type \(double\) should be the same"),
    (lambda: F.conv2d(tl.zeros(2, 3, 7, 7), tl.zeros(8, 3, 3, 3), tl.zeros(7)),
     "expected bias to be 1-dimensional with 8 elements, but got bias of size"),
    (lambda: F.conv2d(tl.zeros(2, 4, 7, 7), tl.zeros(7, 2, 3, 3), groups=2),
     "expected weight to be divisible by 2 at dimension 0"),
    (lambda: F.conv2d(tl.zeros(2, 4, 7, 7), tl.zeros(8, 2, 3, 3), groups=0), "non-positive groups is not supported"),
    (lambda: F.conv2d(tl.zeros(2, 4, 7, 7), tl.zeros(8, 4, 3, 3), stride=0), "non-positive stride is not supported"),
    (lambda: F.conv2d(tl.zeros(2, 4, 7, 7), tl.zeros(8, 4, 3, 3), padding=-1), "negative padding is not supported"),
    (lambda: F.conv2d(tl.zeros(2, 4, 7, 7), tl.zeros(8, 4, 3, 3), dilation=0),
     "non-positive dilation is not supported"),
    (lambda: F.conv2d(tl.zeros(4, 7), tl.zeros(8, 4, 3, 3)),
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[4, 7\]"),
    (lambda: F.conv1d(tl.zeros(2, 4, 7, 7), tl.zeros(8, 4, 3)), "Expected 2D .unbatched. or 3D .batched. input to conv1d"),
    (lambda: F.conv_transpose2d(tl.zeros(2, 4, 7, 7), tl.zeros(4, 2, 3, 3), output_padding=1),
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
     "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1"),
    (lambda: F.conv_transpose2d(tl.zeros(2, 4, 7, 7), tl.zeros(3, 2, 3, 3)),
     r"Given transposed=1, weight of size \[3, 2, 3, 3\], expected input\[2, 4, 7, 7\] to have 3 channels"),
    (lambda: F.conv2d(tl.zeros(1, 4, 7, 7), tl.zeros(8, 4, 3, 3), padding="full"), "Invalid padding string: 'full'"),
    (lambda: F.conv2d(tl.zeros(1, 4, 7, 7), tl.zeros(8, 4, 3, 3), padding="same", stride=2),
     "padding='same' is not supported for strided convolutions"),
    (lambda: tl.convolution(tl.zeros(1, 4, 7, 7), tl.zeros(8, 4, 3), None, [1], [0], [1], False, [0], 1),
     "Expected 3-dimensional input for 3-dimensional weight"),
])
def test_conv_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


@needs_torch
@pytest.mark.parametrize("n, c, o, hw, k, kw", [
    (8, 3, 16, 12, 3, {"padding": 1}),
    (4, 16, 32, 9, 3, {"stride": 2, "groups": 4}),
    (3, 8, 8, 10, 1, {}),
    (5, 6, 4, 11, 5, {"dilation": 2, "padding": 3}),
])
def test_conv2d_larger_matches_torch(n, c, o, hw, k, kw):
    groups = kw.get("groups", 1)
    x, w, b = _r(n, c, hw, hw), _r(o, c // groups, k, k, seed=1), _r(o, seed=2)
    (tx, tw, tb), (px, pw, pb) = _both(x, w, b, grad=True)
    ours, theirs = F.conv2d(tx, tw, tb, **kw), TORCH.nn.functional.conv2d(px, pw, pb, **kw)
    assert_close(ours, theirs.detach().numpy(), rtol=1e-10, atol=1e-10)
    g = _r(*theirs.shape, seed=3)
    ours.backward(tl.tensor(g))
    theirs.backward(TORCH.from_numpy(g))
    for a, b_ in ((tx, px), (tw, pw), (tb, pb)):
        assert_close(a.grad, b_.grad.numpy(), rtol=1e-10, atol=1e-10)


@needs_torch
def test_conv_transpose2d_larger_matches_torch():
    x, w = _r(4, 8, 7, 6), _r(8, 3, 4, 3, seed=1)
    (tx, tw), (px, pw) = _both(x, w, grad=True)
    kw = {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2, "dilation": (1, 2)}
    ours, theirs = F.conv_transpose2d(tx, tw, **kw), TORCH.nn.functional.conv_transpose2d(px, pw, **kw)
    assert_close(ours, theirs.detach().numpy(), rtol=1e-10, atol=1e-10)
    g = _r(*theirs.shape, seed=3)
    ours.backward(tl.tensor(g))
    theirs.backward(TORCH.from_numpy(g))
    assert_close(tx.grad, px.grad.numpy(), rtol=1e-10, atol=1e-10)
    assert_close(tw.grad, pw.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_conv_grads_only_where_needed():
    x = tl.tensor(_r(2, 3, 5, 5))
    w = tl.tensor(_r(4, 3, 3, 3), requires_grad=True)
    y = F.conv2d(x, w)
    (gw,) = tl.autograd.grad(y.sum(), [w])
    assert tuple(gw.shape) == (4, 3, 3, 3) and x.grad is None


def test_conv_float32_and_threads():
    x, w = _r(6, 3, 16, 16).astype(np.float32), _r(8, 3, 3, 3, seed=1).astype(np.float32)
    single = F.conv2d(tl.tensor(x), tl.tensor(w), padding=1)
    threads = tl.get_num_threads()
    try:
        tl.set_num_threads(max(2, threads))
        multi = F.conv2d(tl.tensor(x), tl.tensor(w), padding=1)
    finally:
        tl.set_num_threads(threads)
    assert single.dtype == tl.float32
    assert_close(single, multi.numpy(), rtol=1e-5, atol=1e-5)


def test_conv_bfloat16_runs_in_float():
    x, w = tl.tensor(_r(1, 2, 5, 5)).to(tl.bfloat16), tl.tensor(_r(3, 2, 3, 3, seed=1)).to(tl.bfloat16)
    y = F.conv2d(x, w)
    assert y.dtype == tl.bfloat16
    ref = F.conv2d(x.float(), w.float())
    assert_close(y.float(), ref.numpy(), rtol=2e-2, atol=5e-2)
