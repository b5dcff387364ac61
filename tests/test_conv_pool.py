"""Convolution, pooling, padding and interpolation: errors, semantics and larger shapes against
PyTorch (the registry in tests/opinfo/conv_pool.py covers values and gradients on small inputs)."""

import functools

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
    (lambda: F.conv3d(tl.zeros(4, 7), tl.zeros(2, 4, 1, 1, 1)),
     r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d, but got input of size: \[4, 7\]"),
    (lambda: F.conv3d(tl.zeros(1, 2, 4, 4, 4), tl.zeros(2, 2, 5, 5, 5)),
     r"Calculated padded input size per channel: \(4 x 4 x 4\). Kernel size: \(5 x 5 x 5\)"),
    (lambda: F.conv3d(tl.zeros(1, 2, 4, 4, 4), tl.zeros(2, 2, 3, 3, 3), stride=(1, 1)),
     "expected stride to be a single integer value or a list of 3 values"),
    (lambda: F.conv3d(tl.zeros(1, 2, 4, 4, 4), tl.zeros(2, 2, 3, 3, 3), padding="same", stride=2),
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv_transpose3d(tl.zeros(1, 2, 4, 4, 4), tl.zeros(2, 2, 3, 3, 3), output_padding=2),
     "output padding must be smaller than either stride or dilation, but got output_padding_depth: 2 "
     "output_padding_height: 2 output_padding_width: 2 stride_depth: 1 stride_height: 1 stride_width: 1 "
     "dilation_depth: 1 dilation_height: 1 dilation_width: 1"),
    (lambda: tl.convolution(tl.zeros(1, 1, 2, 2, 2, 2), tl.zeros(1, 1, 1, 1, 1, 1), None, [1], [0], [1], False, [0],
                            1), "only 1-d, 2-d and 3-d convolutions are supported, got 4 spatial dimensions"),
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
    (3, 16, 16, 12, 3, {"groups": 16, "padding": 1}),  # depthwise: the direct kernels
    (2, 6, 12, 13, 3, {"groups": 6, "stride": 2, "dilation": (1, 2), "padding": (1, 2)}),  # depthwise x2
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


GEMM_PATH_CASES = [  # (n, c, o, hw, k, kwargs)
    (37, 3, 5, 6, 3, {"padding": 1}),  # small planes: samples share GEMMs, the last chunk shorter
    (9, 12, 20, 5, 1, {}),  # 1x1 over several samples at once
    (12, 4, 6, 9, 3, {"stride": 2, "dilation": 2, "padding": 2, "groups": 2}),
    (5, 8, 160, 4, 3, {"padding": 1}),  # many y channels: the weight gradient's GEMM is gy @ col^T
    (64, 2, 130, 4, 3, {"padding": (1, 0)}),  # ... summed over several chunks
    (1, 16, 24, 23, 1, {}),  # a single large sample: 1x1 on x in place
    (1, 16, 8, 4, 3, {"padding": 1}),  # input gradient as a GEMM with fewer columns than a panel
]
# 3x3 stride-1 convolutions with enough channels and 4x4 output tiles run as Winograd F(4x4, 3x3)
# (the input gradient too, as the forward map of the flipped kernel with padding 2 - padding).
WINOGRAD_CASES = [
    (8, 16, 16, 10, 3, {"padding": 1}),  # partial tiles; a tile count no multiple of the lanes
    (1, 16, 24, 30, 3, {"padding": 2}),  # one sample; the input gradient unpadded
    (4, 20, 17, 18, 3, {"padding": (0, 1)}),  # channels no multiple of the lanes
    (4, 33, 40, 16, 3, {"padding": 1}),
    # fewer x-side than y-side channels: the weight gradient's GEMMs give its transpose (C x O)
    (3, 16, 32, 14, 3, {"padding": 1}),
    (3, 32, 32, 40, 3, {"padding": 1}),  # several chunks, summed (in parallel with 2 threads)
    # 32 tiles and a few more: 2x2 tiles a sample, lane groups across samples; one tile a sample
    # (4x4 planes), the input gradient's weight copied transposed
    (8, 24, 20, 8, 3, {"padding": 1}),
    (33, 17, 36, 4, 3, {"padding": 1}),
]
CONV2D_CASES = GEMM_PATH_CASES + WINOGRAD_CASES


@functools.cache
def _torch_conv2d_case(i):
    """Case i's inputs, output gradient and PyTorch's output and gradients (float64)."""
    n, c, o, hw, k, kw = CONV2D_CASES[i]
    arrays = (_r(n, c, hw, hw), _r(o, c // kw.get("groups", 1), k, k, seed=1), _r(o, seed=2))
    px, pw, pb = (TORCH.from_numpy(a.copy()).requires_grad_(True) for a in arrays)
    y = TORCH.nn.functional.conv2d(px, pw, pb, **kw)
    g = _r(*y.shape, seed=3)
    y.backward(TORCH.from_numpy(g))
    return arrays, g, [t.detach().numpy() for t in (y, px.grad, pw.grad, pb.grad)]


@needs_torch
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", range(len(CONV2D_CASES)))
def test_conv2d_paths_match_torch(case, dtype, threads):
    arrays, g, expected = _torch_conv2d_case(case)
    tx, tw, tb = (tl.tensor(a.astype(dtype), requires_grad=True) for a in arrays)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-3)
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        y = F.conv2d(tx, tw, tb, **CONV2D_CASES[case][5])
        y.backward(tl.tensor(g.astype(dtype)))
    finally:
        tl.set_num_threads(before)
    for ours, theirs in zip((y, tx.grad, tw.grad, tb.grad), expected):
        assert_close(ours, theirs.astype(dtype), **tol)


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


@needs_torch
def test_conv_transpose2d_winograd_matches_torch():
    # stride 1: the transposed convolution is Bx, which runs as Winograd here, bias fused.
    x, w, b = _r(4, 16, 14, 14), _r(16, 24, 3, 3, seed=1), _r(24, seed=2)
    (tx, tw, tb), (px, pw, pb) = _both(x, w, b, grad=True)
    ours = F.conv_transpose2d(tx, tw, tb, padding=1)
    theirs = TORCH.nn.functional.conv_transpose2d(px, pw, pb, padding=1)
    assert_close(ours, theirs.detach().numpy(), rtol=1e-10, atol=1e-10)
    g = _r(*theirs.shape, seed=3)
    ours.backward(tl.tensor(g))
    theirs.backward(TORCH.from_numpy(g))
    for a, b_ in ((tx, px), (tw, pw), (tb, pb)):
        assert_close(a.grad, b_.grad.numpy(), rtol=1e-10, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("transposed, kw", [
    (False, {"padding": 1}),
    (False, {"stride": (2, 1, 2), "groups": 2, "dilation": (1, 2, 1)}),
    (True, {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
])
def test_conv3d_larger_matches_torch(transposed, kw):
    x = _r(3, 4, 7, 8, 6)
    w = _r(4, 3, 3, 2, 3, seed=1) if transposed else _r(6, 4 // kw.get("groups", 1), 3, 2, 3, seed=1)
    (tx, tw), (px, pw) = _both(x, w, grad=True)
    name = "conv_transpose3d" if transposed else "conv3d"
    ours, theirs = getattr(F, name)(tx, tw, **kw), getattr(TORCH.nn.functional, name)(px, pw, **kw)
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


# ---- pooling ------------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("name, args, kw", [
    ("max_pool3d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool3d", ((3, 2, 3),), {"stride": (2, 1, 2), "padding": (1, 0, 1), "count_include_pad": False}),
    ("adaptive_avg_pool3d", ((3, 4, 2),), {}),
    ("adaptive_max_pool3d", ((3, 4, 2),), {}),
    ("lp_pool3d", (2.0, 2), {}),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pool3d_larger_matches_torch(name, args, kw, dtype):
    x = np.abs(_r(3, 5, 9, 10, 7)).astype(dtype) + 0.1
    (tx,), (px,) = _both(x, grad=True)
    ours, theirs = getattr(F, name)(tx, *args, **kw), getattr(TORCH.nn.functional, name)(px, *args, **kw)
    tol = 1e-5 if dtype == "float32" else 1e-10
    assert_close(ours, theirs.detach().numpy(), rtol=tol, atol=tol)
    g = _r(*theirs.shape, seed=3).astype(dtype)
    ours.backward(tl.tensor(g))
    theirs.backward(TORCH.from_numpy(g))
    assert_close(tx.grad, px.grad.numpy(), rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("nd, shape, kw", [
    (1, (2, 3, 9), {"kernel_size": 2}),
    (1, (3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}),
    (2, (2, 3, 7, 6), {"kernel_size": 2, "stride": 1}),
    (2, (3, 7, 9), {"kernel_size": 3, "stride": 2, "padding": 1}),
    (3, (2, 2, 5, 6, 4), {"kernel_size": 2}),
    (3, (2, 5, 4, 5), {"kernel_size": (3, 2, 3), "stride": 2, "padding": (1, 0, 1)}),
])
def test_max_unpool_round_trip_matches_torch(nd, shape, kw):
    """max_poolNd then max_unpoolNd (overlapping windows included: a repeated index keeps the
    value, not a sum), with the default and an explicit output_size, and the modules."""
    x = _r(*shape)
    results = []
    for lib, t in ((tl, tl.tensor(x, requires_grad=True)), (TORCH, TORCH.from_numpy(x.copy()).requires_grad_())):
        pool, unpool = getattr(lib.nn.functional, f"max_pool{nd}d"), getattr(lib.nn.functional, f"max_unpool{nd}d")
        y, idx = pool(t, return_indices=True, **kw)
        out = unpool(y, idx, **kw)
        sized = unpool(y, idx, output_size=t.shape[-nd:], **kw)
        module = getattr(lib.nn, f"MaxUnpool{nd}d")(**kw)
        (g,) = lib.autograd.grad(out.sum() + (sized * sized).sum(), [t])
        results.append([out, sized, module(y, idx, t.shape[-nd:]), g, repr(module)])
    for a, b in zip(*results):
        if isinstance(a, str):
            assert a == b
        else:
            assert_close(a, b.detach().numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 1},
    {"kernel_size": 3, "stride": 3, "padding": 1},
    {"kernel_size": (2, 3), "stride": (1, 2), "dilation": (1, 2), "padding": (0, 1)},
])
def test_max_pool2d_wide_rows_match_torch(dtype, kw):
    """Rows wide enough for the vectorised row loops (strides 1, 2 and 3), with ties, NaN and
    -inf among the values: outputs and indices as PyTorch's."""
    x = np.round(_r(3, 2, 9, 75), 1).astype(dtype)
    x.flat[::37] = np.nan
    x.flat[5::41] = -np.inf
    (t,), (r,) = _both(x)
    y, idx = F.max_pool2d(t, return_indices=True, **kw)
    ry, ridx = TORCH.nn.functional.max_pool2d(r, return_indices=True, **kw)
    np.testing.assert_array_equal(y.numpy(), ry.numpy())
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())


def test_max_unpool_errors():
    x, idx = F.max_pool2d(tl.ones(1, 1, 4, 4), 2, return_indices=True)
    with pytest.raises(ValueError, match=r"invalid output_size"):
        F.max_unpool2d(x, idx, 2, output_size=(9, 9))
    with pytest.raises(RuntimeError, match="elements in indices should be type int64"):
        F.max_unpool2d(x, idx.float(), 2)
    with pytest.raises(RuntimeError, match="Expected shape of indices to be same as that of the input tensor"):
        F.max_unpool2d(x, idx[..., :1], 2)
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: 1\d\d \(output volumes are of size 4x4\)"):
        F.max_unpool2d(x, idx + 100, 2)


# ---- padding ------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda: F.pad(tl.zeros(1, 2, 4), (5, 5), mode="reflect"), RuntimeError,
     r"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding \(5, 5\) "
     r"at dimension 2 of input \[1, 2, 4\]"),
    (lambda: F.pad(tl.zeros(1, 2, 3, 4), (1, 1, 3, 0), mode="reflect"), RuntimeError,
     r"Argument #6: Padding size should be less than the corresponding input dimension, but got: padding \(3, 0\) "
     r"at dimension 2 of input \[1, 2, 3, 4\]"),
    (lambda: F.pad(tl.zeros(1, 2, 4), (1,)), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: F.pad(tl.zeros(1, 2, 4), (1, 1, 1), mode="reflect"), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: F.pad(tl.zeros(1, 2, 4), (1,) * 8), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got padding length 8 and "
     "input of dimension 3"),
    (lambda: F.pad(tl.zeros(1, 2, 4), (-3, -2)), RuntimeError,
     "The input size 4, plus negative padding -3 and -2 resulted in a negative output size"),
    (lambda: F.pad(tl.zeros(1, 2, 4), (1, 1), mode="reflect", value=1.0), RuntimeError,
     "Padding mode \"reflect\" doesn't take in value argument"),
    (lambda: F.pad(tl.zeros(1, 2, 4), (1, 1), mode="foo"), NotImplementedError, "Unrecognised padding mode foo"),
    (lambda: F.pad(tl.zeros(4), (1, 1), mode="reflect"), NotImplementedError,
     "Padding size 2 is not supported for 1D input tensor."),
    (lambda: F.pad(tl.zeros(1, 2, 3, 4), (1, 1), mode="replicate"), NotImplementedError,
     "Padding size 2 is not supported for 4D input tensor."),
    (lambda: F.pad(tl.zeros(3, 3, 3), (1,) * 6, mode="reflect"), NotImplementedError,
     "Padding size 6 is not supported for 3D input tensor."),
    (lambda: F.pad(tl.zeros(1, 2, 3, 3, 3), (0, 0, 0, 0, 3, 1), mode="reflect"), RuntimeError,
     r"Argument #8: Padding size should be less than the corresponding input dimension, but got: padding \(3, 1\) "
     r"at dimension 2 of input \[1, 2, 3, 3, 3\]"),
    (lambda: F.pad(tl.zeros(1, 2, 3, 3, 3), (0, 0, 0, 0, -3, -1), mode="replicate"), RuntimeError,
     r"input \(D: 3 H: 3 W: 3\) is too small. Calculated output D: -1 H: 3 W: 3"),
    (lambda: tl._C._nn.reflection_pad3d(tl.zeros(1, 0, 3, 3, 3), [1] * 6), RuntimeError,
     r"Expected 4D or 5D \(batch mode\) tensor with possibly 0 batch size and other non-zero dimensions"),
    (lambda: F.pad(tl.zeros(1, 2, 3, 3, 3, dtype=tl.bool), (1,) * 6, mode="reflect"), NotImplementedError,
     "\"reflection_pad3d\" not implemented for 'Bool'"),
    (lambda: F.pad(tl.zeros(1, 2, 3, 3, 3), (1,) * 8, mode="circular"), NotImplementedError,
     "Padding size 8 is not supported for 5D input tensor."),
    (lambda: F.pad(tl.zeros(1, 2, 4), (5, 1), mode="circular"), RuntimeError,
     "Padding value causes wrapping around more than once."),
    (lambda: F.pad(tl.zeros(1, 2, 3, 4), (0, 0, -2, -2), mode="circular"), RuntimeError,
     "Negative padding value is resulting in an empty dimension"),
    (lambda: F.pad(tl.zeros(1, 2, 4), (-4, 0), mode="replicate"), RuntimeError,
     r"input \(W: 4\) is too small. Calculated output W: 0"),
    (lambda: F.pad(tl.zeros(1, 2, 0), (1, 1), mode="reflect"), RuntimeError,
     r"Expected 2D or 3D \(batch mode\) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     r"but got: \[1, 2, 0\]"),
    (lambda: tl._C._nn.reflection_pad2d(tl.zeros(1, 2, 3, 4), (1, 1)), RuntimeError,
     "padding size is expected to be 4, but got: 2"),
    (lambda: tl._C._nn.reflection_pad1d(tl.zeros(2, 3, dtype=tl.bool), (1, 1)), NotImplementedError,
     "\"reflection_pad1d\" not implemented for 'Bool'"),
    (lambda: tl.constant_pad_nd(tl.zeros(1, 2, 4), (1, 1, 1)), RuntimeError,
     "Length of pad must be even but instead it equals 3"),
    (lambda: tl._C._nn._pad_circular(tl.zeros(2, 3, 4), (1,) * 6), RuntimeError,
     "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to padding of length "
     "4 or 2 respectively but got 6"),
])
def test_pad_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_constant_pad_keeps_integer_dtype():
    x = tl.tensor(np.arange(6).reshape(2, 3))
    y = F.pad(x, (1, 1), value=2.5)
    assert y.dtype == tl.int64
    np.testing.assert_array_equal(y.numpy(), np.pad(np.arange(6).reshape(2, 3), ((0, 0), (1, 1)), constant_values=2))
    r = F.pad(x, (2, 1), mode="reflect")
    np.testing.assert_array_equal(r.numpy(), np.pad(np.arange(6).reshape(2, 3), ((0, 0), (2, 1)), mode="reflect"))


@needs_torch
@pytest.mark.parametrize("mode, pad", [
    ("constant", (3, -1, 2, 2, 1, 0)), ("reflect", (5, 4, 3, 6)), ("replicate", (7, 2, -3, 4)),
    ("circular", (9, 8, 4, -2)), ("reflect", (9, 7)), ("replicate", (0, 12)),
])
def test_pad_larger_matches_torch(mode, pad):
    shape = (3, 4, 10, 12) if len(pad) > 2 else (3, 4, 12)
    (tx,), (px,) = _both(_r(*shape), grad=True)
    ours, theirs = F.pad(tx, pad, mode=mode), TORCH.nn.functional.pad(px, pad, mode=mode)
    assert_close(ours, theirs.detach().numpy(), rtol=0, atol=0)
    g = _r(*theirs.shape, seed=3)
    ours.backward(tl.tensor(g))
    theirs.backward(TORCH.from_numpy(g))
    assert_close(tx.grad, px.grad.numpy(), rtol=1e-12, atol=1e-12)


# ---- interpolation, pixel shuffle -----------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("shape, kw", [
    ((2, 3, 7), {"size": 15}),
    ((2, 3, 7), {"scale_factor": 2.7}),
    ((2, 3, 7), {"scale_factor": 0.6, "recompute_scale_factor": True}),
    ((2, 3, 5, 6), {"size": (9, 4)}),
    ((2, 3, 5, 6), {"scale_factor": (1.7, 2.0)}),
    ((2, 3, 5, 6), {"size": (11, 13), "mode": "bilinear"}),
    ((2, 3, 5, 6), {"size": 9, "mode": "bilinear", "align_corners": True}),
    ((2, 3, 9, 8), {"scale_factor": 0.45, "mode": "bilinear"}),
    ((2, 3, 5, 6), {"scale_factor": 2.3, "mode": "bilinear", "align_corners": True}),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_interpolate_matches_torch(shape, kw, dtype):
    (tx,), (px,) = _both(_r(*shape).astype(dtype), grad=True)
    ours, theirs = F.interpolate(tx, **kw), TORCH.nn.functional.interpolate(px, **kw)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert_close(ours, theirs.detach().numpy(), rtol=tol, atol=tol)
    g = _r(*theirs.shape, seed=3).astype(dtype)
    ours.backward(tl.tensor(g))
    theirs.backward(TORCH.from_numpy(g))
    assert_close(tx.grad, px.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.interpolate(tl.zeros(1, 2, 3, 4), size=(5, 5), scale_factor=2), ValueError,
     "only one of size or scale_factor should be defined"),
    (lambda: F.interpolate(tl.zeros(1, 2, 3, 4)), ValueError, "either size or scale_factor should be defined"),
    (lambda: F.interpolate(tl.zeros(1, 2, 3, 4), size=(5, 5, 5)), ValueError,
     r"Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of "
     r"\[3, 4\] and output size of \(5, 5, 5\)"),
    (lambda: F.interpolate(tl.zeros(1, 2, 3, 4), scale_factor=(2, 2, 2)), ValueError,
     r"Input and scale_factor must have the same number of spatial dimensions"),
    (lambda: F.interpolate(tl.zeros(1, 2, 3, 4), size=5, align_corners=True), ValueError,
     "align_corners option can only be set with the interpolating modes"),
    (lambda: F.interpolate(tl.zeros(1, 2, 4), size=5, mode="bilinear"), NotImplementedError,
     "Got 3D input, but bilinear mode needs 4D input"),
    (lambda: F.interpolate(tl.zeros(3, 4), size=5), NotImplementedError,
     r"Input Error: Only 3D, 4D and 5D input Tensors supported \(got 2D\)"),
    (lambda: F.interpolate(tl.zeros(1, 2, 3, 4, 5), size=5, mode="bicubic"), NotImplementedError,
     r"Input Error: Only 3D, 4D and 5D input Tensors supported \(got 5D\)"),
    (lambda: F.interpolate(tl.zeros(1, 2, 3, 4), scale_factor=0.1), RuntimeError,
     r"Input and output sizes should be greater than 0, but got input \(H: 3, W: 4\) output \(H: 0, W: 0\)"),
    (lambda: tl._C._nn.upsample_nearest1d(tl.zeros(2, 4), [3]), RuntimeError,
     "It is expected input_size equals to 3, but got size 2"),
    (lambda: tl._C._nn.upsample_nearest1d(tl.zeros(1, 2, 4), [3, 3]), RuntimeError,
     "It is expected output_size equals to 1, but got size 2"),
    (lambda: tl._C._nn.upsample_nearest1d(tl.zeros(1, 0, 4), [3]), RuntimeError,
     r"Non-empty 3D data tensor expected but got a tensor with sizes \[1, 0, 4\]"),
    (lambda: tl._C._nn.upsample_nearest2d_backward(tl.zeros(1, 2, 5, 4), [5, 5], [1, 2, 3, 3]), RuntimeError,
     r"Expected grad_output to have the same shape as output; output.size\(3\) = 5 but got grad_output.size\(3\) = 4"),
    (lambda: F.pixel_shuffle(tl.zeros(3, 4), 2), RuntimeError,
     r"pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 dimension\(s\)"),
    (lambda: F.pixel_shuffle(tl.zeros(1, 5, 3, 4), 2), RuntimeError,
     r"divisible by the square of upscale_factor, but input.size\(-3\)=5 is not divisible by 4"),
    (lambda: F.pixel_shuffle(tl.zeros(1, 4, 3, 4), 0), RuntimeError,
     "pixel_shuffle expects a positive upscale_factor, but got 0"),
    (lambda: F.pixel_unshuffle(tl.zeros(1, 4, 3, 4), 2), RuntimeError,
     r"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size\(-2\)=3 is not divisible"),
    (lambda: F.pixel_unshuffle(tl.zeros(1, 4, 4, 3), 2), RuntimeError,
     r"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size\(-1\)=3 is not divisible"),
])
def test_interpolate_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_upsample_aliases_warn_and_match_interpolate():
    x = tl.tensor(_r(1, 2, 3, 4))
    with pytest.warns(UserWarning, match="upsample_bilinear is deprecated"):
        y = F.upsample_bilinear(x, scale_factor=2)
    assert_close(y, F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True).numpy(), rtol=0, atol=0)
    with pytest.warns(UserWarning, match="upsample_nearest is deprecated"):
        y = F.upsample_nearest(x, size=(5, 7))
    assert_close(y, F.interpolate(x, size=(5, 7)).numpy(), rtol=0, atol=0)
    with pytest.warns(UserWarning, match="upsample is deprecated"):
        y = F.upsample(x, size=6, mode="bilinear")
    assert_close(y, F.interpolate(x, size=6, mode="bilinear").numpy(), rtol=0, atol=0)


def test_pixel_shuffle_round_trip():
    x = tl.tensor(_r(2, 12, 3, 5))
    assert_close(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), x.numpy(), rtol=0, atol=0)
