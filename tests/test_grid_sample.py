"""grid_sample / affine_grid beyond the registry's small float64 samples: float32 and half, strided
inputs, larger sizes with every mode and padding, and a spatial-transformer chain (affine_grid
into grid_sample) whose gradient reaches theta, each against PyTorch."""

import itertools
import warnings

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")

MODES_2D = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")


def _pair(a):
    return tl.tensor(a), torch.from_numpy(np.array(a))


@pytest.mark.parametrize("mode,padding,align", list(itertools.product(MODES_2D, PADDINGS, (False, True))))
def test_float32_2d_matches_torch(mode, padding, align):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 9, 7)).astype(np.float32)
    grid = rng.uniform(-1.3, 1.3, (3, 5, 6, 2)).astype(np.float32)
    (xl, xt), (gl, gt) = _pair(x), _pair(grid)
    xl.requires_grad_(), xt.requires_grad_(), gl.requires_grad_(), gt.requires_grad_()
    ours = tl.nn.functional.grid_sample(xl, gl, mode=mode, padding_mode=padding, align_corners=align)
    theirs = torch.nn.functional.grid_sample(xt, gt, mode=mode, padding_mode=padding, align_corners=align)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-4, atol=1e-5)
    go = rng.standard_normal(tuple(theirs.shape)).astype(np.float32)
    ours.backward(tl.tensor(go))
    theirs.backward(torch.from_numpy(go))
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gl.grad.numpy(), gt.grad.numpy(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("mode,padding,align", list(itertools.product(("bilinear", "nearest"), PADDINGS, (False, True))))
def test_3d_strided_matches_torch(mode, padding, align):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 6, 5, 4))
    grid = rng.uniform(-1.3, 1.3, (2, 4, 3, 5, 3))
    # Strided views: the input's channels every other one, the grid transposed.
    xl = tl.tensor(np.repeat(x, 2, axis=1))[:, ::2]
    gl = tl.tensor(np.ascontiguousarray(grid.transpose(0, 2, 1, 3, 4))).transpose(1, 2)
    assert not xl.is_contiguous() and not gl.is_contiguous()
    ours = tl.nn.functional.grid_sample(xl, gl, mode=mode, padding_mode=padding, align_corners=align)
    theirs = torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), mode=mode,
                                             padding_mode=padding, align_corners=align)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


def test_half_computes_in_float():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float16)
    grid = rng.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float16)
    ours = tl.nn.functional.grid_sample(tl.tensor(x), tl.tensor(grid), align_corners=False)
    theirs = torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), align_corners=False)
    assert ours.dtype == tl.float16
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=1e-2, atol=1e-2)


def test_spatial_transformer_gradient_reaches_theta():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 8, 8))
    theta = rng.uniform(-1, 1, (2, 2, 3))
    results = []
    for lib in (tl, torch):
        th = lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(th, [2, 3, 5, 6], align_corners=False)
        out = lib.nn.functional.grid_sample(lib.tensor(x), grid, padding_mode="border", align_corners=False)
        (out * out).sum().backward()
        results.append((out.detach().numpy(), th.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-8, atol=1e-10)


def test_identity_affine_grid_reproduces_the_input():
    x = tl.randn(1, 2, 4, 5)
    theta = tl.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    for align in (False, True):
        grid = tl.nn.functional.affine_grid(theta, [1, 2, 4, 5], align_corners=align)
        out = tl.nn.functional.grid_sample(x, grid, align_corners=align)
        np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-6)


def test_align_corners_default_warns():
    x, grid = tl.zeros(1, 1, 2, 2), tl.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        tl.nn.functional.grid_sample(x, grid)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        tl.nn.functional.affine_grid(tl.zeros(1, 2, 3), [1, 1, 2, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.nn.functional.grid_sample(x, grid, align_corners=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_far_and_nonfinite_grid_points_match_torch(dtype):
    """PyTorch's 2-d and 3-d kernels treat NaN, inf and far-away points differently; both are
    followed (Note [Non-finite grid values], aten/native/cpu/GridSamplerKernel.cpp)."""
    far = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 1e8, -3e7, 7.3, -5.2]
    x2 = np.arange(1.0, 13.0).reshape(1, 1, 3, 4).astype(dtype)
    x3 = np.arange(1.0, 25.0).reshape(1, 1, 2, 3, 4).astype(dtype)
    g2 = np.array([[[[v, 0.3] for v in far] + [[0.2, v] for v in far]]], dtype)
    g3 = np.array([[[[[v, 0.1, 0.2] for v in far] + [[0.3, 0.1, v] for v in far]]]], dtype)
    for mode, padding, align in itertools.product(range(3), range(3), (False, True)):
        for x, g in ((x2, g2), (x3, g3)) if mode < 2 else ((x2, g2),):
            ours = tl.grid_sampler(tl.tensor(x), tl.tensor(g), mode, padding, align).numpy()
            theirs = torch.grid_sampler(torch.from_numpy(x), torch.from_numpy(g), mode, padding, align).numpy()
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5, err_msg=f"{x.ndim}-d {mode} {padding}")
