"""torchlite.testing: assert_close and make_tensor, PyTorch's helpers for writing tests.

assert_close compares in NumPy: both sides are copied to the host and widened (bfloat16 to
float32), so the closeness rule |actual - expected| <= atol + rtol * |expected| is evaluated
the same way for every dtype and device. Messages follow PyTorch's wording, since test suites
sometimes match on them.
"""

import builtins
import collections.abc
import math
import warnings

import numpy as np

from torchlite import _C
from torchlite._dtype_info import finfo, iinfo

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

Tensor = _C.Tensor

# (rtol, atol) by dtype when neither is given; other dtypes compare exactly.
_DEFAULT_TOLERANCES = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
    _C.complex64: (1.3e-6, 1e-5),
    _C.complex128: (1e-7, 1e-7),
}
# assert_allclose's defaults, looser than assert_close's.
_ALLCLOSE_TOLERANCES = {_C.float16: (1e-3, 1e-3), _C.float32: (1e-4, 1e-5), _C.float64: (1e-5, 1e-8)}
# The dtype a Python number is compared as.
_NUMBER_DTYPES = {builtins.int: _C.int64, builtins.float: _C.float64, builtins.complex: _C.complex128}


class _Mismatch(Exception):
    """A failed comparison: the exception type to raise and PyTorch's message."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message
        self.path = []  # the keys/indices leading to the failing item, outermost first


def _tolerances(dtypes, rtol, atol, table=_DEFAULT_TOLERANCES):
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [table.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _host_array(t):
    """A NumPy copy of tensor t for comparison (bfloat16 widened to float32)."""
    t = t.detach()
    if t.dtype == _C.bfloat16:
        t = t.float()
    return t.cpu().numpy()


def _is_number(x):
    return isinstance(x, (builtins.int, builtins.float, builtins.complex)) and not isinstance(x, builtins.bool)


def _as_tensor_likes(actual, expected):
    """Both as tensors when both are tensors or both NumPy arrays (PyTorch does not mix the two);
    else None."""
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        return actual, expected
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        return _C.from_numpy(actual), _C.from_numpy(expected)
    return None


def _check_attributes(actual, expected, check_device, check_dtype, check_stride):
    for attr, wanted, get in (
        ("shape", True, lambda t: t.shape),
        ("device", check_device, lambda t: t.device),
        ("dtype", check_dtype, lambda t: t.dtype),
        ("stride()", check_stride and actual.numel() > 1, lambda t: t.stride()),
    ):
        a, e = get(actual), get(expected)
        if wanted and a != e:
            raise _Mismatch(AssertionError, f"The values for attribute '{attr}' do not match: {a} != {e}.")


def _compare_values(a, e, rtol, atol, equal_nan):
    """Raises _Mismatch unless arrays a and e (same shape) are close elementwise. Differences are
    computed in the common dtype of the two, so the reported figures are PyTorch's."""
    if a.dtype == np.bool_ or e.dtype == np.bool_:
        a, e = a.astype(np.int64), e.astype(np.int64)
    common = np.result_type(a.dtype, e.dtype)
    a, e = a.astype(common), e.astype(common)
    integral = np.issubdtype(common, np.integer)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        abs_diff = np.abs(a - e)
        close = (a == e) | (np.isfinite(abs_diff) & (abs_diff <= atol + rtol * np.abs(e)))
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
        if close.all():
            return
        rel_diff = abs_diff / np.abs(e).astype(np.float32 if integral else abs_diff.dtype)
    abs_diff = np.where(close, 0, abs_diff)
    rel_diff = np.where(close, 0, rel_diff)
    exact = rtol == 0 and atol == 0
    limit = {"absolute": "" if exact else f" (up to {atol} allowed)",
             "relative": "" if exact else f" (up to {rtol} allowed)"}
    if a.ndim == 0:  # the figures of a single value come from Python numbers, as in PyTorch
        av, ev = a.item(), e.item()
        abs_value = abs(av - ev)
        rel_value = abs_value / abs(ev) if ev != 0 else math.inf
        lines = [f"Expected {ev} but got {av}.",
                 f"Absolute difference: {abs_value}{limit['absolute']}",
                 f"Relative difference: {rel_value}{limit['relative']}"]
    else:
        total, bad = close.size, builtins.int((~close).sum())
        lines = [f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"]
        for name, diff in (("absolute", abs_diff), ("relative", rel_diff)):
            flat = builtins.int(np.argmax(diff))  # a NaN difference counts as the greatest
            index = tuple(builtins.int(i) for i in np.unravel_index(flat, diff.shape))
            lines.append(f"Greatest {name} difference: {diff.reshape(-1)[flat].item()} at index {index}{limit[name]}")
    what, verdict = "Scalars" if a.ndim == 0 else "Tensor-likes", "equal" if exact else "close"
    raise _Mismatch(AssertionError, f"{what} are not {verdict}!\n\n" + "\n".join(lines))


def _compare(actual, expected, *, allow_subclasses, rtol, atol, equal_nan, check_device, check_dtype,
             check_stride):
    if actual is None or expected is None:
        if actual is not expected:
            raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}")
        return
    if isinstance(actual, builtins.bool) and isinstance(expected, builtins.bool):
        if actual is not expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    if _is_number(actual) and _is_number(expected):
        if check_dtype and type(actual) is not type(expected):
            raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        r, a = _tolerances([_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)]], rtol, atol)
        _compare_values(np.array(actual), np.array(expected), r, a, equal_nan)
        return
    tensors = _as_tensor_likes(actual, expected)
    if tensors is not None:
        ta, te = tensors
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                       f"{type(expected)}.")
        _check_attributes(ta, te, check_device, check_dtype, check_stride)
        r, a = _tolerances([ta.dtype, te.dtype], rtol, atol)
        _compare_values(_host_array(ta), _host_array(te), r, a, equal_nan)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if actual.keys() != expected.keys():
            lines = ["The keys of the mappings do not match:"]
            missing, extra = expected.keys() - actual.keys(), actual.keys() - expected.keys()
            for what, keys in (("Missing", missing), ("Additional", extra)):
                if keys:
                    lines.append(f"{what} keys in the actual mapping: {sorted(keys)}")
            raise _Mismatch(AssertionError, "\n".join(lines))
        items = [(key, actual[key], expected[key]) for key in expected]
    elif (isinstance(actual, collections.abc.Sequence) and isinstance(expected, collections.abc.Sequence)
          and not isinstance(actual, str) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        items = list(zip(range(len(actual)), actual, expected))
    else:
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                   f"{type(expected)}.")
    for key, a, e in items:
        try:
            _compare(a, e, allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                     check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
        except _Mismatch as mismatch:
            mismatch.path.insert(0, key)
            raise


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that actual and expected are close: tensors (or NumPy arrays) elementwise with
    |actual - expected| <= atol + rtol * |expected|, Python scalars alike, sequences and mappings
    item by item. Without rtol/atol, the tolerances come from the dtypes (float32: 1.3e-6 and 1e-5;
    integers and bool: exact). Raises AssertionError with a description of the mismatch, or
    msg (a string, or a callable given the description).

    >>> torchlite.testing.assert_close(torchlite.tensor([1.0, 2.0]), torchlite.tensor([1.0, 2.0 + 1e-7]))
    """
    try:
        _compare(actual, expected, allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
    except _Mismatch as mismatch:
        message = mismatch.message
        if mismatch.path:
            message += "\n\nThe failure occurred for item " + "".join(f"[{key!r}]" for key in mismatch.path)
        if callable(msg):
            message = msg(message)
        elif msg is not None:
            message = msg
        raise mismatch.kind(message) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated in PyTorch in favour of assert_close: compares as assert_close does, with
    equal_nan=True and without checking dtypes."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = _C.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _C.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:  # this function's own, looser, defaults
        rtol, atol = _tolerances([actual.dtype, expected.dtype], None, None, _ALLCLOSE_TOLERANCES)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)


_INTEGRAL = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)
_FLOATING = (_C.float16, _C.bfloat16, _C.float32, _C.float64)
_COMPLEX = (_C.complex64, _C.complex128)


def _value_range(dtype):
    """The values a random tensor of dtype may hold: [lowest, highest) and the default [low, high)."""
    if dtype == _C.bool:
        return 0, 2, 0, 2
    if dtype in _INTEGRAL:
        info = iinfo(dtype)
        # randint draws below an int64 bound, so int64's largest value cannot be drawn
        return info.min, info.max + (dtype != _C.int64), -9, 10
    info = finfo(dtype)
    return info.min, info.max, -9, 9


def _low_high(dtype, low, high):
    lowest, highest, default_low, default_high = _value_range(dtype)
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    floating = dtype in _FLOATING or dtype in _COMPLEX
    if low == high and floating:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    # integers: round both bounds up, so no value falls below low and high stays exclusive
    return (low, high) if floating else (math.ceil(low), math.ceil(high))


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of the given shape, dtype and device filled with values drawn uniformly from
    [low, high) (defaults: bool [0, 2), integers [-9, 10) clamped to the dtype, floating and complex
    [-9, 9)). noncontiguous gives a strided view instead of a contiguous tensor; exclude_zero
    replaces zeros by 1 (integers) or the dtype's smallest normal number (floating, complex).

    >>> torchlite.testing.make_tensor(2, 3, dtype=torchlite.float32, device="cpu").shape
    torchlite.Size([2, 3])
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if dtype not in (_C.bool, *_INTEGRAL, *_FLOATING, *_COMPLEX):
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor().")
    if requires_grad and (dtype == _C.bool or dtype in _INTEGRAL):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # draw twice the last dimension and keep every other element
        shape = (*shape[:-1], 2 * shape[-1])
    low, high = _low_high(dtype, low, high)
    if dtype == _C.bool or dtype in _INTEGRAL:
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    else:
        result = _C.empty(shape, device=device, dtype=dtype)
        target = _C.view_as_real(result) if dtype in _COMPLEX else result
        if high - low >= _value_range(dtype)[1]:  # uniform_ needs high - low to be finite
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        if dtype == _C.bool or dtype in _INTEGRAL:
            replacement = 1
        else:
            tiny = finfo(dtype).tiny
            replacement = complex(tiny, tiny) if dtype in _COMPLEX else tiny
        result[result == 0] = replacement
    if dtype in _FLOATING or dtype in _COMPLEX:
        result.requires_grad = requires_grad
    return result
