"""Shared test helpers: building inputs in every layout and comparing with NumPy."""

import numpy as np

import torchlite as tl

try:  # PyTorch is an optional reference; tests that need it skip without it.
    import torch as TORCH
except ImportError:  # pragma: no cover
    TORCH = None

FLOAT_DTYPES = [tl.float32, tl.float64]
INT_DTYPES = [tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64]
ALL_DTYPES = [tl.bool, *INT_DTYPES, tl.float16, tl.bfloat16, *FLOAT_DTYPES]

NP_DTYPE = {
    tl.bool: np.bool_,
    tl.uint8: np.uint8,
    tl.int8: np.int8,
    tl.int16: np.int16,
    tl.int32: np.int32,
    tl.int64: np.int64,
    tl.float16: np.float16,
    tl.float32: np.float32,
    tl.float64: np.float64,
    tl.complex64: np.complex64,
    tl.complex128: np.complex128,
}

# Layouts every elementwise/reduction test runs on.
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def random_array(shape, dtype, rng=None, low=-5, high=5):
    rng = rng or np.random.default_rng(0)
    if dtype == tl.bool:
        return rng.random(shape) > 0.5
    npd = NP_DTYPE.get(dtype, np.float32)
    if np.issubdtype(npd, np.integer):
        lo = max(low, np.iinfo(npd).min)
        return rng.integers(lo, high, size=shape).astype(npd)
    return rng.uniform(low, high, size=shape).astype(npd)


def make_tensor(array, layout="contiguous"):
    """A torchlite tensor equal to `array` (NumPy) in the given memory layout."""
    a = np.asarray(array)
    if layout == "contiguous" or a.ndim == 0:
        return tl.tensor(a)
    if layout == "transposed":
        # Stored transposed, viewed back: same values, non-contiguous strides.
        return tl.tensor(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim)))
    if layout == "sliced":
        # Every other element of a twice-as-long last dimension.
        big = np.repeat(a, 2, axis=-1)
        return tl.tensor(big)[..., ::2]
    if layout == "expanded":
        # Broadcast along the first dim from a size-1 dim when possible.
        if a.shape[0] > 1 and np.all(a == a[:1]):
            return tl.tensor(a[:1]).expand(*a.shape)
        return tl.tensor(a)
    raise ValueError(layout)


def to_numpy(t):
    if t.dtype == tl.bfloat16:
        t = t.to(tl.float32)
    return t.numpy(force=True)


def assert_close(actual, expected, rtol=None, atol=None, check_dtype=True):
    """Compare a torchlite tensor with a NumPy array (values, shape and dtype)."""
    expected = np.asarray(expected)
    got = to_numpy(actual)
    assert tuple(actual.shape) == expected.shape, f"shape {tuple(actual.shape)} != {expected.shape}"
    if check_dtype and actual.dtype != tl.bfloat16:
        assert got.dtype == expected.dtype, f"dtype {got.dtype} != {expected.dtype}"
    if got.dtype.kind in "fc" or expected.dtype.kind in "fc":
        tight = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-5, np.dtype(np.complex64): 1e-5}.get(got.dtype,
                                                                                                         1e-7)
        if actual.dtype == tl.bfloat16:
            tight = 1e-2
        np.testing.assert_allclose(got, expected, rtol=rtol or tight, atol=atol if atol is not None else tight,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


# ---- registry samples as tensors, and comparing results (test_ops, test_overlap, tests/fuzz) ----

def _map_arrays(obj, fn):
    """Apply fn to every NumPy array in a nest of tuples/lists/dicts."""
    if isinstance(obj, np.ndarray):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_arrays(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: _map_arrays(v, fn) for k, v in obj.items()}
    return obj


def _noncontiguous(a):
    """A torchlite tensor equal to `a` whose memory is not contiguous."""
    if a.ndim == 0:
        return tl.tensor(a)
    if a.ndim == 1:  # every other element of a twice-as-long buffer
        return tl.tensor(np.repeat(a, 2))[::2]
    return tl.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)


def _to_tl(obj, layout):
    make = tl.tensor if layout == "contiguous" else _noncontiguous
    return _map_arrays(obj, lambda a: make(a))


def _to_numpy(x):
    if isinstance(x, (list, tuple)):
        items = [_to_numpy(o) for o in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)  # a return_types named tuple
    if isinstance(x, tl.Tensor):
        return x.detach().numpy(force=True) if x.dtype != tl.bfloat16 else x.detach().float().numpy()
    if TORCH is not None and isinstance(x, TORCH.Tensor):
        x = x.detach().resolve_conj().resolve_neg()
        return x.float().numpy() if x.dtype == TORCH.bfloat16 else x.numpy()
    return x


def tolerances(info, dtype):
    """(rtol, atol) for comparing a result of `dtype`: the entry's own, else the dtype's default."""
    tol = {tl.float32: 1e-5, tl.complex64: 1e-5, tl.float16: 1e-3, tl.bfloat16: 1e-2}.get(dtype, 1e-7)
    return info.rtol or tol, info.atol if info.atol is not None else tol


def _compare(got, expected, info, dtype):
    """Compare a torchlite result (tensor / nest / number) with an expected NumPy nest."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected), f"{got!r} vs {expected!r}"
        for g, e in zip(got, expected):
            _compare(g, e, info, dtype)
        return
    if isinstance(got, tl.Tensor):
        rtol, atol = tolerances(info, dtype)
        assert_close(got, np.asarray(expected), rtol=rtol, atol=atol, check_dtype=False)
        expected_kind = np.asarray(expected).dtype.kind
        assert (got.dtype == tl.bool) == (expected_kind == "b"), f"dtype {got.dtype} vs NumPy {np.asarray(expected).dtype}"
    else:
        assert got == expected


def _sample(info, i, dtype):
    return list(info.sample_inputs(dtype, np.random.default_rng(0)))[i]
