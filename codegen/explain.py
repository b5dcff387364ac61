"""`python -m codegen explain OP`: how one operator goes from its YAML entries to its C++ API,
kernels, Python binding and autograd Node, as plain text for a reader new to the generator.

Everything shown is computed by the generator's own model and renderers (cpp_api.OpView, cpp_api,
python_api, autograd), so the explanation says what the generated code does.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from . import autograd, cpp_api, gen, python_api
from .derivatives import DerivativeEntry
from .native_functions import HOST_FALLBACK, NativeFunction

# What each dispatch key means, for the reader.
KEY_NOTES = {
    "CPU": "tensors on the CPU",
    "CUDA": "tensors on a CUDA device",
    "CompositeImplicitAutograd": "every device; built from other operators, whose Nodes autograd records",
    "CompositeExplicitAutograd": "every device; autograd uses this operator's own derivatives.yaml entry",
}


class UnknownOperator(Exception):
    """OP names no operator; the message suggests close names."""


def resolve(fns: list[NativeFunction], name: str) -> NativeFunction:
    """`add.Tensor`, or a base name such as `relu` for its default (overload-less) entry."""
    by_name = {str(f.name): f for f in fns}
    if name in by_name:
        return by_name[name]
    overloads = [str(f.name) for f in fns if f.name.name == name]
    if overloads:
        raise UnknownOperator(f"'{name}' has no default overload; name one of: {', '.join(overloads)}")
    close = difflib.get_close_matches(name, list(by_name), n=5)
    hint = f"; did you mean: {', '.join(close)}?" if close else " (see native_functions.yaml)"
    raise UnknownOperator(f"unknown operator '{name}'{hint}")


def explain(
    fns: list[NativeFunction], name: str, derivatives_path: str, definitions: Iterable[tuple[str, str, int]]
) -> str:
    """The explanation of operator `name`. `definitions`: (kernel, file, line) of the hand-written
    kernels, as cli.kernel_definitions finds them."""
    fn = resolve(fns, name)
    by_name = {str(f.name): f for f in fns}
    where: dict[str, list[str]] = {}
    for kernel, path, line in definitions:
        where.setdefault(kernel, []).append(f"{path}:{line}")
    entries = autograd.load(fns, derivatives_path)
    wrappers = autograd.build(fns, entries)[1]
    view = next(v for v in cpp_api.op_views(fns, wrappers) if v.struct == fn.name.unambiguous())
    wrapper = view.autograd
    sections = [
        _yaml(fn, fns),
        _cpp(view),
        _dispatch(fn, view, wrapper is not None, by_name, where),
        _python(fn, fns),
        _autograd(fn, wrapper, entries),
    ]
    title = f"{fn.name}, from YAML to kernel"
    return "\n\n".join([f"{title}\n{'=' * len(title)}", *sections]) + "\n"


def _section(title: str, lines: list[str]) -> str:
    return "\n".join([f"{title}\n{'-' * len(title)}", *(f"  {x}" for x in lines)])


def _yaml(fn: NativeFunction, fns: list[NativeFunction]) -> str:
    lines = [
        f"schema:   {fn.func}",
        f"declared: {fn.loc_of('func')}",
        f"kind:     {fn.func.kind().value}; variants: {', '.join(sorted(fn.variants))}"
        + (f"; tags: {', '.join(fn.tags)}" if fn.tags else ""),
    ]
    if fn.python_module:
        lines.append(f"python_module: {fn.python_module}")
    if fn.autocast:
        policies = ", ".join(f"{device} {policy}" for device, policy in fn.autocast)
        lines.append(f"autocast: {policies}  (Note [Autocast]: how torchlite.autocast casts its arguments)")
    related = [str(f.name) for f in fns if f.name.base == fn.name.base and f is not fn]
    if related:
        lines.append(f"related:  {', '.join(related)}")
    return _section("1. YAML (native_functions.yaml)", lines)


def _cpp(view: cpp_api.OpView) -> str:
    lines = []
    if view.is_function:
        lines.append(f"{view.ret} tl::{view.public_name}({', '.join(view.public_params)});")
    if view.is_method:
        lines.append(f"{view.ret} Tensor::{view.public_name}({', '.join(view.method_params)}) const;")
    lines.append(f"the entry point they call: tl::ops::{view.struct}::call({', '.join(view.args)})")
    return _section(f"2. C++ API (generated ops/{view.base}.h, TensorMethods.h)", lines)


def _kernel_lines(f: NativeFunction, where: dict[str, list[str]]) -> list[str]:
    lines = []
    for key, kernel in f.dispatch:
        lines.append(f"{key}: {kernel}  ({KEY_NOTES[key]})")
        if kernel == HOST_FALLBACK:
            lines.append(f"    defined:  aten/native/HostFallback.h: {f.registered_kernel(key)}, the CPU kernel "
                         f"on host copies of the inputs, results copied back  (Note [Host fallback])")
            continue
        lines.append(f"    declared: {gen.native_declaration(f, kernel)}  (generated ops/{f.func.name.base}_native.h)")
        if f.structured:
            lines.append(f"    defined:  generated StructuredKernels.cpp: a TensorIterator from {f.structured}(), "
                         f"then {f.stubs[0].cpp_name} (below)")
        elif f.out_of is not None:
            lines.append(f"    defined:  generated OutKernels.cpp: calls {f.out_of}, then writes the result into "
                         f"the out tensors  (out_of, {f.loc_of('out_of')}; Note [Generated out= kernels])")
        else:
            lines.append(f"    defined:  {', '.join(where.get(kernel, [])) or 'no definition found'}")
    for stub in f.stubs:
        args = ", ".join(a.name for a in stub.args)
        lines.append(f"stub {stub.cpp_name}  (Note [Stubs]; declared at {stub.loc})")
        lines.append(f"    functor:  {stub.functor}<T>({args}) for T in TypeSet::{stub.types}; "
                     f"defined: {', '.join(where.get(stub.functor, [])) or 'no definition found'}")
        for key, (_, loop, suffix) in gen.STUB_DEVICES.items():
            shard = gen.stub_shard(stub)
            lines.append(f"    {key}: {loop} over it  (generated Stubs{key}_{shard}.{suffix})")
    return lines


def _dispatch(fn: NativeFunction, view: cpp_api.OpView, has_autograd: bool, by_name: dict[str, NativeFunction],
              where: dict[str, list[str]]) -> str:
    ops = f"tl::ops::{view.struct}"
    if fn.alias_of is not None:
        lines = [f"{ops}::call -> tl::ops::{view.alias}::call  (alias_of, {fn.loc_of('alias_of')}; Note [Aliases])",
                 f"    the rest is {fn.alias_of}'s: python -m codegen explain {fn.alias_of}"]
        return _section("3. Dispatch (generated Operators.cpp, Register*.cpp)", lines)
    lines = [f"{ops}::call"]
    if has_autograd:
        lines.append(f"-> autograd::VariableType::{view.struct}, only when an input requires grad (see 5)")
    lines.append(f"-> {ops}::redispatch")
    if view.delegate is not None:
        target = by_name[str(fn.structured_delegate)]
        struct, args = view.delegate
        lines.append(f"-> tl::ops::{struct}::redispatch({', '.join(args)})")
        lines.append(f"   ({fn.name}'s structured_delegate {target.name}, {target.loc_of('func')}), which runs one of:")
        fn = target
    elif fn.composite_kernel is None:
        if view.device_check_args or view.cpu_scalar_args:
            exact, scalars = ", ".join(view.device_check_args) or "-", ", ".join(view.cpu_scalar_args) or "-"
            lines.append(f"-> device check (Note [Device check]): on that device: {exact}; "
                         f"there or a 0-dim CPU tensor: {scalars}")
        lines.append(f"-> the kernel registered for the device of {view.device_expr}, one of:")
    else:
        lines.append("-> the composite kernel, on any device:")
    return _section("3. Dispatch (generated Operators.cpp, Register*.cpp)", lines + _kernel_lines(fn, where))


def _python(fn: NativeFunction, fns: list[NativeFunction]) -> str:
    lines = []
    for methods in (False, True):
        for (module, name), overloads in python_api.group_overloads(fns, methods).items():
            for ov in overloads:
                if fn not in (ov.fn, ov.out_fn):
                    continue
                owner = "torchlite._C.Tensor" if methods else "torchlite._C" + (f"._{module}" if module else "")
                # An out= variant has no binding of its own: it is the out= keyword of its functional op.
                via = f"  (as the out= keyword of {ov.fn.name})" if ov.out_fn is fn else ""
                lines.append(f"{owner}.{name}{via}")
                lines.append(f"    stub: {python_api.pyi_stub(ov, name, [ov]).splitlines()[0]}")
    return _section("4. Python binding (generated python_bindings_*.cpp, _C.pyi)", lines or ["not bound in Python"])


def _autograd(fn: NativeFunction, w: autograd.WrapperInfo | None, entries: list[DerivativeEntry]) -> str:
    node = w.node if w is not None else None
    # In-place ops reuse their functional op's entry, which the wrapper's node carries.
    entry = next((e for e in entries if e.op is fn), node.entry if node else None)
    lines = [f"derivatives.yaml entry: {entry.loc if entry else 'none'}"
             + (f" (that of {entry.op.name})" if entry and entry.op is not fn else "")]
    if fn.kernel("CompositeImplicitAutograd"):
        lines.append("no Node of its own: autograd records the operators its composite kernel calls")
    elif fn.alias_of is not None:
        lines.append(f"no Node of its own: {fn.alias_of} records the history")
    elif w is None:
        lines.append("no autograd wrapper: it takes no tensor or returns nothing, so it records no history")
    elif w.kind == "nondiff":
        lines.append("never records history (a factory, or no differentiable input or output)")
    elif w.kind == "out_error":
        lines.append("an out= variant: raises if an argument requires grad, as PyTorch does")
    elif w.kind == "not_implemented":
        lines.append("when an input requires grad it records a NotImplemented Node; backward through it raises")
    else:
        assert node is not None
        lines.append(f"Node: {node.name}  (generated AutogradFunctions.h), created by "
                     f"VariableType::{w.struct} when an input requires grad")
        saved = ", ".join(f"{s.name} ({s.field_type})" for s in node.saved) or "nothing"
        lines.append(f"saved for backward: {saved}")
        lines.append("formulas (C++, as written in derivatives.yaml):")
        yaml_formulas = dict(node.entry.formulas)
        for f in node.formulas:
            lines.append(f"  {', '.join(f.names)}: {yaml_formulas[f.names]}")
    return _section("5. Autograd (derivatives.yaml, generated VariableType.cpp)", lines)
