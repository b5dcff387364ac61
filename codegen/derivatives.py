"""derivatives.yaml -> per-operator backward formulas (validated against the operators).

The autograd generator consumes these; for now this module parses and checks them.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegen.native_functions import NativeFunction
from codegen.schema_parser import SchemaError, parse_schema
from codegen.yaml_loader import CodegenError, Location, key_location, load_entries

RESERVED_KEYS = {"name", "output_differentiability", "__key_lines__"}


@dataclass(frozen=True)
class DerivativeEntry:
    op: NativeFunction
    loc: Location
    formulas: tuple[tuple[tuple[str, ...], str], ...]  # (input names, C++ formula)
    output_differentiability: tuple[bool, ...] | None


def load_derivatives(path: str, fns: list[NativeFunction], display_name: str = "derivatives.yaml") -> list[DerivativeEntry]:
    by_schema = {str(f.func): f for f in fns}
    seen: dict[str, Location] = {}
    out = []
    for entry, loc in load_entries(path, display_name):
        text = entry.get("name")
        if not isinstance(text, str):
            raise CodegenError(loc, "missing 'name:' schema string")
        try:
            schema = parse_schema(text)
        except SchemaError as e:
            raise CodegenError(loc, f"{e.msg} in schema: {text}") from None
        op = by_schema.get(str(schema))
        if op is None:
            raise CodegenError(loc, f"derivative for '{text}', which matches no operator in native_functions.yaml")
        if str(schema) in seen:
            raise CodegenError(loc, f"second derivative entry for '{schema.name}' (first at line {seen[str(schema)].line})")
        seen[str(schema)] = loc
        arg_names = {a.name for a in schema.arguments}
        formulas = []
        for key, formula in entry.items():
            if key in RESERVED_KEYS:
                continue
            names = tuple(n.strip() for n in key.split(","))
            for n in names:
                if n not in arg_names and n != "result":
                    raise CodegenError(
                        key_location(entry, key, loc), f"formula for '{n}', which is not an argument of {schema.name}"
                    )
            formulas.append((names, str(formula)))
        od = entry.get("output_differentiability")
        if od is not None:
            if not isinstance(od, list) or len(od) != len(schema.returns) or not all(isinstance(x, bool) for x in od):
                raise CodegenError(loc, "output_differentiability must list one bool per return")
            od = tuple(od)
        out.append(DerivativeEntry(op, loc, tuple(formulas), od))
    return out
