"""The C++ face of an operator: argument/return types, default expressions, call lists.

Two signatures come out of one schema:
- the public API (tl::add, Tensor::add): defaults, out= variants named `<name>_out` with the
  out tensors first (so the other arguments keep their defaults);
- the kernel API (tl::native::add_out_cpu): faithful argument order, no defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cpp_types import ArrayRef, ConstRef, CppType, Optional, StdArray, Tuple, Value, Vector, Void
from .model import (
    NAMED_DEFAULTS,
    Argument,
    BaseType,
    FunctionSchema,
    ListType,
    OptionalType,
    Return,
    SchemaKind,
    Type,
    base_of,
)
from .native_functions import DEVICE_KEYS, NativeFunction
from .overlap import OverlapGuard, overlap_guard
from .yaml_loader import CodegenError

if TYPE_CHECKING:
    from .autograd import WrapperInfo


class CppTypeError(Exception):
    pass


_TENSOR = ConstRef(Value("Tensor"))
_INT = Value("int64_t", strict="IntArg")
_BOOL = Value("bool", strict="BoolArg")
_BASE_CPP: dict[str, CppType] = {
    "Tensor": _TENSOR,
    "int": _INT,
    "SymInt": _INT,
    "float": Value("double"),
    "bool": _BOOL,
    "str": ConstRef(Value("std::string")),
    "Scalar": ConstRef(Value("Scalar")),
    "ScalarType": Value("ScalarType"),
    "Device": Value("Device"),
    "Generator": Value("GeneratorPtr", to_py=False),
    "Layout": Value("Layout", to_py=False),
    "MemoryFormat": Value("MemoryFormat", to_py=False),
}
# Types an operator may return (by value).
_RETURNABLE = ("Tensor", "int", "SymInt", "float", "bool", "Scalar", "ScalarType")


def cpp_type(t: Type) -> CppType:
    """The C++ type of an argument of schema type t."""
    if isinstance(t, BaseType):
        return _BASE_CPP[t.name]
    if isinstance(t, OptionalType):
        if isinstance(t.elem, BaseType):
            return Optional(_BASE_CPP[t.elem.name])
        if isinstance(t.elem, ListType) and base_of(t.elem).name in ("int", "SymInt"):
            return Optional(cpp_type(t.elem))
    if isinstance(t, ListType):
        elem = t.elem
        if isinstance(elem, BaseType) and elem.name in ("int", "SymInt", "float", "Tensor"):
            return ArrayRef(_BASE_CPP[elem.name], t.size)
        if elem == BaseType("bool") and t.size is not None:
            return StdArray(_BOOL, t.size)
        if isinstance(elem, OptionalType) and elem.elem == BaseType("Tensor"):
            return ConstRef(Vector(Optional(_TENSOR)))
    raise CppTypeError(f"type '{t}' is not supported by the C++ API")


def argument_type(t: Type) -> str:
    return cpp_type(t).argument()


def return_cpp_type_single(r: Return) -> CppType:
    t = r.type
    if isinstance(t, BaseType) and t.name in _RETURNABLE:
        return _BASE_CPP[t.name]
    if isinstance(t, ListType) and t.elem == BaseType("Tensor"):
        return Vector(_TENSOR)
    raise CppTypeError(f"return type '{t}' is not supported")


def return_cpp_type(s: FunctionSchema) -> CppType:
    if not s.returns:
        return Void()
    if len(s.returns) == 1:
        return return_cpp_type_single(s.returns[0])
    return Tuple(tuple(return_cpp_type_single(r) for r in s.returns))


def return_type(s: FunctionSchema) -> str:
    return return_cpp_type(s).storage()


_BOOL_DEFAULTS = {"True": "true", "False": "false"}


def list_default_items(t: ListType, d: str) -> list[str]:
    """The elements of a list default as written: `[1, 2]`, or `1` for every element of `int[2]`."""
    if d.startswith("["):
        return [x.strip() for x in d[1:-1].split(",") if x.strip()]
    return [d] * (t.size or 1)


def default_expr(a: Argument) -> str:
    d = a.default
    assert d is not None
    if d == "None":
        return "std::nullopt"
    t = a.type.elem if isinstance(a.type, OptionalType) else a.type
    if isinstance(t, ListType):
        items = [_BOOL_DEFAULTS.get(x, x) for x in list_default_items(t, d)]
        ref = cpp_type(t).argument()
        return f"{ref}({{{', '.join(items)}}})" if items else f"{ref}()"
    name = base_of(t).name
    if d in _BOOL_DEFAULTS:
        return _BOOL_DEFAULTS[d]
    if name == "str":
        return cpp_string(d[1:-1])
    if d in NAMED_DEFAULTS.get(name, {}):
        return NAMED_DEFAULTS[name][d]
    if d in ("inf", "-inf"):
        return ("-" if d.startswith("-") else "") + "std::numeric_limits<double>::infinity()"
    if name == "Scalar" and d.lstrip("-").isdigit():
        return f"int64_t({d})"
    if name == "float" and d.lstrip("-").isdigit():
        return d + ".0"
    return d


def kernel_params(s: FunctionSchema) -> list[str]:
    """Faithful order, no defaults: the kernel and dispatcher signature."""
    params = []
    for a in s.arguments:
        try:
            params.append(f"{argument_type(a.type)} {a.name}")
        except CppTypeError as e:
            raise CppTypeError(f"argument '{a.name}': {e}") from None
    return params


def kernel_args(s: FunctionSchema) -> list[str]:
    return [a.name for a in s.arguments]


def public_arguments(s: FunctionSchema) -> list[Argument]:
    """Public API order: out tensors first for out= ops, so the rest keep their defaults."""
    outs = list(s.out_arguments)
    return outs + list(s.non_out_arguments)


def _trailing_defaults(args: list[Argument]) -> int:
    """Only a trailing run of defaulted arguments can keep its defaults in C++."""
    n = 0
    while n < len(args) and args[len(args) - 1 - n].default is not None:
        n += 1
    return n


def kept_defaults(overloads: list[list[Argument]]) -> list[int]:
    """How many trailing defaults each C++ overload of one name may keep.

    `all(self)` and `all(self, dim=nullopt, keepdim=false)` make the call `all(x)` ambiguous in
    C++. When two overloads accept the same argument types for some call, the one with more
    parameters gives up defaults until no call matches both.
    """
    types = [[argument_type(a.type) for a in args] for args in overloads]
    keep = [_trailing_defaults(args) for args in overloads]

    def clash(i: int, j: int) -> bool:
        lo = max(len(types[i]) - keep[i], len(types[j]) - keep[j])
        hi = min(len(types[i]), len(types[j]))
        return any(types[i][:n] == types[j][:n] for n in range(lo, hi + 1))

    changed = True
    while changed:
        changed = False
        for i in range(len(overloads)):
            for j in range(len(overloads)):
                if i == j or not clash(i, j):
                    continue
                loser = i if (len(types[i]), i) > (len(types[j]), j) else j
                if keep[loser] == 0:
                    continue  # identical required signatures: a C++ error worth seeing
                keep[loser] -= 1
                changed = True
    return keep


def public_params(args: list[Argument], with_defaults: bool, keep: int | None = None) -> list[str]:
    out = []
    trailing = len(args) - (_trailing_defaults(args) if keep is None else keep)
    for i, a in enumerate(args):
        p = f"{argument_type(a.type)} {a.name}"
        if with_defaults and i >= trailing:
            p += f" = {default_expr(a)}"
        out.append(p)
    return out


def public_name(s: FunctionSchema) -> str:
    return s.name.name + ("_out" if s.out_arguments else "")


def version_bump(a: Argument) -> str:
    """The statement that bumps the version counter of a written argument after its kernel ran."""
    t = str(a.type)
    if t == "Tensor":
        return f"if ({a.name}.defined()) {a.name}.bump_version();"
    if t == "Tensor?":
        return f"if ({a.name} && {a.name}->defined()) {a.name}->bump_version();"
    if t == "Tensor[]":
        return f"for (const Tensor& t : {a.name}) if (t.defined()) t.bump_version();"
    raise CppTypeError(f"written argument type '{t}' is not supported")


def cpp_string(text: str) -> str:
    """A C++ string literal holding `text`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# ---- the view of one operator that the C++ templates render ----------------------------------

@dataclass(frozen=True)
class OpView:
    """Everything the C++ templates need to know about one operator overload, printed."""

    schema_literal: str
    base: str  # the operator's base name (add for add.Tensor, add_, add.out): its header ops/<base>.h
    struct: str
    ret: str
    params: tuple[str, ...]
    args: tuple[str, ...]
    public_name: str
    public_args: tuple[Argument, ...]
    public_params: tuple[str, ...]  # with the defaults this overload can keep (kept_defaults)
    composite: str | None
    kernels: dict[str, str]  # device key -> kernel
    device_expr: str
    # Note [Device check]: the tensor arguments that must be on the dispatch device, and those
    # that may also be 0-dim CPU tensors (NativeFunction.cpu_scalar_arguments).
    device_check_args: tuple[str, ...]
    cpu_scalar_args: tuple[str, ...]
    # Written tensors get their version counter bumped after the kernel ran.
    version_bumps: tuple[str, ...]
    # Note [Overlapping writes]: kernels get inputs that are safe to read while they write.
    overlap: OverlapGuard
    delegate: tuple[str, tuple[str, ...]] | None  # (out= struct, its arguments)
    alias: str | None  # the struct every call forwards to (Note [Aliases])
    is_function: bool
    is_method: bool
    # Method variant: `self` is implicit; the remaining arguments keep their order.
    method_args: tuple[Argument, ...]
    method_params: tuple[str, ...]
    method_params_nodefault: tuple[str, ...]
    method_call_args: tuple[str, ...]
    autograd: WrapperInfo | None  # when the op records history
    # Note [Profiler hook]: the event the entry records (PyTorch's name: no overload) and
    # whether it carries the sequence number of the Node the call may create.
    profile_name: str
    differentiable: bool
    autocast: AutocastView | None = None  # Note [Autocast]


_POLICY_ENUM = {"lower_precision_fp": "LowerPrecisionFp", "fp32": "Fp32", "promote": "Promote"}


@dataclass(frozen=True)
class AutocastView:
    """An operator's autocast policy per device (autocast::Policy names) and its call with every
    tensor argument cast (Note [Autocast])."""

    cpu: str
    cuda: str
    tensor_args: tuple[str, ...]
    cast_args: tuple[str, ...]
    promote: bool  # the target dtype depends on the arguments


def _autocast_view(f: NativeFunction) -> AutocastView | None:
    if not f.autocast:
        return None
    policies = dict(f.autocast)
    tensors = {a.name for a in f.func.arguments if base_of(a.type).name == "Tensor"}
    args = kernel_args(f.func)
    return AutocastView(
        cpu=_POLICY_ENUM.get(policies.get("CPU", ""), "None"),
        cuda=_POLICY_ENUM.get(policies.get("CUDA", ""), "None"),
        tensor_args=tuple(a for a in args if a in tensors),
        cast_args=tuple(f"autocast::cast({a}, *device, to)" if a in tensors else a for a in args),
        promote="promote" in policies.values(),
    )


def _device_expr(s: FunctionSchema) -> str:
    """Which device an op runs on: its tensor arguments' (a 0-dim CPU tensor defers to another
    tensor's device, Note [Device check] says where it may stay on the CPU), else its device= keyword."""
    plain = [a.name for a in s.non_out_arguments if str(a.type) == "Tensor"]
    if len(plain) == 1:
        return f"{plain[0]}.device()"
    if len(plain) > 1:
        return f"dispatch_device_of({', '.join(plain)})"
    for a in s.arguments:
        if str(a.type) == "Tensor[]":
            return f"device_of({a.name})"
    for a in s.arguments:
        if a.name == "device" and str(a.type) == "Device?":
            return "device.value_or(Device(DeviceType::CPU))"
    for a in s.arguments:
        if str(a.type) == "Tensor?":
            return f"device_of({a.name})"
    return "Device(DeviceType::CPU)"


def _method_arguments(s: FunctionSchema) -> list[Argument]:
    return [a for a in public_arguments(s) if a.name != "self"]


def _kept_defaults(fns: list[NativeFunction]) -> dict[tuple[str, str], int]:
    """(kind, operator) -> how many defaults its function ("function") or method ("method")
    overload keeps, for the names that several overloads share (kept_defaults)."""
    groups: dict[tuple[str, str], list[NativeFunction]] = {}
    for f in fns:
        groups.setdefault(("function", public_name(f.func)), []).append(f)
        if f.is_method:
            groups.setdefault(("method", public_name(f.func)), []).append(f)
    keep: dict[tuple[str, str], int] = {}
    for (kind, _), group in groups.items():
        if len(group) < 2:
            continue
        arguments = _method_arguments if kind == "method" else public_arguments
        for f, n in zip(group, kept_defaults([arguments(f.func) for f in group])):
            keep[(kind, str(f.name))] = n
    return keep


def _op_view(f: NativeFunction, by_name: dict[str, NativeFunction], inplace_targets: set[str],
             keep: dict[tuple[str, str], int], wrapper: WrapperInfo | None) -> OpView:
    s = f.func
    args = tuple(kernel_args(s))
    delegate = None
    if f.structured_delegate is not None:
        n_outs = len(by_name[str(f.structured_delegate)].func.out_arguments)
        # The in-place form writes self; the functional one passes an undefined out.
        fill = ("self" if s.kind() == SchemaKind.inplace else "Tensor()",) * n_outs
        delegate = (f.structured_delegate.unambiguous(), args + fill)
    try:
        overlap = overlap_guard(s, f.tags, inplace_target=str(f.name) in inplace_targets)
    except ValueError as e:
        raise CodegenError(f.loc, str(e)) from None
    method_args = tuple(_method_arguments(s))
    checked = [a.name for a in s.arguments if f.device_check and str(a.type) in ("Tensor", "Tensor?", "Tensor[]")]
    return OpView(
        schema_literal=cpp_string(str(s)),
        base=s.name.base,
        struct=s.name.unambiguous(),
        ret=return_type(s),
        params=tuple(kernel_params(s)),
        args=args,
        public_name=public_name(s),
        public_args=tuple(public_arguments(s)),
        public_params=tuple(public_params(public_arguments(s), True, keep.get(("function", str(f.name))))),
        composite=f.composite_kernel,
        kernels={k: kernel for k in DEVICE_KEYS if (kernel := f.registered_kernel(k))},
        device_expr=_device_expr(s),
        device_check_args=tuple(a for a in checked if a not in f.cpu_scalar_arguments),
        cpu_scalar_args=tuple(a for a in checked if a in f.cpu_scalar_arguments),
        version_bumps=tuple(version_bump(a) for a in s.arguments if a.is_write),
        overlap=overlap,
        delegate=delegate,
        alias=f.alias_of.unambiguous() if f.alias_of else None,
        is_function=f.is_function,
        is_method=f.is_method,
        method_args=method_args,
        method_params=tuple(public_params(list(method_args), True, keep.get(("method", str(f.name))))),
        method_params_nodefault=tuple(public_params(list(method_args), False)),
        method_call_args=tuple("*this" if a == "self" else a for a in args),
        autograd=wrapper,
        profile_name=f"aten::{s.name.name}",
        differentiable=wrapper is not None or f.composite_kernel is not None,
        autocast=_autocast_view(f),
    )


def op_views(fns: list[NativeFunction], wrappers: dict[str, WrapperInfo]) -> list[OpView]:
    """One OpView per operator, in YAML order. `wrappers`: the autograd wrapper of each operator
    that records history, by struct name (autograd.build)."""
    for f in fns:  # every type has a C++ spelling, else the error points at the operator
        try:
            kernel_params(f.func)
            return_type(f.func)
        except CppTypeError as e:
            raise CodegenError(f.loc, str(e)) from None
    by_name = {str(f.name): f for f in fns}
    inplace_targets = {str(f.structured_delegate) for f in fns if f.structured_delegate and f.func.name.inplace}
    keep = _kept_defaults(fns)
    return [_op_view(f, by_name, inplace_targets, keep, wrappers.get(f.name.unambiguous())) for f in fns]
