"""nn.Parameter: a Tensor that a Module registers as one of its parameters."""

from torchlite import _C
from torchlite._C import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigning it as a Module attribute registers it.

    `Parameter(data)` aliases `data`'s storage (no copy) as a new leaf that requires grad by
    default. Ops on a Parameter return plain Tensors; in-place ops return the Parameter itself
    (see Note [Tensor subclasses] in torchlite/csrc/python_tensor.cpp).
    """

    # Ops on a Parameter do not dispatch to a handler: their results are plain Tensors, as in PyTorch.
    __torch_function__ = _C._disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        # Construction happens in __new__; the pybind11 base __init__ must not run again.
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.data, self.requires_grad))



class _BufferMeta(type(Tensor)):
    """isinstance(t, Buffer) holds for the tensors Buffer(...) marks."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a module buffer: assigning `Buffer(t)` as a Module attribute registers it
    (persistent=False keeps it out of the state_dict). Returns `t` detached, not a subclass."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """A placeholder of unknown shape that a lazy module fills in with materialize() on its first forward."""

    __torch_function__ = _C._disabled_torch_function_impl  # results are plain Tensors

    def materialize(self, shape, device=None, dtype=None):
        """Gives the placeholder real (uninitialised) storage of `shape`, on `device` with `dtype`
        (the placeholder's own by default), and turns it into a cls_to_become."""
        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        self.data = _C.empty(shape, device=device, dtype=dtype)
        self._become()

    def _become(self):
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape a lazy module infers on its first forward; then it becomes a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Tensor._make_subclass(cls, _C.empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass  # built in __new__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy module infers on its first forward.

    PyTorch turns it into a plain Tensor in place; a torchlite Tensor subclass cannot change into
    the base class, so it stays this type with `is_lazy` false, and the lazy modules put plain
    tensors in its place (see LazyModuleMixin)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        ret = Tensor._make_subclass(cls, _C.empty(0, device=device, dtype=dtype), requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass  # built in __new__

    def _become(self):
        self._materialized = True

    @property
    def shape(self):
        if getattr(self, "_materialized", False):
            return Tensor.shape.__get__(self)
        return UninitializedTensorMixin.shape.__get__(self)


def is_lazy(param):
    """Whether `param` is a placeholder still waiting for its shape."""
    return isinstance(param, UninitializedTensorMixin) and not getattr(param, "_materialized", False)
