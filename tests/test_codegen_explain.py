"""Tests of `python -m codegen explain OP` (codegen/explain.py). Pure Python, on the repository's own
YAML files: they check what the explanation means (locations that point at the right lines, names
the generator really uses), not its exact layout."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from codegen.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]


def _explain(op: str, capsys) -> tuple[int, str, str]:
    rc = cli_main(["explain", op])
    out, err = capsys.readouterr()
    return rc, out, err


def _line_at(ref: str) -> str:
    """The text of `path:line` in the repository."""
    path, line = ref.rsplit(":", 1)
    return (ROOT / path).read_text().splitlines()[int(line) - 1]


def _section(out: str, number: int) -> str:
    return re.search(rf"^{number}\. .*?(?=^\d\. |\Z)", out, re.S | re.M).group(0)


def test_add_tensor(capsys):
    rc, out, err = _explain("add.Tensor", capsys)
    assert rc == 0 and err == ""
    yaml_part = _section(out, 1)
    assert "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in yaml_part
    ref = re.search(r"native_functions\.yaml:\d+", yaml_part).group(0)
    assert "func: add.Tensor(" in _line_at(ref)

    cpp = _section(out, 2)
    assert re.search(r"^  Tensor tl::add\(const Tensor& self, const Tensor& other, const Scalar& alpha = ", cpp, re.M)
    assert re.search(r"^  Tensor Tensor::add\(const Tensor& other, .*\) const;", cpp, re.M)

    # add.Tensor delegates to add.out, whose kernels are shown with the line that defines them.
    dispatch = _section(out, 3)
    assert "structured_delegate add.out" in dispatch
    kernels = re.findall(r"^  (CPU|CUDA): (\w+) .*\n.*\n +defined: +(\S+)$", dispatch, re.M)
    assert [k for k, _, _ in kernels] == ["CPU", "CUDA"]
    for _, kernel, ref in kernels:
        assert ref.startswith("aten/native/")
        assert re.search(rf"\b{kernel}\s*\(", _line_at(ref)), (kernel, ref)

    python = _section(out, 4)
    assert re.search(r"^  torchlite\._C\.add$", python, re.M)
    assert re.search(r"^  torchlite\._C\.Tensor\.add$", python, re.M)
    assert "torchlite._C.Tensor.__add__" in python
    assert "stub: def add(input: Tensor, other: Tensor" in python

    grad = _section(out, 5)
    assert "Node: AddBackward0" in grad
    assert re.search(r"^    self: \S", grad, re.M) and re.search(r"^    other: \S", grad, re.M)
    ref = re.search(r"derivatives\.yaml:\d+", grad).group(0)
    assert "name: add.Tensor(" in _line_at(ref)


def test_base_name_is_the_default_overload(capsys):
    rc, out, _ = _explain("relu", capsys)
    assert rc == 0
    assert "relu(Tensor self) -> Tensor" in _section(out, 1)
    assert "Node: ReluBackward0" in _section(out, 5)


def test_base_name_without_default_overload(capsys):
    rc, out, err = _explain("add", capsys)
    assert rc == 1 and out == ""
    assert "add.Tensor" in err and "add.Scalar" in err


def test_unknown_name_suggests_close_names(capsys):
    rc, out, err = _explain("ad.Tensor", capsys)
    assert rc == 1 and out == ""
    assert "unknown operator 'ad.Tensor'" in err and "add.Tensor" in err


def test_op_without_derivative(capsys):
    # add.out has no entry of its own: out= variants refuse inputs that require grad.
    rc, out, _ = _explain("add.out", capsys)
    assert rc == 0
    grad = _section(out, 5)
    assert "derivatives.yaml entry: none" in grad and "Node:" not in grad
    # Bound only as the out= keyword of the functional overload.
    assert "as the out= keyword of add.Tensor" in _section(out, 4)


def test_device_check(capsys):
    # Note [Device check]: add.out's kernel reads self and other through a TensorIterator; mm's
    # kernel reads every tensor on the device.
    assert "on that device: out; there or a 0-dim CPU tensor: self, other" in _section(_explain("add.out", capsys)[1], 3)
    assert "on that device: self, mat2, out; there or a 0-dim CPU tensor: -" in _section(
        _explain("mm.out", capsys)[1], 3)


def test_inplace_reuses_functional_entry(capsys):
    rc, out, _ = _explain("add_.Tensor", capsys)
    assert rc == 0
    grad = _section(out, 5)
    assert "that of add.Tensor" in grad and "Node: AddBackward0" in grad


def test_composite_op(capsys):
    rc, out, _ = _explain("add.Scalar", capsys)
    assert rc == 0
    assert "CompositeImplicitAutograd: add " in _section(out, 3)
    assert "no Node of its own" in _section(out, 5)


def test_cli_subprocess():
    r = subprocess.run([sys.executable, "-m", "codegen", "explain", "relu"], check=False, cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("relu, from YAML to kernel")
    r = subprocess.run([sys.executable, "-m", "codegen", "explain", "--help"], check=False, cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "OP" in r.stdout
