"""Registry entries: sum, mean, prod, amax/amin, max/min, argmax/argmin, all/any."""

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, OpInfo, SampleInput, rand


def _reduce_samples(dims=True, keepdim=True):
    def samples(dtype, rng):
        x = lambda s: rand(s, dtype, rng)
        yield SampleInput((x((2, 3)),))
        yield SampleInput((x(()),))
        if dims:
            yield SampleInput((x((2, 3, 2)), 1))
            yield SampleInput((x((2, 3)), -1), {"keepdim": True} if keepdim else {})
            yield SampleInput((x((2, 3, 2)), (0, 2)))
            yield SampleInput((x((0, 3)), 1), grad=False)
    return samples


def _np_reduce(fn):
    def ref(x, dim=None, keepdim=False, dtype=None):
        axis = tuple(dim) if isinstance(dim, (tuple, list)) else dim
        return fn(x, axis=axis, keepdims=keepdim)
    return ref


def _single_dim_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng)
    yield SampleInput((x((2, 3)),))
    yield SampleInput((x((2, 3, 2)), 1))
    yield SampleInput((x((2, 3)), -1, True))
    yield SampleInput((x((1, 3)), 0))


def _max_min_samples(dtype, rng):
    yield from _single_dim_samples(dtype, rng)
    yield SampleInput((rand((2, 3), dtype, rng), rand((2, 3), dtype, rng)))  # max(a, b)
    yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng)))


def _arg_ref(fn):
    def ref(x, dim=None, keepdim=False):
        if dim is None:
            return np.asarray(fn(x))
        r = fn(x, axis=dim)
        return np.expand_dims(r, dim) if keepdim and x.ndim else r  # a 0-d input keeps 0 dims
    return ref


def _max_min_ref(fn, argfn, elementwise):
    def ref(x, dim=None, keepdim=False):
        if dim is None:
            return fn(x)
        if isinstance(dim, np.ndarray):  # max(a, b): the elementwise form
            return elementwise(x, dim)
        return fn(x, axis=dim, keepdims=keepdim), _arg_ref(argfn)(x, dim, keepdim)
    return ref


def _bool_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, -1, 2)
    yield SampleInput((x((2, 3)),))
    yield SampleInput((x((2, 3)), 1))
    yield SampleInput((x((2, 3, 2)), (0, 2)))
    yield SampleInput((x((0, 3)),))


def _prod_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, 0.5, 1.5)
    yield SampleInput((x((2, 3)),), out=False)
    with_zeros = x((3, 4))
    with_zeros[0, 1] = 0  # one zero in a row
    with_zeros[1, :2] = 0  # two zeros in a row
    with_zeros[2, :3] = 0  # three
    yield SampleInput((with_zeros, 1))
    yield SampleInput((with_zeros,), out=False)
    yield SampleInput((x((2, 3)), 1))
    yield SampleInput((x((2, 3)), 0, True))


def _all_any_ref(fn):
    def ref(x, dim=None, keepdim=False):
        axis = tuple(dim) if isinstance(dim, (tuple, list)) else dim
        r = np.asarray(fn(x, axis=axis, keepdims=keepdim))
        return r.astype(np.uint8) if x.dtype == np.uint8 else r  # uint8 in, uint8 out (as PyTorch)
    return ref


OPS = [
    OpInfo("sum", _reduce_samples(), ref=_np_reduce(np.sum), dtypes=(*FLOATING, tl.int64), supports_out=True),
    OpInfo("mean", _reduce_samples(), ref=_np_reduce(np.mean), supports_out=True),
    OpInfo("prod", _prod_samples, ref=_np_reduce(np.prod), supports_out=True),
    OpInfo("amax", _reduce_samples(), ref=_np_reduce(np.amax), dtypes=(*FLOATING, tl.int64), supports_out=True),
    OpInfo("amin", _reduce_samples(), ref=_np_reduce(np.amin), dtypes=(*FLOATING, tl.int64), supports_out=True),
    OpInfo("argmax", _single_dim_samples, ref=_arg_ref(np.argmax), dtypes=(*FLOATING, tl.int64),
           supports_out=True, differentiable=False),
    OpInfo("argmin", _single_dim_samples, ref=_arg_ref(np.argmin), dtypes=(*FLOATING, tl.int64),
           supports_out=True, differentiable=False),
    OpInfo("max", _max_min_samples, ref=_max_min_ref(np.max, np.argmax, np.maximum), dtypes=(*FLOATING, tl.int64),
           supports_out=True),
    OpInfo("min", _max_min_samples, ref=_max_min_ref(np.min, np.argmin, np.minimum), dtypes=(*FLOATING, tl.int64),
           supports_out=True),
    OpInfo("all", _bool_samples, ref=_all_any_ref(np.all), dtypes=(tl.bool, tl.float32, tl.int64),
           supports_out=True, differentiable=False),
    OpInfo("any", _bool_samples, ref=_all_any_ref(np.any), dtypes=(tl.bool, tl.float32, tl.int64),
           supports_out=True, differentiable=False),
]
