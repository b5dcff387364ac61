"""native_functions.yaml -> validated NativeFunction objects."""

from __future__ import annotations

from dataclasses import dataclass

from codegen.model import FunctionSchema, OperatorName, SchemaKind
from codegen.schema_parser import SchemaError, parse_schema
from codegen.yaml_loader import CodegenError, Location, key_location, load_entries

DEVICE_KEYS = ("CPU", "CUDA")
COMPOSITE_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd")
DISPATCH_KEYS = DEVICE_KEYS + COMPOSITE_KEYS
PYTHON_MODULES = ("nn", "linalg", "special")
KNOWN_TAGS = ("pointwise", "reduction", "view", "factory", "nondeterministic_seeded", "core")
ALLOWED_KEYS = {
    "func",
    "variants",
    "dispatch",
    "structured_delegate",
    "python_module",
    "device_check",
    "tags",
    "__key_lines__",
}


@dataclass(frozen=True)
class NativeFunction:
    func: FunctionSchema
    loc: Location
    variants: frozenset[str]
    # Dispatch key -> kernel name in tl::native. Empty when structured_delegate is set.
    dispatch: tuple[tuple[str, str], ...]
    structured_delegate: OperatorName | None
    python_module: str | None
    device_check: bool
    tags: tuple[str, ...]

    @property
    def name(self) -> OperatorName:
        return self.func.name

    def kernel(self, key: str) -> str | None:
        return dict(self.dispatch).get(key)

    @property
    def composite_kernel(self) -> str | None:
        for k in COMPOSITE_KEYS:
            if self.kernel(k):
                return self.kernel(k)
        return None

    @property
    def is_method(self) -> bool:
        return "method" in self.variants

    @property
    def is_function(self) -> bool:
        return "function" in self.variants


def _parse_dispatch(raw: object, loc: Location) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise CodegenError(loc, "'dispatch' must be a mapping of dispatch keys to kernel names")
    out: dict[str, str] = {}
    for keys, kernel in raw.items():
        if keys in ("__line__", "__key_lines__"):
            continue
        if not isinstance(kernel, str) or not kernel.isidentifier():
            raise CodegenError(loc, f"kernel name {kernel!r} is not a C++ identifier")
        for key in (k.strip() for k in str(keys).split(",")):
            if key not in DISPATCH_KEYS:
                raise CodegenError(loc, f"unknown dispatch key '{key}' (known: {', '.join(DISPATCH_KEYS)})")
            if key in out:
                raise CodegenError(loc, f"dispatch key '{key}' given twice")
            out[key] = kernel
    composites = [k for k in out if k in COMPOSITE_KEYS]
    if len(composites) > 1:
        raise CodegenError(loc, "at most one composite dispatch key is allowed")
    if composites and len(out) > 1:
        raise CodegenError(loc, f"'{composites[0]}' cannot be combined with device kernels")
    return out


def parse_native_function(entry: dict, loc: Location) -> NativeFunction:
    unknown = set(entry) - ALLOWED_KEYS
    if unknown:
        raise CodegenError(loc, f"unknown key(s): {', '.join(sorted(unknown))}")
    text = entry.get("func")
    if not isinstance(text, str):
        raise CodegenError(loc, "missing 'func:' schema string")
    try:
        func = parse_schema(text)
    except SchemaError as e:
        col = f" (column {e.col})" if e.col else ""
        raise CodegenError(loc, f"{e.msg}{col} in schema: {text}") from None

    variants_raw = entry.get("variants", "function")
    variants = frozenset(v.strip() for v in str(variants_raw).split(","))
    if not variants <= {"function", "method"} or not variants:
        raise CodegenError(key_location(entry, "variants", loc), f"bad variants {variants_raw!r}")
    if "method" in variants and func.self_argument() is None:
        raise CodegenError(loc, "a method variant needs a 'self' argument")
    if "method" in variants and func.kind() == SchemaKind.out:
        raise CodegenError(loc, "out= operators must be function-only")

    delegate = None
    if "structured_delegate" in entry:
        d = parse_schema(f"{entry['structured_delegate']}() -> ()").name if entry["structured_delegate"] else None
        delegate = d
        if "dispatch" in entry:
            raise CodegenError(loc, "an op with 'structured_delegate' must not list its own dispatch")
    dispatch_loc = key_location(entry, "dispatch", loc)
    dispatch = _parse_dispatch(entry["dispatch"], dispatch_loc) if "dispatch" in entry else {}
    if not dispatch and delegate is None:
        dispatch = {"CompositeImplicitAutograd": func.name.name}

    module = entry.get("python_module")
    if module is not None and module not in PYTHON_MODULES:
        raise CodegenError(loc, f"unknown python_module '{module}'")
    if module is not None and "method" in variants:
        raise CodegenError(loc, "ops in a python_module cannot be methods")
    tags = tuple(t.strip() for t in str(entry.get("tags", "")).split(",") if t.strip())
    for t in tags:
        if t not in KNOWN_TAGS:
            raise CodegenError(loc, f"unknown tag '{t}'")
    device_check = entry.get("device_check", "ExactSame")
    if device_check not in ("ExactSame", "NoCheck"):
        raise CodegenError(loc, f"device_check must be ExactSame or NoCheck, got {device_check!r}")
    return NativeFunction(
        func=func,
        loc=loc,
        variants=variants,
        dispatch=tuple(sorted(dispatch.items())),
        structured_delegate=delegate,
        python_module=module,
        device_check=device_check == "ExactSame",
        tags=tags,
    )


def load_native_functions(path: str, display_name: str = "native_functions.yaml") -> list[NativeFunction]:
    fns = [parse_native_function(e, loc) for e, loc in load_entries(path, display_name)]
    validate_set(fns)
    return fns


def validate_set(fns: list[NativeFunction]) -> None:
    """Checks across entries: unique overloads, delegates that exist and fit."""
    by_name: dict[str, NativeFunction] = {}
    empty_overload: dict[str, NativeFunction] = {}
    for f in fns:
        key = str(f.name)
        if key in by_name:
            raise CodegenError(f.loc, f"duplicate operator '{key}' (first at line {by_name[key].loc.line})")
        by_name[key] = f
        if not f.name.overload:
            empty_overload[f.name.name] = f
    for f in fns:
        if f.structured_delegate is None:
            continue
        target = by_name.get(str(f.structured_delegate))
        if target is None:
            raise CodegenError(f.loc, f"structured_delegate '{f.structured_delegate}' names no operator")
        if target.func.kind() != SchemaKind.out:
            raise CodegenError(f.loc, f"structured_delegate '{f.structured_delegate}' is not an out= operator")
        if target.func.signature_key() != f.func.signature_key():
            raise CodegenError(
                f.loc, f"signature does not match its structured_delegate '{f.structured_delegate}'"
            )
        if f.func.kind() == SchemaKind.functional and len(f.func.returns) != len(target.func.returns):
            raise CodegenError(f.loc, "functional op and its out= delegate return different counts")
