"""Tracer and symbolic_trace: run a Module's forward (or a function) on Proxies and record
what it does into a Graph."""

import builtins
import functools
import inspect
import math
import types
import warnings
from itertools import chain

import torchlite
from torchlite.fx.graph import Graph
from torchlite.fx.graph_module import GraphModule
from torchlite.fx.node import has_side_effect, map_aggregate
from torchlite.fx.proxy import ParameterProxy, Proxy, Scope, TracerBase
from torchlite.nn.modules.container import Sequential
from torchlite.nn.modules.module import Module
from torchlite.nn.parameter import Parameter

__all__ = ["PH", "Tracer", "is_fx_tracing", "symbolic_trace", "wrap"]

_is_fx_tracing_flag = False
_orig_module_call = Module.__call__
_orig_module_getattr = Module.__getattr__
# (globals dict, name) of every function fx.wrap registered
_wrapped_fns_to_patch = {}


def is_fx_tracing():
    return _is_fx_tracing_flag


class PHBase:
    """An object representing an input placeholder to concrete_args."""

    def __repr__(self):
        return "PH"


PH = PHBase()


@has_side_effect
def _assert_is_none(value, msg):
    assert value is None, msg


@has_side_effect
def _assert(condition, message):
    """What a concrete_args specialisation checks when the traced code runs."""
    assert condition, message


class _Patcher:
    """Replaces attributes for the duration of a trace and puts the originals back."""

    def __init__(self):
        self._undo = []

    def patch(self, frame_dict, name, new_fn):
        if name in frame_dict:
            orig = frame_dict[name]
            self._undo.append(lambda: frame_dict.__setitem__(name, orig))
        else:
            self._undo.append(lambda: frame_dict.pop(name, None))
        frame_dict[name] = new_fn

    def patch_method(self, cls, name, new_fn):
        orig = getattr(cls, name)
        self._undo.append(lambda: setattr(cls, name, orig))
        setattr(cls, name, new_fn)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        while self._undo:
            self._undo.pop()()


def _find_proxy(*objects):
    found = []
    map_aggregate(objects, lambda a: found.append(a) if isinstance(a, Proxy) else None)
    return found[0] if found else None


def _create_wrapped_func(orig_fn):
    """orig_fn, recorded as one call_function node when any argument is a Proxy, marked as an
    fx.wrap call (which generated code registers again)."""
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            return_proxy = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
            return_proxy.node.meta["is_wrapped"] = True
            return return_proxy
        return orig_fn(*args, **kwargs)
    return wrapped


def _autowrap_check(patcher, frame_dict, function_ids):
    for name, value in list(frame_dict.items()):
        if not name.startswith("_") and callable(value) and id(value) in function_ids:
            patcher.patch(frame_dict, name, _create_wrapped_func(value))


def _patch_wrapped_functions(patcher):
    for (_globals_id, name), frame_dict in _wrapped_fns_to_patch.items():
        if name not in frame_dict and hasattr(builtins, name):
            orig_fn = getattr(builtins, name)
        else:
            orig_fn = frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig_fn))


def wrap(fn_or_name):
    """Called at module level: calls of this function (by its name in this module) are recorded
    as one call_function node instead of being traced through."""
    currentframe = inspect.currentframe()
    f = currentframe.f_back
    if f.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    if callable(fn_or_name):
        if getattr(fn_or_name, "__code__", None) is not None and fn_or_name.__code__.co_name == "<lambda>":
            raise NotImplementedError("Cannot wrap a lambda function")
        fn_name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        fn_name = fn_or_name
    else:
        raise TypeError("Unsupported type for global function! Must be either a callable or string name")
    _wrapped_fns_to_patch[(id(f.f_globals), fn_name)] = f.f_globals
    return fn_or_name


def _positional_only_code(fn, nargs):
    """fn with keyword-only, *args and **kwargs parameters turned into plain positional ones,
    so the tracer can hand each its own Proxy."""
    co = fn.__code__
    flags = co.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    code = co.replace(co_flags=flags, co_argcount=nargs, co_kwonlyargcount=0)
    return types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


class Tracer(TracerBase):
    """Turns a Module or function into a Graph. Override is_leaf_module to choose which
    submodules are recorded as call_module instead of being traced through, and the create_*
    hooks to change what is recorded.

    autowrap_modules: functions of these modules (math by default) are recorded as calls when
    given Proxies; autowrap_functions: the same for single functions."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for name, value in chain.from_iterable(m.__dict__.items() for m in autowrap_modules)
            if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.num_calls = {}

    def create_arg(self, a):
        """Parameters, submodules and tensors of the root become get_attr nodes; another tensor
        is stored on the root as `_tensor_constantN` and read from there."""
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Module):
            for n, p in self.root.named_modules():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("module is not installed as a submodule")
        if isinstance(a, torchlite.Tensor):
            for n, b in self.root.named_buffers():
                if a is b:
                    return self.create_node("get_attr", n, (), {})
            qualname = self.tensor_attrs.get(id(a), (None, None))[0]
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                self.tensor_attrs[id(a)] = (qualname, a)
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m, module_qualified_name):
        """torchlite.nn's own modules (except Sequential) are leaves; user modules are traced through."""
        return m.__module__.startswith("torchlite.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A submodule call: recorded as call_module when is_leaf_module says so, else traced
        through by running forward."""
        module_qualified_name = self.path_of_module(m)
        old_scope, self.scope = self.scope, Scope(module_qualified_name, type(m))
        num_calls = self.num_calls.get(module_qualified_name, 0)
        module_key = f"{module_qualified_name}@{num_calls}" if num_calls > 0 else module_qualified_name
        self.module_stack[module_key] = (module_qualified_name, type(m))
        self.num_calls[module_qualified_name] = num_calls + 1
        try:
            if not self.is_leaf_module(m, module_qualified_name):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", module_qualified_name, args, kwargs)
        finally:
            self.module_stack.popitem(last=True)
            self.scope = old_scope

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A module attribute read during tracing: parameters of the root (and buffers, with
        proxy_buffer_attributes) become get_attr Proxies, one per attribute."""
        def maybe_get_proxy_for_attr(collection):
            for n, p in collection:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        factory = (lambda node, n=n: ParameterProxy(self, node, n, attr_val)) \
                            if self.param_shapes_constant else None
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {}, proxy_factory_fn=factory)
                    return parameter_proxy_cache[n]
            return None
        if isinstance(attr_val, Parameter):
            proxy = maybe_get_proxy_for_attr(self.root.named_parameters())
            if proxy is not None:
                return proxy
        if self.proxy_buffer_attributes and isinstance(attr_val, torchlite.Tensor):
            proxy = maybe_get_proxy_for_attr(self.root.named_buffers())
            if proxy is not None:
                return proxy
        return attr_val

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """The Proxies (or concrete values) the root function is called with, one placeholder
        per parameter; returns the function to call (with keyword-only and variadic
        parameters made positional) and the arguments."""
        fn_for_analysis = inspect.unwrap(root_fn)
        co = fn_for_analysis.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        names_iter = iter(co.co_varnames)
        args = []
        skip_arg_idx = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip_arg_idx = 1
            next(names_iter)
            args.append(self.root)
        sig = inspect.signature(fn_for_analysis)
        arg_names = [next(names_iter) for _ in range(skip_arg_idx, total_args)]
        if isinstance(concrete_args, tuple):
            if len(concrete_args) != len(arg_names):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got {len(concrete_args)} "
                                   "concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args))
        concrete_args = concrete_args or {}
        args.extend(self._proxy_placeholder(name, concrete_args, sig, fn_for_analysis) for name in arg_names)
        if co.co_kwonlyargcount > 0 or co.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
            if co.co_flags & inspect.CO_VARARGS:
                args.append(self._proxy_placeholder("*" + next(names_iter), concrete_args, sig, fn_for_analysis))
            if co.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self._proxy_placeholder("**" + next(names_iter), concrete_args, sig, fn_for_analysis))
            root_fn = _positional_only_code(fn_for_analysis, len(args))
        return root_fn, args

    def _proxy_placeholder(self, name, concrete_args, sig, fn_for_analysis):
        if name not in concrete_args:
            default = () if name[0] == "*" or sig.parameters[name].default is inspect.Parameter.empty \
                else (sig.parameters[name].default,)
            return self.create_proxy("placeholder", name, default, {},
                                     type_expr=fn_for_analysis.__annotations__.get(name, None))
        # a specialised input keeps a placeholder (so the signature is unchanged) that is checked
        value = concrete_args[name]
        param = sig.parameters[name]
        default = () if param.default is inspect.Parameter.empty else (param.default,)
        out = self.create_proxy("placeholder", f"{name}_1", default, {})
        if value is PH:
            return out
        if type(value) in (bool, int, float, str, complex):
            msg = f"{name} has been specialized to have value {value} but got another value"
            self.create_proxy("call_function", _assert, (out == value, msg), {})
        elif value is None:
            self.create_proxy("call_function", _assert_is_none,
                              (out, f"{name} has been specialized to have value None but got another value"), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to specialized function. "
                          "It is up to the user to make sure that your inputs match the inputs you specialized "
                          "the function with.", stacklevel=3)
        return value

    def trace(self, root, concrete_args=None):
        """Traces root (a Module's forward, or a function) and returns the Graph; the module
        traced is self.root afterwards."""
        global _is_fx_tracing_flag
        old_flag, _is_fx_tracing_flag = _is_fx_tracing_flag, True
        try:
            if isinstance(root, Module):
                self.root = root
                fn = getattr(type(root), self.traced_func_name)
                self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            else:
                self.root = Module()
                fn = root
            self.graph = Graph(tracer_cls=type(self))
            # plain tensor attributes of the modules are read through get_attr, not copied
            self.tensor_attrs = {}

            def collect_tensor_attrs(m, prefix_atoms):
                for k, v in m.__dict__.items():
                    if isinstance(v, torchlite.Tensor):
                        self.tensor_attrs[id(v)] = (".".join(prefix_atoms + [k]), v)
                for k, v in m.named_children():
                    collect_tensor_attrs(v, prefix_atoms + [k])
            collect_tensor_attrs(self.root, [])
            fn_globals = fn.__globals__
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
            parameter_proxy_cache = {}

            @functools.wraps(_orig_module_getattr)
            def module_getattr_wrapper(mod, attr):
                return self.getattr(attr, _orig_module_getattr(mod, attr), parameter_proxy_cache)

            @functools.wraps(_orig_module_call)
            def module_call_wrapper(mod, *args, **kwargs):
                def forward(*args, **kwargs):
                    return _orig_module_call(mod, *args, **kwargs)
                _autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                                self._autowrap_function_ids)
                return self.call_module(mod, forward, args, kwargs)

            with _Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
                patcher.patch_method(Module, "__call__", module_call_wrapper)
                _patch_wrapped_functions(patcher)
                _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                for module in self._autowrap_search:
                    _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                self.create_node("output", "output", (self.create_arg(fn(*args)),), {},
                                 type_expr=fn.__annotations__.get("return", None))
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = old_flag
        return self.graph


def symbolic_trace(root, concrete_args=None):
    """Traces a Module or function into a GraphModule whose `code` shows what was recorded.

    >>> gm = torchlite.fx.symbolic_trace(model)
    >>> print(gm.code)
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


