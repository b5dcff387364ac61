"""derivatives.yaml -> backward Node classes (XBackwardN) and autograd wrappers (VariableType).

Per derivatives.yaml entry: one Node class named as PyTorch names it, saving exactly what its
formulas use (identifier analysis; `x.sizes()`-style metadata is saved as a value, not the
tensor). Per operator that is not CompositeImplicitAutograd: one wrapper that the operator's
`call` enters when grad mode is on and a tensor argument requires grad (Note [Autograd fast
path] in torchlite/csrc/autograd/grad_mode.h). In-place variants reuse their functional op's
entry; out= variants raise when an argument requires grad; ops with no entry record a
NotImplemented node, which fails only if a backward pass reaches it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from codegen import cpp_api
from codegen.derivatives import DerivativeEntry, load_derivatives
from codegen.model import FunctionSchema, ListType, OptionalType, SchemaKind, Type, base_of, is_tensor_like
from codegen.native_functions import NativeFunction
from codegen.yaml_loader import CodegenError

# Note [Saved metadata]: `x.<method>()` in a formula saves a value field `x_<suffix>` instead of
# the tensor x (names follow PyTorch's, so `_saved_self_sym_sizes` reads the same).
METADATA = {
    "sizes": ("sym_sizes", "std::vector<int64_t>", "{x}.sizes().vec()", "IntArrayRef"),
    "sym_sizes": ("sym_sizes", "std::vector<int64_t>", "{x}.sizes().vec()", "IntArrayRef"),
    "strides": ("sym_strides", "std::vector<int64_t>", "{x}.strides().vec()", "IntArrayRef"),
    "sym_strides": ("sym_strides", "std::vector<int64_t>", "{x}.strides().vec()", "IntArrayRef"),
    "storage_offset": ("sym_storage_offset", "int64_t", "{x}.storage_offset()", "int64_t"),
    "sym_storage_offset": ("sym_storage_offset", "int64_t", "{x}.storage_offset()", "int64_t"),
    "scalar_type": ("scalar_type", "ScalarType", "{x}.scalar_type()", "ScalarType"),
    "options": ("options", "TensorOptions", "{x}.options()", "TensorOptions"),
    "device": ("device", "Device", "{x}.device()", "Device"),
    "dim": ("dim", "int64_t", "{x}.dim()", "int64_t"),
    "numel": ("numel", "int64_t", "{x}.numel()", "int64_t"),
}
DEFAULT_DERIVATIVES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "derivatives.yaml")
PY_GETTABLE = {"std::vector<int64_t>", "int64_t", "double", "bool", "Scalar", "ScalarType", "Device", "std::string",
               "std::optional<int64_t>", "std::optional<double>", "std::optional<bool>", "std::optional<Scalar>",
               "std::optional<ScalarType>", "std::optional<std::vector<int64_t>>", "std::vector<double>"}


def _ident(name: str) -> re.Pattern:
    # A bare identifier, not a member (`.dim`, `->dim`) or qualified name (`::dim`).
    return re.compile(r"(?<![\w.>:])" + re.escape(name) + r"\b")


def node_prefix(fn: NativeFunction) -> str:
    base = fn.func.name.base
    camel = "".join(p[:1].upper() + p[1:] for p in base.split("_") if p)
    return camel.replace("ForwardBackward", "Backward") + "Backward"


def output_names(s: FunctionSchema) -> list[str]:
    if len(s.returns) == 1:
        r = s.returns[0]
        return ["result" if r.name in (None, "self") else r.name]
    return [r.name if r.name else f"result{i}" for i, r in enumerate(s.returns)]


def _value_storage(t: Type) -> tuple[str, str, str] | None:
    """(field type, save expression template, local type) for a non-tensor argument."""
    cpp = cpp_api.argument_type(t)
    if isinstance(t, ListType) and base_of(t).name in ("int", "SymInt"):
        return "std::vector<int64_t>", "{x}.vec()", "IntArrayRef"
    if isinstance(t, ListType) and base_of(t).name == "float":
        return "std::vector<double>", "{x}.vec()", "ArrayRef<double>"
    if isinstance(t, OptionalType) and isinstance(t.elem, ListType):
        return ("std::optional<std::vector<int64_t>>",
                "({x} ? std::optional<std::vector<int64_t>>({x}->vec()) : std::nullopt)",
                "std::optional<IntArrayRef>")
    if base_of(t).name == "Generator":
        return None
    value = cpp.replace("const ", "").replace("&", "").strip()
    return value, "{x}", value


@dataclass
class Saved:
    name: str          # member is name + "_"; Python sees _saved_<name>
    kind: str          # "tensor" | "tensorlist" | "value"
    field_type: str
    save_expr: str     # C++ expression, at forward time
    local_type: str    # type of the local variable in apply()
    is_output: bool

    @property
    def member(self) -> str:
        return self.name + "_"

    @property
    def py_gettable(self) -> bool:
        return self.kind != "value" or self.field_type in PY_GETTABLE


@dataclass
class Formula:
    names: tuple[str, ...]
    expr: str  # after metadata rewriting


@dataclass
class NodeInfo:
    name: str
    entry: DerivativeEntry
    schema: FunctionSchema
    diff_inputs: list[tuple[str, Type]]
    formulas: list[Formula]
    saved: list[Saved] = field(default_factory=list)
    uses_grad: bool = False
    uses_grads: bool = False
    num_outputs: int = 1
    output_diff: list[bool] = field(default_factory=list)

    @property
    def saved_inputs(self) -> list[Saved]:
        return [s for s in self.saved if not s.is_output]

    @property
    def saved_outputs(self) -> list[Saved]:
        return [s for s in self.saved if s.is_output]

    def ranges(self) -> list[tuple[str, str]]:
        """(range variable, size expression) per differentiable input."""
        return [(f"{n}_ix", f"{n}_size_" if isinstance(t, ListType) else "1") for n, t in self.diff_inputs]

    def list_inputs(self) -> list[str]:
        return [n for n, t in self.diff_inputs if isinstance(t, ListType)]


def _analyze(entry: DerivativeEntry, name: str) -> NodeInfo:
    s = entry.op.func
    args = {a.name: a for a in s.arguments}
    outs = output_names(s)
    out_types = {n: r.type for n, r in zip(outs, s.returns)}
    diff_inputs: list[tuple[str, Type]] = []
    formulas: list[Formula] = []
    for names, expr in entry.formulas:
        if names == ("result",) or any(n.endswith(("_t", "_p")) for n in names):
            continue  # forward-mode formulas: not supported yet, accepted for compatibility
        for n in names:
            if n not in args:
                raise CodegenError(entry.loc, f"formula for '{n}', which is not an argument of {s.name}")
            if not is_tensor_like(args[n].type):
                raise CodegenError(entry.loc, f"formula for '{n}', which is not a Tensor argument of {s.name}")
        if expr.strip() == "non_differentiable":
            continue
        formulas.append(Formula(names, expr))
    differentiable = {n for f in formulas for n in f.names}
    for a in s.arguments:
        if a.name in differentiable:
            diff_inputs.append((a.name, a.type))
    info = NodeInfo(name, entry, s, diff_inputs, formulas)
    info.num_outputs = len(s.returns)
    od = entry.output_differentiability
    info.output_diff = list(od) if od is not None else [is_tensor_like(r.type) for r in s.returns]

    saved: dict[str, Saved] = {}
    for f in formulas:
        expr = f.expr
        # Metadata of inputs and outputs becomes value fields (Note [Saved metadata]).
        for var in list(args) + outs:
            var_type = args[var].type if var in args else out_types[var]
            if not is_tensor_like(var_type):
                continue

            def repl(m: re.Match, var: str = var, is_output: bool = var not in args) -> str:
                suffix, ftype, save, local = METADATA[m.group(1)]
                key = f"{var}_{suffix}"
                saved.setdefault(key, Saved(key, "value", ftype, save.format(x=var), local, is_output))
                return key

            expr = re.sub(r"(?<![\w.>:])" + re.escape(var) + r"\.(" + "|".join(METADATA) + r")\(\)", repl, expr)
        if re.search(r"(?<![\w.>:])grads\b", expr):
            info.uses_grads = True
        if re.search(r"(?<![\w.>:])grad\b", expr):
            info.uses_grad = True
        for var, a in args.items():
            if var in ("grad", "grads") or not _ident(var).search(expr):
                continue
            if var in saved:
                continue
            if is_tensor_like(a.type):
                kind = "tensorlist" if isinstance(a.type, ListType) else "tensor"
                ftype = "std::vector<SavedVariable>" if kind == "tensorlist" else "SavedVariable"
                local = "std::vector<Tensor>" if kind == "tensorlist" else "Tensor"
                saved[var] = Saved(var, kind, ftype, var, local, False)
            else:
                st = _value_storage(a.type)
                if st is None:
                    raise CodegenError(entry.loc, f"formula uses '{var}', whose type {a.type} cannot be saved")
                saved[var] = Saved(var, "value", st[0], st[1].format(x=var), st[2], False)
        for var in outs:
            if _ident(var).search(expr) and var not in saved:
                if not is_tensor_like(out_types[var]):
                    raise CodegenError(entry.loc, f"formula uses output '{var}', which is not a Tensor")
                kind = "tensorlist" if isinstance(out_types[var], ListType) else "tensor"
                ftype = "std::vector<SavedVariable>" if kind == "tensorlist" else "SavedVariable"
                local = "std::vector<Tensor>" if kind == "tensorlist" else "Tensor"
                saved[var] = Saved(var, kind, ftype, var, local, True)
        f.expr = expr
    if info.uses_grad and info.uses_grads:
        raise CodegenError(entry.loc, "a derivative entry must use either 'grad' or 'grads[i]', not both")
    n_diff_out = sum(1 for d, r in zip(info.output_diff, s.returns) if d and is_tensor_like(r.type))
    if info.uses_grad and (n_diff_out > 1 or any(isinstance(r.type, ListType) for r in s.returns)):
        raise CodegenError(entry.loc, f"'grad' used in an entry of {s.name}, which has several differentiable "
                                      "outputs: use grads[i]")
    for key in ("result", "grad_input_mask"):
        if key in args:
            raise CodegenError(entry.loc, f"an argument may not be named '{key}'")
    # Deterministic order: inputs in schema order, then metadata, then outputs.
    order = {n: i for i, n in enumerate(list(args) + outs)}
    info.saved = sorted(saved.values(), key=lambda v: (v.is_output, order.get(v.name, len(order)), v.name))
    return info


@dataclass
class WrapperInfo:
    """The autograd wrapper of one operator (VariableType)."""

    struct: str
    kind: str  # "formula" | "not_implemented" | "out_error" | "nondiff"
    ret: str
    params: list[str]
    args: list[str]
    op_name: str
    tensor_args: list[str]
    node: NodeInfo | None = None
    inplace: bool = False
    is_view: bool = False
    outputs: list[tuple[str, bool]] = field(default_factory=list)  # (C++ expr, differentiable)
    nondiff_checks: list[str] = field(default_factory=list)
    ret_is_list: bool = False

    def save_input(self, sv: Saved) -> str:
        if sv.kind == "tensor":
            # In-place ops save the value `self` had before the op (PyTorch's original_self).
            src = f"{sv.name}.clone()" if (self.inplace and sv.name == "self") else sv.name
            return f"SavedVariable({src}, false)"
        if sv.kind == "tensorlist":
            return f"make_saved_list({sv.name}, false)"
        return sv.save_expr

    def output_expr(self, sv: Saved) -> str:
        assert self.node is not None
        names = output_names(self.node.schema)
        exprs = dict(zip(names, (e for e, _ in self.outputs)))
        if sv.kind == "value":
            for n in names:
                if sv.name.startswith(n + "_"):
                    return sv.save_expr.replace(n, exprs[n], 1)
            raise AssertionError(sv.name)
        if sv.kind == "tensorlist":
            return f"make_saved_list({exprs[sv.name]}, true)"
        return f"SavedVariable({exprs[sv.name]}, true)"


def _is_view_op(s: FunctionSchema) -> bool:
    self_arg = s.self_argument()
    if self_arg is None or self_arg.annotation is None or self_arg.annotation.is_write:
        return False
    return any(r.annotation is not None and not r.annotation.is_write
               and r.annotation.alias_set == self_arg.annotation.alias_set for r in s.returns)


def _tensor_args(s: FunctionSchema) -> list[str]:
    return [a.name for a in s.arguments if is_tensor_like(a.type)]


def build(fns: list[NativeFunction], entries: list[DerivativeEntry]) -> tuple[list[NodeInfo], dict[str, WrapperInfo]]:
    """Node classes in file order, and the wrapper of each operator (by unambiguous name)."""
    counters: dict[str, int] = {}
    nodes: list[NodeInfo] = []
    by_op: dict[str, NodeInfo | None] = {}
    nondiff_ops: set[str] = set()
    for e in entries:
        od = e.output_differentiability
        has_formula = any(names != ("result",) and expr.strip() != "non_differentiable" for names, expr in e.formulas)
        if (od is not None and not any(od)) or not has_formula:
            # No differentiable output or input: the op never records history.
            nondiff_ops.add(str(e.op.name))
            _analyze(e, "Unused")  # still validates the keys
            continue
        prefix = node_prefix(e.op)
        n = counters.get(prefix, 0)
        counters[prefix] = n + 1
        info = _analyze(e, f"{prefix}{n}")
        nodes.append(info)
        by_op[str(e.op.name)] = info
    functional_by_key = {}
    for f in fns:
        if f.func.kind() == SchemaKind.functional and str(f.name) in by_op:
            functional_by_key[f.func.signature_key()] = by_op[str(f.name)]
    wrappers: dict[str, WrapperInfo] = {}
    for f in fns:
        if f.kernel("CompositeImplicitAutograd"):
            continue
        s = f.func
        tensors = _tensor_args(s)
        if not tensors or not s.returns:
            continue
        try:
            ret = cpp_api.return_type(s)
            params = cpp_api.kernel_params(s)
        except cpp_api.CppTypeError:
            continue
        w = WrapperInfo(s.name.unambiguous(), "", ret, params, cpp_api.kernel_args(s), s.name.name, tensors)
        w.inplace = s.kind() == SchemaKind.inplace
        w.ret_is_list = len(s.returns) == 1 and isinstance(s.returns[0].type, ListType)
        if len(s.returns) == 1:
            w.outputs = [("result", is_tensor_like(s.returns[0].type))]
        else:
            w.outputs = [(f"std::get<{i}>(result)", is_tensor_like(r.type)) for i, r in enumerate(s.returns)]
        node = by_op.get(str(f.name))
        if node is None and w.inplace:
            node = functional_by_key.get(s.signature_key())
        if str(f.name) in nondiff_ops or "factory" in f.tags:
            w.kind = "nondiff"  # factories (zeros_like, rand_like, ...) never record history
        elif s.kind() == SchemaKind.out:
            w.kind = "out_error"
            w.op_name = s.name.base
        elif node is not None:
            w.kind = "formula"
            w.node = node
            w.outputs = [(expr, d and node.output_diff[i]) for i, (expr, d) in enumerate(w.outputs)]
            diff = {n for n, _ in node.diff_inputs}
            nd_keys = {n for names, expr in node.entry.formulas for n in names if expr.strip() == "non_differentiable"}
            w.nondiff_checks = [t for t in tensors if t not in diff and t not in nd_keys]
            w.is_view = _is_view_op(s) and not w.inplace
        elif s.kind() in (SchemaKind.functional, SchemaKind.inplace):
            if not any(is_tensor_like(r.type) for r in s.returns):
                continue
            w.kind = "not_implemented"
            w.is_view = _is_view_op(s) and not w.inplace
        else:
            continue
        wrappers[w.struct] = w
    return nodes, wrappers


def load(fns: list[NativeFunction], path: str | None) -> list[DerivativeEntry]:
    if not path or not os.path.exists(path):
        return []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    display = os.path.relpath(path, root) if os.path.abspath(path).startswith(root) else path
    return load_derivatives(path, fns, display)


def render(env, header: str, fns: list[NativeFunction], derivatives_path: str | None) -> tuple[dict[str, str], dict]:
    """Generated autograd files, and the wrapper info per operator struct name."""
    entries = load(fns, derivatives_path)
    nodes, wrappers = build(fns, entries)
    files = {}
    ctx = {"header": header, "nodes": nodes, "wrappers": list(wrappers.values())}
    files["AutogradFunctions.h"] = env.get_template("AutogradFunctions.h.j2").render(**ctx)
    files["AutogradFunctions.cpp"] = env.get_template("AutogradFunctions.cpp.j2").render(**ctx)
    files["VariableType.h"] = env.get_template("VariableType.h.j2").render(**ctx)
    files["VariableType.cpp"] = env.get_template("VariableType.cpp.j2").render(**ctx)
    files["python_autograd_functions.cpp"] = env.get_template("python_autograd_functions.cpp.j2").render(**ctx)
    return files, wrappers
