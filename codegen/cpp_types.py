"""C++ types as objects. A schema type (codegen/model.py) maps to one of these, and each knows
how it is spelt where the generated code needs it:

- `argument()`: as a parameter of the C++ API and the kernels (`const Tensor&`, `IntArrayRef`);
- `storage()`: as an owning value, what a return, a saved field or a local holds
  (`Tensor`, `std::vector<int64_t>`);
- `save(x)` / `load(x)`: converts an argument to its storage and a stored value back to the
  argument type (an IntArrayRef is saved as a vector and read back as a view of it);
- `binding()` / `unpack(x)`: the parameter type of a pybind11 binding and the expression that
  turns it into the argument (Note [Strict scalars] in torchlite/csrc/python_binding_utils.h);
- `python_readable`: whether pybind11 can hand a stored value to Python (`_saved_<name>`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True)
class CppType(ABC):
    @abstractmethod
    def argument(self) -> str: ...

    @abstractmethod
    def storage(self) -> str: ...

    def save(self, expr: str) -> str:
        return expr

    def load(self, expr: str) -> str:
        return expr

    def binding(self) -> str:
        return self.argument()

    def unpack(self, name: str) -> str:
        return name

    @property
    def python_readable(self) -> bool:
        return False

    @property
    def is_view(self) -> bool:
        """Whether the argument only views its storage, so a local must be read through `load`."""
        return False


@dataclass(frozen=True)
class Value(CppType):
    """Passed and held by value: int64_t, double, ScalarType. `strict` names the binding wrapper
    that parses it as PyTorch does (IntArg, BoolArg); `to_py`: pybind11 can convert it."""

    name: str
    strict: str | None = None
    to_py: bool = True

    def argument(self) -> str:
        return self.name

    def storage(self) -> str:
        return self.name

    def binding(self) -> str:
        return self.strict or self.name

    def unpack(self, name: str) -> str:
        return f"{name}.value" if self.strict else name

    @property
    def python_readable(self) -> bool:
        return self.to_py


@dataclass(frozen=True)
class ConstRef(CppType):
    """Held by value, passed by const reference: Tensor, Scalar, std::string, vectors."""

    elem: CppType

    def argument(self) -> str:
        return f"const {self.elem.storage()}&"

    def storage(self) -> str:
        return self.elem.storage()

    @property
    def python_readable(self) -> bool:
        return self.elem.python_readable


@dataclass(frozen=True)
class Vector(CppType):
    """An owning std::vector; passed as a ConstRef of it."""

    elem: CppType

    def argument(self) -> str:
        return self.storage()

    def storage(self) -> str:
        return f"std::vector<{self.elem.storage()}>"


@dataclass(frozen=True)
class ArrayRef(CppType):
    """A list argument viewed, not owned: IntArrayRef, TensorList, ArrayRef<double>; stored as a
    vector. `size`: the N of `int[N]`, which the binding uses to expand a single int."""

    elem: Value | ConstRef
    size: int | None = None

    _ALIASES = {"int64_t": "IntArrayRef", "Tensor": "TensorList"}

    def argument(self) -> str:
        elem = self.elem.storage()
        return self._ALIASES.get(elem, f"ArrayRef<{elem}>")

    def storage(self) -> str:
        return f"std::vector<{self.elem.storage()}>"

    def save(self, expr: str) -> str:
        return f"{expr}.vec()"

    def binding(self) -> str:
        return f"const {self.binding_value()}&"

    def binding_value(self) -> str:
        """What the binding's caster fills: an IntList also takes a single int (`int[2] stride=2`)."""
        return "IntList" if self._is_int_list() else self.storage()

    def unpack(self, name: str) -> str:
        return f"{name}.expanded({self.size or 0})" if self._is_int_list() else name

    @property
    def python_readable(self) -> bool:
        return self.elem.python_readable

    @property
    def is_view(self) -> bool:
        return True

    def _is_int_list(self) -> bool:
        return self.elem.storage() == "int64_t"


@dataclass(frozen=True)
class Optional(CppType):
    """std::optional<T>. Passed by const reference when T is (`const std::optional<Tensor>&`),
    by value otherwise, viewing what T views (`std::optional<IntArrayRef>`)."""

    elem: CppType

    def argument(self) -> str:
        if isinstance(self.elem, ConstRef):
            return f"const {self.storage()}&"
        return f"std::optional<{self.elem.argument()}>"

    def storage(self) -> str:
        return f"std::optional<{self.elem.storage()}>"

    def save(self, expr: str) -> str:
        if not self.elem.is_view:
            return expr
        return f"({expr} ? {self.storage()}({self.elem.save(f'(*{expr})')}) : std::nullopt)"

    def load(self, expr: str) -> str:
        if not self.elem.is_view:
            return expr
        return f"{expr} ? {self.argument()}(*{expr}) : std::nullopt"

    def binding(self) -> str:
        if isinstance(self.elem, Value) and self.elem.strict:
            return f"std::optional<{self.elem.strict}>"
        if isinstance(self.elem, ArrayRef):
            return f"const std::optional<{self.elem.binding_value()}>&"
        return self.argument()

    def unpack(self, name: str) -> str:
        if isinstance(self.elem, Value) and self.elem.strict:
            return f"unwrap({name})"
        if isinstance(self.elem, ArrayRef):  # int lists only (cpp_api.cpp_type)
            return f"optional_int_list({name}, {self.elem.size or 0})"
        return name

    @property
    def python_readable(self) -> bool:
        return self.elem.python_readable

    @property
    def is_view(self) -> bool:
        return self.elem.is_view


@dataclass(frozen=True)
class StdArray(CppType):
    """std::array<bool, N> by value: `bool[3] output_mask`. Its binding takes exactly N bools."""

    elem: Value
    size: int

    def argument(self) -> str:
        return f"std::array<{self.elem.storage()}, {self.size}>"

    def storage(self) -> str:
        return self.argument()

    def binding(self) -> str:
        return f"BoolList<{self.size}>"

    def unpack(self, name: str) -> str:
        return f"{name}.value"

    @property
    def python_readable(self) -> bool:
        return True


@dataclass(frozen=True)
class Tuple(CppType):
    """Several returns."""

    elems: tuple[CppType, ...]

    def argument(self) -> str:
        return self.storage()

    def storage(self) -> str:
        return f"std::tuple<{', '.join(e.storage() for e in self.elems)}>"


@dataclass(frozen=True)
class Void(CppType):
    """No returns."""

    def argument(self) -> str:
        return "void"

    def storage(self) -> str:
        return "void"
