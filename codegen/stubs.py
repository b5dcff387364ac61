"""Note [Stubs] in the YAML: structured elementwise kernels and their per-device loops.

An out= entry may declare

    structured: unary_float_op_iter          # builds the TensorIterator (device-independent)
    stubs: {exp: ExpFunctor Floating}        # what each device runs over it

`stubs:` maps a stub name to `Functor(arg, ...) TypeSet [error name]`: the functor template
of ElementwiseFunctors.h / ActivationFunctors.h, the schema arguments that become its fields
(Scalars convert to the compute type), and the dtypes it runs for (TypeSet in ScalarType.h;
others raise `"<error name>" not implemented for '<Type>'`, by default `<stub>_cpu` /
`<stub>_cuda`); list PyTorch's dtypes for the op and no more, since each is a loop compiled for
every device in every build (FloatDouble for the special functions PyTorch computes only in float32
and float64). The generator declares `tl::native::<name>_stub` (generated/Stubs.h) and
registers one loop per device (generated/StubsCPU_*.cpp, StubsCUDA_*.cu) from that line.

With `structured:` (on an out= op, or a functional op such as a backward) the generator also
writes the op's device-independent kernel (generated/StructuredKernels.cpp): build the
iterator with the named builder, run the one stub, return the output; it serves every
device. Without it, a hand-written kernel named in `dispatch:` (for all devices:
`CPU, CUDA: neg_out`) does its own checks and calls the stubs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .model import Argument, FunctionSchema
from .yaml_loader import CodegenError, Location, key_location, user_items

TYPE_SETS = ("All", "NoBool", "Integral", "Floating", "FloatDouble", "Complex", "AllAndComplex", "NoBoolAndComplex",
             "FloatingAndComplex")
_SPEC = re.compile(r"^(?P<functor>\w+)(?:\((?P<args>[\w\s,]*)\))?\s+(?P<types>\w+)(?:\s+(?P<error>\w+))?$")


@dataclass(frozen=True)
class Stub:
    name: str  # `exp` -> tl::native::exp_stub
    functor: str
    args: tuple[Argument, ...]  # schema arguments passed on to the functor, in order
    types: str
    error_name: str | None
    loc: Location

    @property
    def cpp_name(self) -> str:
        return f"{self.name}_stub"

    @property
    def params(self) -> list[str]:
        """The stub's C++ parameters after the TensorIterator."""
        from . import cpp_api  # cpp_api imports native_functions, which parses stubs

        return [f"{cpp_api.argument_type(a.type)} {a.name}" for a in self.args]

    @property
    def signature(self) -> str:
        from . import cpp_api

        return f"void({', '.join(['TensorIterator&'] + [cpp_api.argument_type(a.type) for a in self.args])})"

    def error(self, device: str) -> str:
        return self.error_name or f"{self.name}_{device.lower()}"


def parse_stubs(raw: object, func: FunctionSchema, loc: Location) -> tuple[Stub, ...]:
    if not isinstance(raw, dict) or not raw:
        raise CodegenError(loc, "'stubs' must map stub names to 'Functor(args) TypeSet'")
    by_name = {a.name: a for a in func.arguments}
    stubs = []
    for name, spec in user_items(raw):
        loc_ = key_location(raw, name, loc)
        m = _SPEC.match(str(spec).strip()) if isinstance(spec, str) else None
        if not str(name).isidentifier() or m is None:
            raise CodegenError(loc_, f"stub {name!r}: expected 'name: Functor(arg, ...) TypeSet [error name]'")
        if m["types"] not in TYPE_SETS:
            raise CodegenError(loc_, f"stub {name!r}: unknown type set '{m['types']}' (known: {', '.join(TYPE_SETS)})")
        args = []
        for a in (x.strip() for x in (m["args"] or "").split(",")):
            if not a:
                continue
            if a not in by_name or by_name[a].is_write or str(by_name[a].type).startswith("Tensor"):
                raise CodegenError(loc_, f"stub {name!r}: '{a}' is not a non-tensor argument of {func.name}")
            args.append(by_name[a])
        stubs.append(Stub(str(name), m["functor"], tuple(args), m["types"], m["error"], loc_))
    return tuple(stubs)


def iterator_inputs(func: FunctionSchema) -> tuple[str, ...]:
    """The tensors a `structured:` op's generated kernel gives its iterator builder as inputs."""
    return tuple(a.name for a in func.non_out_arguments if str(a.type) == "Tensor")


def structured_kernel(func: FunctionSchema, builder: str, stub: Stub) -> dict:
    """What generated/StructuredKernels.cpp writes for one `structured:` op."""
    from . import cpp_api

    tensors = list(iterator_inputs(func))
    out = func.out_arguments[0].name if func.out_arguments else "Tensor()"  # functional: allocate
    return {
        "declaration": f"{cpp_api.return_type(func)} {func.name.unambiguous()}"
        f"({', '.join(cpp_api.kernel_params(func))})",
        "iterator": f'{builder}("{func.name.name}", {", ".join([out] + tensors)})',
        "stub_call": ", ".join(["iter"] + [a.name for a in stub.args]),
        "stub": stub.cpp_name,
    }


# A functor of Note [Shared functors]: `struct XFunctor {` or a macro-made `(XFunctor, ...)`.
_FUNCTOR = re.compile(r"(?:struct\s+|\()(\w+Functor)\b(?!>)")


def functor_definitions(root: str) -> Iterator[tuple[str, str, int]]:
    """(functor, path relative to root, line) of the elementwise functors that stubs name."""
    native = os.path.join(root, "aten", "native")
    for name in sorted(os.listdir(native)):
        if name.endswith("Functors.h"):
            with open(os.path.join(native, name), encoding="utf-8") as f:
                for i, text in enumerate(f, 1):
                    for m in _FUNCTOR.finditer(text):
                        yield m.group(1), f"aten/native/{name}", i
