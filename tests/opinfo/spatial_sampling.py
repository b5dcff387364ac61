"""Registry entries: the spatial transformer operators, affine_grid_generator and grid_sampler
(2-d, 3-d), and their nn.functional front ends. The samplers' values are compared with PyTorch
(test_matches_torch: forward and both gradients) for every mode x padding x align_corners, with
grid points outside [-1, 1]; tests/test_grid_sample.py adds float32 and strided layouts."""

import itertools

import numpy as np

from opinfo.core import OpInfo, SampleInput, rand

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2


def np_affine_grid(theta, size, align_corners):
    """Homogeneous output pixel centres (x, y[, z], 1) times theta^T."""
    nd = len(size) - 2
    axes = []
    for s in reversed(size[2:]):  # x (width) first
        steps = np.linspace(-1.0, 1.0, s) if s > 1 else np.zeros(s)
        axes.append(steps if align_corners else steps * (s - 1) / s)
    mesh = np.meshgrid(*reversed(axes), indexing="ij")  # (D,) H, W
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], axis=-1).reshape(-1, nd + 1)
    out = np.einsum("pk,njk->npj", base, theta.astype(np.float64))
    return out.reshape(size[0], *size[2:], nd).astype(theta.dtype)


def _affine_samples(dtype, rng):
    yield SampleInput((rand((2, 2, 3), dtype, rng), [2, 3, 4, 5], False))
    yield SampleInput((rand((2, 2, 3), dtype, rng), [2, 1, 3, 2], True))
    yield SampleInput((rand((1, 2, 3), dtype, rng), [1, 2, 1, 3], True))  # a unit axis sits at 0
    yield SampleInput((rand((2, 3, 4), dtype, rng), [2, 1, 2, 3, 4], False))
    yield SampleInput((rand((1, 3, 4), dtype, rng), [1, 2, 3, 2, 2], True))
    yield SampleInput((rand((0, 2, 3), dtype, rng), [0, 1, 2, 2], False), grad=False)


def _grid(shape, dtype, rng):
    """Grid values in [-1.4, 1.4]: some points fall outside the input."""
    return rand(shape, dtype, rng, -1.4, 1.4)


def _sampler2d_samples(dtype, rng):
    for mode, padding, align in itertools.product((BILINEAR, NEAREST, BICUBIC), (ZEROS, BORDER, REFLECTION),
                                                  (False, True)):
        yield SampleInput((rand((2, 2, 3, 4), dtype, rng), _grid((2, 3, 2, 2), dtype, rng), mode, padding, align))
    yield SampleInput((rand((1, 1, 1, 1), dtype, rng), _grid((1, 2, 2, 2), dtype, rng), BILINEAR, REFLECTION, True))
    yield SampleInput((rand((1, 2, 1, 3), dtype, rng), _grid((1, 2, 3, 2), dtype, rng), BICUBIC, REFLECTION, False))
    # Far outside: reflected several times, clamped to the border, or zero.
    far = rand((1, 2, 3, 2), dtype, rng, -7.0, 7.0)
    for padding in (ZEROS, BORDER, REFLECTION):
        yield SampleInput((rand((1, 2, 3, 3), dtype, rng), far, BILINEAR, padding, False))
    yield SampleInput((rand((0, 2, 3, 3), dtype, rng), _grid((0, 2, 2, 2), dtype, rng), BILINEAR, ZEROS, False),
                      grad=False)
    yield SampleInput((rand((2, 0, 3, 3), dtype, rng), _grid((2, 2, 2, 2), dtype, rng), BICUBIC, BORDER, True),
                      grad=False)


def _sampler3d_samples(dtype, rng):
    for mode, padding, align in itertools.product((BILINEAR, NEAREST), (ZEROS, BORDER, REFLECTION), (False, True)):
        yield SampleInput((rand((2, 2, 2, 3, 2), dtype, rng), _grid((2, 2, 1, 2, 3), dtype, rng), mode, padding,
                           align))
    yield SampleInput((rand((1, 1, 1, 2, 1), dtype, rng), _grid((1, 2, 2, 1, 3), dtype, rng), BILINEAR, REFLECTION,
                       True))


def _sampler_samples(dtype, rng):
    yield SampleInput((rand((1, 2, 3, 4), dtype, rng), _grid((1, 2, 3, 2), dtype, rng), BICUBIC, BORDER, False))
    yield SampleInput((rand((1, 2, 2, 2, 3), dtype, rng), _grid((1, 1, 2, 2, 3), dtype, rng), BILINEAR, ZEROS, True))


def _grid_sample_samples(dtype, rng):
    yield SampleInput((rand((2, 2, 3, 4), dtype, rng), _grid((2, 2, 3, 2), dtype, rng)), {"align_corners": False})
    yield SampleInput((rand((1, 2, 3, 4), dtype, rng), _grid((1, 3, 2, 2), dtype, rng)),
                      {"mode": "bicubic", "padding_mode": "reflection", "align_corners": True})
    yield SampleInput((rand((1, 2, 2, 3, 2), dtype, rng), _grid((1, 2, 1, 2, 3), dtype, rng)),
                      {"mode": "nearest", "padding_mode": "border", "align_corners": False})


def _affine_grid_samples(dtype, rng):
    yield SampleInput((rand((2, 2, 3), dtype, rng), [2, 3, 4, 5]), {"align_corners": False})
    yield SampleInput((rand((1, 3, 4), dtype, rng), [1, 1, 2, 3, 2]), {"align_corners": True})


def _F(name):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k)


# The backward operators have no derivative (PyTorch has none either): no gradgradcheck.
OPS = [
    OpInfo("affine_grid_generator", _affine_samples, ref=np_affine_grid),
    OpInfo("grid_sampler_2d", _sampler2d_samples, covers=("grid_sampler_2d_backward",),
           gradgrad=False),
    OpInfo("grid_sampler_3d", _sampler3d_samples, covers=("grid_sampler_3d_backward",),
           gradgrad=False),
    OpInfo("grid_sampler", _sampler_samples, gradgrad=False),
    OpInfo("nn.functional.grid_sample", _grid_sample_samples, op=_F("grid_sample"), yaml=False, gradgrad=False),
    OpInfo("nn.functional.affine_grid", _affine_grid_samples, op=_F("affine_grid"),
           ref=lambda theta, size, align_corners: np_affine_grid(theta, size, align_corners), yaml=False),
]
