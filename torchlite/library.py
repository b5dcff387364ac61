"""torchlite.library: operators defined from Python (PyTorch's torch.library).

An operator is declared with a schema string in the language of native_functions.yaml, parsed
at run time by the generator's own parser (codegen/schema_parser.py, which the package holds as
torchlite._codegen: a link in the source tree, a copy in the wheel), so a
runtime op obeys exactly the rules of a YAML one. Kernels are registered per dispatch key; a call
binds its arguments by the schema, picks the kernel of the tensors' device and, when an input
requires grad, records the registered autograd formula (or a node that refuses backward). The op
is reachable as torchlite.ops.<namespace>.<name>; describe() shows what was registered where.

Note [Operator call hook]: every call of a runtime operator goes through _Operator.__call__,
which enters each context manager factory in `_op_call_hooks` as factory(qualname, args, kwargs)
around the dispatch. The list is empty unless a tool (the profiler) appends to it, so an
unobserved call pays one truth test.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import types
import typing
import weakref
from collections.abc import Iterable, Sequence

from torchlite import _C
from torchlite._codegen.model import ListType, OptionalType
from torchlite._codegen.schema_parser import SchemaError, parse_schema
from torchlite.autograd.function import Function
from torchlite.autograd.grad_mode import is_grad_enabled

__all__ = ["Library", "define", "impl", "register_fake", "register_autograd", "register_kernel", "custom_op",
           "infer_schema", "CustomOpDef", "describe", "get_kernel"]

Tensor = _C.Tensor

# Dispatch keys a kernel may be registered for. CompositeExplicitAutograd runs on every device;
# CompositeImplicitAutograd also takes the place of autograd (its ops are traced).
_DISPATCH_KEYS = ("CPU", "CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd")
_op_call_hooks: list = []  # Note [Operator call hook]
_defined_namespaces: set[str] = set()


def _split_name(qualname):
    if "::" not in qualname:
        raise ValueError(f"expected a qualified operator name 'namespace::name', got {qualname!r}")
    ns, name = qualname.split("::", 1)
    return ns, name


def _default_value(arg):
    """The Python value of a schema default (its text in the schema)."""
    text = arg.default
    if text is None:
        return inspect.Parameter.empty
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    if text == "inf":
        return float("inf")
    t = arg.type.elem if isinstance(arg.type, OptionalType) else arg.type
    if isinstance(t, ListType) and not text.startswith("["):
        return [ast.literal_eval(text)] * t.size  # int[2] x=1 means [1, 1]
    return ast.literal_eval(text)


class _Operator:
    """One overload of a runtime operator: its schema, its kernels and its autograd formula."""

    def __init__(self, ns, schema):
        self.ns = ns
        self._schema = schema
        self._kernels = {}  # dispatch key -> (fn, Library that registered it)
        self._fake = None
        self._backward = self._setup_context = None
        self._signature = inspect.Signature([
            inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY if a.kwarg_only
                              else inspect.Parameter.POSITIONAL_OR_KEYWORD, default=_default_value(a))
            for a in schema.arguments])

    @property
    def _schema_str(self):
        return f"{self.ns}::{self._schema}"

    @property
    def _name(self):
        return f"{self.ns}::{self._schema.name.name}"

    @property
    def _overloadname(self):
        return self._schema.name.overload or "default"

    def __repr__(self):
        return f"torchlite.ops.{self.ns}.{self._schema.name.name}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        if not _op_call_hooks:
            return self._dispatch(args, kwargs)
        with contextlib.ExitStack() as stack:
            for hook in _op_call_hooks:
                stack.enter_context(hook(self._name, args, kwargs))
            return self._dispatch(args, kwargs)

    def _bind(self, args, kwargs):
        """(positional, keyword-only) arguments as the schema orders them, defaults filled in."""
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}(): {e} (schema: {self._schema_str})") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _kernel(self, values):
        devices = {v.device.type for v in _tensors(values)}
        key = "CUDA" if "cuda" in devices else "CPU"
        for k in (key, "CompositeExplicitAutograd"):
            if k in self._kernels:
                return self._kernels[k][0]
        registered = ", ".join(self._kernels) or "none"
        raise NotImplementedError(f"Could not run '{self._name}' with arguments from the '{key}' backend: no kernel "
                                  f"is registered for it (registered: {registered}).")

    def _dispatch(self, args, kwargs):
        args, kwargs = self._bind(args, kwargs)
        if "CompositeImplicitAutograd" in self._kernels:
            return self._kernels["CompositeImplicitAutograd"][0](*args, **kwargs)
        values = (*args, *kwargs.values())
        kernel = self._kernel(values)
        if not (is_grad_enabled() and any(t.requires_grad for t in _tensors(values))):
            return kernel(*args, **kwargs)
        return _OperatorFunction.apply(self, kernel, kwargs, *args)


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, Tensor))


class _OperatorFunction(Function):
    """The autograd node of a runtime operator: the registered formula, or an error on backward."""

    @staticmethod
    def forward(ctx, op, kernel, kwargs, *args):
        # (keyword-only arguments travel as one dict: autograd tracks the positional tensors)
        output = kernel(*args, **kwargs)
        ctx.op, ctx.n_positional = op, len(args)
        if op._setup_context is not None:
            op._setup_context(ctx, (*args, *kwargs.values()), output)
        return output

    @staticmethod
    def backward(ctx, *grads):
        op = ctx.op
        if op._backward is None:
            raise RuntimeError(f"Autograd has not been implemented for operator {op._name}. Please register an "
                               "autograd formula with torchlite.library.register_autograd.")
        result = op._backward(ctx, *grads)
        result = result if isinstance(result, tuple) else (result,)
        if len(result) != len(op._schema.arguments):
            raise RuntimeError(f"{op._name}: the backward formula returned {len(result)} gradients; expected "
                               f"{len(op._schema.arguments)} (one per argument, None for non-Tensors)")
        return (None, None, None, *result[:ctx.n_positional])


class _OpOverloadPacket:
    """torchlite.ops.<ns>.<name>: calls the default overload; .default / .<overload> give one."""

    def __init__(self, ns, name):
        self._qualified_op_name = f"{ns}::{name}"
        self._overloads = {}

    def __getattr__(self, overload):
        key = "" if overload == "default" else overload
        try:
            return self._overloads[key]
        except KeyError:
            raise AttributeError(f"The underlying op of '{self._qualified_op_name}' has no overload name "
                                 f"'{overload}'") from None

    def overloads(self):
        return [op._overloadname for op in self._overloads.values()]

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)

    def __repr__(self):
        return f"torchlite.ops.{self._qualified_op_name.replace('::', '.')}"


_packets: dict[str, _OpOverloadPacket] = {}


def _lookup(op):
    """The _Operator an op argument names: 'ns::name[.overload]', a packet or an overload."""
    if isinstance(op, _Operator):
        return op
    if isinstance(op, CustomOpDef):
        return op._opoverload
    if isinstance(op, _OpOverloadPacket):
        return op.default
    ns, name = _split_name(op)
    base, _, overload = name.partition(".")
    packet = _packets.get(f"{ns}::{base}")
    if packet is None or overload not in packet._overloads:
        raise RuntimeError(f"operator {op} does not exist (define it with torchlite.library first)")
    return packet._overloads[overload]


class Library:
    """Library(ns, kind, dispatch_key=""): where operators of namespace `ns` are defined (kind
    "DEF", once per namespace, or "FRAGMENT") or implemented ("IMPL"). Registrations are undone
    when the Library object is garbage collected (or by _destroy())."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        if ns == "aten" and kind == "DEF":
            raise ValueError("Not allowed to define operators in the aten namespace (its ops are built in)")
        if kind == "DEF":
            if ns in _defined_namespaces:
                raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please "
                                   "put all of your definitions in a single TORCH_LIBRARY block, or use a "
                                   "Library(ns, 'FRAGMENT') for the others")
            _defined_namespaces.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._registrations = []  # (op, dispatch key) kernels and (op, None) definitions, to undo
        self._finalizer = weakref.finalize(self, _undo, self._registrations, ns if kind == "DEF" else None)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Declares an operator: `schema` is "name[.overload](args) -> returns". Returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError(f"define() is not allowed on a Library of kind IMPL (namespace {self.ns})")
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        try:
            parsed = parse_schema(schema)
        except SchemaError as e:
            col = f" (column {e.col})" if e.col else ""
            raise RuntimeError(f"torchlite.library: invalid schema {schema!r}: {e.msg}{col}") from None
        base, overload = parsed.name.name, parsed.name.overload
        packet = _packets.setdefault(f"{self.ns}::{base}", _OpOverloadPacket(self.ns, base))
        if overload in packet._overloads:
            raise RuntimeError(f"Tried to register an operator ({self.ns}::{parsed}) with the same name and overload "
                               "name multiple times. It was already defined as "
                               f"{packet._overloads[overload]._schema_str}")
        op = _Operator(self.ns, parsed)
        packet._overloads[overload] = op
        self._registrations.append((op, None))
        return str(parsed.name)

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=True):
        """Registers `fn` as the kernel of `op_name` ("name[.overload]" in this namespace, or an op
        object) for `dispatch_key` (CPU, CUDA, CompositeExplicitAutograd, CompositeImplicitAutograd;
        default: the Library's, else CompositeImplicitAutograd)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if with_keyset:
            raise NotImplementedError("torchlite.library: with_keyset=True is not supported (no dispatch key sets)")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if key not in _DISPATCH_KEYS:
            raise ValueError(f"torchlite.library: unsupported dispatch key {key!r}; expected one of {_DISPATCH_KEYS}")
        op = _lookup(op_name if not isinstance(op_name, str) or "::" in op_name else f"{self.ns}::{op_name}")
        if key in op._kernels and not allow_override:
            raise RuntimeError(f"This is not allowed since there's already a kernel registered from python overriding "
                               f"{op._name}'s behavior for {key} dispatch key and {op.ns} namespace.")
        op._kernels[key] = (fn, self)
        self._registrations.append((op, key))

    def _destroy(self):
        self._finalizer()


def _undo(registrations, defined_ns):
    for op, key in reversed(registrations):
        if key is not None:
            op._kernels.pop(key, None)
        else:
            packet = _packets[op._name]
            packet._overloads.pop(op._schema.name.overload, None)
            if not packet._overloads:
                del _packets[op._name]
    registrations.clear()
    _defined_namespaces.discard(defined_ns)


# Libraries the functional API (define, impl, register_*, custom_op) registers into, per namespace.
_fragments: dict[str, Library] = {}


def _library_for(ns, lib):
    if lib is not None:
        return lib
    if ns not in _fragments:
        _fragments[ns] = Library(ns, "FRAGMENT")
    return _fragments[ns]


def define(qualname, schema, *, lib=None, tags=()):
    """define("ns::name", "(Tensor x) -> Tensor"): declares an operator."""
    ns, name = _split_name(qualname)
    _library_for(ns, lib).define(name + schema, tags=tags)


def _device_keys(types):
    if types is None:
        return ["CompositeExplicitAutograd"]
    types = [types] if isinstance(types, str) else list(types)
    keys = []
    for t in types:
        t = t.type if isinstance(t, _C.device) else t
        if t not in ("cpu", "cuda"):
            raise ValueError(f"torchlite.library: unsupported device type {t!r} (cpu or cuda)")
        keys.append(t.upper())
    return keys


def _decorator_or_call(register, func):
    if func is None:
        def decorator(f):
            register(f)
            return f

        return decorator
    register(func)
    return None


def impl(qualname, types, func=None, *, lib=None):
    """Registers func as the kernel of the operator for the device types `types` ("cpu", "cuda",
    a list of them, or "default" for every device); usable as a decorator."""
    op = _lookup(qualname)
    keys = ["CompositeExplicitAutograd"] if types == "default" else _device_keys(types)

    def register(f):
        library = _library_for(op.ns, lib)
        for key in keys:
            library.impl(op, f, key)

    return _decorator_or_call(register, func)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Registers func as the operator's kernel for `device_types` (None: every device)."""
    return impl(op, "default" if device_types is None else device_types, func, lib=lib)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Registers the operator's fake implementation: what its outputs look like (shapes, dtypes)
    given its inputs, without computing values. torchlite has no meta device or fake tensors to
    run it on, so it is recorded (describe() shows it) for tools and for tests to compare with
    the kernels."""
    target = _lookup(op)

    def register(f):
        if target._fake is not None and not allow_override:
            raise RuntimeError(f"register_fake(...): the operator {target._name} already has a fake implementation "
                               "registered.")
        target._fake = f

    return _decorator_or_call(register, func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """backward(ctx, *grads) -> one gradient per operator argument (None for non-Tensors);
    setup_context(ctx, inputs, output) saves what backward needs (ctx.save_for_backward)."""
    target = _lookup(op)
    if not callable(backward):
        raise TypeError(f"Expected backward to be a function, got {type(backward)}")
    if setup_context is not None and not callable(setup_context):
        raise TypeError(f"Expected setup_context to be a function, got {type(setup_context)}")
    target._backward, target._setup_context = backward, setup_context


def get_kernel(op, dispatch_key):
    """The kernel registered for `dispatch_key` of an operator."""
    target = _lookup(op)
    if dispatch_key not in target._kernels:
        raise RuntimeError(f"{target._name} has no kernel registered for dispatch key {dispatch_key}")
    return target._kernels[dispatch_key][0]


# ---- schema inference for custom_op ----------------------------------------------------------

def _schema_type(annotation, what):
    scalar = {Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str", _C.dtype: "ScalarType",
              _C.device: "Device"}
    if annotation in scalar:
        return scalar[annotation]
    origin, params = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [p for p in params if p is not type(None)]
        if len(inner) == 1 and len(params) == 2:
            return _schema_type(inner[0], what) + "?"
    if origin in (list, Sequence, Iterable) and len(params) == 1 and params[0] in (Tensor, int, float, bool):
        return scalar[params[0]] + "[]"
    raise ValueError(f"infer_schema(func): {what} has unsupported type {annotation}. We only support Tensor, int, "
                     "float, bool, str, dtype, device, Optional[...] of those and lists of Tensor, int, float, bool.")


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()):
    """The schema string of a function from its type annotations ("(Tensor x, int n) -> Tensor")."""
    sig = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)
    names = [p.name for p in sig.parameters.values()]
    if mutates_args == "unknown":
        mutates = {n for n in names if "Tensor" in _schema_type(hints.get(n), f"Parameter {n}")}
    else:
        mutates = {mutates_args} if isinstance(mutates_args, str) else set(mutates_args)
        unknown = mutates - set(names)
        if unknown:
            raise ValueError(f"{unknown} in mutates_args were not found in the custom op's signature. mutates_args "
                             f"should contain the names of the arguments the custom op mutates, one of {names}")
    args, star = [], False
    for i, p in enumerate(sig.parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError("infer_schema(func): we do not support *args or **kwargs")
        if p.name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {p.name} must have a type annotation.")
        t = _schema_type(hints[p.name], f"Parameter {p.name}")
        if p.name in mutates:
            t = t.replace("Tensor", f"Tensor(a{i}!)", 1)
        if p.kind == p.KEYWORD_ONLY and not star:
            args.append("*")
            star = True
        default = "" if p.default is p.empty else "=" + (f'"{p.default}"' if isinstance(p.default, str)
                                                         else repr(p.default))
        args.append(f"{t} {p.name}{default}")
    ret = hints.get("return", inspect.Signature.empty)
    if ret is None or ret is type(None):
        returns = "()"
    elif typing.get_origin(ret) is tuple:
        returns = "(" + ", ".join(_schema_type(r, "the return") for r in typing.get_args(ret)) + ")"
    elif ret is inspect.Signature.empty:
        raise ValueError("infer_schema(func): the return type must be annotated")
    else:
        returns = _schema_type(ret, "the return")
    schema = f"({', '.join(args)}) -> {returns}"
    return f"{op_name}{schema}" if op_name else schema


class CustomOpDef:
    """What custom_op returns: callable as the operator, with register_kernel/register_fake/
    register_autograd methods."""

    def __init__(self, namespace, name, schema, fn):
        self._namespace, self._name = namespace, name
        self._init_fn = fn
        define(f"{namespace}::{name}", schema)
        self._opoverload = _lookup(f"{namespace}::{name}")
        self.__doc__ = fn.__doc__

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def register_kernel(self, device_types, fn=None, /):
        return register_kernel(self, device_types, fn)

    def register_fake(self, fn, /):
        register_fake(self, fn)
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        register_autograd(self, backward, setup_context=setup_context)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Turns a Python function into the operator `name` ("ns::name"): its schema is inferred from
    the annotations (or given), and the function becomes its kernel for `device_types` (every
    device when None). Usable as a decorator."""

    def wrap(f):
        ns, opname = _split_name(name)
        op_schema = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        op = CustomOpDef(ns, opname, op_schema, f)
        op.register_kernel(device_types, f)
        return op

    return wrap if fn is None else wrap(fn)


def describe(op):
    """A readable account of a runtime operator, as `python -m codegen explain` gives for a YAML
    one: its schema, where it was defined, its kernels per dispatch key (with file:line), its fake
    implementation and its autograd formula."""
    target = _lookup(op)

    def where(fn):
        try:
            return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
        except (TypeError, OSError):
            return "<unknown source>"

    def name(fn):
        return getattr(fn, "__qualname__", repr(fn))

    lines = [f"operator {target._name} (overload {target._overloadname})",
             f"  schema:   {target._schema_str}",
             f"  python:   {target!r}  (and torchlite.ops.{target.ns}.{target._schema.name.name})"]
    for key, (fn, lib) in target._kernels.items():
        lines.append(f"  kernel:   {key:<26} {name(fn)} at {where(fn)} (registered by {lib!r})")
    if not target._kernels:
        lines.append("  kernel:   none registered")
    lines.append(f"  fake:     {name(target._fake)} at {where(target._fake)}" if target._fake else
                 "  fake:     none registered")
    if target._backward is not None:
        lines.append(f"  autograd: backward {name(target._backward)} at {where(target._backward)}")
        if target._setup_context is not None:
            lines.append(f"            setup_context {name(target._setup_context)} at {where(target._setup_context)}")
    elif "CompositeImplicitAutograd" in target._kernels:
        lines.append("  autograd: traced through the CompositeImplicitAutograd kernel")
    else:
        lines.append("  autograd: none (backward through it raises)")
    return "\n".join(lines)
