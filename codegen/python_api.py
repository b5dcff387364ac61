"""The Python face of an operator: binding overloads and .pyi stubs.

All overloads that share a Python name (add.Tensor, add.Scalar, add.out) become one C function
over a table of them (Note [Argument parser] in torchlite/csrc/python_arg_parser.h). Order
matters because the parser tries overloads in order: Tensor-taking overloads come before Scalar
ones, and out= overloads (which require the `out` keyword) come last.
"""

from __future__ import annotations

import dataclasses
import keyword
from dataclasses import dataclass

from .cpp_api import cpp_string, cpp_type, default_expr, list_default_items, public_arguments, public_name
from .model import (NAMED_DEFAULTS, Argument, BaseType, FunctionSchema, ListType, OptionalType, SchemaKind,
                           Type, base_of)
from .native_functions import NativeFunction


def binding_type(t: Type) -> str:
    """The type a binding converts an argument to; int and bool arguments are parsed as strictly as
    PyTorch parses them (Note [Strict scalars] in torchlite/csrc/python_binding_utils.h)."""
    return cpp_type(t).binding()


def binding_arg_expr(a: Argument) -> str:
    """Converts the binding's value into what the C++ API takes."""
    return cpp_type(a.type).unpack(a.name)


def python_default(a: Argument) -> str:
    """The default as a C++ expression of a Python object: what a Python caller would have passed."""
    d = a.default
    assert d is not None
    if d == "None":
        return "py::none()"
    t = a.type.elem if isinstance(a.type, OptionalType) else a.type
    name = base_of(t).name
    if isinstance(t, ListType):
        if name in ("int", "SymInt") and not d.startswith("["):
            return f"py::int_({d})"  # an IntList takes a single int for int[N]
        items = (x.lower() if x in ("True", "False") else x for x in list_default_items(t, d))
        return "py::make_tuple(" + ", ".join(items) + ")"
    if d in ("True", "False"):
        return f"py::bool_({d.lower()})"
    if name == "str":
        return f"py::str({cpp_string(d[1:-1])})"
    if name == "ScalarType":
        return f"dtype_object({default_expr(a)})"
    if name in ("MemoryFormat", "Layout"):
        return f"py::cast({default_expr(a)})"
    if name == "int":
        return f"py::int_({default_expr(a)})"
    if d in ("inf", "-inf"):
        return f"py::float_({default_expr(a)})"
    if any(c in d for c in ".eE") or name == "float":
        return f"py::float_({d})"
    return f"py::int_({d})"


def message_type(t: Type) -> str:
    """A type as PyTorch's argument errors spell it: "Tensor", "Number", "tuple of ints"."""
    if isinstance(t, OptionalType):
        return message_type(t.elem)
    if isinstance(t, ListType):
        if t.elem == BaseType("bool"):  # bool[N]: the length is part of the type
            return f"tuple of {t.size} bools"
        return f"tuple of {message_type(t.elem)}s"
    names = {"Scalar": "Number", "SymInt": "int", "ScalarType": "torch.dtype", "Device": "torch.device",
             "Generator": "torch.Generator", "Layout": "torch.layout", "MemoryFormat": "torch.memory_format"}
    return names.get(t.name, t.name)


# A factory function's TensorOptions: its out= variant has none of them (zeros.out), and the
# Python binding checks them against `out` (Note [Factory out=]).
TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


def python_face_default(a: Argument, schema: FunctionSchema) -> str | None:
    """The default a Python caller sees, in the schema's default syntax: the schema's own, as
    PyTorch's parser shows it (layout=None, memory_format=None, dim=()), with two additions. A
    keyword-only optional argument without one takes None (div(..., *, rounding_mode=None),
    rand(..., *, generator=None)), and an optional pin_memory shows False, as PyTorch's do."""
    if a.default is None:
        return "None" if a.kwarg_only and isinstance(a.type, OptionalType) else None
    if a.name == "pin_memory" and a.default == "None":
        return "False"
    return a.default


def none_means_empty(a: Argument) -> bool:
    """An int list defaulting to [] also takes None for it, as PyTorch's parser allows
    (amax(x, dim=None), roll(x, 1, dims=None), avg_pool1d(x, 2, stride=None))."""
    return a.default == "[]" and isinstance(a.type, ListType) and base_of(a.type).name in ("int", "SymInt")


@dataclass(frozen=True)
class Parameter:
    """One parameter of an overload's table row (ArgSpec in torchlite/csrc/python_arg_parser.h)."""

    local: str  # the C++ local the converted value goes to
    binding: str  # the type it is converted to (binding_type), py::args for *args
    keyword: str  # the name Python callers pass it by
    message: str  # its type as PyTorch's messages spell it (message_type)
    default: str | None  # the default as messages show it; None: required
    kw_only: bool
    value: str  # the default object, as a C++ expression (nullptr: required)


@dataclass(frozen=True)
class Overload:
    """One overload of a Python-visible name.

    A functional op and its out= variant share one overload with `out=None`, as PyTorch's
    bindings do: one signature to match instead of two, and `out=(a, b)` for several outputs.
    """

    fn: NativeFunction
    is_method: bool
    varargs: bool  # the sole positional int list is taken as *args: zeros(2, 3), x.view(2, 3)
    out_fn: NativeFunction | None = None  # the .out variant merged into this overload

    @property
    def schema(self) -> FunctionSchema:
        return self.fn.func

    def python_args(self) -> list[Argument]:
        """Arguments Python passes explicitly, in Python order (out= last, as keyword)."""
        args = [a for a in self.schema.non_out_arguments if not (self.is_method and a.name == "self")]
        return [self.with_default(a) for a in args] + list(self.schema.out_arguments)

    def with_default(self, a: Argument) -> Argument:
        """`a` with the default Python callers see (python_face_default)."""
        default = python_face_default(a, self.schema)
        if none_means_empty(a):
            return dataclasses.replace(a, default=default, type=OptionalType(a.type))
        return a if default == a.default else dataclasses.replace(a, default=default)

    def keyword(self, a: Argument) -> str:
        """The name Python callers pass `a` by: a function's Tensor `self` is `input`, as in
        PyTorch (torch.add(input=x, other=y)); a Number `self` keeps its name
        (torch.pow(self=2, exponent=x)); a method's self is implicit."""
        renamed = a.name == "self" and not self.is_method and a.type == BaseType("Tensor")
        return "input" if renamed else a.name

    @property
    def is_factory(self) -> bool:
        """Ops taking TensorOptions (dtype/layout/device/pin_memory) also take requires_grad=
        in Python, as PyTorch's do; it is not part of the schema."""
        return any(a.name == "pin_memory" for a in self.schema.arguments)

    def vararg(self) -> Argument | None:
        return self.python_args()[0] if self.varargs else None

    def parameters(self) -> list[Parameter]:
        """The parameters the parser fills, in table order: the *args of a varargs overload
        first, requires_grad= and out= last."""
        params = []
        star = False
        for a in self.python_args():
            if self.varargs and a is self.vararg():
                params.append(Parameter(a.name + "_args", "py::args", a.name, "tuple of ints", None, False, "nullptr"))
                star = True  # everything after *args is keyword-only
                continue
            star = star or a.kwarg_only
            value = "nullptr" if a.default is None else python_default(a) + ".release().ptr()"
            params.append(Parameter(a.name, binding_type(a.type), self.keyword(a), message_type(a.type), a.default,
                                    star, value))
        if self.is_factory:
            params.append(Parameter("requires_grad", "BoolArg", "requires_grad", "bool", "False", True, "Py_False"))
        if self.out_fn is not None:
            params.append(Parameter("out", "py::handle", "out", "Tensor", "None", True, "Py_None"))
        return params

    def spec(self) -> str:
        """This overload's row of its name's table: an OverloadSpec (Note [Argument parser])."""
        specs = []
        for p in self.parameters():
            loads = "&loads_int_args" if p.binding == "py::args" else f"&loads<{p.binding}>"
            text = "nullptr" if p.default is None else cpp_string(p.default)
            specs.append(f'{{"{p.keyword}", "{p.message}", {loads}, {text}, {str(p.kw_only).lower()}, {p.value}}}')
        varargs = _eligible_varargs(self.fn, self.is_method)
        return f"OverloadSpec{{{{{', '.join(specs)}}}, {str(varargs).lower()}, {str(self.varargs).lower()}}}"

    def unpack(self) -> list[str]:
        """Statements that convert the parsed arguments into the locals the call uses."""
        lines = ["Tensor self = parsed<const Tensor&>(py_args[0]);"] if self.is_method else []
        for i, p in enumerate(self.parameters()):
            if p.binding == "py::args":
                lines.append(f"py::args {p.local} = py::reinterpret_borrow<py::args>(parsed_args.star_args);")
            else:
                lines.append(f"auto {p.local} = parsed<{p.binding}>(parsed_args.values[{i}]);")
        return lines

    def call_expr(self, schema: FunctionSchema | None = None) -> str:
        """The C++ API call: tl::add(self, other, alpha) or tl::add_out(out, self, other, alpha)."""
        schema = schema or self.schema
        outs = schema.out_arguments
        args = []
        for a in public_arguments(schema):
            if self.is_method and a.name == "self":
                continue
            if self.varargs and a.name == self.python_args()[0].name:
                args.append(f"int_list_from_args({a.name}_args)")
            elif self.out_fn is not None and a in outs:
                args.append(f"out_tensor(out, {outs.index(a)}, {len(outs)})")
            elif none_means_empty(a):
                as_optional = dataclasses.replace(a, type=OptionalType(a.type))
                args.append(f"{binding_arg_expr(as_optional)}.value_or(IntArrayRef())")
            else:
                args.append(binding_arg_expr(a))
        callee = f"self.{public_name(schema)}" if self.is_method else f"tl::{public_name(schema)}"
        return f"{callee}({', '.join(args)})"

    def _without_gil(self, call: str) -> str:
        """The call, run with the GIL released when a tensor argument is large (Note [GIL]). Not for
        calls whose arguments are still Python objects (out=, *args)."""
        tensors = (["self"] if self.is_method else []) + [
            a.name for a in self.python_args() if base_of(a.type).name == "Tensor" and a is not self.vararg()
        ]
        if not tensors or self.varargs:
            return call
        return f"[&] {{ ReleaseGilIfLong no_gil({', '.join(tensors)}); return {call}; }}()"

    def body(self) -> str:
        """The overload's case: call the C++ API and return its result as a new reference."""
        functional = self._result(self.schema, self._without_gil(self.call_expr()))
        if self.out_fn is None:
            return functional
        out_schema = self.out_fn.func
        check = ""
        if self.is_factory:
            # Note [Factory out=]: zeros(2, out=t, dtype=...) writes t, whose dtype and device
            # must be the ones asked for (PyTorch's check_out_type_matches).
            options = {a.name: a for a in self.schema.arguments}
            dtype, device = (binding_arg_expr(options[n]) if options[n].default == "None" else "std::nullopt"
                             for n in ("dtype", "device"))
            check = f"check_out_options(out_tensor(out, 0, 1), {dtype}, {device}); "
        out_call = self._result(out_schema, self.call_expr(out_schema))
        return f"if (out.is_none()) {{ {functional} }} {check}{out_call}"

    def _result(self, schema: FunctionSchema, call: str) -> str:
        rets = schema.returns
        if not rets:
            return f"{call}; Py_RETURN_NONE;"
        if len(rets) > 1 and all(r.name for r in rets):
            fields = ", ".join(f'"{r.name}"' for r in rets)
            return f'return to_python(named_tuple("{schema.name.base}", {{{fields}}}, {call}));'
        if self.is_factory:
            return f"return to_python(wrap_factory({call}, requires_grad));"
        return f"return to_python(wrap({call}));"


# Python operator slots bound straight to an operator's method overloads (no Python frame
# in between). Reflected forms (__radd__, ...) live in torchlite/_tensor.py.
DUNDER_METHODS = {
    "__add__": "add",
    "__sub__": "sub",
    "__mul__": "mul",
    "__truediv__": "div",
    "__floordiv__": "floor_divide",
    "__mod__": "remainder",
    "__pow__": "pow",
    "__matmul__": "matmul",
    "__and__": "bitwise_and",
    "__or__": "bitwise_or",
    "__xor__": "bitwise_xor",
    "__lshift__": "bitwise_left_shift",
    "__rshift__": "bitwise_right_shift",
    "__eq__": "eq",
    "__ne__": "ne",
    "__lt__": "lt",
    "__le__": "le",
    "__gt__": "gt",
    "__ge__": "ge",
    "__neg__": "neg",
    "__abs__": "abs",
    "__invert__": "bitwise_not",
    "__iadd__": "add_",
    "__isub__": "sub_",
    "__imul__": "mul_",
    "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_",
    "__ipow__": "pow_",
    "__iand__": "bitwise_and_",
    "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_",
    "__ilshift__": "bitwise_left_shift_",
    "__irshift__": "bitwise_right_shift_",
}
INPLACE_DUNDERS = frozenset(d for d, op in DUNDER_METHODS.items() if op.endswith("_"))


def reported_method(name: str) -> str:
    """The Tensor method a __torch_function__ handler receives for a call of method `name`: for an
    operator slot, as in PyTorch, its operator's method (Tensor.add for `x + y`, add_ for +=, lt
    for <), except for ==, // and the bitwise operators, which PyTorch reports as the slot itself."""
    op = DUNDER_METHODS.get(name)
    if op is None or name in ("__eq__", "__floordiv__") or op.startswith("bitwise"):
        return name
    return op


def _sort_key(fn: NativeFunction) -> tuple:
    # Tensor overloads before Scalar ones, position by position; out= variants last.
    s = fn.func
    ranks = tuple(0 if base_of(a.type).name == "Tensor" else 1 for a in s.non_out_arguments)
    return (1 if s.out_arguments else 0, ranks)


def _eligible_varargs(fn: NativeFunction, is_method: bool) -> bool:
    pos = [a for a in fn.func.positional if not (is_method and a.name == "self")]
    return len(pos) == 1 and isinstance(pos[0].type, ListType) and base_of(pos[0].type).name in ("int", "SymInt")


def _merge_out_variants(fns: list[NativeFunction]) -> dict[NativeFunction, NativeFunction]:
    """functional op -> its out= variant (same arguments, a factory's TensorOptions aside), for
    ops that have both."""
    functional = {f.func.signature_key(TENSOR_OPTIONS): f for f in fns if f.func.kind() == SchemaKind.functional}
    merged = {}
    for f in fns:
        if f.func.kind() == SchemaKind.out:
            partner = functional.get(f.func.signature_key(TENSOR_OPTIONS))
            if partner is not None and partner not in merged:
                merged[partner] = f
    return merged


def group_overloads(fns: list[NativeFunction], methods: bool) -> dict[tuple[str | None, str], list[Overload]]:
    """(python_module, python name) -> overloads in binding order."""
    groups: dict[tuple[str | None, str], list[NativeFunction]] = {}
    for f in fns:
        if methods and not f.is_method:
            continue
        if not methods and not f.is_function:
            continue
        groups.setdefault((None if methods else f.python_module, f.name.name), []).append(f)
    out: dict[tuple[str | None, str], list[Overload]] = {}
    for key in sorted(groups, key=lambda k: (k[0] or "", k[1])):
        ordered = sorted(groups[key], key=_sort_key)
        merged = _merge_out_variants(ordered)
        ovs: list[Overload] = []
        for f in ordered:
            if f in merged.values():
                continue
            ovs.append(Overload(f, methods, False, merged.get(f)))
        for f in ordered:
            if f not in merged.values() and _eligible_varargs(f, methods):
                ovs.append(Overload(f, methods, True, merged.get(f)))
        out[key] = ovs
    if methods:
        for dunder, name in DUNDER_METHODS.items():
            if (None, name) in out:
                out[(None, dunder)] = [ov for ov in out[(None, name)] if not ov.varargs]
    return dict(sorted(out.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])))


# ---- .pyi stubs -------------------------------------------------------------------------

def pyi_type(t: Type) -> str:
    if isinstance(t, OptionalType):
        return f"{pyi_type(t.elem)} | None"
    if isinstance(t, ListType):
        inner = pyi_type(t.elem)
        if base_of(t).name in ("int", "SymInt"):
            return "Sequence[int] | int"
        return f"Sequence[{inner}]"
    return {
        "Tensor": "Tensor",
        "int": "int",
        "SymInt": "int",
        "float": "float",
        "bool": "bool",
        "str": "str",
        "Scalar": "Number",
        "ScalarType": "dtype",
        "Device": "device | str",
        "Generator": "Generator",
        "Layout": "layout",
        "MemoryFormat": "memory_format",
    }[t.name]


def pyi_return(s: FunctionSchema) -> str:
    def one(t: Type) -> str:
        if isinstance(t, ListType):
            return f"tuple[{pyi_type(t.elem)}, ...]"
        return pyi_type(t)

    if not s.returns:
        return "None"
    if len(s.returns) == 1:
        return one(s.returns[0].type)
    return "tuple[" + ", ".join(one(r.type) for r in s.returns) + "]"


def python_default_text(a: Argument) -> str:
    """A default as Python source, as help() shows it: `1`, `'mean'`, `(0,)`, `torchlite.int64`."""
    d = a.default
    assert d is not None
    t = a.type.elem if isinstance(a.type, OptionalType) else a.type
    name = base_of(t).name
    if d == "None" or d in ("True", "False"):
        return d
    if isinstance(t, ListType):
        if name in ("int", "SymInt") and not d.startswith("["):
            return d  # an IntList takes a single int for int[N]
        items = list_default_items(t, d)
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if name == "str":
        return repr(d[1:-1])
    if name == "ScalarType":
        return "torchlite." + {"long": "int64"}.get(d, d)
    if name in ("MemoryFormat", "Layout"):
        return "torchlite." + d
    return NAMED_DEFAULTS["int"].get(d, d) if name == "int" else d  # reduction=Mean reads 1, as in PyTorch


def _signature_params(ov: Overload, stub: bool) -> list[str]:
    """The parameters of one overload with their types: for the .pyi (`stub`: defaults as `...`,
    a keyword-named parameter renamed) or for the docstring (defaults written out)."""
    params = ["self"] if ov.is_method else []
    star = False
    for a in ov.python_args():
        if ov.varargs and a is ov.vararg():
            params.append(f"*{a.name}: int")
            star = True
            continue
        if a.kwarg_only and not star:
            params.append("*")
            star = True
        # `from` (random_) is a Python keyword: callers can only pass it by position, and a stub
        # that names it does not parse, which stops mypy on every program that imports torchlite.
        kw = ov.keyword(a)
        p = f"{kw}_: {pyi_type(a.type)}" if stub and keyword.iskeyword(kw) else f"{kw}: {pyi_type(a.type)}"
        if a.default is not None:
            p += " = ..." if stub else f" = {python_default_text(a)}"
        params.append(p)
    if ov.is_factory:
        if not star:
            params.append("*")
            star = True
        params.append("requires_grad: bool = False")
    if ov.out_fn is not None:
        if not star:
            params.append("*")
        ret = pyi_return(ov.schema)
        params.append(f"out: {ret if len(ov.schema.returns) == 1 else 'Sequence[Tensor]'} | None = None")
    return params


def _doc_text(ovs: list[Overload]) -> str | None:
    """The `doc:` of the first overload (or its out= variant) that has one."""
    return next((f.doc for ov in ovs for f in (ov.fn, ov.out_fn) if f is not None and f.doc), None)


def pyi_stub(ov: Overload, name: str, ovs: list[Overload]) -> str:
    """The stub of one overload of the group `ovs` bound under `name` (the op's name, or a dunder
    such as __add__), with the group's `doc:` as its docstring so that IDEs show it."""
    head = f"def {name}({', '.join(_signature_params(ov, stub=True))}) -> {pyi_return(ov.schema)}:"
    # Tensor's == returns a Tensor, not object's bool, and x += y accepts what x + y does not
    # (alpha=): PyTorch's semantics, which mypy flags (at the first line) unless told they are meant.
    ignore = "misc" if name in INPLACE_DUNDERS else {"__eq__": "override", "__ne__": "override"}.get(name)
    ignore_comment = f"  # type: ignore[{ignore}]" if ignore else ""
    doc = _doc_text(ovs)
    if doc is None:
        body = " ..."
    else:
        indent = "    "  # relative to the def: the template indents a method's stub as a whole
        body = "\n" + indent + '"""' + doc.replace("\n", "\n" + indent).replace(indent + "\n", "\n") + '"""'
    if len(ovs) > 1:
        return f"@overload{ignore_comment}\n{head}{body}"
    return head + (body + ignore_comment if doc is None else ignore_comment + body)


def docstring(name: str, ovs: list[Overload]) -> str:
    """What help() shows for a bound name: one typed signature line per overload, then the
    `doc:` text. torchlite.utils.api_coverage parses these lines as it parsed pybind11's
    signatures when the bindings were pybind11 functions."""
    sigs = dict.fromkeys(f"{name}({', '.join(_signature_params(ov, stub=False))}) -> {pyi_return(ov.schema)}"
                         for ov in ovs)
    doc = _doc_text(ovs)
    return "\n".join(sigs) + (f"\n\n{doc}\n" if doc else "\n")
