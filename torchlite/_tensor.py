"""Python-level parts of torchlite.Tensor: repr, reflected operators, conversions.

Operator methods and the forward operator slots (__add__, __iadd__, ...) are generated
C++ bindings; what is here needs Python (formatting, the number protocol, NumPy).
"""

import builtins

from torchlite import _C
from torchlite._tensor_str import tensor_repr

Tensor = _C.Tensor


def __radd__(self, other):
    return self.add(other)


def _is_number(x):
    return isinstance(x, (builtins.bool, builtins.int, builtins.float, builtins.complex))


def _number_as_tensor(self, number):
    """A 0-dim tensor standing in for a Python number on the left of an operator.

    Its dtype is result_type(self, number) (the number is a weak type), so using it as the
    left operand gives the dtype `number op self` has in PyTorch.
    """
    d = self.dtype
    if isinstance(number, builtins.complex):
        d = d if d.is_complex else d.to_complex() if d.is_floating_point else _C.get_default_dtype().to_complex()
    elif isinstance(number, builtins.float):
        d = d if d.is_floating_point or d.is_complex else _C.get_default_dtype()
    elif not isinstance(number, builtins.bool) and d == _C.bool:
        d = _C.int64
    return _C.tensor(number, dtype=d, device=self.device)


def __rsub__(self, other):
    return _C.rsub(self, other) if _is_number(other) else NotImplemented


def __rmul__(self, other):
    return self.mul(other)


def __rtruediv__(self, other):
    return _C.div(_number_as_tensor(self, other), self) if _is_number(other) else NotImplemented


def __rfloordiv__(self, other):
    return _C.floor_divide(_number_as_tensor(self, other), self) if _is_number(other) else NotImplemented


def __rmod__(self, other):
    return _C.remainder(other, self) if _is_number(other) else NotImplemented


def __rpow__(self, other):
    return _C.pow(other, self) if _is_number(other) else NotImplemented


def __rmatmul__(self, other):
    return _C.matmul(other, self)


def __rand__(self, other):
    return self.bitwise_and(other)


def __ror__(self, other):
    return self.bitwise_or(other)


def __rxor__(self, other):
    return self.bitwise_xor(other)


def __rlshift__(self, other):
    return _C.bitwise_left_shift(other, self) if _is_number(other) else NotImplemented


def __rrshift__(self, other):
    return _C.bitwise_right_shift(other, self) if _is_number(other) else NotImplemented


def __pos__(self):
    return self


def __bool__(self):
    if self.numel() != 1:
        amount = "no values" if self.numel() == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
    return builtins.bool(self.item())


def _python_number(self):
    # float(t) / int(t) say ValueError where t.item() says RuntimeError, as in PyTorch.
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return self.item()


def __float__(self):
    return builtins.float(_python_number(self))


def __int__(self):
    return builtins.int(_python_number(self))


def __index__(self):
    if self.dtype.is_floating_point or self.numel() != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return builtins.int(self.item())


def __len__(self):
    if self.dim() == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.shape[0]


def __iter__(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def __array__(self, dtype=None, copy=None):
    a = self.numpy(force=True)
    return a if dtype is None else a.astype(dtype, copy=False)


def __hash__(self):
    return id(self)


def __repr__(self, *, tensor_contents=None):
    r = tensor_repr(self)
    fn = self.grad_fn
    if fn is not None:
        return f"{r[:-1]}, grad_fn=<{fn.name()}>)"
    if self.requires_grad:
        return f"{r[:-1]}, requires_grad=True)"
    return r


def __format__(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def __contains__(self, element):
    return builtins.bool((self == element).any().item())


def cpu(self, memory_format=_C.preserve_format):
    return self.to("cpu", memory_format=memory_format)


def cuda(self, device=None, non_blocking=False, memory_format=_C.preserve_format):
    return self.to(_C.device("cuda") if device is None else _C.device("cuda", device) if isinstance(device, int)
                   else device, non_blocking=non_blocking, memory_format=memory_format)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradient of this tensor w.r.t. the graph leaves into their .grad."""
    from torchlite import autograd

    autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(self, hook):
    """hook(grad) -> Tensor or None runs when this tensor's gradient is computed."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    from torchlite.utils.hooks import _NativeHookHandle  # torchlite.utils imports torchlite

    return _NativeHookHandle(self, self._register_hook(hook))


def register_post_accumulate_grad_hook(self, hook):
    """hook(tensor) -> None runs after a backward pass has accumulated this leaf's gradient into
    its .grad (enough to step an optimizer per parameter during backward)."""
    from torchlite.utils.hooks import _NativeHookHandle

    return _NativeHookHandle(self, self._register_post_accumulate_grad_hook(hook))


def _node_register_hook(self, hook):
    from torchlite.utils.hooks import _NativeHookHandle  # torchlite.utils imports torchlite

    return _NativeHookHandle(self, self._register_hook(hook))


def _node_register_prehook(self, hook):
    from torchlite.utils.hooks import _NativeHookHandle

    return _NativeHookHandle(self, self._register_prehook(hook))


def __reduce_ex__(self, protocol):
    from torchlite.serialization import _tensor_reduce_ex

    return _tensor_reduce_ex(self, protocol)


def __deepcopy__(self, memo):
    from torchlite.serialization import _tensor_deepcopy

    return _tensor_deepcopy(self, memo)


def _T(self):
    return self.permute(*reversed(range(self.dim())))


def _mT(self):
    return self.transpose(-2, -1)


# ---- complex numbers: parts as views, conjugate transposes (see native_functions.yaml) ----


def _real(self):
    return _C.real(self)


def _set_real(self, value):
    _C.real(self).copy_(value)


def _imag(self):
    return _C.imag(self)


def _set_imag(self, value):
    _C.imag(self).copy_(value)


def _H(self):
    if self.dim() > 2 or self.dim() == 1:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
    return self.adjoint() if self.dim() == 2 else self.conj()


def _mH(self):
    if self.dim() == 1:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return self.adjoint() if self.dim() >= 2 else self.conj()


def is_conj(self):
    """x.is_conj() -> bool: always False; torchlite's conj() materialises (no lazy conjugate bit)."""
    return False


def is_neg(self):
    """x.is_neg() -> bool: always False; torchlite has no lazy negation bit."""
    return False


def __complex__(self):
    return builtins.complex(self.item())


@classmethod
def __torch_function__(cls, func, types, args=(), kwargs=None):
    """What a Tensor subclass that does not define its own handler does with a torchlite call:
    runs it with subclass dispatch off, and gives tensor results the subclass's type (so that
    subclasses survive operations). Declines (NotImplemented) calls involving types that are
    not parents of `cls`."""
    if not builtins.all(issubclass(cls, t) for t in types):
        return NotImplemented
    with _C.DisableTorchFunctionSubclass():
        return _convert(func(*args, **(kwargs or {})), cls)


def _convert(ret, cls):
    """`ret` with its tensors (also inside tuples and lists) made instances of `cls`; in-place
    results, already of the subclass, stay themselves."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return ret._make(items) if hasattr(ret, "_make") else type(ret)(items)
    return ret


_METHODS = {
    "__radd__": __radd__,
    "__rsub__": __rsub__,
    "__rmul__": __rmul__,
    "__rtruediv__": __rtruediv__,
    "__rfloordiv__": __rfloordiv__,
    "__rmod__": __rmod__,
    "__rpow__": __rpow__,
    "__rmatmul__": __rmatmul__,
    "__rand__": __rand__,
    "__ror__": __ror__,
    "__rxor__": __rxor__,
    "__rlshift__": __rlshift__,
    "__rrshift__": __rrshift__,
    "__pos__": __pos__,
    "__bool__": __bool__,
    "__float__": __float__,
    "__int__": __int__,
    "__index__": __index__,
    "__len__": __len__,
    "__iter__": __iter__,
    "__array__": __array__,
    "__hash__": __hash__,
    "__repr__": __repr__,
    "__format__": __format__,
    "__contains__": __contains__,
    "cpu": cpu,
    "cuda": cuda,
    "backward": backward,
    "register_hook": register_hook,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "__reduce_ex__": __reduce_ex__,  # pickling via NumPy (torchlite/serialization.py)
    "__deepcopy__": __deepcopy__,
    "is_conj": is_conj,
    "is_neg": is_neg,
    "__complex__": __complex__,
    "__torch_function__": __torch_function__,
}
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.real = property(_real, _set_real)
Tensor.imag = property(_imag, _set_imag)
Tensor.H = property(_H)
Tensor.mH = property(_mH)
Tensor.__array_priority__ = 1000  # NumPy defers `ndarray op tensor` to the tensor
_C._autograd.Node.register_hook = _node_register_hook
_C._autograd.Node.register_prehook = _node_register_prehook
