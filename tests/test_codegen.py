"""Tests of the operator generator (codegen/): the schema parser, the YAML checks, the CLI and the
emitted code. Pure Python: nothing here needs the C++ extension to be built."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

# Run from the repository root (`python -m pytest tests/test_codegen.py`), which puts codegen/ on the path.
from codegen import autograd, cpp_api, python_api
from codegen.cli import kernel_definitions
from codegen.cli import main as cli_main
from codegen.cpp_types import ArrayRef, ConstRef, CppType, Optional, StdArray, Tuple, Value, Void
from codegen.derivatives import formula_unknown_names, load_derivatives
from codegen.gen import generate
from codegen.model import BaseType, ListType, OptionalType, SchemaKind
from codegen.native_functions import load_native_functions
from codegen.schema_parser import SchemaError, parse_schema
from codegen.yaml_loader import CodegenError

ROOT = Path(__file__).resolve().parents[1]

# ---- schema round trip ----------------------------------------------------------------------

# Real PyTorch schemas (aten/src/ATen/native/native_functions.yaml) that exercise every corner of
# the grammar, plus a few made-up ones for defaults PyTorch happens not to use.
TRICKY_SCHEMAS = [
    # tuple and named returns
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    ("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)"),
    ("sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices) "
    "-> (Tensor(a!) values, Tensor(b!) indices)"),
    "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
    # lists of tensors, written lists, optional-tensor lists, wildcard aliasing
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    "split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()",
    "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
    # fixed-size lists and their defaults
    ("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
    "bool ceil_mode=False) -> Tensor"),
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    ("native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, "
    "Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)"),
    ("upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) "
     "-> Tensor"),
    # str defaults, both quotes; optional str without default
    ('conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, str padding="valid", '
    "SymInt[1] dilation=1, SymInt groups=1) -> Tensor"),
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    # float defaults
    ("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enable=True) -> Tensor"),
    "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor",
    "clamp_range(Tensor self, float lo=-inf, float hi=inf, float eps=.5, float big=1.5e+10) -> Tensor",
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
    ("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
    "SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor"),
    # '*' placement: first, middle; SymInt; ScalarType? Device? Generator? Layout? MemoryFormat
    ("randn.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"),
    "zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    ("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor"),
    ("to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)"),
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    ("arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor"),
    "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)",
    "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    # self not first, non-Tensor self, non-Tensor returns, dunders, no arguments
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
    "item(Tensor self) -> Scalar",
    "result_type.Tensor(Tensor tensor, Tensor other) -> ScalarType",
    "size.int(Tensor self, int dim) -> int",
    "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
    "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "_cuda_sync() -> ()",
]


def _yaml_schemas(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [e["func"] for e in yaml.safe_load(f) or []]


@pytest.mark.parametrize("schema", _yaml_schemas(ROOT / "native_functions.yaml"))
def test_round_trip_native_functions(schema):
    assert str(parse_schema(schema)) == schema


@pytest.mark.parametrize("schema", TRICKY_SCHEMAS)
def test_round_trip_tricky(schema):
    assert str(parse_schema(schema)) == schema


def test_round_trip_normalises_spacing():
    s = parse_schema("add.out( Tensor self,Tensor other ,*,Scalar alpha = 1, Tensor(a!) out )->Tensor(a!)")
    assert str(s) == "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"


def test_parsed_model():
    s = parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert (s.name.base, s.name.overload, s.name.inplace) == ("add", "out", False)
    assert s.name.unambiguous() == "add_out"
    assert [a.name for a in s.positional] == ["self", "other"]
    assert [a.name for a in s.kwarg_only] == ["alpha", "out"]
    assert [a.name for a in s.out_arguments] == ["out"]
    assert s.arguments[2].default == "1"
    assert s.arguments[3].annotation is not None and s.arguments[3].annotation.is_write

    t = parse_schema("f(Tensor?[] a, int[2]? b, SymInt c) -> ()")
    assert t.arguments[0].type == ListType(OptionalType(BaseType("Tensor")), None)
    assert t.arguments[1].type == OptionalType(ListType(BaseType("int"), 2))
    assert t.arguments[2].type == BaseType("SymInt")
    assert t.returns == ()

    u = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    assert (u.name.base, u.name.name, u.name.inplace, u.name.unambiguous()) == ("add", "add_", True, "add__Tensor")
    assert parse_schema("std(Tensor self, bool unbiased=True) -> Tensor").name.unambiguous() == "std_op"
    w = parse_schema("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]")
    assert w.arguments[0].annotation.to_wildcard and not w.arguments[0].annotation.is_write


# ---- classification and grouping ------------------------------------------------------------

@pytest.mark.parametrize(
    "schema, kind",
    [
        ("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", SchemaKind.functional),
        ("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", SchemaKind.inplace),
        ("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", SchemaKind.out),
        ("_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()", SchemaKind.inplace),
        ("split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()",
         SchemaKind.out),
        (("_amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf, float scale_growth_factor, "
         "float scale_backoff_factor, int growth_interval) -> Tensor(a!)"), SchemaKind.inplace),
        ("_fused_moving_avg(Tensor self, Tensor(a!) running_mean, float c) -> Tensor", SchemaKind.mutable),
        ("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", SchemaKind.mutable),
        ("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", SchemaKind.functional),
        (("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) "
         "-> (Tensor(a!) values, Tensor(b!) indices)"), SchemaKind.out),
    ],
)
def test_schema_kind(schema, kind):
    assert parse_schema(schema).kind() == kind


def test_signature_key_groups_functional_inplace_out():
    group = [
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    ]
    keys = {parse_schema(s).signature_key() for s in group}
    assert keys == {"add(Tensor self, Tensor other, Scalar alpha=1)"}
    others = [
        "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2) -> Tensor",
    ]
    for s in others:
        assert parse_schema(s).signature_key() not in keys
    # Multi-output out= groups with its functional form; return names do not matter.
    a = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    b = parse_schema(
        "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) "
        "-> (Tensor(a!) values, Tensor(b!) indices)"
    )
    assert a.signature_key() == b.signature_key() == "max(Tensor self, int dim, bool keepdim=False)"


# ---- bad schemas: SchemaError with a message and the column of the culprit -----------------

def _col(schema: str, needle: str) -> int:
    assert needle in schema, needle
    return schema.index(needle) + 1


BAD_SCHEMAS = [
    # (schema, message regex, text the column points at)
    ("foo(Tensr self) -> Tensor", r"unknown type 'Tensr'", "Tensr"),
    ("foo(Tensor self, int dim=1.5) -> Tensor", r"bad default '1\.5' for type 'int'", "1.5"),
    ("foo(Tensor self, bool b=1) -> Tensor", r"bad default '1' for type 'bool'", "1"),
    ("foo(Tensor self, str mode=valid) -> Tensor", r"bad default 'valid' for type 'str'", "valid"),
    ("foo(Tensor self, ScalarType dtype=half) -> Tensor", r"bad default 'half' for type 'ScalarType'", "half"),
    ("foo(Tensor self, int[2] k=[1, 2, 3]) -> Tensor", r"has 3 elements, type 'int\[2\]' has 2", "[1, 2, 3]"),
    ("foo(Tensor self, int[] k=1) -> Tensor", r"needs a fixed-size list type", "1)"),
    ("foo(Tensor self, Tensor other=0) -> Tensor", r"type 'Tensor' cannot have a default", "0)"),
    ("foo(Tensor self, int dim=None) -> Tensor", r"default None for non-optional type 'int'", "None"),
    ("foo_out(Tensor self) -> Tensor", r"use an '\.out' overload, not an '_out' suffix", "foo_out"),
    ("foo(Tensor self, int dim, int dim) -> Tensor", r"duplicate argument name 'dim'", "int dim)"),
    ("foo.out(Tensor self, *, Tensor(a!) out) -> Tensor", r"return 'Tensor' does not match out argument 'out'",
     "Tensor\x00"),
    ("foo.out(Tensor self, *, Tensor(a!) out, Tensor(b!) out2) -> Tensor(a!)",
     r"must return exactly its 2 out argument\(s\)", "Tensor(a!)\x00"),
    ("foo.out(Tensor self, *, Tensor(a!) out, int dim=0) -> Tensor(a!)",
     r"argument 'dim' follows the out arguments", "int dim"),
    ("foo(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", r"out= operator needs an overload name", "foo"),
    ("foo_(Tensor(a!) self, Tensor other) -> Tensor", r"in-place operator must return self: -> Tensor\(a!\)",
     "Tensor\x00"),
    ("foo_(Tensor self, Tensor other) -> Tensor", r"in-place operator must take 'Tensor\(a!\) self'", "Tensor self"),
    ("foo_(Tensor other) -> Tensor", r"in-place operator must take 'Tensor\(a!\) self'", "foo_"),
    ("foo_(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(a!)", r"in-place operator cannot have out arguments",
     "Tensor(b!)"),
    ("foo_(Tensor(a!)[] self) -> Tensor(a!)", r"must return \(\)", "Tensor(a!)\x00"),
    ("foo(Tensor self) Tensor", r"expected '->', found 'Tensor'", "Tensor\x00"),
    ("foo(Tensor self)", r"unexpected end of schema", None),
    ("foo(Tensor self) -> Tensor junk", r"unexpected 'junk' after the returns", "junk"),
    ("foo(Tensor self) -> Tensor;", r"unexpected character ';'", ";"),
    ("foo(Tensor self) -> (Tensor a, Tensor b) x", r"unexpected 'x' after the returns", "x"),
    ("foo(Tensor self, int dim=0, int keepdim) -> Tensor",
     r"positional argument 'keepdim' without a default follows one with a default", "int keepdim"),
    ("foo(Tensor self) -> Tensor(a!)", r"mutable return 'Tensor\(a!\)' aliases no argument", "Tensor(a!)"),
    ("foo(Tensor(a!) self, Tensor(b!) x) -> (Tensor(a!), Tensor)",
     r"mutable and immutable returns cannot be mixed", "Tensor)"),
    ("foo(Tensor(a!) self, Tensor(a!) other) -> ()", r"alias set 'a' is written by both 'self' and 'other'",
     "Tensor(a!) other"),
    ("foo(int(a) x) -> Tensor", r"alias annotation on non-Tensor type 'int'", "int"),
    ("foo(Tensor self, *, *, int x) -> Tensor", r"'\*' appears twice", "*, int"),
    ("foo(Tensor self, *) -> Tensor", r"'\*' must be followed by keyword-only arguments", ") ->"),
    ("foo(Tensor self, int?? x=None) -> Tensor", r"optional twice", "int??"),
    ("foo(Tensor self, int[0] x) -> Tensor", r"list size must be positive", "int[0]"),
    ("foo(Tensor self, str s=\"abc) -> Tensor", r"unterminated string default", '"abc'),
    ("foo(Tensor self, int x=) -> Tensor", r"empty default value", ") ->"),
    ("foo(Tensor self, Tensor result) -> Tensor", r"'result' is reserved", "Tensor result"),
    ("foo(Tensor self) -> (Tensor a, Tensor a)", r"duplicate return name 'a'", "Tensor a)"),
]


@pytest.mark.parametrize("schema, message, at", BAD_SCHEMAS, ids=[b[1][:40] for b in BAD_SCHEMAS])
def test_bad_schema(schema, message, at):
    with pytest.raises(SchemaError, match=message) as info:
        parse_schema(schema)
    if at is None:
        assert info.value.col == len(schema) + 1
    elif at.endswith("\x00"):  # the last occurrence
        assert info.value.col == schema.rindex(at[:-1]) + 1
    else:
        assert info.value.col == _col(schema, at)


def test_str_defaults_may_hold_commas_and_parens():
    s = parse_schema("join(Tensor self, str sep=\", (x)\", int n=1) -> Tensor")
    assert s.arguments[1].default == '", (x)"'
    assert str(s) == "join(Tensor self, str sep=\", (x)\", int n=1) -> Tensor"


# ---- the CLI `check` on small YAML files ----------------------------------------------------

KERNELS_CPP = """\
#include "generated/NativeFunctions.h"
namespace tl::native {
Tensor& add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  return out;
}
Tensor
add_scalar_kernel(const Tensor& self, const Scalar& other, const Scalar& alpha) { return self; }
Tensor native::view(const Tensor& self, IntArrayRef size) { return self; }
Tensor uses_helpers(const Tensor& self) {
  auto x = called_only(self);
  return not_defined_only_called(x);
}
}  // namespace tl::native
"""

GOOD_NF = """\
# comment
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  structured_delegate: add.out
  tags: pointwise

- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  variants: method
  structured_delegate: add.out
  tags: [pointwise]

- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: add_out_cpu

- func: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CompositeExplicitAutograd: add_scalar_kernel

- func: view(Tensor(a) self, SymInt[] size) -> Tensor(a)
  variants: method
  dispatch:
    CompositeExplicitAutograd: view
  tags: view

- func: zeros(SymInt[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: add_scalar_kernel
"""

GOOD_DERIVATIVES = """\
- name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  self: grad
  other: maybe_multiply(grad, alpha.conj())
  result: self_t + maybe_multiply(other_t, alpha)

- name: view(Tensor(a) self, SymInt[] size) -> Tensor(a)
  self: grad.reshape(self.sizes())
"""


def _workspace(tmp_path: Path, nf: str, derivatives: str = "[]\n") -> Path:
    (tmp_path / "aten" / "native").mkdir(parents=True, exist_ok=True)
    (tmp_path / "aten" / "native" / "Kernels.cpp").write_text(KERNELS_CPP)
    (tmp_path / "nf.yaml").write_text(nf)
    (tmp_path / "d.yaml").write_text(derivatives)
    return tmp_path


def _run_cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codegen", "--native-functions", str(root / "nf.yaml"),
           "--derivatives", str(root / "d.yaml"), "--root", str(root), *args]
    return subprocess.run(cmd, check=False, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_check_good_files(tmp_path):
    root = _workspace(tmp_path, GOOD_NF, GOOD_DERIVATIVES)
    r = _run_cli(root, "check")
    assert r.returncode == 0, r.stderr
    # add.out has a CPU kernel only, and add/add_ run it as its structured delegates.
    assert r.stdout.strip() == "ok: 6 operators; 3 have no CUDA path yet (check --cuda lists them)"
    assert r.stderr == ""


def test_check_cuda_lists_operators_without_a_cuda_path(tmp_path):
    root = _workspace(tmp_path, GOOD_NF, GOOD_DERIVATIVES)
    r = _run_cli(root, "check", "--cuda")
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert [line.split(": ")[1].split()[0] for line in lines] == ["add.Tensor", "add_.Tensor", "add.out"]
    assert lines[2] == "nf.yaml:12: add.out has no CUDA kernel or composite definition (CPU: add_out_cpu)"
    # A CUDA kernel for the out= operator gives its delegates a path too.
    root = _workspace(tmp_path, GOOD_NF.replace("    CPU: add_out_cpu\n", "    CPU: add_out_cpu\n    CUDA: add_out_cpu\n"),
                      GOOD_DERIVATIVES)
    r = _run_cli(root, "check", "--cuda")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok: 6 operators"


def _mark(text: str) -> tuple[str, int]:
    """Strips the `  # <--` marker from the YAML text and returns the marked line's number."""
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines) if line.endswith("  # <--")]
    assert len(hits) == 1
    lines[hits[0]] = lines[hits[0]][: -len("  # <--")]
    return "\n".join(lines) + "\n", hits[0] + 1


# Each case: native_functions.yaml (+ derivatives.yaml) with the offending line marked, and the message.
BAD_NF = {
    "unknown type": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: add_out_cpu
        - func: foo(Tensor self, Foo x) -> Tensor  # <--
        """,
        r"unknown type 'Foo' \(column 18\) in schema: foo\(Tensor self, Foo x\) -> Tensor",
    ),
    "bad default": (
        """\
        # leading comment

        - func: foo(Tensor self, bool flag=yes) -> Tensor  # <--
          variants: function
        """,
        r"bad default 'yes' for type 'bool' \(column 28\) in schema: foo\(Tensor self, bool flag=yes\) -> Tensor",
    ),
    "duplicate overload": (
        """\
        - func: foo.Tensor(Tensor self) -> Tensor
        - func: bar(Tensor self) -> Tensor
        - func: foo.Tensor(Tensor self, Tensor other) -> Tensor  # <--
        """,
        r"duplicate operator 'foo\.Tensor' \(first at line 1\)",
    ),
    "missing kernel": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          variants: function
          dispatch:
            CPU: add_out_cpu
            CUDA: add_out_cuda  # <--
        """,
        r"dispatch CUDA: kernel 'add_out_cuda' is not defined under aten/native/",
    ),
    "host fallback on the CPU": (
        """\
        - func: foo(Tensor self) -> Tensor
          dispatch:
            CPU: host_fallback  # <--
        """,
        r"CPU: host_fallback runs the CPU kernel for CUDA tensors; only CUDA can use it",
    ),
    "host fallback without a CPU kernel": (
        """\
        - func: foo(Tensor self) -> Tensor
          dispatch:
            CUDA: host_fallback  # <--
        """,
        r"CUDA: host_fallback needs a CPU kernel in the same dispatch to run",
    ),
    "host fallback writing an argument": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: add_out_cpu
            CUDA: host_fallback  # <--
        """,
        r"CUDA: host_fallback cannot write arguments in place \(out\): only functional ops",
    ),
    "cpu_scalars naming an out= tensor": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: add_out_cpu
          cpu_scalars: other, out  # <--
        """,
        r"cpu_scalars: 'out' is not a tensor input of add\.out \(known: other, self\)",
    ),
    "cpu_scalars on a composite": (
        """\
        - func: foo(Tensor self, Tensor other) -> Tensor
          cpu_scalars: other  # <--
        """,
        r"'cpu_scalars' loosens the generated device check of an op with device kernels of its own",
    ),
    "kernel only called, never defined": (
        """\
        - func: foo(Tensor self) -> Tensor
          dispatch:
            CompositeExplicitAutograd: not_defined_only_called  # <--
        """,
        r"kernel 'not_defined_only_called' is not defined",
    ),
    "unknown dispatch key": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: add_out_cpu
            Meta: add_out_cpu  # <--
        """,
        r"unknown dispatch key 'Meta' \(known: CPU, CUDA, CompositeImplicitAutograd, CompositeExplicitAutograd\)",
    ),
    "alias of nothing": (
        """\
        - func: plus(Tensor self) -> Tensor
          alias_of: add  # <--
        """,
        r"alias_of: no operator 'add' to forward plus to",
    ),
    "alias with another schema": (
        """\
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          dispatch:
            CPU: add_out_cpu
        - func: plus.Tensor(Tensor self, Tensor other) -> Tensor
          alias_of: add  # <--
        """,
        r"alias_of: schema plus\.Tensor\(Tensor self, Tensor other\) -> Tensor differs from that of its target",
    ),
    "alias with a kernel": (
        """\
        - func: add.Tensor(Tensor self, Tensor other) -> Tensor
          dispatch:
            CPU: add_out_cpu
        - func: plus.Tensor(Tensor self, Tensor other) -> Tensor
          alias_of: add
          dispatch:  # <--
            CPU: add_out_cpu
        """,
        r"an alias forwards every call to 'add': drop 'dispatch'",
    ),
    "out_of nothing": (
        """\
        - func: plus.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          out_of: plus  # <--
        """,
        r"out_of: no operator 'plus' to compute plus\.out with",
    ),
    "out_of on a functional op": (
        """\
        - func: plus(Tensor self) -> Tensor
          out_of: plus  # <--
        """,
        r"only out= ops are computed from a functional op, not a functional op",
    ),
    "out_of with other arguments": (
        """\
        - func: plus(Tensor self, int dim) -> Tensor
          dispatch:
            CPU: add_out_cpu
        - func: plus.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          out_of: plus  # <--
        """,
        r"out_of: plus\.out takes \(Tensor\) besides its out tensors, but 'plus' takes \(Tensor, int\)",
    ),
    "out_of with a kernel": (
        """\
        - func: plus.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          out_of: plus
          dispatch:  # <--
            CPU: add_out_cpu
        """,
        r"an out_of op gets its kernel from the generator: drop 'dispatch'",
    ),
    "unknown dispatch key in a combined key": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU, MPS: add_out_cpu  # <--
        """,
        r"unknown dispatch key 'MPS'",
    ),
    "unknown YAML key": (
        """\
        - func: foo(Tensor self) -> Tensor
          variants: function
          structured_inherits: TensorIteratorBase  # <--
        """,
        r"unknown key 'structured_inherits' \(known: func, variants, ",
    ),
    "duplicate YAML key": (
        """\
        - func: foo(Tensor self) -> Tensor
          variants: function
          variants: method  # <--
        """,
        r"invalid YAML: duplicate key 'variants' \(first at line 2\)",
    ),
    "flow-style dispatch with a combined key": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch: {CPU, CUDA: add_out_cpu}  # <--
        """,
        r"dispatch key 'CPU' names no kernel",
    ),
    "entry that is not a mapping": (
        """\
        - func: foo(Tensor self) -> Tensor

        - just a string  # <--
        """,
        r"expected a mapping per entry, got 'just a string'",
    ),
    "empty func": (
        """\
        - func:  # <--
          variants: function
        """,
        r"missing 'func:' schema string",
    ),
    "unknown tag": (
        """\
        - func: foo(Tensor self) -> Tensor
          tags: [pointwise, shiny]  # <--
        """,
        r"unknown tag 'shiny'",
    ),
    "structured_delegate naming nothing": (
        """\
        - func: foo(Tensor self) -> Tensor
          structured_delegate: foo.out  # <--
        """,
        r"structured_delegate 'foo\.out' names no operator",
    ),
    "structured_delegate naming a non-out op": (
        """\
        - func: bar(Tensor self) -> Tensor
          dispatch:
            CPU: add_out_cpu
        - func: foo(Tensor self) -> Tensor
          variants: function
          structured_delegate: bar  # <--
        """,
        r"structured_delegate 'bar' is not an out= operator",
    ),
    "structured_delegate with a mismatched signature": (
        """\
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2) -> Tensor
          structured_delegate: add.out  # <--
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: add_out_cpu
        """,
        (r"signature add\(Tensor self, Tensor other, Scalar alpha=2\) does not match that of its "
        r"structured_delegate 'add\.out': add\(Tensor self, Tensor other, Scalar alpha=1\)"),
    ),
    "structured_delegate that is not an operator name": (
        """\
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          structured_delegate: add_out  # <--
        """,
        r"bad operator name 'add_out': operator 'add_out': use an '\.out' overload",
    ),
    "structured_delegate on an out= op": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          structured_delegate: add.out  # <--
        """,
        r"only functional and in-place ops can have a structured_delegate, not a out op",
    ),
    "structured_delegate with dispatch": (
        """\
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          structured_delegate: add.out
          dispatch:  # <--
            CPU: add_out_cpu
        """,
        r"must not list its own dispatch",
    ),
    "method variant without self": (
        """\
        - func: zeros(SymInt[] size) -> Tensor
          variants: function, method  # <--
        """,
        r"a method variant needs a 'Tensor self' argument",
    ),
    "method variant with a non-Tensor self": (
        """\
        - func: pow.Scalar(Scalar self, Tensor exponent) -> Tensor
          variants: method  # <--
        """,
        r"a method variant needs a 'Tensor self' argument",
    ),
    "out= method": (
        """\
        - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          variants: function, method  # <--
          dispatch:
            CPU: add_out_cpu
        """,
        r"out= operators must be function-only",
    ),
    "bad variants": (
        """\
        - func: foo(Tensor self) -> Tensor
          variants: function, property  # <--
        """,
        r"bad variants 'function, property'",
    ),
    "unknown python_module": (
        """\
        - func: foo(Tensor self) -> Tensor
          python_module: fft  # <--
        """,
        r"unknown python_module 'fft'",
    ),
    "unsupported C++ type": (
        """\
        - func: foo(Tensor self) -> Tensor
        - func: bar(Tensor self, bool[] mask) -> Tensor  # <--
        """,
        r"argument 'mask': type 'bool\[\]' is not supported by the C\+\+ API",
    ),
    "unsupported C++ return type": (
        """\
        - func: bar(Tensor self) -> Device  # <--
        """,
        r"return type 'Device' is not supported",
    ),
    "kernel name not an identifier": (
        """\
        - func: foo(Tensor self) -> Tensor
          dispatch:
            CPU: foo-cpu  # <--
        """,
        r"kernel name 'foo-cpu' is not a C\+\+ identifier",
    ),
    "two composite keys": (
        """\
        - func: foo(Tensor self) -> Tensor
          dispatch:  # <--
            CompositeImplicitAutograd: add_scalar_kernel
            CompositeExplicitAutograd: add_scalar_kernel
        """,
        r"at most one composite dispatch key",
    ),
    "YAML syntax error": (
        """\
        - func: foo(Tensor self) -> Tensor
          variants: function: method  # <--
        """,
        r"invalid YAML: mapping values are not allowed here",
    ),
}

GOOD_OPS = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  structured_delegate: add.out
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: add_out_cpu
"""

BAD_DERIVATIVES = {
    "derivative for no op": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          self: grad

        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=2) -> Tensor  # <--
          self: grad
        """,
        (r"derivative for 'add\.Tensor\(Tensor self, Tensor other, \*, Scalar alpha=2\) -> Tensor', "
        r"which matches no operator in native_functions\.yaml"),
    ),
    "formula for an unknown input": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          self: grad
          other2: grad  # <--
        """,
        r"formula for 'other2', which is not an argument of add\.Tensor",
    ),
    "formula using an unknown name": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          self: grad
          other: maybe_multiply(grad, beta)  # <--
        """,
        r"formula for 'other' uses 'beta', which is not an argument or return of add\.Tensor",
    ),
    "second entry for one op": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          self: grad
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  # <--
          other: grad
        """,
        r"second derivative entry for 'add\.Tensor' \(first at line 1\)",
    ),
    "two formulas for one input": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          self: grad
          other, self: grad  # <--
        """,
        r"second formula for 'self'",
    ),
    "bad schema in name": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensr  # <--
          self: grad
        """,
        r"unknown type 'Tensr' \(column \d+\)",
    ),
    "bad output_differentiability": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          self: grad
          output_differentiability: [True, False]  # <--
        """,
        r"output_differentiability must list one bool per return",
    ),
    "empty formula": (
        """\
        - name: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          self:  # <--
        """,
        r"formula for 'self' must be a C\+\+ expression string",
    ),
}


def _check_in_process(root: Path, capsys) -> tuple[int, str, str]:
    """`python -m codegen ... check` without the interpreter start-up (the subprocess tests cover that)."""
    rc = cli_main(["--native-functions", str(root / "nf.yaml"), "--derivatives", str(root / "d.yaml"),
                   "--root", str(root), "check"])
    out, err = capsys.readouterr()
    return rc, out, err


def _assert_one_error(rc: int, out: str, err: str, file: str, line: int, message: str) -> None:
    assert rc == 1, out
    assert out == ""
    err = err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"{file}:{line}: "), err
    assert re.search(message, err), err


@pytest.mark.parametrize("case", sorted(BAD_NF))
def test_check_bad_native_functions(tmp_path, capsys, case):
    text, message = BAD_NF[case]
    nf, line = _mark(textwrap.dedent(text))
    _assert_one_error(*_check_in_process(_workspace(tmp_path, nf), capsys), "nf.yaml", line, message)


@pytest.mark.parametrize("case", sorted(BAD_DERIVATIVES))
def test_check_bad_derivatives(tmp_path, capsys, case):
    text, message = BAD_DERIVATIVES[case]
    d, line = _mark(textwrap.dedent(text))
    _assert_one_error(*_check_in_process(_workspace(tmp_path, GOOD_OPS, d), capsys), "d.yaml", line, message)


@pytest.mark.parametrize(
    "case", ["unknown type", "missing kernel", "unknown YAML key", "formula using an unknown name"]
)
def test_check_bad_files_subprocess(tmp_path, case):
    """The real entry point: exit status 1 and a single `file:line: message` line on stderr."""
    if case in BAD_NF:
        (text, message), file, nf, d = BAD_NF[case], "nf.yaml", None, "[]\n"
        nf, line = _mark(textwrap.dedent(text))
    else:
        (text, message), file, nf = BAD_DERIVATIVES[case], "d.yaml", GOOD_OPS
        d, line = _mark(textwrap.dedent(text))
    r = _run_cli(_workspace(tmp_path, nf, d), "check")
    _assert_one_error(r.returncode, r.stdout, r.stderr, file, line, message)


def test_formula_name_analysis():
    s = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    ok = [
        "handle_r_to_c(self.scalar_type(), grad)",
        "at::sum_to(grad, self.sizes()) * static_cast<double>(alpha.to<double>())",
        "grads[0] * result + result0",
        'zeros_like(self, "not a name")',
        "self_t + other_t * alpha + grad_input_mask[0]",
        "std::vector<int64_t>{1, 2}",
        "grad * (self > 0).to(ScalarType::Float) * 1e-5 + 2.0f",
    ]
    for f in ok:
        assert formula_unknown_names(f, s) == [], f
    assert formula_unknown_names("grad * other2 + self * other2 + alph", s) == ["other2", "alph"]
    named = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert formula_unknown_names("value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)",
                                 named) == []


def test_kernel_definitions_are_told_from_calls(tmp_path):
    from codegen.cli import kernel_definitions

    (tmp_path / "aten" / "native" / "cpu").mkdir(parents=True)
    (tmp_path / "aten" / "native" / "cpu" / "K.cpp").write_text(textwrap.dedent("""\
        std::tuple<Tensor, Tensor> max_out_cpu(const Tensor& self) { return {}; }
        Tensor& inplace_kernel(Tensor& self);
        template <typename T>
        static inline T
        helper_kernel(T x) { return x; }
        Tensor tl::native::qualified_kernel(const Tensor& self) {
          Tensor r = only_called(self);
          return also_only_called(r) + f(g(h));
        }
        """))
    found = {name: (path, line) for name, path, line in kernel_definitions(str(tmp_path))}
    where = {"max_out_cpu": 1, "inplace_kernel": 2, "helper_kernel": 5, "qualified_kernel": 6}
    for name, line in where.items():
        assert found[name] == (os.path.join("aten", "native", "cpu", "K.cpp"), line)
    for name in ("only_called", "also_only_called", "f", "g"):
        assert name not in found


def test_load_api_reports_locations(tmp_path):
    root = _workspace(tmp_path, GOOD_NF, GOOD_DERIVATIVES)
    fns = load_native_functions(str(root / "nf.yaml"), "nf.yaml")
    assert [str(f.name) for f in fns] == ["add.Tensor", "add_.Tensor", "add.out", "add.Scalar", "view", "zeros"]
    assert [f.loc.line for f in fns] == [2, 7, 12, 16, 21, 27]
    assert fns[1].tags == ("pointwise",)
    assert fns[2].loc_of("dispatch.CPU").line == 14
    assert fns[0].loc_of("structured_delegate").line == 4
    assert fns[4].dispatch == (("CompositeExplicitAutograd", "view"),)
    entries = load_derivatives(str(root / "d.yaml"), fns, "d.yaml")
    assert [e.op.name.unambiguous() for e in entries] == ["add_Tensor", "view"]
    assert entries[0].formulas[1] == (("other",), "maybe_multiply(grad, alpha.conj())")
    with pytest.raises(CodegenError) as info:
        load_native_functions(str(root / "missing.yaml"), "missing.yaml")
    assert str(info.value) == "missing.yaml: cannot read: No such file or directory"


# ---- CLI hardening ----------------------------------------------------------------------------

def _codegen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codegen", *args], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("args", [["--help"], ["generate", "--help"], ["check", "--help"]])
def test_cli_help(args):
    r = _codegen(*args)
    assert r.returncode == 0
    assert r.stdout.startswith("usage: python -m codegen")
    assert "Traceback" not in r.stderr


def test_cli_usage_errors(tmp_path):
    r = _codegen("frobnicate")
    assert r.returncode == 2 and "invalid choice: 'frobnicate'" in r.stderr
    r = _codegen()
    assert r.returncode == 2 and "usage:" in r.stderr
    r = _codegen("generate")
    assert r.returncode == 2 and "--out" in r.stderr


def test_cli_missing_files(tmp_path):
    r = _codegen("--native-functions", str(tmp_path / "nope.yaml"), "check")
    assert r.returncode == 1
    assert r.stderr.strip() == f"{tmp_path / 'nope.yaml'}: cannot read: No such file or directory"
    root = _workspace(tmp_path, GOOD_NF)
    r = subprocess.run(
        [sys.executable, "-m", "codegen", "--native-functions", str(root / "nf.yaml"), "--derivatives",
         str(root / "gone.yaml"), "--root", str(root), "check"],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 1
    assert r.stderr.strip() == "gone.yaml: cannot read: No such file or directory"


def test_cli_checks_the_repository():
    r = _codegen("check")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok: ")


def test_cli_generate(tmp_path):
    root = _workspace(tmp_path, GOOD_NF, GOOD_DERIVATIVES)
    assert cli_main(["--native-functions", str(root / "nf.yaml"), "--derivatives", str(root / "d.yaml"),
                     "--root", str(root), "generate", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "generated" / "Operators.cpp").exists()


# ---- generated code -------------------------------------------------------------------------

def _generate(tmp_path: Path, nf: str, out: str = "out") -> dict[str, str]:
    (tmp_path / "nf.yaml").write_text(nf)
    fns = load_native_functions(str(tmp_path / "nf.yaml"), "nf.yaml")
    paths = generate(fns, str(tmp_path / out))
    return {os.path.relpath(p, tmp_path / out / "generated"): Path(p).read_text() for p in paths}


def test_generate_is_deterministic(tmp_path):
    a = _generate(tmp_path, GOOD_NF, "a")
    b = _generate(tmp_path, GOOD_NF, "b")
    assert sorted(a) == sorted(b)
    for name in a:
        assert (tmp_path / "a" / "generated" / name).read_bytes() == (tmp_path / "b" / "generated" / name).read_bytes()
    assert "python_bindings_0.cpp" in a and "_C.pyi" in a and "RegisterCPU.cpp" in a and "RegisterCUDA.cpp" in a


def test_generated_stub_parses(tmp_path):
    # torchlite ships py.typed: a stub with a syntax error (a parameter named `from`) stops mypy
    # on every program that imports torchlite.
    fns = load_native_functions(str(ROOT / "native_functions.yaml"), "native_functions.yaml")
    stub = next(p for p in generate(fns, str(tmp_path)) if p.endswith("_C.pyi"))
    ast.parse(Path(stub).read_text(), filename=stub)


def _mtimes(gen: Path) -> dict[str, int]:
    return {str(p.relative_to(gen)): p.stat().st_mtime_ns for p in gen.rglob("*") if p.is_file()}


def test_generate_rewrites_only_changed_files(tmp_path):
    _generate(tmp_path, GOOD_NF)
    gen = tmp_path / "out" / "generated"
    for p in gen.rglob("*.*"):  # make a rewrite visible even on coarse-mtime file systems
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    before = _mtimes(gen)
    _generate(tmp_path, GOOD_NF)
    assert _mtimes(gen) == before
    assert not list(gen.rglob("*.tmp"))
    # Changing one kernel name touches its operator's kernel declarations and the CPU table.
    _generate(tmp_path, GOOD_NF.replace("add_out_cpu", "add_out_cpu2"))
    after = _mtimes(gen)
    assert sorted(n for n in after if after[n] != before[n]) == ["RegisterCPU.cpp", "ops/add_native.h"]


def test_a_default_changes_only_its_operator_header(tmp_path):
    # A function-only operator's changed default reaches its own header (ops/logsumexp.h), the
    # schema strings in Operators.cpp and its bindings shard: hand-written code that does not
    # call it includes neither, so it does not recompile. A removed operator loses its header.
    nf = GOOD_NF + "\n- func: logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor\n" \
                   "  dispatch:\n    CPU: logsumexp_cpu\n"
    _generate(tmp_path, nf)
    gen = tmp_path / "out" / "generated"
    for p in gen.rglob("*.*"):
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    _generate(tmp_path, nf.replace("keepdim=False", "keepdim=True"))
    changed = sorted(str(p.relative_to(gen)) for p in gen.rglob("*.*") if p.stat().st_mtime_ns != 1_000_000_000)
    shards = [n for n in changed if n.startswith("python_bindings_")]
    assert len(shards) == 1
    assert sorted(set(changed) - set(shards)) == ["Operators.cpp", "ops/logsumexp.h"]
    _generate(tmp_path, GOOD_NF)
    assert not (gen / "ops" / "logsumexp.h").exists()
    assert "logsumexp" not in (gen / "Functions.h").read_text()


# ---- the model behind the generated code ------------------------------------------------------
# These check what the generator decided (types, dispatch, autograd, overloads), not how a
# template spells it; tests/test_codegen_calls.py checks the compiled result.

def _model(tmp_path: Path, nf: str, derivatives: str = "[]\n"):
    """(op views by struct name, autograd nodes by name, Python function overloads, method overloads)."""
    root = _workspace(tmp_path, nf, derivatives)
    fns = load_native_functions(str(root / "nf.yaml"), "nf.yaml")
    nodes, wrappers = autograd.build(fns, load_derivatives(str(root / "d.yaml"), fns, "d.yaml"))
    views = {v.struct: v for v in cpp_api.op_views(fns, wrappers)}
    return (views, {n.name: n for n in nodes}, python_api.group_overloads(fns, methods=False),
            python_api.group_overloads(fns, methods=True))


def test_device_check_is_exact_except_where_the_yaml_reads_cpu_scalars():
    """Note [Device check]: a 0-dim CPU tensor may join an op on another device only as an input
    its kernel reads as a scalar: a structured op's iterator inputs, or what `cpu_scalars:` lists.
    Matrix products, indices, weights and out= tensors are checked exactly."""
    fns = load_native_functions(str(ROOT / "native_functions.yaml"))
    views = {v.struct: v for v in cpp_api.op_views(fns, {})}

    def check(struct):
        v = views[struct]
        return v.device_check_args, v.cpu_scalar_args

    # Structured (generated TensorIterator kernel): every input, never out.
    assert check("mul_out") == (("out",), ("self", "other"))
    assert check("where_self_out") == (("out",), ("condition", "self", "other"))
    # Hand-written TensorIterator kernels list theirs; item() readers name the one they read.
    assert check("add_out") == (("out",), ("self", "other"))
    assert check("masked_fill__Tensor") == (("self", "mask"), ("value",))
    # The fused optimizers read their step counters, lr and AMP scalars with item(); the
    # per-element state is read on the device.
    assert check("_fused_adam__tensor_lr") == (("self", "grads", "exp_avgs", "exp_avg_sqs", "max_exp_avg_sqs"),
                                               ("state_steps", "lr", "grad_scale", "found_inf"))
    # Kernels that read their tensors' memory on the device: exact.
    assert check("mm_out") == (("self", "mat2", "out"), ())
    assert check("index_select_out") == (("self", "index", "out"), ())
    assert check("convolution") == (("input", "weight", "bias"), ())
    assert check("native_batch_norm")[1] == ()
    assert check("_embedding_bag")[1] == ()
    for f in fns:
        v = views[f.name.unambiguous()]
        out_names = {a.name for a in f.func.out_arguments}
        assert not out_names & set(v.cpu_scalar_args), f.name
        if v.cpu_scalar_args:
            assert f.structured or f.cpu_scalars, f.name
        # The two lists split the tensor arguments; NoCheck ops (copy_) have neither.
        tensors = [a.name for a in f.func.arguments if str(a.type) in ("Tensor", "Tensor?", "Tensor[]")]
        if f.device_check and not (v.composite or v.delegate or v.alias):
            assert sorted(v.device_check_args + v.cpu_scalar_args) == sorted(tensors), f.name
    assert views["copy_"].device_check_args == views["copy_"].cpu_scalar_args == ()


def _types(view) -> list[CppType]:
    return [cpp_api.cpp_type(a.type) for a in view.public_args]


TENSOR = ConstRef(Value("Tensor"))
SCALAR = ConstRef(Value("Scalar"))
INT = Value("int64_t", strict="IntArg")
BOOL = Value("bool", strict="BoolArg")


def test_op_views_dispatch_and_autograd(tmp_path):
    views, nodes, _, _ = _model(tmp_path, GOOD_NF, GOOD_DERIVATIVES)
    add, add_, add_out = views["add_Tensor"], views["add__Tensor"], views["add_out"]
    # Functional and in-place forms call the out= op: a fresh (undefined) out, or self.
    assert add.delegate == ("add_out", ("self", "other", "alpha", "Tensor()"))
    assert add_.delegate == ("add_out", ("self", "other", "alpha", "self"))
    assert add.kernels == {} and add.composite is None
    # The out= op dispatches on its inputs' device, checks every tensor, bumps the out version.
    assert add_out.kernels == {"CPU": "add_out_cpu"}
    assert add_out.device_expr == "dispatch_device_of(self, other)"
    assert add_out.device_check_args == ("self", "other", "out")
    assert len(add_out.version_bumps) == 1
    # Note [Overlapping writes]: inputs are read from a copy where they alias out, except self
    # when out is self (add_ delegates here).
    assert add_out.overlap.call_args == ("self_in", "other_in", "alpha", "out")
    # The public out= form takes out first, so the others keep their defaults.
    assert [a.name for a in add_out.public_args] == ["out", "self", "other", "alpha"]
    assert _types(add_out) == [TENSOR, TENSOR, TENSOR, SCALAR]
    assert views["add_Scalar"].composite == "add_scalar_kernel"
    assert views["zeros"].device_expr == "device.value_or(Device(DeviceType::CPU))"
    # Autograd: a Node for add.Tensor, reused by add_; out= raises; zeros takes no tensor.
    assert add.autograd.kind == "formula" and add.autograd.node is nodes["AddBackward0"]
    assert add.autograd.tensor_args == ("self", "other")
    assert add_.autograd.node is nodes["AddBackward0"] and add_.autograd.inplace
    assert add_out.autograd.kind == "out_error"
    assert views["add_Scalar"].autograd.kind == "not_implemented"
    assert views["zeros"].autograd is None
    assert views["view"].autograd.is_view and views["view"].is_method and not views["view"].is_function


def test_alias_forwards_each_overload_to_its_target(tmp_path):
    nf = GOOD_NF + """
- func: plus.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  alias_of: add

- func: plus.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  alias_of: add
"""
    views, _, functions, _ = _model(tmp_path, nf, GOOD_DERIVATIVES)
    plus, plus_out = views["plus_Tensor"], views["plus_out"]
    # Note [Aliases]: no kernel, no autograd wrapper of its own; the target does both.
    assert (plus.alias, plus_out.alias) == ("add_Tensor", "add_out")
    assert plus.kernels == {} and plus.composite is None and plus.autograd is None
    assert [ov.fn.name.base for ov in functions[(None, "plus")]] == ["plus"]
    files = _generate(tmp_path, nf)
    assert "return add_Tensor::call(self, other, alpha);" in files["Operators.cpp"]
    assert "plus_native.h" not in " ".join(files)


def test_out_of_kernel_is_generated(tmp_path):
    nf = GOOD_NF + """
- func: plus.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  dispatch:
    CPU: add_out_cpu

- func: plus.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  out_of: plus.Tensor
"""
    files = _generate(tmp_path, nf)
    # Note [Generated out= kernels]: the functional op's result is written into out.
    kernels = files["OutKernels.cpp"]
    assert "Tensor plus(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {" in kernels
    assert "return write_out(tl::plus(self, other, alpha), out);" in kernels
    assert '#include "generated/ops/plus.h"' in kernels


def test_host_fallback_registers_the_cpu_kernel_for_cuda(tmp_path):
    """Note [Host fallback]: `CUDA: host_fallback` registers a template over the entry's CPU kernel,
    declares nothing of its own, and gives the op a CUDA path."""
    nf = GOOD_NF + """
- func: plus(Tensor self, Tensor other) -> Tensor
  dispatch:
    CPU: add_scalar_kernel
    CUDA: host_fallback
"""
    files = _generate(tmp_path, nf)
    registration = "ops::plus::kernels[static_cast<int>(DeviceType::CUDA)] = " \
                   "&native::HostFallback<&native::add_scalar_kernel>::run;"
    assert registration in files["RegisterCUDA.cpp"]
    assert '#include "aten/native/HostFallback.h"' in files["RegisterCUDA.cpp"]
    assert "HostFallback" not in files["RegisterCPU.cpp"]
    assert "host_fallback" not in files["ops/plus_native.h"]
    root = _workspace(tmp_path, nf.replace("    CPU: add_out_cpu\n", "    CPU: add_out_cpu\n    CUDA: add_out_cpu\n"),
                      GOOD_DERIVATIVES)
    r = _run_cli(root, "check", "--cuda")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok: 7 operators"


def test_saved_values_are_typed(tmp_path):
    _, nodes, _, _ = _model(tmp_path, GOOD_NF, GOOD_DERIVATIVES)
    # add saves alpha (a Scalar value) and no tensor: `grad` and `alpha` are all its formulas read.
    (alpha,) = nodes["AddBackward0"].saved
    assert (alpha.name, alpha.kind, alpha.type) == ("alpha", "value", SCALAR)
    assert alpha.field_type == "Scalar" and alpha.py_gettable
    # view's formula reads self.sizes(): the sizes are saved as a vector, not the tensor
    # (Note [Saved metadata]), and read back as an IntArrayRef.
    (sizes,) = nodes["ViewBackward0"].saved
    assert (sizes.name, sizes.source, sizes.type) == ("self_sym_sizes", "self", ArrayRef(INT))
    assert sizes.field_type == "std::vector<int64_t>"
    assert sizes.save_from("self") == "self.sizes().vec()"
    assert sizes.local() == "const IntArrayRef self_sym_sizes = self_sym_sizes_;"
    assert nodes["ViewBackward0"].formulas[0].expr == "grad.reshape(self_sym_sizes)"


# Schema type -> (argument, storage, binding parameter, binding unpacked as x).
CPP_TYPES = {
    "Tensor": ("const Tensor&", "Tensor", "const Tensor&", "x"),
    "int": ("int64_t", "int64_t", "IntArg", "x.value"),
    "SymInt": ("int64_t", "int64_t", "IntArg", "x.value"),
    "bool": ("bool", "bool", "BoolArg", "x.value"),
    "float": ("double", "double", "double", "x"),
    "str": ("const std::string&", "std::string", "const std::string&", "x"),
    "Scalar": ("const Scalar&", "Scalar", "const Scalar&", "x"),
    "ScalarType": ("ScalarType", "ScalarType", "ScalarType", "x"),
    "Tensor?": ("const std::optional<Tensor>&", "std::optional<Tensor>", "const std::optional<Tensor>&", "x"),
    "int?": ("std::optional<int64_t>", "std::optional<int64_t>", "std::optional<IntArg>", "unwrap(x)"),
    "bool?": ("std::optional<bool>", "std::optional<bool>", "std::optional<BoolArg>", "unwrap(x)"),
    "str?": ("const std::optional<std::string>&", "std::optional<std::string>",
             "const std::optional<std::string>&", "x"),
    "int[]": ("IntArrayRef", "std::vector<int64_t>", "const IntList&", "x.expanded(0)"),
    "int[2]": ("IntArrayRef", "std::vector<int64_t>", "const IntList&", "x.expanded(2)"),
    "int[1]?": ("std::optional<IntArrayRef>", "std::optional<std::vector<int64_t>>", "const std::optional<IntList>&",
                "optional_int_list(x, 1)"),
    "float[]": ("ArrayRef<double>", "std::vector<double>", "const std::vector<double>&", "x"),
    "Tensor[]": ("TensorList", "std::vector<Tensor>", "const std::vector<Tensor>&", "x"),
    "Tensor?[]": ("const std::vector<std::optional<Tensor>>&", "std::vector<std::optional<Tensor>>",
                  "const std::vector<std::optional<Tensor>>&", "x"),
    "bool[3]": ("std::array<bool, 3>", "std::array<bool, 3>", "BoolList<3>", "x.value"),
}


def _schema_type(text: str):
    return parse_schema(f"f({text} x) -> ()").arguments[0].type


@pytest.mark.parametrize("schema_type", CPP_TYPES)
def test_cpp_types_print_themselves(schema_type):
    t = cpp_api.cpp_type(_schema_type(schema_type))
    assert (t.argument(), t.storage(), t.binding(), t.unpack("x")) == CPP_TYPES[schema_type]


def test_cpp_types_save_and_load_views():
    # An argument that views its data is saved as an owning value and read back as a view of it.
    sizes = cpp_api.cpp_type(_schema_type("int[]"))
    assert sizes.is_view and sizes.save("x") == "x.vec()" and sizes.load("x_") == "x_"
    dims = cpp_api.cpp_type(_schema_type("int[1]?"))
    assert dims == Optional(ArrayRef(INT, 1)) and dims.is_view
    assert dims.save("x") == "(x ? std::optional<std::vector<int64_t>>((*x).vec()) : std::nullopt)"
    assert dims.load("x_") == "x_ ? std::optional<IntArrayRef>(*x_) : std::nullopt"
    for owned in ("Tensor", "int", "Scalar?", "bool[3]"):
        t = cpp_api.cpp_type(_schema_type(owned))
        assert not t.is_view and t.save("x") == "x" and t.load("x") == "x"
    # What Python can read back as _saved_<name>.
    assert cpp_api.cpp_type(_schema_type("int[1]?")).python_readable
    assert not cpp_api.cpp_type(_schema_type("Generator?")).python_readable
    assert not cpp_api.cpp_type(_schema_type("MemoryFormat")).python_readable


def test_return_types():
    def ret(schema: str) -> CppType:
        return cpp_api.return_cpp_type(parse_schema(schema))

    assert ret("f(Tensor self) -> ()") == Void()
    assert ret("f(Tensor self) -> Tensor").storage() == "Tensor"
    assert ret("f(Tensor self) -> Tensor[]").storage() == "std::vector<Tensor>"
    assert ret("f(Tensor self) -> (Tensor a, Tensor b)") == Tuple((TENSOR, TENSOR))
    assert ret("f(Tensor self) -> (Tensor a, Tensor b)").storage() == "std::tuple<Tensor, Tensor>"
    assert ret("f(Tensor self) -> ScalarType").storage() == "ScalarType"
    with pytest.raises(cpp_api.CppTypeError, match="return type 'str' is not supported"):
        ret("f(Tensor self) -> str")


def test_bool_n_type():
    s = parse_schema("f(Tensor self, bool[3] output_mask, bool[2] m=[True, False], bool[2] k=True) -> Tensor")
    mask, m, k = s.arguments[1:]
    assert mask.type == ListType(BaseType("bool"), 3) and str(s).startswith("f(Tensor self, bool[3] output_mask,")
    assert cpp_api.cpp_type(mask.type) == StdArray(BOOL, 3)
    assert cpp_api.default_expr(m) == "std::array<bool, 2>({true, false})"
    assert cpp_api.default_expr(k) == "std::array<bool, 2>({true, true})"
    assert python_api.python_default(m) == "py::make_tuple(true, false)"
    assert python_api.python_default(k) == "py::make_tuple(true, true)"
    assert python_api.message_type(mask.type) == "tuple of 3 bools"
    assert python_api.pyi_type(mask.type) == "Sequence[bool]"
    with pytest.raises(SchemaError, match=r"default \[True\] has 1 elements, type 'bool\[3\]' has 3"):
        parse_schema("f(bool[3] m=[True]) -> ()")
    with pytest.raises(cpp_api.CppTypeError, match=r"type 'bool\[\]' is not supported"):
        cpp_api.cpp_type(_schema_type("bool[]"))


def test_python_overloads(tmp_path):
    _, _, functions, methods = _model(tmp_path, GOOD_NF)
    # Tensor overload first, with its out= variant merged in as `out=None`; Scalar second.
    add = functions[(None, "add")]
    assert [(str(o.fn.name), o.out_fn and str(o.out_fn.name)) for o in add] == [("add.Tensor", "add.out"),
                                                                                ("add.Scalar", None)]
    assert [(a.name, a.kwarg_only) for a in add[0].python_args()] == [
        ("self", False), ("other", False), ("alpha", True)]
    assert add[0].call_expr() == "tl::add(self, other, alpha)"
    assert add[0].call_expr(add[0].out_fn.func) == "tl::add_out(out_tensor(out, 0, 1), self, other, alpha)"
    # zeros(2, 3) as well as zeros((2, 3)): a second overload takes the sizes as *args.
    assert [o.varargs for o in functions[(None, "zeros")]] == [False, True]
    assert [o.varargs for o in methods[(None, "view")]] == [False, True]
    # Operator slots reuse the method overloads; a method never takes out=.
    assert [o.fn for o in methods[(None, "__add__")]] == [o.fn for o in methods[(None, "add")]]
    assert len(methods[(None, "__iadd__")]) == 1
    assert all(o.out_fn is None for o in methods[(None, "add")])


EXOTIC_NF = """\
- func: split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()
  dispatch:
    CPU: add_out_cpu
- func: _foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()
  dispatch:
    CPU: add_out_cpu
- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
  variants: function, method
  dispatch:
    CPU: add_out_cpu
- func: split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
  variants: function, method
- func: conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, str padding="valid",
    SymInt[1] dilation=1, SymInt groups=1) -> Tensor
- func: nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,
    SymInt ignore_index=-100) -> Tensor
  python_module: nn
- func: clamp_range(Tensor self, float lo=-inf, float hi=1e-05) -> Tensor
- func: to_fmt(Tensor self, ScalarType dtype=long, *, MemoryFormat memory_format=contiguous_format,
    float[2] scale=1.5, Layout? layout=strided) -> Tensor
  variants: method
"""


def test_exotic_schemas(tmp_path):
    views, _, functions, _ = _model(tmp_path, EXOTIC_NF)
    # Operators returning nothing still bump every written tensor, lists included.
    assert views["split_copy_Tensor_out"].ret == "void" and len(views["split_copy_Tensor_out"].version_bumps) == 1
    assert len(views["_foreach_add__Scalar"].version_bumps) == 1
    assert views["_foreach_add__Scalar"].device_expr == "device_of(self)"
    # Defaults, as C++ and as the Python object a caller would have passed.
    args = {a.name: a for v in views.values() for a in v.public_args}
    cpp = {n: cpp_api.default_expr(a) for n, a in args.items() if a.default is not None}
    py = {n: python_api.python_default(a) for n, a in args.items() if a.default is not None}
    assert cpp["stride"] == "IntArrayRef({1})" and py["stride"] == "py::int_(1)"
    assert cpp["padding"] == '"valid"' and py["padding"] == 'py::str("valid")'
    assert cpp["reduction"] == "1" and py["reduction"] == "py::int_(1)"
    assert cpp["lo"] == "-std::numeric_limits<double>::infinity()"
    assert cpp["hi"] == "1e-05" and py["hi"] == "py::float_(1e-05)"
    assert cpp["dtype"] == "ScalarType::Long" and py["dtype"] == "dtype_object(ScalarType::Long)"
    assert cpp["scale"] == "ArrayRef<double>({1.5, 1.5})" and py["scale"] == "py::make_tuple(1.5, 1.5)"
    assert cpp["layout"] == "Layout::Strided" and py["layout"] == "py::cast(Layout::Strided)"
    # Quotes inside a schema are escaped in its C++ string literal.
    assert 'str padding=\\"valid\\"' in views["conv1d_padding"].schema_literal
    # nn ops bind under torchlite._C._nn; named returns become a named tuple.
    assert ("nn", "nll_loss") in functions
    assert 'named_tuple("max", {"values", "indices"}' in functions[(None, "max")][0].body()


def test_overloads_that_would_be_ambiguous_in_cpp_lose_defaults():
    # all(self) and all.dims(self, dim=None, keepdim=False): the call all(x) would match both.
    one = parse_schema("all(Tensor self) -> Tensor")
    dims = parse_schema("all.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor")
    assert cpp_api.kept_defaults([list(one.arguments), list(dims.arguments)]) == [0, 1]
    # Without self (the method), all() and all(dim=None) clash the same way.
    assert cpp_api.kept_defaults([[], list(dims.arguments[1:])]) == [0, 1]


def test_overlap_guard_follows_the_alias_annotations_and_tags():
    from codegen.overlap import overlap_guard

    # Elementwise (pointwise) out= op: inputs are checked against out, read in place when equal.
    g = overlap_guard(parse_schema("mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"),
                      ("pointwise",))
    assert g.statements[0] == "check_written(out);"
    assert "const auto self_copy = copy_if_aliased(self, true, out);" in g.statements
    assert g.call_args == ("self_in", "other_in", "out")
    # A fill writes one value everywhere: no internal-overlap check.
    g = overlap_guard(parse_schema("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)"), ("fill",))
    assert g.statements == () and g.call_args == ("self", "value")
    # Two outputs must not share memory; optional and list inputs get their own copies.
    g = overlap_guard(parse_schema("f.out(Tensor? w, Tensor[] ts, *, Tensor(a!) a, Tensor(b!) b) -> "
                                   "(Tensor(a!), Tensor(b!))"), ())
    assert "assert_no_overlap(a, b);" in g.statements
    assert "const auto& w_in = w_copy ? w_copy : w;" in g.statements
    assert "const auto& ts_in = ts_copy.empty() ? ts : TensorList(ts_copy);" in g.statements
    # The out= op behind an in-place op reads self in place when out is self.
    g = overlap_guard(parse_schema("addmm.out(Tensor self, Tensor m1, Tensor m2, *, Tensor(a!) out) -> Tensor(a!)"),
                      (), inplace_target=True)
    assert "const auto self_copy = self.is_same(out) ? Tensor() : copy_if_aliased(self, false, out);" in g.statements
    assert "const auto m1_copy = copy_if_aliased(m1, false, out);" in g.statements
    # Multi-tensor ops check their own operands' sharing; the guard checks internal overlap.
    g = overlap_guard(parse_schema("_fused_x_(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor[] steps) -> ()"), ())
    assert g.statements == ("check_written(self);", "check_written(grads);")
    assert g.call_args == ("self", "grads", "steps")
    # No written arguments: no guard.
    assert overlap_guard(parse_schema("neg(Tensor self) -> Tensor"), ("pointwise",)).statements == ()


def test_python_face_defaults():
    """Defaults Python callers see: the schema's, as PyTorch's parser shows them, plus None for a
    keyword-only optional and False for an optional pin_memory."""
    def face(schema, name):
        s = parse_schema(schema)
        return python_api.python_face_default(next(a for a in s.arguments if a.name == name), s)

    div = "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor"
    assert face(div, "rounding_mode") == "None" and face(div, "other") is None
    assert face("f(Tensor self, Tensor? w) -> Tensor", "w") is None  # positional: still required
    zeros = ("zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
             "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor")
    assert [face(zeros, n) for n in ("dtype", "layout", "device", "pin_memory", "memory_format")] == [
        "None", "None", "None", "False", "None"]
    assert face("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", "dim") == "[]"
    assert face("f(Tensor self, int[1] dim=[0]) -> Tensor", "dim") == "[0]"


def test_factory_out_variant_is_merged(tmp_path):
    """zeros and zeros.out share one overload: the out= form has no TensorOptions to match."""
    nf = tmp_path / "nf.yaml"
    nf.write_text(
        "- func: zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,"
        " bool? pin_memory=None) -> Tensor\n  dispatch: {CPU: zeros}\n"
        "- func: zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch: {CPU: zeros_out}\n"
    )
    fns = load_native_functions(str(nf), "nf.yaml")
    [ov] = [o for o in python_api.group_overloads(fns, methods=False)[(None, "zeros")] if not o.varargs]
    assert ov.out_fn is not None and ov.out_fn.func.name.overload == "out"
    body = ov.body()
    assert "check_out_options(out_tensor(out, 0, 1), dtype, device);" in body and "tl::zeros_out(" in body


def test_profiler_hook_wraps_every_generated_call(tmp_path):
    """Note [Profiler hook]: each entry's body is a function of its own, called once from `call`,
    inside an event named aten::<name> (no overload) opened only behind one profiler::is_enabled() branch;
    `true`: the event carries the sequence number of the Node the call may record."""
    nf = tmp_path / "nf.yaml"
    nf.write_text(
        "- func: mm(Tensor self, Tensor mat2) -> Tensor\n  dispatch: {CPU: mm}\n"
        "- func: mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch: {CPU: mm_out}\n"
    )
    generate(load_native_functions(str(nf), "nf.yaml"), str(tmp_path))
    ops = (tmp_path / "generated" / "Operators.cpp").read_text()
    for struct, args in [("mm", "self, mat2"), ("mm_out", "self, mat2, out")]:
        assert (f"  profiler::RecordScope profiler_event(TL_UNLIKELY(profiler::is_enabled()) ?"
                f" profiler::begin_operator(\"aten::mm\", true, {args}) : -1);  // Note [Profiler hook]\n"
                f"  return {struct}_call({args});\n}}") in ops
        assert ops.count(f"{struct}_call(") == 2  # defined once, called once: the body is inlined once
        assert f"static Tensor {struct}_call(" in ops


def test_autocast_policies_reach_the_generated_call(tmp_path):
    """Note [Autocast]: a policy per device in the YAML becomes a cast-and-recall at the top of the
    operator's call, with every tensor argument cast and the others passed as they are."""
    nf = tmp_path / "nf.yaml"
    nf.write_text(
        "- func: mm(Tensor self, Tensor mat2, int n=0) -> Tensor\n  autocast: lower_precision_fp\n"
        "  dispatch: {CPU: mm}\n"
        "- func: nll(Tensor self, Tensor? weight) -> Tensor\n  autocast: {CPU: fp32}\n  dispatch: {CPU: nll}\n"
    )
    fns = load_native_functions(str(nf), "nf.yaml")
    assert fns[0].autocast == (("CPU", "lower_precision_fp"), ("CUDA", "lower_precision_fp"))
    generate(fns, str(tmp_path))
    ops = (tmp_path / "generated" / "Operators.cpp").read_text()
    assert "return mm::call(autocast::cast(self, *device, to), autocast::cast(mat2, *device, to), n);" in ops
    assert "autocast::Policy::Fp32\n" in ops and "autocast::Policy::None;" in ops  # nll: CPU only
    for bad, message in [("autocast: fp16", "unknown policy 'fp16'"), ("autocast: {MPS: fp32}", "unknown device 'MPS'")]:
        nf.write_text(f"- func: f(Tensor self) -> Tensor\n  {bad}\n  dispatch: {{CPU: f}}\n")
        with pytest.raises(CodegenError, match=message):
            load_native_functions(str(nf), "nf.yaml")
    nf.write_text("- func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  autocast: fp32\n  dispatch: {CPU: f}\n")
    with pytest.raises(CodegenError, match="autocast applies to functional ops, not a out op"):
        load_native_functions(str(nf), "nf.yaml")


def test_kernels_a_device_macro_defines_are_found(tmp_path):
    """A macro that defines one device's entry points (max_out_##device) counts as defining them,
    at the line that uses it, so `codegen check` and `explain` see them."""
    native = tmp_path / "aten" / "native"
    native.mkdir(parents=True)
    (native / "Shared.h").write_text("#define TL_DEFINE_THINGS(device, Engine) \\\n"
                                     "  Tensor thing_out_##device(const Tensor& x) { return x; } \\\n"
                                     "  void _other_##device##_(TensorList t) {}\n")
    (native / "Kernel.cu").write_text('#include "Shared.h"\n\nTL_DEFINE_THINGS(cuda, CudaEngine)\n')
    found = {(name, path, line) for name, path, line in kernel_definitions(str(tmp_path))}
    assert ("thing_out_cuda", "aten/native/Kernel.cu", 3) in found
    assert ("_other_cuda_", "aten/native/Kernel.cu", 3) in found
    assert not any(name.startswith("thing_out_") and name != "thing_out_cuda" for name, _, _ in found)
    real = {name for name, _, _ in kernel_definitions(str(ROOT))}
    assert {"max_out_cpu", "argmin_out_cuda", "_fused_adam_kernel_cpu_", "_fused_rprop_kernel_cuda_"} <= real
