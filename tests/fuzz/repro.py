"""The names generated calls are written with, so each call is also its own reproducer:

    python -c "from tests.fuzz.repro import *; a0 = arg('add', 0, 'float32', 0); print(tl.add(transposed(a0), a0))"

NumPy values come from registry samples (`arg`), from seeded random arrays (`rand`) or from
value mutations (`cast`, `nonfinite`, `rows_equal`, `windows`); layout builders turn a NumPy
array into a torchlite tensor with the same values and other strides (`transposed`, `sliced`,
`offset`, `expanded`, `overlapping`). `op(name)` is the registry entry; `mirror` is the NumPy
model of an out=/in-place call on views of one buffer. `names(torch)` gives the same names
building PyTorch's tensors, to run a call in PyTorch too.
"""

import functools

import numpy as np

import opinfo
import torchlite as tl
from helpers import NP_DTYPE

__all__ = ["np", "tl", "op", "family", "arg", "rand", "cast", "nonfinite", "rows_equal", "windows", "contiguous",
           "transposed", "sliced", "offset", "expanded", "overlapping", "mirror"]

OPS = {}
FAMILY = {}
for _family, _ops in opinfo.FAMILIES.items():
    for _info in _ops:
        OPS[_info.name] = _info
        FAMILY[_info.name] = _family


def op(name):
    return OPS[name]


def family(name):
    return FAMILY[name]


@functools.lru_cache(maxsize=256)
def samples(name, dtype):
    return list(OPS[name].sample_inputs(getattr(tl, dtype), np.random.default_rng(0)))


def arg(name, i, dtype, *path):
    """A value inside registry sample i of `name`: path[0] indexes args (int) or kwargs (str)."""
    s = samples(name, dtype)[i]
    value = s.kwargs[path[0]] if isinstance(path[0], str) else s.args[path[0]]
    for p in path[1:]:
        value = value[p]
    return value


def rand(shape, dtype, seed):
    """A seeded random array: integers in [-5, 5) (bool: coin flips), floats in [-3, 3)."""
    rng = np.random.default_rng(seed)
    npd = np.dtype(NP_DTYPE[getattr(tl, dtype)])
    if npd.kind == "b":
        return rng.random(shape) > 0.5
    if npd.kind in "iu":
        return rng.integers(0 if npd.kind == "u" else -5, 5, size=shape).astype(npd)
    return rng.uniform(-3, 3, size=shape).astype(npd)


def cast(a, dtype):
    return np.asarray(a).astype(NP_DTYPE[getattr(tl, dtype)])


def nonfinite(a, seed):
    """A copy of float array `a` with some elements set to nan, inf and -inf."""
    a = np.array(a, copy=True)
    rng = np.random.default_rng(seed)
    flat = a.reshape(-1)
    for k in rng.integers(0, flat.size, size=min(flat.size, 3)):
        flat[k] = rng.choice([np.nan, np.inf, -np.inf])
    return a


def rows_equal(a):
    """`a` with every index of dim 0 equal to the first (what an expanded tensor can hold)."""
    return np.ascontiguousarray(np.broadcast_to(a[:1], a.shape))


def _window_index(shape):
    """For overlapping windows with all strides 1: each element's position in the buffer."""
    return np.add.reduce(np.indices(shape), axis=0) if shape else np.zeros((), np.int64)


def windows(a):
    """An array shaped like `a` whose element (i, j, ...) is a.flat[i + j + ...]."""
    a = np.asarray(a)
    return a.reshape(-1)[_window_index(a.shape)] if a.size else a.copy()


def contiguous(a, lib=tl):
    return lib.tensor(np.asarray(a))


def transposed(a, lib=tl):
    a = np.asarray(a)
    return lib.tensor(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim)))


def sliced(a, lib=tl):
    a = np.asarray(a)
    return lib.tensor(np.repeat(a, 2, axis=-1))[..., ::2] if a.ndim else lib.tensor(a)


def offset(a, lib=tl):
    """A view starting one element into its buffer."""
    a = np.asarray(a)
    return lib.tensor(np.concatenate([a.reshape(-1)[:1], a.reshape(-1)]))[1:].view(*a.shape)


def expanded(a, lib=tl):
    """Dim 0 expanded from size 1 (for values made by rows_equal)."""
    a = np.asarray(a)
    return lib.tensor(np.ascontiguousarray(a[:1])).expand(*a.shape)


def overlapping(a, lib=tl):
    """as_strided with all strides 1: overlapping windows of one buffer (for values made by windows)."""
    a = np.asarray(a)
    if a.size == 0 or a.ndim == 0:
        return lib.tensor(a)
    buf = np.zeros(sum(a.shape) - a.ndim + 1, a.dtype)
    buf[_window_index(a.shape)] = a
    return lib.tensor(buf).as_strided(a.shape, (1,) * a.ndim)


LAYOUTS = ("contiguous", "transposed", "sliced", "offset", "expanded", "overlapping")


def names(lib):
    """The names calls are written with, with `tl` and the layout builders meaning `lib`."""
    ns = {name: globals()[name] for name in __all__}
    ns["tl"] = lib
    ns.update({name: functools.partial(globals()[name], lib=lib) for name in LAYOUTS})
    return ns


def _view(buf, shape, strides, start):
    return np.lib.stride_tricks.as_strided(buf[start:], shape, [s * buf.itemsize for s in strides])


def mirror(name, buf, views, make_args, dest):
    """NumPy's answer for an out=/in-place call on views of one buffer: run the reference out of
    place on copies of the views (`make_args(copies)` gives its args and kwargs), then write the
    result into view number `dest` element by element in row-major order. `views` are
    (shape, strides, start) triples in elements. Returns the buffer after the write."""
    buf = np.array(buf, copy=True)
    args, kwargs = make_args([_view(buf, *v).copy() for v in views])
    result = np.asarray(OPS[name].ref(*args, **kwargs))
    target = _view(buf, *views[dest])
    result = np.broadcast_to(result.astype(buf.dtype), target.shape)
    for index in np.ndindex(*target.shape):
        target[index] = result[index]
    return buf
