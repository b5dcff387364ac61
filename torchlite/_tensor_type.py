"""Tensor types by name: Tensor.type(), the short casts (x.byte(), x.float(), ...), and the
legacy constructors torchlite.Tensor(data | *sizes), FloatTensor, LongTensor, ...

Type strings are PyTorch's ('torch.FloatTensor', 'torch.cuda.LongTensor'), because programs
compare x.type() against those literals; 'torchlite.FloatTensor' is accepted too.
"""

import builtins

from torchlite import _C
from torchlite._size import Size

Tensor = _C.Tensor

# name -> dtype, in PyTorch's order
_LEGACY_NAMES = {
    "DoubleTensor": _C.float64, "FloatTensor": _C.float32, "BFloat16Tensor": _C.bfloat16,
    "HalfTensor": _C.float16, "ByteTensor": _C.uint8, "CharTensor": _C.int8, "ShortTensor": _C.int16,
    "IntTensor": _C.int32, "LongTensor": _C.int64, "BoolTensor": _C.bool,
}
# Complex types have type strings but no legacy constructor, as in PyTorch.
_TYPE_NAMES = {**_LEGACY_NAMES, "ComplexFloatTensor": _C.complex64, "ComplexDoubleTensor": _C.complex128}
_NAME_OF_DTYPE = {d: n for n, d in _TYPE_NAMES.items()}


def _is_size(args):
    return all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args)


def _legacy_new(dtype, device, args):
    """What torch.Tensor(*args) and FloatTensor(*args) build: empty of a size, or a copy of data."""
    if not args:
        return _C.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype != dtype:
            raise TypeError(f"expected {dtype} (got {args[0].dtype})")
        return args[0].detach()  # an alias, as in PyTorch
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if _is_size(args):
        return _C.empty(args, dtype=dtype, device=device)
    if len(args) == 1:
        if isinstance(args[0], (builtins.float, builtins.bool, builtins.complex)):
            raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
        return _C.tensor(args[0], dtype=dtype, device=device)
    got = tuple(type(a).__name__ for a in args)
    raise TypeError(f"new(): expected sizes (ints) or one sequence of data, got {got}")


def _tensor_new(cls, *args, device=None):
    t = _legacy_new(_C.get_default_dtype(), device, args)
    return t if cls is Tensor else Tensor._make_subclass(cls, t)


def _tensor_init(self, *args, **kwargs):
    """Construction happens in __new__ (the pybind11 base has no constructor)."""


class _LegacyTensorType(type):
    """The metaclass of FloatTensor and the rest: calling one builds a tensor of its dtype;
    isinstance(x, FloatTensor) is true for a float32 CPU tensor."""

    def __call__(cls, *args, device=None):
        return _legacy_new(cls.dtype, _C.device(cls._device_type) if device is None else device, args)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == cls._device_type

    def __repr__(cls):
        return f"<class 'torchlite.{cls.__name__}'>"


def _legacy_type(name, dtype):
    return _LegacyTensorType(name, (), {"dtype": dtype, "_device_type": "cpu", "is_cuda": False,
                                        "__module__": "torchlite",
                                        "__doc__": f"{name}(*sizes | data): a CPU tensor of dtype {dtype}."})


LEGACY_TYPES = {name: _legacy_type(name, dtype) for name, dtype in _LEGACY_NAMES.items()}


def _parse_type_string(s):
    """'torch.cuda.FloatTensor' -> (float32, 'cuda'); ValueError for an unknown name."""
    if not s.startswith(("torch.", "torchlite.")):
        raise ValueError(f"invalid type: '{s}'")
    rest, device = s.split(".", 1)[1], "cpu"
    if rest.startswith("cuda."):
        device, rest = "cuda", rest[len("cuda."):]
    if rest not in _TYPE_NAMES:
        raise ValueError(f"invalid type: '{s}'")
    return _TYPE_NAMES[rest], device


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """x.type(dtype=None, non_blocking=False): the type string with no dtype, else x cast to the
    dtype, type string ('torch.IntTensor') or legacy type (torchlite.IntTensor); x itself when
    nothing changes.

    >>> torchlite.ones(2).type()
    'torch.FloatTensor'
    """
    non_blocking = kwargs.pop("async", non_blocking)  # PyTorch's old name for it
    if kwargs:
        raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dtype is None:
        cuda = "cuda." if self.device.type == "cuda" else ""
        return f"torch.{cuda}{_NAME_OF_DTYPE[self.dtype]}"
    if isinstance(dtype, str):
        dtype, device = _parse_type_string(dtype)
    elif isinstance(dtype, _LegacyTensorType):
        dtype, device = dtype.dtype, dtype._device_type
    elif isinstance(dtype, _C.dtype):
        device = self.device.type
    else:
        raise TypeError(f"type(): dtype must be a torchlite.dtype, a type string or a tensor type, "
                        f"not {type(dtype).__name__}")
    if device == self.device.type:
        return self.to(dtype, non_blocking=non_blocking)
    return self.to(device=_C.device(device), dtype=dtype, non_blocking=non_blocking)


def _short_cast(name, dtype):
    def cast(self, memory_format=_C.preserve_format):
        return self.to(dtype, memory_format=memory_format)

    cast.__name__ = name
    cast.__doc__ = f"x.{name}(memory_format=torchlite.preserve_format): x.to({dtype})"
    return cast


_CASTS = {"byte": _C.uint8, "char": _C.int8, "short": _C.int16, "int": _C.int32, "long": _C.int64,
          "half": _C.float16, "bfloat16": _C.bfloat16, "float": _C.float32, "double": _C.float64,
          "bool": _C.bool, "cfloat": _C.complex64, "cdouble": _C.complex128}

for _name, _dtype in _CASTS.items():
    setattr(Tensor, _name, _short_cast(_name, _dtype))
Tensor.type = type_
Tensor.__new__ = staticmethod(_tensor_new)
Tensor.__init__ = _tensor_init
