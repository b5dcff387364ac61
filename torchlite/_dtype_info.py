"""Facts about dtypes, as torch defines them in Python: finfo, iinfo, can_cast, is_complex,
is_signed."""

import numpy as np

from torchlite import _C

__all__ = ["can_cast", "finfo", "iinfo", "is_complex", "is_signed"]

_NUMPY_FLOAT = {_C.float16: np.float16, _C.float32: np.float32, _C.float64: np.float64}
_NUMPY_INT = {_C.uint8: np.uint8, _C.int8: np.int8, _C.int16: np.int16, _C.int32: np.int32, _C.int64: np.int64}
_DTYPE_NAME = {_C.bfloat16: "bfloat16", _C.float16: "float16", _C.float32: "float32", _C.float64: "float64",
               _C.uint8: "uint8", _C.int8: "int8", _C.int16: "int16", _C.int32: "int32", _C.int64: "int64"}


_CPP_NAME = {_C.float32: "Float", _C.float64: "Double", _C.float16: "Half", _C.bfloat16: "BFloat16",
             _C.int64: "Long", _C.int32: "Int", _C.int16: "Short", _C.int8: "Char", _C.uint8: "Byte", _C.bool: "Bool",
             _C.complex64: "ComplexFloat", _C.complex128: "ComplexDouble"}


def cpp_dtype_name(dtype):
    """PyTorch's C++ name of a dtype, as its error messages print it (Float, Long, ComplexFloat)."""
    return _CPP_NAME.get(dtype, str(dtype).split(".")[-1])


def _check_dtype(fn, arg, value):
    if not isinstance(value, _C.dtype):
        raise TypeError(f"{fn}(): argument '{arg}' must be torchlite.dtype, not {type(value).__name__}")


class _DtypeInfo:
    """Two infos of one kind are equal when they describe the same dtype."""

    def __eq__(self, other):
        return type(other) is type(self) and self.dtype == other.dtype

    def __hash__(self):
        return hash((type(self).__name__, self.dtype))


class finfo(_DtypeInfo):
    """finfo(type=None): limits of a floating dtype (the default dtype if none), as NumPy's finfo.

    >>> torchlite.finfo(torchlite.float32).eps
    1.1920928955078125e-07
    """

    def __init__(self, type=None):
        type = _C.get_default_dtype() if type is None else type
        _check_dtype("finfo", "type", type)
        type = type.to_real() if type.is_complex else type  # a complex dtype's parts, as in PyTorch
        if not type.is_floating_point:
            raise TypeError("torchlite.finfo() requires a floating point input type. "
                            "Use torchlite.iinfo to handle 'torchlite.finfo'")
        if type == _C.bfloat16:  # NumPy has no bfloat16: 8 exponent bits like float32, 8 significand bits
            self.bits, self.eps, self.max = 16, 2.0 ** -7, float.fromhex("0x1.fep127")
            self.tiny = self.smallest_normal = 2.0 ** -126
            self.resolution = 0.01
        else:
            info = np.finfo(_NUMPY_FLOAT[type])
            self.bits = info.bits
            self.eps, self.max = float(info.eps), float(info.max)
            self.tiny = self.smallest_normal = float(info.smallest_normal)
            self.resolution = 10.0 ** -info.precision
        self.min = -self.max
        self.dtype = _DTYPE_NAME[type]

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo(_DtypeInfo):
    """iinfo(type): limits of an integer dtype.

    >>> torchlite.iinfo(torchlite.int8).max
    127
    """

    def __init__(self, type):
        _check_dtype("iinfo", "type", type)
        if type == _C.bool:
            raise TypeError("torchlite.bool is not supported by torchlite.iinfo")
        if type.is_floating_point:
            raise TypeError("torchlite.iinfo() requires an integer input type. "
                            "Use torchlite.finfo to handle 'torchlite.iinfo'")
        info = np.iinfo(_NUMPY_INT[type])
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = _DTYPE_NAME[type]

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _kind(dtype):
    """0 bool, 1 integer, 2 floating, 3 complex: a cast may not go to a lower kind."""
    return 0 if dtype == _C.bool else 3 if dtype.is_complex else 2 if dtype.is_floating_point else 1


def can_cast(from_, to):
    """can_cast(from_, to) -> bool: whether PyTorch's casting rules allow from_ -> to (no complex to
    real, no float to integer, no non-bool to bool).

    >>> torchlite.can_cast(torchlite.float64, torchlite.int32)
    False
    """
    _check_dtype("can_cast", "from_", from_)
    _check_dtype("can_cast", "to", to)
    return _kind(from_) <= _kind(to)


def _check_tensor(fn, input):
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def is_complex(input):
    """is_complex(input) -> bool: whether input's dtype is complex64 or complex128.

    >>> torchlite.is_complex(torchlite.ones(2))
    False
    """
    _check_tensor("is_complex", input)
    return input.dtype.is_complex


def is_signed(input):
    """is_signed(input) -> bool: whether input's dtype is signed (every dtype except bool and uint8).

    >>> torchlite.is_signed(torchlite.ones(2, dtype=torchlite.uint8))
    False
    """
    _check_tensor("is_signed", input)
    return input.dtype.is_signed


def _is_complex_method(self):
    """x.is_complex() -> bool: torchlite.is_complex(x)."""
    return is_complex(self)


def _is_signed_method(self):
    """x.is_signed() -> bool: torchlite.is_signed(x)."""
    return is_signed(self)


_C.Tensor.is_complex = _is_complex_method
_C.Tensor.is_signed = _is_signed_method
