"""torchlite.nn.functional: pad, interpolate (every mode, antialias included), pixel shuffle, and the
spatial transformer pair affine_grid / grid_sample."""

import math
import warnings

import numpy as np

from torchlite import _C
from torchlite._dtype_info import cpp_dtype_name
from torchlite.nn.functional.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["affine_grid", "grid_sample", "interpolate", "pad", "pixel_shuffle", "pixel_unshuffle", "upsample",
           "upsample_bilinear", "upsample_nearest"]

_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def pad(input, pad, mode="constant", value=None):
    return _C._nn.pad(input, pad, mode, value)


def pixel_shuffle(input, upscale_factor):
    return _C.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return _C.pixel_unshuffle(input, downscale_factor)


def _per_dim(value, dim, what, shape):
    """size / scale_factor as one value per spatial dimension, with PyTorch's messages."""
    if not isinstance(value, (list, tuple)):
        return [value] * dim
    if len(value) != dim:
        given = f"output size of {value}" if what == "size" else f"scale_factor of shape {value}"
        fmt = "output size in (o1, o2, ...,oK)" if what == "size" else "scale_factor in (s1, s2, ...,sK)"
        name = "output" if what == "size" else "scale_factor"
        raise ValueError(f"Input and {name} must have the same number of spatial dimensions, but got input with "
                         f"spatial dimensions of {list(shape[2:])} and {given}. Please provide input tensor in "
                         f"(N, C, d1, d2, ...,dK) format and {fmt} format.")
    return list(value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if size is not None:
        output_size, scales = _per_dim(size, dim, "size", input.shape), [None] * dim
    else:
        scales = _per_dim(scale_factor, dim, "scale_factor", input.shape)
        output_size = [math.floor(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
        if recompute_scale_factor:
            scales = [None] * dim
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode == "area" and 3 <= input.dim() <= 5:  # from the (floored) output size, whatever the scale factor
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, output_size)
    if input.dim() == 3 and mode == "nearest":
        return _C._nn.upsample_nearest1d(input, output_size, scales[0])
    if input.dim() == 4 and mode == "nearest":
        return _C._nn.upsample_nearest2d(input, output_size, *scales)
    if input.dim() == 4 and mode == "bilinear" and not antialias:
        return _C._nn.upsample_bilinear2d(input, output_size, align_corners, *scales)
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if 3 <= input.dim() <= 5 and (mode in ("nearest", "nearest-exact") or _MODE_DIM.get(mode) == input.dim()):
        return _resample(input, mode, output_size, scales, align_corners, antialias)
    for wrong_dim, needed in _NEEDED_DIM.get(mode, ()):
        if input.dim() == wrong_dim:
            raise NotImplementedError(f"Got {wrong_dim}D input, but {mode} mode needs {needed}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: {_ALL_MODES} (got {mode})")


# The one input rank each interpolating mode works on, and the mismatches PyTorch names.
_MODE_DIM = {"linear": 3, "bilinear": 4, "bicubic": 4, "lanczos": 4, "trilinear": 5}
_NEEDED_DIM = {"bilinear": ((3, 4), (5, 4)), "trilinear": ((3, 5), (4, 5)), "linear": ((4, 3), (5, 3))}


def _cubic(x, a):
    """The cubic convolution kernel with parameter a at |x| (numpy arrays)."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0))


def _lanczos3(x):
    x = np.abs(x)
    return np.where(x < 3, np.sinc(x) * np.sinc(x / 3), 0)


_AA_FILTERS = {"bilinear": (2, lambda x: np.maximum(1 - np.abs(x), 0)),
               "bicubic": (4, lambda x: _cubic(x, -0.5)), "lanczos": (6, _lanczos3)}


def _axis_taps(mode, in_size, out_size, align_corners, scale_factor, antialias, acc):
    """(index, weight) arrays of shape (taps, out_size) for resampling one axis: output i is
    sum_k weight[k, i] * input[index[k, i]]. Computed in the kernel's accumulate type `acc` with
    PyTorch's source-index rules, so the results agree to rounding."""
    dst = np.arange(out_size, dtype=acc)
    if mode in ("nearest", "nearest-exact"):
        # PyTorch's nearest kernels work in float32 whatever the input dtype.
        scale = np.float32(1.0 / scale_factor if scale_factor else np.float32(in_size) / np.float32(out_size))
        if mode == "nearest" and not scale_factor and out_size == in_size:
            idx = np.arange(out_size)
        elif mode == "nearest" and not scale_factor and out_size == 2 * in_size:
            idx = np.arange(out_size) >> 1
        else:
            pos = dst.astype(np.float32) + np.float32(0.5) if mode == "nearest-exact" else dst.astype(np.float32)
            idx = np.minimum(np.floor(pos * scale).astype(np.int64), in_size - 1)
        return idx[None], np.ones((1, out_size), dtype=acc)
    if align_corners:
        scale = acc(in_size - 1) / acc(out_size - 1) if out_size > 1 else acc(0)
    else:
        scale = acc(1.0 / scale_factor) if scale_factor else acc(in_size) / acc(out_size)
    if antialias:
        interp_size, filt = _AA_FILTERS[mode]
        support = acc(interp_size * 0.5) * scale if scale >= 1 else acc(interp_size * 0.5)
        invscale = acc(1) / scale if scale >= 1 else acc(1)
        center = scale * (dst + acc(0.5))
        lo = np.maximum((center - support + acc(0.5)).astype(np.int64), 0)
        hi = np.minimum((center + support + acc(0.5)).astype(np.int64), in_size)
        taps = int((hi - lo).max())
        k = np.arange(taps)[:, None]
        idx = lo[None] + k
        w = np.where(idx < hi[None], filt((idx - center[None] + acc(0.5)) * invscale), 0).astype(acc)
        total = w.sum(0)
        w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(acc)
        return np.minimum(idx, in_size - 1), w
    real = scale * dst if align_corners else scale * (dst + acc(0.5)) - acc(0.5)
    if mode == "bicubic":
        base = np.floor(real)
        t = (real - base).astype(acc)
        coeffs = [_cubic(t + 1, -0.75), _cubic(t, -0.75), _cubic(1 - t, -0.75), _cubic(2 - t, -0.75)]
        idx = np.clip(base.astype(np.int64)[None] + np.arange(-1, 3)[:, None], 0, in_size - 1)
        return idx, np.stack(coeffs).astype(acc)
    real = np.maximum(real, 0)
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.clip(real - i0, 0, 1).astype(acc)
    i1 = i0 + (i0 < in_size - 1)
    return np.stack([i0, i1]), np.stack([acc(1) - lam, lam])


def _resample(input, mode, output_size, scales, align_corners, antialias):
    """Separable resampling for the modes without a kernel of their own: each spatial axis, the last
    first (the order PyTorch's kernels nest their sums in), becomes a weighted sum of gathered slices.
    Built from index_select, so autograd needs nothing more."""
    spatial = list(input.shape[2:])
    if input.numel() == 0 or min(spatial) <= 0 or min(output_size) <= 0:
        names = "DHW"[3 - len(spatial):]
        raise RuntimeError("Input and output sizes should be greater than 0, but got input ("
                           + ", ".join(f"{n}: {v}" for n, v in zip(names, spatial)) + ") output ("
                           + ", ".join(f"{n}: {v}" for n, v in zip(names, output_size)) + ")")
    if not input.is_floating_point() and mode not in ("nearest", "nearest-exact"):
        raise NotImplementedError(f'"upsample_{mode}" not implemented for \'{cpp_dtype_name(input.dtype)}\'')
    acc = np.float64 if input.dtype == _C.float64 else np.float32
    out = input
    for axis in range(len(spatial) - 1, -1, -1):
        idx, w = _axis_taps(mode, spatial[axis], output_size[axis], align_corners, scales[axis], antialias, acc)
        dim = axis + 2
        view = [1] * input.dim()
        view[dim] = output_size[axis]
        total = None
        for k in range(idx.shape[0]):
            picked = out.index_select(dim, _C.tensor(idx[k], device=input.device))
            if mode not in ("nearest", "nearest-exact"):
                picked = picked * _C.tensor(w[k], dtype=input.dtype, device=input.device).reshape(view)
            total = picked if total is None else total + picked
        out = total
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# The integer codes torch.grid_sampler takes.
_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_CORNERS_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                          "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                          "documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _GRID_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _GRID_PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    return _C.grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDINGS[padding_mode], align_corners)


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    nd = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
        raise ValueError(f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size {size}. "
                         f"Got {theta.shape}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _C.affine_grid_generator(theta, size, align_corners)
