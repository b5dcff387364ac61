"""The memory-overlap guard of an operator entry point (Note [Overlapping writes] in
aten/native/MemoryOverlap.h), derived from the schema's alias annotations.

Every tensor an op writes (`Tensor(a!)`) is checked for internal overlap, unless the op is tagged
`fill`; written tensors must not share memory with one another. An input that shares memory with
a written tensor is read from a copy when it must be (the C++ helpers decide, raising on partial
overlap); the kernel then gets `<name>_in` in its place.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import BaseType, FunctionSchema, ListType, OptionalType

_TENSOR_KINDS = ("Tensor", "Tensor?", "Tensor[]", "Tensor?[]")


@dataclass(frozen=True)
class OverlapGuard:
    statements: tuple[str, ...]
    call_args: tuple[str, ...]  # the kernel's arguments after the guard


def _is_list(t) -> bool:
    return isinstance(t, ListType)


def overlap_guard(s: FunctionSchema, tags: tuple[str, ...], inplace_target: bool = False) -> OverlapGuard:
    """`inplace_target`: an in-place op delegates to this out= op (structured_delegate)."""
    call_args = [a.name for a in s.arguments]
    writes = [a for a in s.arguments if a.is_write]
    if not writes:
        return OverlapGuard((), tuple(call_args))
    reads = [a for a in s.arguments if not a.is_write and str(a.type) in _TENSOR_KINDS]
    for w in writes:
        if str(w.type) not in ("Tensor", "Tensor[]"):
            raise ValueError(f"written argument '{w.name}' of type '{w.type}' is not supported")
    out = []
    if "fill" not in tags:
        out += [f"check_written({w.name});" for w in writes]
    if any(_is_list(w.type) for w in writes):
        # Multi-tensor kernels (fused optimizers, _foreach_*) check which of their operands may
        # share memory themselves: they know which are read by several threads.
        return OverlapGuard(tuple(out), tuple(call_args))
    out += [f"assert_no_overlap({a.name}, {b.name});" for i, a in enumerate(writes) for b in writes[i + 1:]]
    elementwise = "true" if "pointwise" in tags else "false"
    written = ", ".join(w.name for w in writes)
    for r in reads:
        copy = f"copy_if_aliased({r.name}, {elementwise}, {written})"
        if r.name == "self" and inplace_target:
            # This out= kernel also serves `op_` (out is self) and is written for that.
            copy = f"self.is_same({writes[0].name}) ? Tensor() : {copy}"
        out.append(f"const auto {r.name}_copy = {copy};")
        out.append(f"const auto& {r.name}_in = {_use_copy(r.type, r.name)};")
        call_args[s.arguments.index(r)] = f"{r.name}_in"
    return OverlapGuard(tuple(out), tuple(call_args))


def _use_copy(t, name: str) -> str:
    """The expression that picks the copy when one was made (see copy_if_aliased's overloads)."""
    if isinstance(t, BaseType):
        return f"{name}_copy.defined() ? {name}_copy : {name}"
    if isinstance(t, OptionalType):
        return f"{name}_copy ? {name}_copy : {name}"
    assert isinstance(t, ListType)
    if isinstance(t.elem, OptionalType):
        return f"{name}_copy.empty() ? {name} : {name}_copy"
    return f"{name}_copy.empty() ? {name} : TensorList({name}_copy)"
