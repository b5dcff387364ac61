"""The C++ face of an operator: argument/return types, default expressions, call lists.

Two signatures come out of one schema:
- the public API (tl::add, Tensor::add): defaults, out= variants named `<name>_out` with the
  out tensors first (so the other arguments keep their defaults);
- the kernel API (tl::native::add_out_cpu): faithful argument order, no defaults.
"""

from __future__ import annotations

from codegen.cpp_types import ArrayRef, ConstRef, CppType, Optional, StdArray, Tuple, Value, Vector, Void
from codegen.model import (
    NAMED_DEFAULTS,
    Argument,
    BaseType,
    FunctionSchema,
    ListType,
    OptionalType,
    Return,
    Type,
    base_of,
)


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
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

