"""derivatives.yaml -> per-operator backward and forward formulas (validated against the operators).

A key naming arguments holds a backward formula; a key naming an output (see output_names)
holds a forward-mode formula (Note [Forward AD]): a C++ expression, or
`auto_element_wise` / `auto_linear`, which codegen/autograd.py derives as PyTorch does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import FunctionSchema
from .native_functions import NativeFunction
from .schema_parser import SchemaError, parse_schema
from .yaml_loader import CodegenError, Location, key_location, load_entries, user_items

RESERVED_KEYS = ("name", "output_differentiability")
AUTO_FORWARD = ("auto_element_wise", "auto_linear")

# Names a formula may use besides the op's arguments and returns.
FORMULA_NAMES = frozenset(
    {"grad", "grads", "result", "grad_input_mask", "self_t", "self_p"}
    | {"true", "false", "nullptr", "this", "auto", "const", "static_cast", "sizeof", "return"}
    | {"int", "int64_t", "double", "float", "bool", "size_t", "std", "tl", "at", "native"}
    | {"Tensor", "Scalar", "ScalarType", "IntArrayRef", "TensorList", "Device", "MemoryFormat"}
)
# A bare identifier: not a member (.x, ->x), not qualified (ns::x), not a call (x(...)) or template (x<...>).
_BARE_IDENT = re.compile(r"(?<![\w.:>])(?<!->)([A-Za-z_]\w*)(?!\s*(?:\(|::|<|\w))")
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def output_names(s: FunctionSchema) -> list[str]:
    """How formulas name the outputs: `result` for one, else return names or `result<i>`."""
    if len(s.returns) == 1:
        r = s.returns[0]
        return ["result" if r.name in (None, "self") else r.name]
    return [r.name if r.name else f"result{i}" for i, r in enumerate(s.returns)]


@dataclass(frozen=True)
class DerivativeEntry:
    op: NativeFunction
    loc: Location
    formulas: tuple[tuple[tuple[str, ...], str], ...]  # (input or output names, C++ formula)
    output_differentiability: tuple[bool, ...] | None

    def _is_forward(self, names: tuple[str, ...]) -> bool:
        return names[0] not in {a.name for a in self.op.func.arguments}

    @property
    def backward_formulas(self) -> list[tuple[tuple[str, ...], str]]:
        return [(n, e) for n, e in self.formulas if not self._is_forward(n)]

    @property
    def forward_formulas(self) -> list[tuple[str, str]]:
        """(output name, formula) per forward formula."""
        return [(n[0], e.strip()) for n, e in self.formulas if self._is_forward(n)]


def formula_unknown_names(formula: str, schema: FunctionSchema) -> list[str]:
    """Bare identifiers in a C++ formula that name nothing it can see (arguments, returns, grad...)."""
    known = set(FORMULA_NAMES)
    for a in schema.arguments:
        known.update((a.name, f"{a.name}_t", f"{a.name}_p"))
    known.update(r.name for r in schema.returns if r.name)
    known.update(f"result{i}" for i in range(len(schema.returns)))
    names = _BARE_IDENT.findall(_STRING.sub('""', formula))
    return [n for n in dict.fromkeys(names) if n not in known]


def load_derivatives(
    path: str, fns: list[NativeFunction], display_name: str = "derivatives.yaml"
) -> list[DerivativeEntry]:
    by_schema = {str(f.func): f for f in fns}
    seen: dict[str, Location] = {}
    out = []
    for entry, loc in load_entries(path, display_name):
        text = entry.get("name")
        if not isinstance(text, str):
            raise CodegenError(loc, "missing 'name:' schema string")
        name_loc = key_location(entry, "name", loc)
        try:
            schema = parse_schema(text)
        except SchemaError as e:
            col = f" (column {e.col})" if e.col else ""
            raise CodegenError(name_loc, f"{e.msg}{col} in schema: {text}") from None
        op = by_schema.get(str(schema))
        if op is None:
            raise CodegenError(name_loc, f"derivative for '{text}', which matches no operator in native_functions.yaml")
        if str(schema) in seen:
            raise CodegenError(
                name_loc, f"second derivative entry for '{schema.name}' (first at line {seen[str(schema)].line})"
            )
        seen[str(schema)] = name_loc
        arg_names = {a.name for a in schema.arguments}
        out_names = set(output_names(schema))
        formulas = []
        covered: set[str] = set()
        for key, formula in user_items(entry):
            if key in RESERVED_KEYS:
                continue
            key_loc = key_location(entry, key, loc)
            names = tuple(n.strip() for n in str(key).split(","))
            for n in names:
                if n not in arg_names and n not in out_names:
                    raise CodegenError(key_loc, f"formula for '{n}', which is not an argument of {schema.name}")
                if n in covered:
                    raise CodegenError(key_loc, f"second formula for '{n}'")
                covered.add(n)
            if not isinstance(formula, str) or not formula.strip():
                raise CodegenError(key_loc, f"formula for '{key}' must be a C++ expression string")
            if any(n not in arg_names for n in names) and (len(names) != 1 or names[0] in arg_names):
                raise CodegenError(key_loc, f"a forward formula names exactly one output; got '{key}'")
            plain = formula.strip() in ("non_differentiable", *AUTO_FORWARD)
            unknown = [] if plain else formula_unknown_names(formula, schema)
            if unknown:
                raise CodegenError(
                    key_loc,
                    f"formula for '{key}' uses '{unknown[0]}', which is not an argument or return of "
                    f"{schema.name} (nor grad, grads, result, grad_input_mask)",
                )
            formulas.append((names, formula))
        od = entry.get("output_differentiability")
        if od is not None:
            if not isinstance(od, list) or len(od) != len(schema.returns) or not all(isinstance(x, bool) for x in od):
                raise CodegenError(
                    key_location(entry, "output_differentiability", loc),
                    "output_differentiability must list one bool per return",
                )
            od = tuple(od)
        out.append(DerivativeEntry(op, loc, tuple(formulas), od))
    return out
