"""Typed model of operator schemas, parsed from the `func:` strings of native_functions.yaml.

Everything is a frozen dataclass; `str()` of a parsed object gives back the text it came from
(normalised spacing), which the tests check as a round trip.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

# Base types the schema language knows. SymInt is accepted and treated as int.
BASE_TYPES = (
    "Tensor",
    "int",
    "SymInt",
    "float",
    "bool",
    "str",
    "Scalar",
    "ScalarType",
    "Device",
    "Generator",
    "Layout",
    "MemoryFormat",
)

# Defaults written as names, per type, and the C++ expression each stands for.
NAMED_DEFAULTS: dict[str, dict[str, str]] = {
    "ScalarType": {
        "float": "ScalarType::Float",
        "double": "ScalarType::Double",
        "long": "ScalarType::Long",
        "int": "ScalarType::Int",
        "bool": "ScalarType::Bool",
    },
    "Layout": {"strided": "Layout::Strided"},
    "MemoryFormat": {"contiguous_format": "MemoryFormat::Contiguous", "preserve_format": "MemoryFormat::Preserve",
                     "channels_last": "MemoryFormat::ChannelsLast", "channels_last_3d": "MemoryFormat::ChannelsLast3d"},
    "int": {"Mean": "1", "Sum": "2"},  # `int reduction=Mean`: PyTorch's at::Reduction (None=0, Mean=1, Sum=2)
}


@dataclass(frozen=True)
class BaseType:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class OptionalType:
    elem: Type

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True)
class ListType:
    elem: Type
    size: int | None  # int[2] -> 2; int[] -> None

    def __str__(self) -> str:
        return f"{self.elem}[{self.size if self.size is not None else ''}]"


Type = BaseType | OptionalType | ListType


def base_of(t: Type) -> BaseType:
    """The innermost base type: Tensor?[] -> Tensor."""
    while not isinstance(t, BaseType):
        t = t.elem
    return t


def is_tensor_like(t: Type) -> bool:
    return base_of(t).name == "Tensor"


@dataclass(frozen=True)
class Annotation:
    """Alias annotation: `(a)` aliases set a; `(a!)` is written to; `(a -> *)` enters the wildcard set
    (the outputs of split/chunk/unbind alias their input, in ways the schema does not spell out)."""

    alias_set: str
    is_write: bool
    to_wildcard: bool = False

    def __str__(self) -> str:
        return f"({self.alias_set}{'!' if self.is_write else ''}{' -> *' if self.to_wildcard else ''})"


def annotated_type(t: Type, annotation: Annotation | None) -> str:
    """The type as written: the annotation sits between the base type and any ?/[] suffix (Tensor(a!)[])."""
    text = str(t)
    if annotation is None:
        return text
    base = str(base_of(t))
    return base + str(annotation) + text[len(base):]


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None
    annotation: Annotation | None
    kwarg_only: bool

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        s = f"{annotated_type(self.type, self.annotation)} {self.name}"
        if self.default is not None:
            s += f"={self.default}"
        return s


@dataclass(frozen=True)
class Return:
    name: str | None
    type: Type
    annotation: Annotation | None

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        t = annotated_type(self.type, self.annotation)
        return f"{t} {self.name}" if self.name else t


class SchemaKind(enum.Enum):
    functional = "functional"
    inplace = "inplace"
    out = "out"
    mutable = "mutable"


@dataclass(frozen=True)
class OperatorName:
    base: str  # without the trailing underscore of in-place ops
    inplace: bool
    overload: str

    @property
    def name(self) -> str:
        """Python / C++ name: add, add_"""
        return self.base + ("_" if self.inplace else "")

    def unambiguous(self) -> str:
        """C++ identifier unique per overload: add_Tensor, add__Scalar, add_out; std_op, since a
        struct tl::ops::std would hide namespace std from the generated code after it."""
        if self.overload:
            return f"{self.name}_{self.overload}"
        return f"{self.name}_op" if self.name == "std" else self.name

    def __str__(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass(frozen=True)
class FunctionSchema:
    name: OperatorName
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def positional(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only)

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """Keyword-only written arguments: the out= tensors."""
        return tuple(a for a in self.arguments if a.kwarg_only and a.is_write)

    @property
    def non_out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not (a.kwarg_only and a.is_write))

    def kind(self) -> SchemaKind:
        if self.name.inplace:
            return SchemaKind.inplace
        if self.out_arguments:
            return SchemaKind.out
        if any(a.is_write for a in self.arguments):
            return SchemaKind.mutable
        return SchemaKind.functional

    def self_argument(self) -> Argument | None:
        return next((a for a in self.arguments if a.name == "self"), None)

    def signature_key(self, leave_out: tuple[str, ...] = ()) -> str:
        """What the functional, in-place and out variants of one op have in common (less the
        arguments named in `leave_out`)."""
        args = ", ".join(
            str(dataclasses.replace(a, annotation=None, kwarg_only=False))
            for a in self.non_out_arguments
            if a.name not in leave_out
        )
        return f"{self.name.base}({args})"

    def __str__(self) -> str:
        parts: list[str] = []
        star = False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(str(a))
        if len(self.returns) == 1 and self.returns[0].name is None:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{self.name}({', '.join(parts)}) -> {rets}"
