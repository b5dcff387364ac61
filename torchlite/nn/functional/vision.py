"""torchlite.nn.functional: pad, interpolate (nearest 1-d/2-d, bilinear 2-d), pixel shuffle, and the
spatial transformer pair affine_grid / grid_sample."""

import math
import warnings

from torchlite import _C

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
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented in torchlite")
    if input.dim() == 3 and mode == "nearest":
        return _C._nn.upsample_nearest1d(input, output_size, scales[0])
    if input.dim() == 4 and mode == "nearest":
        return _C._nn.upsample_nearest2d(input, output_size, *scales)
    if input.dim() == 4 and mode == "bilinear":
        return _C._nn.upsample_bilinear2d(input, output_size, align_corners, *scales)
    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if 3 <= input.dim() <= 5 and mode in _ALL_MODES.split(" | "):
        raise NotImplementedError(f"interpolate: mode '{mode}' with {input.dim()}D input is not implemented in "
                                  "torchlite (supported: nearest for 3D/4D, bilinear for 4D)")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: {_ALL_MODES} (got {mode})")


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
