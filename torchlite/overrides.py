"""torchlite.overrides: the __torch_function__ protocol, as torch.overrides.

An argument whose type defines ``__torch_function__(cls, func, types, args=(), kwargs=None)``, a
Tensor subclass or any other object, takes over the torchlite functions it is passed to: the
function calls the handler instead of computing. Every generated operator checks its arguments in
C++ (Note [__torch_function__] in torchlite/csrc/python_torch_function.cpp); the functions written
in Python check theirs through the ``_overridable`` decorator below. Handlers run in PyTorch's
order: an active TorchFunctionMode first, then the arguments' types, subclasses before their
parents and otherwise left to right; a handler returning NotImplemented passes the call on, and a
call no handler takes raises TypeError.
"""

import contextlib
import functools
import inspect
import warnings

from torchlite import _C
from torchlite._C import (  # noqa: F401  (PyTorch exposes these here)
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _get_function_stack_at,
    _is_torch_function_mode_enabled,
    _len_torch_function_stack,
    _pop_torch_function_stack,
    _push_on_torch_function_stack,
)
from torchlite._C import _has_torch_function as has_torch_function
from torchlite._C import _has_torch_function_unary as has_torch_function_unary  # noqa: F401
from torchlite._C import _has_torch_function_variadic as has_torch_function_variadic  # noqa: F401

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
           "has_torch_function", "resolve_name", "is_tensor_like", "is_tensor_method_or_property",
           "wrap_torch_function", "TorchFunctionMode"]


def _get_overloaded_args(relevant_args):
    """The arguments whose __torch_function__ run, one per type, in calling order: left to right,
    except that a subclass goes before the first argument of a parent type."""
    if not _C._is_torch_function_enabled():
        return []
    seen = set()
    ordered = []
    for arg in relevant_args:
        t = type(arg)
        disabled = _disabled_torch_function_impl
        if t in seen or getattr(t, "__torch_function__", disabled) is disabled:
            continue
        seen.add(t)
        at = next((i for i, old in enumerate(ordered) if issubclass(t, type(old))), len(ordered))
        ordered.insert(at, arg)
    return ordered


def _run_handlers(public_api, overloaded_args, args, kwargs):
    """The first result other than NotImplemented from the active mode's, then the arguments',
    __torch_function__; NotImplemented when all decline."""
    types = tuple(type(a) for a in overloaded_args)
    if _is_torch_function_mode_enabled():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded_args:
        method = arg.__torch_function__
        if getattr(method, "__self__", None) is arg:
            warnings.warn("Defining your `__torch_function__` as a plain method is deprecated and will be an error "
                          "in future, please define it as a classmethod.", DeprecationWarning, stacklevel=3)
        result = method(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    return NotImplemented


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the __torch_function__ overrides of `relevant_args` (and the active mode's) for the
    call ``public_api(*args, **kwargs)``, in dispatch order, and returns the first result that is
    not NotImplemented. Raises TypeError when every handler returns NotImplemented. Guard it with
    has_torch_function, as torchlite's own functions do."""
    overloaded = _get_overloaded_args(relevant_args)
    result = _run_handlers(public_api, overloaded, args, kwargs)
    if result is not NotImplemented:
        return result
    msg = (f"no implementation found for '{public_api.__module__}.{public_api.__name__}' on types that implement "
           f"__torch_function__: {[type(arg) for arg in overloaded]}")
    if _is_torch_function_mode_enabled():
        msg += f" nor in mode {_get_current_function_mode()}"
    raise TypeError(msg)


def _handle_binding(public_api, qualified_name, relevant_args, args, kwargs):
    """A generated binding's call that dispatches: `relevant_args` are its arguments (and list
    elements) that override the protocol. Words the failure as PyTorch's C++ bindings do."""
    overloaded = _get_overloaded_args(relevant_args)
    result = _run_handlers(public_api, overloaded, args, kwargs)
    if result is not NotImplemented:
        return result
    mode = _get_current_function_mode() if _is_torch_function_mode_enabled() else None
    lines = ([f"  - mode object {mode!r}\n"] if mode is not None else []) + [
        f"  - tensor subclass {type(arg)!r}\n" for arg in overloaded]
    raise TypeError(f"Multiple dispatch failed for '{qualified_name}'; all __torch_function__ handlers returned "
                    f"NotImplemented:\n\n{''.join(lines)}")


def _overridable(func):
    """Decorator for torchlite's own Python-level functions: every argument (and element of a
    list argument) is checked, in C++, the way the generated bindings check theirs, before the
    function is called (Note [Overridable Python functions] in python_torch_function.cpp)."""
    wrapped = functools.update_wrapper(_C._OverridableFunction(func), func)
    wrapped._torch_function_dispatch = True
    return wrapped


def _handle_overridable(public_api, args, kwargs):
    """An _overridable function's call that dispatches (its C check found an override or a mode)."""
    return handle_torch_function(public_api, (*_flatten(args), *_flatten(kwargs.values())), *args, **kwargs)


def _flatten(values):
    """Arguments with list and tuple arguments' elements in their place (Tensor[] arguments)."""
    for v in values:
        if type(v) in (list, tuple):
            yield from v
        else:
            yield v


def _make_overridable(namespace, modules=(), names=()):
    """Replaces, in `namespace`, each Python function that one of the modules defines and names in
    its __all__ (torchlite/__init__.py and torchlite.nn.functional export them so), and each one
    named in `names` (functions of other modules that PyTorch makes overridable), by its
    _overridable form, under the namespace's module name as in PyTorch (F.relu.__module__ ==
    'torchlite.nn.functional')."""
    for name in names:
        if not inspect.isfunction(namespace.get(name)):
            raise TypeError(f"_make_overridable: {namespace['__name__']}.{name} is not a Python function")
    defined = [n for m in modules for n in m.__all__ if getattr(namespace.get(n), "__module__", None) == m.__name__]
    for name in (*names, *defined):
        f = namespace[name]
        if inspect.isfunction(f):
            namespace[name] = _overridable(f)
            namespace[name].__module__ = namespace["__name__"]


def wrap_torch_function(dispatcher):
    """Decorator: the function honours __torch_function__ for the Tensor-likes that
    ``dispatcher(*args, **kwargs)`` (same signature as the function) returns."""

    def decorate(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        wrapped._torch_function_dispatch = True
        return wrapped

    return decorate


def is_tensor_like(inp):
    """Whether `inp` is a Tensor or overrides __torch_function__ (so can stand in for a Tensor)."""
    return type(inp) is _C.Tensor or hasattr(inp, "__torch_function__")


# ---- modes ----------------------------------------------------------------------------------


class TorchFunctionMode:
    """Overrides every overridable torchlite function within a ``with`` block: its
    __torch_function__ gets each call first, tensors or not (factories included). Calls made
    inside the handler go to the next mode out (the mode is popped while it runs)."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs each function as called: subclass it and override what to change."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _push_mode(mode):
    _push_on_torch_function_stack(mode)


def _pop_mode():
    return _pop_torch_function_stack()


def _get_current_function_mode():
    n = _len_torch_function_stack()
    return _get_function_stack_at(n - 1) if n else None


def _get_current_function_mode_stack():
    return [_get_function_stack_at(i) for i in range(_len_torch_function_stack())]


@contextlib.contextmanager
def _pop_mode_temporarily():
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def _is_torch_function_enabled():
    return _C._is_torch_function_enabled()


# ---- the overridable namespace --------------------------------------------------------------


def _namespaces():
    import torchlite
    import torchlite.nn.functional

    return {torchlite: "torchlite", torchlite.Tensor: "torchlite.Tensor",
            torchlite.nn.functional: "torchlite.nn.functional", torchlite.linalg: "torchlite.linalg",
            torchlite.fft: "torchlite.fft", torchlite.special: "torchlite.special"}


def _dispatches(obj):
    """Whether calling `obj` checks for __torch_function__: a routed binding or a decorated function."""
    return callable(obj) and (obj in _routed_names() or getattr(obj, "_torch_function_dispatch", False))


@functools.cache
def _routed_names():
    """Routed binding -> the name error messages give it."""
    return dict(_C._routed_bindings())


@functools.cache
def _public_functions():
    """namespace -> its public callables (dunder methods of Tensor included), in name order."""
    out = {}
    for ns in _namespaces():
        names = sorted(vars(ns)) if isinstance(ns, type) else getattr(ns, "__all__", None) or sorted(vars(ns))
        funcs = []
        for name in names:
            if name.startswith("_") and not (name.startswith("__") and isinstance(ns, type)):
                continue
            obj = getattr(ns, name, None)
            if callable(obj) and not isinstance(obj, type) and not inspect.ismodule(obj):
                funcs.append(obj)
        out[ns] = funcs
    return out


def get_overridable_functions():
    """namespace (torchlite, torchlite.Tensor, torchlite.nn.functional, linalg, fft, special) ->
    the functions in it that honour __torch_function__."""
    return {ns: [f for f in funcs if _dispatches(f)] for ns, funcs in _public_functions().items()}


def get_ignored_functions():
    """The public functions of those namespaces that do not honour __torch_function__ (factories
    taking no tensor, type queries, settings)."""
    return {f for funcs in _public_functions().values() for f in funcs if not _dispatches(f)}


def get_testing_overrides():
    """overridable function -> a stand-in returning -1 that carries its name, docstring and (via
    __wrapped__) signature, for testing that a type's __torch_function__ receives every call."""
    return {f: functools.update_wrapper(lambda *args, **kwargs: -1, f, updated=())
            for funcs in get_overridable_functions().values() for f in funcs}


def resolve_name(f):
    """The qualified name of an overridable function ('torchlite.add', 'torchlite.Tensor.add'), or None."""
    if f in _routed_names():
        return _routed_names()[f]
    if getattr(f, "_torch_function_dispatch", False):
        return f"{f.__module__}.{f.__qualname__}"
    return None


def is_tensor_method_or_property(func):
    """Whether `func` is a Tensor method or property getter (whose first argument is the tensor)."""
    return func in get_overridable_functions()[_C.Tensor] or getattr(func, "__name__", None) == "__get__"
