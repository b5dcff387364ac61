"""native_functions.yaml -> validated NativeFunction objects."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from .model import FunctionSchema, OperatorName, SchemaKind, base_of
from .schema_parser import SchemaError, parse_schema
from .stubs import Stub, iterator_inputs, parse_stubs
from .yaml_loader import CodegenError, Location, key_location, load_entries, user_items

DEVICE_KEYS = ("CPU", "CUDA")
COMPOSITE_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd")
DISPATCH_KEYS = DEVICE_KEYS + COMPOSITE_KEYS
PYTHON_MODULES = ("nn", "linalg", "special")
# Ours plus the PyTorch tags (aten/src/ATen/native/tags.yaml) that entries copied from PyTorch carry.
KNOWN_TAGS = (
    "pointwise",
    "fill",  # ours: writes one value everywhere, so a written tensor may have internal overlap
    "reduction",
    "view",
    "factory",
    "nondeterministic_seeded",
    "nondeterministic_bitwise",
    "core",
    "inplace_view",
    "view_copy",
    "dynamic_output_shape",
    "data_dependent_output",
    "generated",
)
ALLOWED_KEYS = (
    "func",
    "variants",
    "dispatch",
    "structured_delegate",
    "alias_of",
    "doc",
    "structured",
    "stubs",
    "python_module",
    "device_check",
    "cpu_scalars",
    "tags",
    "autocast",
    "out_of",
)
# Note [Host fallback] (aten/native/HostFallback.h): `CUDA: host_fallback` registers the entry's
# CPU kernel, run on host copies of the inputs, as its CUDA kernel.
HOST_FALLBACK = "host_fallback"
# Note [Autocast] (torchlite/csrc/autocast/autocast_mode.h): how autocast casts an operator's
# floating arguments, per device.
AUTOCAST_POLICIES = ("lower_precision_fp", "fp32", "promote")


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
    # Note [Stubs] (codegen/stubs.py): the iterator builder of a generated structured kernel,
    # and the per-device loops this entry declares.
    structured: str | None = None
    stubs: tuple[Stub, ...] = ()
    # Note [Aliases]: `alias_of: asin` makes arcsin, arcsin_ and arcsin.out call asin, asin_ and
    # asin.out (same overload name, same arguments); the generator writes the forwarding.
    alias_of: OperatorName | None = None
    # A short description and a doctest example, shown by help() and IDEs after the generated
    # signature lines (python_api.docstring); tests/test_docs.py runs the examples.
    doc: str | None = None
    # Note [Autocast]: (device, policy) pairs, e.g. (("CPU", "fp32"), ("CUDA", "fp32")).
    autocast: tuple[tuple[str, str], ...] = ()
    # Note [Generated out= kernels]: `out_of: linalg_inv` on linalg_inv.out makes the generator
    # write its kernel: call the functional op, then write the result into the out tensors
    # (write_out: resize, dtype check). For out= forms that have no faster path of their own.
    out_of: OperatorName | None = None
    # Note [Device check] (aten/core/DispatchUtils.h): `cpu_scalars: value` names the tensor
    # arguments that the kernels read as scalars (through a TensorIterator or item()), so a 0-dim
    # CPU tensor may join an op on another device there; everywhere else the check is exact.
    cpu_scalars: tuple[str, ...] = ()
    # Line of each YAML key of the entry ("dispatch.CPU" for a kernel), for error messages.
    key_lines: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def name(self) -> OperatorName:
        return self.func.name

    def kernel(self, key: str) -> str | None:
        return dict(self.dispatch).get(key)

    def registered_kernel(self, key: str) -> str | None:
        """What the generated registration of `key` names in tl::native (Note [Host fallback])."""
        kernel = self.kernel(key)
        if kernel == HOST_FALLBACK:
            return f"HostFallback<&native::{self.kernel('CPU')}>::run"
        return kernel

    @property
    def cpu_scalar_arguments(self) -> tuple[str, ...]:
        """Note [Device check]: the arguments the generated check lets be 0-dim CPU tensors: a
        structured op's iterator inputs (its generated kernel gives them all to the TensorIterator,
        which moves such a tensor to the device), else those `cpu_scalars:` names."""
        return iterator_inputs(self.func) if self.structured else self.cpu_scalars

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

    def loc_of(self, key: str) -> Location:
        """Where a key of this entry is written; the entry itself if the key is absent."""
        line = dict(self.key_lines).get(key)
        return Location(self.loc.file, line) if line else self.loc


def _parse_dispatch(raw: object, loc: Location, key_lines: dict[str, int]) -> dict[str, str]:
    """{CPU: k, "CPU, CUDA": k2} -> {key: kernel}; records each key's line in key_lines."""
    if not isinstance(raw, dict):
        raise CodegenError(loc, "'dispatch' must be a mapping of dispatch keys to kernel names")
    out: dict[str, str] = {}
    for keys, kernel in user_items(raw):
        line_loc = key_location(raw, keys, loc)
        if kernel is None:
            raise CodegenError(
                line_loc, f"dispatch key '{keys}' names no kernel (write 'CPU, CUDA: kernel' in block style)"
            )
        if not isinstance(kernel, str) or not kernel.isidentifier():
            raise CodegenError(line_loc, f"kernel name {kernel!r} is not a C++ identifier")
        for key in (k.strip() for k in str(keys).split(",")):
            if key not in DISPATCH_KEYS:
                raise CodegenError(line_loc, f"unknown dispatch key '{key}' (known: {', '.join(DISPATCH_KEYS)})")
            if key in out:
                raise CodegenError(line_loc, f"dispatch key '{key}' given twice")
            out[key] = kernel
            key_lines[f"dispatch.{key}"] = line_loc.line
    composites = [k for k in out if k in COMPOSITE_KEYS]
    if len(composites) > 1:
        raise CodegenError(loc, "at most one composite dispatch key is allowed")
    if composites and len(out) > 1:
        raise CodegenError(loc, f"'{composites[0]}' cannot be combined with device kernels")
    return out


def _parse_operator_name(text: object, loc: Location) -> OperatorName:
    """`add.out` as written in structured_delegate."""
    if not isinstance(text, str) or not text.strip():
        raise CodegenError(loc, f"expected an operator name such as 'add.out', got {text!r}")
    try:
        return parse_schema(f"{text}() -> ()").name
    except SchemaError as e:
        raise CodegenError(loc, f"bad operator name {text!r}: {e.msg}") from None


def _parse_list(raw: object) -> list[str]:
    """`a, b` or [a, b] -> ["a", "b"]."""
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else str(raw).split(",")
    return [str(x).strip() for x in items if str(x).strip()]


def parse_native_function(entry: dict, loc: Location) -> NativeFunction:
    key_lines: dict[str, int] = {str(k): v for k, v in entry.get("__key_lines__", {}).items()}

    def at(key: object) -> Location:
        return key_location(entry, key, loc)

    for key, _ in user_items(entry):
        if key not in ALLOWED_KEYS:
            raise CodegenError(at(key), f"unknown key '{key}' (known: {', '.join(ALLOWED_KEYS)})")
    text = entry.get("func")
    if not isinstance(text, str):
        raise CodegenError(loc, "missing 'func:' schema string")
    try:
        func = parse_schema(text)
    except SchemaError as e:
        col = f" (column {e.col})" if e.col else ""
        raise CodegenError(at("func"), f"{e.msg}{col} in schema: {text}") from None

    variants_raw = entry.get("variants", "function")
    variants = frozenset(_parse_list(variants_raw))
    if not variants or not variants <= {"function", "method"}:
        raise CodegenError(at("variants"), f"bad variants {variants_raw!r} (use: function, method)")
    if "method" in variants:
        self_arg = func.self_argument()
        if self_arg is None or str(self_arg.type) != "Tensor":
            raise CodegenError(at("variants"), "a method variant needs a 'Tensor self' argument")
        if func.kind() == SchemaKind.out:
            raise CodegenError(at("variants"), "out= operators must be function-only")

    delegate = None
    if "structured_delegate" in entry:
        delegate = _parse_operator_name(entry["structured_delegate"], at("structured_delegate"))
        if "dispatch" in entry:
            raise CodegenError(at("dispatch"), "an op with 'structured_delegate' must not list its own dispatch")
        if func.kind() not in (SchemaKind.functional, SchemaKind.inplace):
            raise CodegenError(
                at("structured_delegate"),
                f"only functional and in-place ops can have a structured_delegate, not a {func.kind().value} op",
            )
    dispatch = _parse_dispatch(entry["dispatch"], at("dispatch"), key_lines) if "dispatch" in entry else {}
    if HOST_FALLBACK in dispatch.values():
        _check_host_fallback(func, dispatch, loc, key_lines)
    stubs = parse_stubs(entry["stubs"], func, at("stubs")) if "stubs" in entry else ()
    structured = entry.get("structured")
    if structured is not None:
        if not isinstance(structured, str) or not structured.isidentifier():
            raise CodegenError(at("structured"), "'structured' names the C++ function that builds the TensorIterator")
        one_output = [str(r.type) for r in func.returns] == ["Tensor"] and len(func.out_arguments) <= 1
        if func.kind() not in (SchemaKind.out, SchemaKind.functional) or not one_output or len(stubs) != 1:
            raise CodegenError(
                at("structured"), "'structured' needs an out= or functional op with one Tensor result and one stub"
            )
        if "dispatch" in entry:
            raise CodegenError(at("dispatch"), "a 'structured' op gets its kernel from the generator: drop 'dispatch'")
        # One device-independent kernel (generated) serves every device; the stub picks the loop.
        dispatch = {key: func.name.unambiguous() for key in DEVICE_KEYS}
        for key in DEVICE_KEYS:
            key_lines[f"dispatch.{key}"] = at("structured").line
    alias_of = None
    if "alias_of" in entry:
        target = entry["alias_of"]
        if not isinstance(target, str) or not target.isidentifier():
            raise CodegenError(at("alias_of"), f"'alias_of' names the base of another operator, got {target!r}")
        for key in ("dispatch", "structured", "structured_delegate", "stubs"):
            if key in entry:
                raise CodegenError(at(key), f"an alias forwards every call to '{target}': drop '{key}'")
        alias_of = dataclasses.replace(func.name, base=target)
    elif not dispatch and delegate is None:
        dispatch = {"CompositeImplicitAutograd": func.name.name}
    out_of = None
    if "out_of" in entry:
        out_of = _parse_operator_name(entry["out_of"], at("out_of"))
        if func.kind() != SchemaKind.out:
            raise CodegenError(at("out_of"), f"only out= ops are computed from a functional op, not a "
                                             f"{func.kind().value} op")
        for key in ("dispatch", "structured", "alias_of", "stubs"):
            if key in entry:
                raise CodegenError(at(key), f"an out_of op gets its kernel from the generator: drop '{key}'")

    module = entry.get("python_module")
    if module is not None and module not in PYTHON_MODULES:
        known = ", ".join(PYTHON_MODULES)
        raise CodegenError(at("python_module"), f"unknown python_module '{module}' (known: {known})")
    if module is not None and "method" in variants:
        raise CodegenError(at("python_module"), "ops in a python_module cannot be methods")
    tags = tuple(_parse_list(entry.get("tags", "")))
    for t in tags:
        if t not in KNOWN_TAGS:
            raise CodegenError(at("tags"), f"unknown tag '{t}'")
    doc = entry.get("doc")
    if doc is not None and (not isinstance(doc, str) or not doc.strip()):
        raise CodegenError(at("doc"), "'doc' must be a non-empty text block (doc: |)")
    if doc is not None and ("\\" in doc or '"""' in doc):
        raise CodegenError(at("doc"), "'doc' cannot hold a backslash or '\"\"\"' (it becomes a .pyi docstring)")
    autocast = _parse_autocast(entry["autocast"], func, at("autocast")) if "autocast" in entry else {}
    device_check = entry.get("device_check", "ExactSame")
    if device_check not in ("ExactSame", "NoCheck"):
        raise CodegenError(at("device_check"), f"device_check must be ExactSame or NoCheck, got {device_check!r}")
    cpu_scalars = _parse_cpu_scalars(entry, func, at) if "cpu_scalars" in entry else ()
    if cpu_scalars and (structured or delegate or alias_of or out_of or device_check == "NoCheck"
                        or any(k in COMPOSITE_KEYS for k in dispatch)):
        raise CodegenError(at("cpu_scalars"), "'cpu_scalars' loosens the generated device check of an op with "
                                              "device kernels of its own (a structured op's inputs already may be "
                                              "CPU scalars)")
    return NativeFunction(
        func=func,
        loc=loc,
        variants=variants,
        dispatch=tuple(sorted(dispatch.items())),
        structured_delegate=delegate,
        python_module=module,
        device_check=device_check == "ExactSame",
        tags=tags,
        structured=structured,
        stubs=stubs,
        alias_of=alias_of,
        doc=doc.strip() if doc else None,
        autocast=tuple(sorted(autocast.items())),
        out_of=out_of,
        cpu_scalars=cpu_scalars,
        key_lines=tuple(sorted(key_lines.items())),
    )


def _parse_cpu_scalars(entry: dict, func: FunctionSchema, at: Callable[[object], Location]) -> tuple[str, ...]:
    """`cpu_scalars: self, other`: tensor arguments of the schema (a list applies to its elements),
    never out= tensors."""
    names = _parse_list(entry["cpu_scalars"])
    inputs = {a.name for a in func.non_out_arguments if str(a.type) in ("Tensor", "Tensor?", "Tensor[]")}
    if not names:
        raise CodegenError(at("cpu_scalars"), "'cpu_scalars' names the tensor inputs the kernels read as scalars")
    for name in names:
        if name not in inputs:
            raise CodegenError(at("cpu_scalars"), f"cpu_scalars: '{name}' is not a tensor input of {func.name} "
                                                  f"(known: {', '.join(sorted(inputs)) or 'none'})")
    return tuple(names)


def _check_host_fallback(func: FunctionSchema, dispatch: dict[str, str], loc: Location,
                         key_lines: dict[str, int]) -> None:
    """Note [Host fallback]: CUDA only, over a CPU kernel of the same entry, for an op that writes
    none of its arguments (the results are copied back; nothing is copied back in place)."""
    for key, kernel in dispatch.items():
        if kernel == HOST_FALLBACK and key != "CUDA":
            raise CodegenError(Location(loc.file, key_lines[f"dispatch.{key}"]),
                               f"{key}: {HOST_FALLBACK} runs the CPU kernel for CUDA tensors; only CUDA can use it")
    line_loc = Location(loc.file, key_lines["dispatch.CUDA"])
    if "CPU" not in dispatch:
        raise CodegenError(line_loc, f"CUDA: {HOST_FALLBACK} needs a CPU kernel in the same dispatch to run")
    written = [a.name for a in func.arguments if a.is_write]
    if written:
        raise CodegenError(line_loc, f"CUDA: {HOST_FALLBACK} cannot write arguments in place ({', '.join(written)}): "
                                     f"only functional ops, whose results it copies back")


def _parse_autocast(raw: object, func: FunctionSchema, loc: Location) -> dict[str, str]:
    """`autocast: fp32` (every device) or `autocast: {CPU: fp32, CUDA: lower_precision_fp}`."""
    policies = {key: raw for key in DEVICE_KEYS} if isinstance(raw, str) else raw
    if not isinstance(policies, dict):
        raise CodegenError(loc, "'autocast' is a policy or a mapping of devices to policies")
    out = {}
    for device, policy in user_items(policies):
        if device not in DEVICE_KEYS:
            raise CodegenError(loc, f"autocast: unknown device '{device}' (known: {', '.join(DEVICE_KEYS)})")
        if policy not in AUTOCAST_POLICIES:
            raise CodegenError(loc, f"autocast: unknown policy {policy!r} (known: {', '.join(AUTOCAST_POLICIES)})")
        out[device] = policy
    if func.kind() != SchemaKind.functional:
        raise CodegenError(loc, f"autocast applies to functional ops, not a {func.kind().value} op")
    if not any(base_of(a.type).name == "Tensor" for a in func.arguments):
        raise CodegenError(loc, "autocast needs a tensor argument to cast")
    return out


def load_native_functions(path: str, display_name: str = "native_functions.yaml") -> list[NativeFunction]:
    fns = [parse_native_function(e, loc) for e, loc in load_entries(path, display_name)]
    validate_set(fns)
    return fns


def validate_set(fns: list[NativeFunction]) -> None:
    """Checks across entries: unique overloads, delegates that exist and fit."""
    by_name: dict[str, NativeFunction] = {}
    for f in fns:
        key = str(f.name)
        if key in by_name:
            raise CodegenError(f.loc, f"duplicate operator '{key}' (first at line {by_name[key].loc.line})")
        by_name[key] = f
    stub_names: dict[str, Stub] = {}
    for f in fns:
        for stub in f.stubs:
            if stub.name in stub_names:
                first = stub_names[stub.name].loc.line
                raise CodegenError(stub.loc, f"duplicate stub '{stub.name}' (first at line {first})")
            stub_names[stub.name] = stub
    for f in fns:
        if f.alias_of is not None:
            _validate_alias(f, by_name)
        if f.out_of is not None:
            _validate_out_of(f, by_name)
    for f in fns:
        if f.structured_delegate is None:
            continue
        loc = f.loc_of("structured_delegate")
        target = by_name.get(str(f.structured_delegate))
        if target is None:
            raise CodegenError(loc, f"structured_delegate '{f.structured_delegate}' names no operator")
        if target.func.kind() != SchemaKind.out:
            raise CodegenError(loc, f"structured_delegate '{f.structured_delegate}' is not an out= operator")
        if target.func.signature_key() != f.func.signature_key():
            raise CodegenError(
                loc,
                f"signature {f.func.signature_key()} does not match that of its structured_delegate "
                f"'{f.structured_delegate}': {target.func.signature_key()}",
            )
        n_outs = len(target.func.out_arguments)
        if not target.func.returns or any(str(a.type) != "Tensor" for a in target.func.out_arguments):
            raise CodegenError(
                loc, f"structured_delegate '{f.structured_delegate}' must take and return plain Tensor out arguments"
            )
        if f.func.kind() == SchemaKind.functional and len(f.func.returns) != n_outs:
            raise CodegenError(loc, f"returns {len(f.func.returns)} value(s), its out= delegate fills {n_outs}")
        if f.func.kind() == SchemaKind.inplace and n_outs != 1:
            raise CodegenError(loc, f"an in-place op cannot delegate to an out= op with {n_outs} out arguments")


def _validate_out_of(f: NativeFunction, by_name: dict[str, NativeFunction]) -> None:
    """An out_of target is a functional op that takes the out= op's other arguments, in order, and
    returns one plain Tensor per out argument (Note [Generated out= kernels])."""
    loc = f.loc_of("out_of")
    target = by_name.get(str(f.out_of))
    if target is None:
        raise CodegenError(loc, f"out_of: no operator '{f.out_of}' to compute {f.name} with")
    if target.func.kind() != SchemaKind.functional:
        raise CodegenError(loc, f"out_of: '{f.out_of}' is not a functional op")
    mine = [str(a.type) for a in f.func.non_out_arguments]
    theirs = [str(a.type) for a in target.func.arguments]
    if mine != theirs:
        raise CodegenError(loc, f"out_of: {f.name} takes ({', '.join(mine)}) besides its out tensors, but "
                                f"'{f.out_of}' takes ({', '.join(theirs)})")
    outs = f.func.out_arguments
    if not 1 <= len(outs) <= 3 or any(str(a.type) != "Tensor" for a in outs):
        raise CodegenError(loc, "out_of: the out= op must take one to three plain Tensor out arguments")
    if [str(r.type) for r in target.func.returns] != ["Tensor"] * len(outs):
        raise CodegenError(loc, f"out_of: '{f.out_of}' must return {len(outs)} Tensor(s), one per out argument")


def _validate_alias(f: NativeFunction, by_name: dict[str, NativeFunction]) -> None:
    """An alias's target exists, is no alias itself, and takes and returns exactly what it does."""
    loc = f.loc_of("alias_of")
    target = by_name.get(str(f.alias_of))
    if target is None:
        raise CodegenError(loc, f"alias_of: no operator '{f.alias_of}' to forward {f.name} to")
    if target.alias_of is not None:
        raise CodegenError(loc, f"alias_of: '{f.alias_of}' is itself an alias of '{target.alias_of}'")
    mine, theirs = (dataclasses.replace(g.func, name=f.func.name) for g in (f, target))
    if mine != theirs:
        raise CodegenError(loc, f"alias_of: schema {f.func} differs from that of its target: {target.func}")
