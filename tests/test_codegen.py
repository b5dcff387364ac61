"""Tests of the operator generator (codegen/): the schema parser, the YAML checks, the CLI and the
emitted code. Pure Python: nothing here needs the C++ extension to be built."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

# Run from the repository root (`python -m pytest tests/test_codegen.py`), which puts codegen/ on the path.
from codegen.cli import main as cli_main
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
    assert r.stdout.strip() == "ok: 6 operators"
    assert r.stderr == ""


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
        - func: bar(Tensor self, bool[3] mask) -> Tensor  # <--
        """,
        r"argument 'mask': type 'bool\[3\]' is not supported by the C\+\+ API",
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
    return {os.path.basename(p): Path(p).read_text() for p in paths}


def test_generate_is_deterministic(tmp_path):
    a = _generate(tmp_path, GOOD_NF, "a")
    b = _generate(tmp_path, GOOD_NF, "b")
    assert sorted(a) == sorted(b)
    for name in a:
        assert (tmp_path / "a" / "generated" / name).read_bytes() == (tmp_path / "b" / "generated" / name).read_bytes()
    assert "python_bindings_0.cpp" in a and "_C.pyi" in a and "RegisterCPU.cpp" in a and "RegisterCUDA.cpp" in a


def test_generate_rewrites_only_changed_files(tmp_path):
    _generate(tmp_path, GOOD_NF)
    gen = tmp_path / "out" / "generated"
    before = {p.name: p.stat().st_mtime_ns for p in gen.iterdir()}
    for p in gen.iterdir():  # make a rewrite visible even on coarse-mtime file systems
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    before = {p.name: p.stat().st_mtime_ns for p in gen.iterdir()}
    _generate(tmp_path, GOOD_NF)
    assert {p.name: p.stat().st_mtime_ns for p in gen.iterdir()} == before
    assert not list(gen.glob("*.tmp"))
    # Changing one kernel name touches the declarations and the CPU table, not the Python bindings.
    _generate(tmp_path, GOOD_NF.replace("add_out_cpu", "add_out_cpu2"))
    after = {p.name: p.stat().st_mtime_ns for p in gen.iterdir()}
    changed = sorted(n for n in after if after[n] != before[n])
    assert changed == ["NativeFunctions.h", "RegisterCPU.cpp"]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def _bindings(files: dict[str, str]) -> list[str]:
    return [line for name in sorted(files) if name.startswith("python_bindings_") for line in _lines(files[name])]


def test_generated_operators(tmp_path):
    files = _generate(tmp_path, GOOD_NF)
    ops = files["Operators.cpp"]
    # `call` enters the autograd wrapper only when an input requires grad and grad mode is on;
    # otherwise (and inside the wrapper) `redispatch` runs the kernel.
    assert "Tensor add_Tensor::call(const Tensor& self, const Tensor& other, const Scalar& alpha) {\n" \
           "  // Note [Autograd fast path]\n" \
           "  if (TL_UNLIKELY(autograd::any_requires_grad(self, other) && autograd::GradMode::is_enabled())) {\n" \
           "    return autograd::VariableType::add_Tensor(self, other, alpha);\n" \
           "  }\n" \
           "  return redispatch(self, other, alpha);\n}" in ops
    # Functional and in-place forms call the out= op: a fresh (undefined) out, or self.
    assert "Tensor add_Tensor::redispatch(const Tensor& self, const Tensor& other, const Scalar& alpha) {\n" \
           "  return add_out::redispatch(self, other, alpha, Tensor());\n}" in ops
    assert "Tensor add__Tensor::redispatch(const Tensor& self, const Tensor& other, const Scalar& alpha) {\n" \
           "  return add_out::redispatch(self, other, alpha, self);\n}" in ops
    # The out= op dispatches on its device, checks all tensors agree, and bumps the out version.
    body = ops[ops.index("Tensor add_out::redispatch("):]
    body = body[: body.index("\n}\n")]
    assert _lines(body)[1:] == [
        "const Device dispatch_device = dispatch_device_of(self, other);",
        "check_same_device(schema, dispatch_device, self, other, out);",
        # `kernel`, not a short name an argument may have (topk's `k`)
        "Kernel kernel = kernels[static_cast<int>(dispatch_device.type)];",
        "if (TL_UNLIKELY(kernel == nullptr)) no_kernel(schema, dispatch_device);",
        # Note [Overlapping writes]: add.out is not tagged pointwise here, so an input that is
        # `out` itself is read from a copy, unless it is self of add_ (which delegates here).
        "check_written(out);",
        "const auto self_copy = self.is_same(out) ? Tensor() : copy_if_aliased(self, false, out);",
        "const auto& self_in = self_copy.defined() ? self_copy : self;",
        "const auto other_copy = copy_if_aliased(other, false, out);",
        "const auto& other_in = other_copy.defined() ? other_copy : other;",
        "Tensor result = kernel(self_in, other_in, alpha, out);",
        "if (out.defined()) out.bump_version();",
        "return result;",
    ]
    assert "Tensor add_Scalar::redispatch(const Tensor& self, const Scalar& other, const Scalar& alpha) {\n" \
           "  return native::add_scalar_kernel(self, other, alpha);\n}" in ops
    assert "return native::view(self, size);" in ops
    # Factory: the device comes from the device= keyword.
    assert "return native::add_scalar_kernel(size, dtype, device);" in ops

    header = files["Operators.h"]
    assert 'static constexpr const char* schema = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, ' \
           'Tensor(a!) out) -> Tensor(a!)";' in header
    assert "using Kernel = Tensor (*)(const Tensor& self, const Tensor& other, const Scalar& alpha, " \
           "const Tensor& out);" in header

    assert "ops::add_out::kernels[static_cast<int>(DeviceType::CPU)] = &native::add_out_cpu;" in \
        _lines(files["RegisterCPU.cpp"])
    assert "ops::" not in files["RegisterCUDA.cpp"]
    natives = _lines(files["NativeFunctions.h"])
    assert "Tensor add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out);" \
        in natives
    # One declaration for a kernel that serves two ops with different signatures.
    assert sum(line.startswith("Tensor add_scalar_kernel(") for line in natives) == 2

    functions = _lines(files["Functions.h"])
    assert "inline Tensor add_out(const Tensor& out, const Tensor& self, const Tensor& other, " \
           "const Scalar& alpha = int64_t(1)) {" in functions
    assert "inline Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt, " \
           "std::optional<Device> device = std::nullopt) {" in functions
    assert "inline Tensor Tensor::add_(const Tensor& other, const Scalar& alpha) const {" in functions
    assert "return ops::add__Tensor::call(*this, other, alpha);" in functions
    methods = _lines(files["TensorMethods.h"])
    assert "Tensor add(const Tensor& other, const Scalar& alpha = int64_t(1)) const;" in methods
    assert "Tensor view(IntArrayRef size) const;" in methods


def test_generated_python_bindings(tmp_path):
    files = _generate(tmp_path, GOOD_NF)
    lines = _bindings(files)
    add = [line for line in lines if line.startswith('mod.def("add",')]
    assert len(add) == 2
    # Tensor overload first (with its out= variant merged in as `out=None`), Scalar second.
    assert "(const Tensor& self, const Tensor& other, const Scalar& alpha, py::handle out)" in add[0]
    assert add[0].endswith('py::arg("self"), py::arg("other"), py::kw_only(), py::arg("alpha") = py::int_(1), '
                           'py::arg("out") = py::none());')
    assert ("if (out.is_none()) { return py::object(py::cast(wrap([&] { ReleaseGilIfLong no_gil(self, other); "
            "return tl::add(self, other, alpha); }()))); }") in add[0]
    assert "tl::add_out(out_tensor(out, 0, 1), self, other, alpha)" in add[0]
    assert "(const Tensor& self, const Scalar& other, const Scalar& alpha)" in add[1]
    assert 'py::arg("alpha") = py::int_(1));' in add[1] and "py::kw_only()" not in add[1]

    view = [line for line in lines if line.startswith('cls.def("view",')]
    assert view == [
        ('cls.def("view", [](const Tensor& self, const IntList& size) { return wrap([&] { ReleaseGilIfLong '
         'no_gil(self); return self.view(size.expanded(0)); }()); }, py::arg("size"));'),
        ('cls.def("view", [](const Tensor& self, const py::args& size_args) { '
        "return wrap(self.view(int_list_from_args(size_args))); });"),
    ]
    zeros = [line for line in lines if line.startswith('mod.def("zeros",')]
    assert len(zeros) == 2 and "const py::args& size_args" in zeros[1]
    assert zeros[1].endswith('py::arg("dtype") = py::none(), py::arg("device") = py::none());')
    # Operator slots are bound to the same overloads; method overloads never include out=.
    assert sum(line.startswith('cls.def("__add__",') for line in lines) == 2
    assert sum(line.startswith('cls.def("__iadd__",') for line in lines) == 1
    assert sum(line.startswith('cls.def("add",') for line in lines) == 2

    pyi = _lines(files["_C.pyi"])
    merged = "def add(self: Tensor, other: Tensor, *, alpha: Number = ..., out: Tensor | None = None) -> Tensor: ..."
    assert merged in pyi
    assert "def add(self: Tensor, other: Number, alpha: Number = ...) -> Tensor: ..." in pyi
    assert "def __add__(self, other: Tensor, *, alpha: Number = ...) -> Tensor: ..." in pyi
    assert "def view(self, size: Sequence[int] | int) -> Tensor: ..." in pyi
    assert "def view(self, *size: int) -> Tensor: ..." in pyi
    assert "def zeros(*size: int, dtype: dtype | None = ..., device: device | str | None = ...) -> Tensor: ..." in pyi
    i = pyi.index(merged)
    assert pyi[i - 1] == "@overload"


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


def test_generated_exotic_schemas(tmp_path):
    files = _generate(tmp_path, EXOTIC_NF)
    ops = _lines(files["Operators.cpp"])
    # Operators returning nothing still bump every written tensor, lists included.
    assert "kernel(self, split_size, dim, out);" in ops
    assert "for (const Tensor& t : out) if (t.defined()) t.bump_version();" in ops
    assert "for (const Tensor& t : self) if (t.defined()) t.bump_version();" in ops
    assert "const Device dispatch_device = device_of(self);" in ops
    header = files["Operators.h"]
    # Quotes inside a schema are escaped in the C++ string literal.
    assert 'str padding=\\"valid\\"' in header
    functions = _lines(files["Functions.h"])
    assert "inline std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false) {" in functions
    assert "inline std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0) {" in functions
    assert any('IntArrayRef stride = IntArrayRef({1}), const std::string& padding = "valid"' in line
               for line in functions)
    assert any("int64_t reduction = 1, int64_t ignore_index = -100) {" in line for line in functions)
    assert any("double lo = -std::numeric_limits<double>::infinity(), double hi = 1e-05) {" in line
               for line in functions)
    assert (
        "Tensor to_fmt(ScalarType dtype = ScalarType::Long, MemoryFormat memory_format = MemoryFormat::Contiguous, "
        "ArrayRef<double> scale = ArrayRef<double>({1.5, 1.5}), "
        "std::optional<Layout> layout = Layout::Strided) const;"
    ) in _lines(files["TensorMethods.h"])
    lines = _bindings(files)
    assert any(line.endswith('py::arg("dtype") = dtype_object(ScalarType::Long), py::kw_only(), '
                             'py::arg("memory_format") = py::cast(MemoryFormat::Contiguous), '
                             'py::arg("scale") = py::make_tuple(1.5, 1.5), '
                             'py::arg("layout") = py::cast(Layout::Strided));') for line in lines)
    # Note [GIL]: the call runs with the GIL released when a tensor argument is large.
    void_out = ("{ [&] { ReleaseGilIfLong no_gil(self, out); return tl::split_copy_out(out, self, split_size.value, dim.value); }(); "
                "return py::object(py::none()); }")
    assert any(void_out in line for line in lines)
    assert any('named_tuple("max", {"values", "indices"}, [&] { ReleaseGilIfLong no_gil(self); '
               'return tl::max(self, dim.value, keepdim.value); }())' in line for line in lines)
    assert any('py::arg("padding") = py::str("valid")' in line for line in lines)
    assert any('py::arg("reduction") = py::int_(1)' in line for line in lines)
    assert any('py::arg("lo") = py::float_(-std::numeric_limits<double>::infinity())' in line for line in lines)
    nn = [line for line in lines if line.startswith('py::module_ mod = m.attr("_nn")')]
    assert len(nn) == 1
    assert 'm.def_submodule("_nn");' in _lines(files["python_bindings.h"])
    pyi = _lines(files["_C.pyi"])
    assert "def _foreach_add_(self: Sequence[Tensor], scalar: Number) -> None: ..." in pyi
    assert "def max(self, dim: int, keepdim: bool = ...) -> tuple[Tensor, Tensor]: ..." in pyi
    assert "def split(self, split_size: int, dim: int = ...) -> tuple[Tensor, ...]: ..." in pyi


def test_overloads_that_would_be_ambiguous_in_cpp_lose_defaults(tmp_path):
    # all(self) and all.dims(self, dim=None, keepdim=False): the call all(x) would match both.
    yaml_text = textwrap.dedent("""\
        - func: all(Tensor self) -> Tensor
          variants: function, method
          dispatch:
            CPU: all_cpu
        - func: all.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor
          variants: function, method
          dispatch:
            CPU: all_dims_cpu
        """)
    path = tmp_path / "nf.yaml"
    path.write_text(yaml_text)
    generate(load_native_functions(str(path)), str(tmp_path))
    functions = (tmp_path / "generated" / "Functions.h").read_text()
    assert "all(const Tensor& self) {" in functions
    assert "all(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim = false) {" in functions
    methods = (tmp_path / "generated" / "TensorMethods.h").read_text()
    assert "all(std::optional<IntArrayRef> dim, bool keepdim = false) const" in methods


def test_overlap_guard_follows_the_alias_annotations_and_tags():
    from codegen.overlap import overlap_guard

    # Elementwise (pointwise) out= op: inputs are checked against out, read in place when equal.
    g = overlap_guard(parse_schema("mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"),
                      ("pointwise",))
    assert g.statements[0] == "check_written(out);"
    assert "const auto self_copy = copy_if_aliased(self, true, out);" in g.statements
    assert g.call_args == ["self_in", "other_in", "out"]
    # A fill writes one value everywhere: no internal-overlap check.
    g = overlap_guard(parse_schema("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)"), ("fill",))
    assert g.statements == [] and g.call_args == ["self", "value"]
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
    assert g.statements == ["check_written(self);", "check_written(grads);"]
    assert g.call_args == ["self", "grads", "steps"]
    # No written arguments: no guard.
    assert overlap_guard(parse_schema("neg(Tensor self) -> Tensor"), ("pointwise",)).statements == []
