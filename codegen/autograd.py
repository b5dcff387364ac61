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
from dataclasses import dataclass

from . import cpp_api
from .derivatives import DerivativeEntry, load_derivatives, output_names
from .cpp_types import CppType, Value
from .model import BaseType, FunctionSchema, ListType, SchemaKind, Type, base_of, is_tensor_like
from .native_functions import NativeFunction
from .yaml_loader import CodegenError

# Note [Saved metadata]: `x.<method>()` in a formula saves a value field `x_<suffix>` instead of
# the tensor x (names follow PyTorch's, so `_saved_self_sym_sizes` reads the same). Each is saved
# as the C++ type of the schema type it would have as an argument.
_INT = cpp_api.cpp_type(BaseType("int"))
_SIZES = (cpp_api.cpp_type(ListType(BaseType("int"), None)), "{x}.sizes()")
_STRIDES = (_SIZES[0], "{x}.strides()")
_OFFSET = (_INT, "{x}.storage_offset()")
METADATA: dict[str, tuple[str, CppType, str]] = {
    "sizes": ("sym_sizes", *_SIZES),
    "sym_sizes": ("sym_sizes", *_SIZES),
    "strides": ("sym_strides", *_STRIDES),
    "sym_strides": ("sym_strides", *_STRIDES),
    "storage_offset": ("sym_storage_offset", *_OFFSET),
    "sym_storage_offset": ("sym_storage_offset", *_OFFSET),
    "scalar_type": ("scalar_type", cpp_api.cpp_type(BaseType("ScalarType")), "{x}.scalar_type()"),
    "options": ("options", Value("TensorOptions", to_py=False), "{x}.options()"),  # not readable from Python
    "device": ("device", cpp_api.cpp_type(BaseType("Device")), "{x}.device()"),
    "dim": ("dim", _INT, "{x}.dim()"),
    "numel": ("numel", _INT, "{x}.numel()"),
}
DEFAULT_DERIVATIVES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "derivatives.yaml")


def _ident(name: str) -> re.Pattern:
    # A bare identifier, not a member (`.dim`, `->dim`) or qualified name (`::dim`).
    return re.compile(r"(?<![\w.>:])" + re.escape(name) + r"\b")


def node_prefix(fn: NativeFunction) -> str:
    base = fn.func.name.base
    camel = "".join(p[:1].upper() + p[1:] for p in base.split("_") if p)
    return camel.replace("ForwardBackward", "Backward") + "Backward"


def _value_type(t: Type) -> CppType | None:
    """The C++ type a non-tensor argument is saved as; None if it cannot be saved."""
    if base_of(t).name == "Generator":
        return None
    return cpp_api.cpp_type(t)


@dataclass(frozen=True)
class Saved:
    """What a Node saves for backward: a tensor (list), or a value read from `source` (an input
    or output name) by `read` and held as its type's storage."""

    name: str          # member is name + "_"; Python sees _saved_<name>
    kind: str          # "tensor" | "tensorlist" | "value"
    is_output: bool
    source: str = ""
    type: CppType | None = None  # of a value
    read: str = "{x}"

    @property
    def member(self) -> str:
        return self.name + "_"

    @property
    def field_type(self) -> str:
        if self.kind == "tensor":
            return "SavedVariable"
        if self.kind == "tensorlist":
            return "std::vector<SavedVariable>"
        assert self.type is not None
        return self.type.storage()

    def save_from(self, expr: str) -> str:
        """The value to store, read from the tensor or argument `expr` at forward time."""
        assert self.type is not None
        return self.type.save(self.read.format(x=expr))

    def local(self) -> str:
        """The declaration in apply() that gives a formula the saved value under its name: a view
        of the stored value where the argument type is one (IntArrayRef of a vector)."""
        assert self.type is not None
        if self.type.is_view:
            return f"const {self.type.argument()} {self.name} = {self.type.load(self.member)};"
        return f"const {self.type.storage()}& {self.name} = {self.member};"

    @property
    def py_gettable(self) -> bool:
        return self.type is None or self.type.python_readable


@dataclass(frozen=True)
class Formula:
    names: tuple[str, ...]
    expr: str  # after metadata rewriting


@dataclass(frozen=True)
class NodeInfo:
    name: str
    entry: DerivativeEntry
    schema: FunctionSchema
    diff_inputs: tuple[tuple[str, Type], ...]
    formulas: tuple[Formula, ...]
    saved: tuple[Saved, ...]
    uses_grad: bool
    uses_grads: bool
    num_outputs: int
    output_diff: tuple[bool, ...]

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


def _saved_tensor(name: str, t: Type, is_output: bool) -> Saved:
    return Saved(name, "tensorlist" if isinstance(t, ListType) else "tensor", is_output)


def _analyze(entry: DerivativeEntry, name: str) -> NodeInfo:
    s = entry.op.func
    args = {a.name: a for a in s.arguments}
    outs = output_names(s)
    out_types = {n: r.type for n, r in zip(outs, s.returns)}
    written: list[tuple[tuple[str, ...], str]] = []
    for names, expr in entry.backward_formulas:
        for n in names:
            if not is_tensor_like(args[n].type):
                raise CodegenError(entry.loc, f"formula for '{n}', which is not a Tensor argument of {s.name}")
        if expr.strip() == "non_differentiable":
            continue
        written.append((names, expr))
    differentiable = {n for names, _ in written for n in names}
    diff_inputs = tuple((a.name, a.type) for a in s.arguments if a.name in differentiable)
    od = entry.output_differentiability
    output_diff = tuple(od) if od is not None else tuple(is_tensor_like(r.type) for r in s.returns)

    saved: dict[str, Saved] = {}
    formulas: list[Formula] = []
    uses_grad = uses_grads = False
    for names, expr in written:
        # Metadata of inputs and outputs becomes value fields (Note [Saved metadata]).
        for var in list(args) + outs:
            var_type = args[var].type if var in args else out_types[var]
            if not is_tensor_like(var_type):
                continue

            def repl(m: re.Match, var: str = var, is_output: bool = var not in args) -> str:
                suffix, cpp, read = METADATA[m.group(1)]
                key = f"{var}_{suffix}"
                saved.setdefault(key, Saved(key, "value", is_output, var, cpp, read))
                return key

            expr = re.sub(r"(?<![\w.>:])" + re.escape(var) + r"\.(" + "|".join(METADATA) + r")\(\)", repl, expr)
        uses_grads = uses_grads or bool(re.search(r"(?<![\w.>:])grads\b", expr))
        uses_grad = uses_grad or bool(re.search(r"(?<![\w.>:])grad\b", expr))
        for var, a in args.items():
            if var in ("grad", "grads") or var in saved or not _ident(var).search(expr):
                continue
            if is_tensor_like(a.type):
                saved[var] = _saved_tensor(var, a.type, False)
            else:
                cpp = _value_type(a.type)
                if cpp is None:
                    raise CodegenError(entry.loc, f"formula uses '{var}', whose type {a.type} cannot be saved")
                saved[var] = Saved(var, "value", False, var, cpp)
        for var in outs:
            if _ident(var).search(expr) and var not in saved:
                if not is_tensor_like(out_types[var]):
                    raise CodegenError(entry.loc, f"formula uses output '{var}', which is not a Tensor")
                saved[var] = _saved_tensor(var, out_types[var], True)
        formulas.append(Formula(names, expr))
    if uses_grad and uses_grads:
        raise CodegenError(entry.loc, "a derivative entry must use either 'grad' or 'grads[i]', not both")
    n_diff_out = sum(1 for d, r in zip(output_diff, s.returns) if d and is_tensor_like(r.type))
    if uses_grad and (n_diff_out > 1 or any(isinstance(r.type, ListType) for r in s.returns)):
        raise CodegenError(entry.loc, f"'grad' used in an entry of {s.name}, which has several differentiable "
                                      "outputs: use grads[i]")
    for key in ("result", "grad_input_mask"):
        if key in args:
            raise CodegenError(entry.loc, f"an argument may not be named '{key}'")
    # Deterministic order: inputs in schema order, then metadata, then outputs.
    order = {n: i for i, n in enumerate(list(args) + outs)}
    ordered = sorted(saved.values(), key=lambda v: (v.is_output, order.get(v.name, len(order)), v.name))
    return NodeInfo(name, entry, s, diff_inputs, tuple(formulas), tuple(ordered), uses_grad, uses_grads,
                    len(s.returns), output_diff)


@dataclass(frozen=True)
class ForwardInfo:
    """The tangent computation of one wrapper (Note [Forward AD] in forward_ad.h)."""

    inputs: tuple[str, ...]   # differentiable inputs: the wrapper computes tangents if one has one
    decls: tuple[str, ...]    # statements giving the formulas their names (tangents, outputs)
    outputs: tuple[tuple[str, str], ...]  # (output C++ expression, its tangent formula)
    original_self: bool       # an in-place op whose formulas read `self` before the op


_GRAD = re.compile(r"(?<![\w.>:])grad\b")


def _forward_formula(node: NodeInfo, out: str, expr: str) -> str:
    """The C++ tangent formula of output `out`: written, or derived as PyTorch derives it."""
    e, s = node.entry, node.schema
    diff = [n for n, _ in node.diff_inputs]
    if expr == "auto_element_wise":
        bwd = [(n, f) for n, f in e.backward_formulas if f.strip() != "non_differentiable"]
        if len(diff) != 1 or len(bwd) != 1 or len(bwd[0][0]) != 1 or len(s.returns) != 1:
            raise CodegenError(e.loc, f"'{out}: auto_element_wise' needs one differentiable input and output, "
                                      f"with one backward formula ({s.name})")
        # The backward formula maps grad to grad * conj(f'(x)); applied to conj(x_t) it gives f'(x) * x_t.
        return f"({_GRAD.sub(f'{diff[0]}_t.conj()', bwd[0][1].strip())}).conj()"
    if expr == "auto_linear":
        if len(s.returns) != 1:
            raise CodegenError(e.loc, f"'{out}: auto_linear' needs an operator with one output ({s.name})")
        # A linear op's tangent is the op applied to the tangents of its differentiable inputs.
        args = (f"{a}_t" if a in diff else a for a in cpp_api.kernel_args(s))
        return f"ops::{s.name.unambiguous()}::call({', '.join(args)})"
    return expr


def _forward(node: NodeInfo, inplace: bool, outputs: tuple[tuple[str, bool], ...]) -> ForwardInfo | None:
    fws = node.entry.forward_formulas
    if not fws:
        return None
    s = node.schema
    names = output_names(s)
    exprs = dict(zip(names, (e for e, _ in outputs)))
    args = [a for a in s.arguments if is_tensor_like(a.type)]
    formulas = []
    for out, expr in fws:
        f = _forward_formula(node, out, expr)
        for a in args:  # x_p, the primal, is x itself: the formula runs with forward AD off
            f = _ident(f"{a.name}_p").sub(a.name, f)
        formulas.append((out, f))
    original_self = inplace and any(_ident("self").search(f) for _, f in formulas)
    if original_self:
        formulas = [(o, _ident("self").sub("original_self", f)) for o, f in formulas]
    text = " ".join(f for _, f in formulas)
    decls = [f"const auto {a.name}_t = forward_ad::fw_grad_or_zeros({a.name});"
             for a in args if _ident(f"{a.name}_t").search(text)]
    if len(names) > 1:
        decls += [f"const auto& {n} = {exprs[n]};" for n in names if _ident(n).search(text)]
    return ForwardInfo(tuple(n for n, _ in node.diff_inputs), tuple(decls),
                       tuple((exprs[o], f) for o, f in formulas), original_self)


@dataclass(frozen=True)
class WrapperInfo:
    """The autograd wrapper of one operator (VariableType)."""

    struct: str
    kind: str  # "formula" | "not_implemented" | "out_error" | "nondiff"
    ret: str
    params: tuple[str, ...]
    args: tuple[str, ...]
    op_name: str
    tensor_args: tuple[str, ...]
    node: NodeInfo | None
    inplace: bool
    is_view: bool
    outputs: tuple[tuple[str, bool], ...]  # (C++ expr, differentiable)
    nondiff_checks: tuple[str, ...]
    ret_is_list: bool
    forward: ForwardInfo | None = None
    # Inputs whose tangents make the op raise: it has no forward formula.
    forward_unsupported: tuple[str, ...] = ()
    # An op with no derivatives.yaml entry raises only if it returns a floating output (one
    # that would need a tangent): comparisons and other integer-valued ops pass dual tensors.
    forward_check_outputs: tuple[str, ...] = ()  # the outputs' C++ expressions

    def save_input(self, sv: Saved) -> str:
        if sv.kind == "tensor":
            # In-place ops save the value `self` had before the op (PyTorch's original_self).
            src = f"{sv.name}.clone()" if (self.inplace and sv.name == "self") else sv.name
            return f"SavedVariable({src}, false)"
        if sv.kind == "tensorlist":
            return f"make_saved_list({sv.name}, false)"
        return sv.save_from(sv.source)

    def output_expr(self, sv: Saved) -> str:
        assert self.node is not None
        exprs = dict(zip(output_names(self.node.schema), (e for e, _ in self.outputs)))
        if sv.kind == "value":
            return sv.save_from(exprs[sv.source])
        if sv.kind == "tensorlist":
            return f"make_saved_list({exprs[sv.name]}, true)"
        return f"SavedVariable({exprs[sv.name]}, true)"


def _is_view_op(s: FunctionSchema) -> bool:
    self_arg = s.self_argument()
    if self_arg is None or self_arg.annotation is None or self_arg.annotation.is_write:
        return False
    return any(r.annotation is not None and not r.annotation.is_write
               and r.annotation.alias_set == self_arg.annotation.alias_set for r in s.returns)


def _tensor_args(s: FunctionSchema) -> tuple[str, ...]:
    return tuple(a.name for a in s.arguments if is_tensor_like(a.type))


def _wrapper(f: NativeFunction, node: NodeInfo | None, nondiff: bool) -> WrapperInfo | None:
    """The autograd wrapper of f, or None where f needs none. `node`: the Node class its history
    records (the functional op's for an in-place op); `nondiff`: its entry differentiates nothing."""
    s = f.func
    tensors = _tensor_args(s)
    if not tensors or not s.returns:
        return None
    try:
        ret = cpp_api.return_type(s)
        params = tuple(cpp_api.kernel_params(s))
    except cpp_api.CppTypeError:
        return None
    inplace = s.kind() == SchemaKind.inplace
    if len(s.returns) == 1:
        outputs = (("result", is_tensor_like(s.returns[0].type)),)
    else:
        outputs = tuple((f"std::get<{i}>(result)", is_tensor_like(r.type)) for i, r in enumerate(s.returns))
    op_name = s.name.name
    nondiff_checks: tuple[str, ...] = ()
    is_view = False
    forward = None
    forward_unsupported: tuple[str, ...] = ()
    forward_check_outputs: tuple[str, ...] = ()
    if nondiff or "factory" in f.tags:
        kind = "nondiff"  # factories (zeros_like, rand_like, ...) never record history
        node = None
    elif s.kind() == SchemaKind.out:
        kind = "out_error"
        op_name = s.name.base
        node = None
    elif node is not None:
        kind = "formula"
        outputs = tuple((expr, d and node.output_diff[i]) for i, (expr, d) in enumerate(outputs))
        diff = {n for n, _ in node.diff_inputs}
        nd_keys = {n for names, expr in node.entry.formulas for n in names if expr.strip() == "non_differentiable"}
        nondiff_checks = tuple(t for t in tensors if t not in diff and t not in nd_keys)
        is_view = _is_view_op(s) and not inplace
        forward = _forward(node, inplace, outputs)
        if forward is None:
            forward_unsupported = tuple(n for n, _ in node.diff_inputs)
    elif s.kind() in (SchemaKind.functional, SchemaKind.inplace):
        if not any(is_tensor_like(r.type) for r in s.returns):
            return None
        kind = "not_implemented"
        is_view = _is_view_op(s) and not inplace
        forward_unsupported = tensors
        if not inplace and all(not isinstance(r.type, ListType) for r in s.returns):
            forward_check_outputs = tuple(e for (e, _), r in zip(outputs, s.returns) if is_tensor_like(r.type))
    else:
        return None
    return WrapperInfo(s.name.unambiguous(), kind, ret, params, tuple(cpp_api.kernel_args(s)), op_name, tensors,
                       node, inplace, is_view, outputs, nondiff_checks,
                       len(s.returns) == 1 and isinstance(s.returns[0].type, ListType), forward, forward_unsupported,
                       forward_check_outputs)


def build(fns: list[NativeFunction], entries: list[DerivativeEntry]) -> tuple[list[NodeInfo], dict[str, WrapperInfo]]:
    """Node classes in file order, and the wrapper of each operator (by unambiguous name)."""
    counters: dict[str, int] = {}
    nodes: list[NodeInfo] = []
    by_op: dict[str, NodeInfo] = {}
    nondiff_ops: set[str] = set()
    for e in entries:
        od = e.output_differentiability
        has_formula = any(expr.strip() != "non_differentiable" for _, expr in e.backward_formulas)
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
        if f.kernel("CompositeImplicitAutograd") or f.alias_of is not None:
            continue  # the operators it calls record the history
        node = by_op.get(str(f.name))
        if node is None and f.func.kind() == SchemaKind.inplace:
            node = functional_by_key.get(f.func.signature_key())
        w = _wrapper(f, node, str(f.name) in nondiff_ops)
        if w is not None:
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
