"""Operator docstrings: the `doc:` examples of native_functions.yaml run and print what they
say, and help() shows typed signatures (python_api.docstring)."""

import doctest
from pathlib import Path

import pytest

import torchlite
from codegen.native_functions import load_native_functions

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTED = [f for f in load_native_functions(str(ROOT / "native_functions.yaml")) if f.doc]


def test_some_operators_are_documented():
    assert len(DOCUMENTED) >= 30


@pytest.mark.parametrize("fn", DOCUMENTED, ids=lambda f: str(f.name))
def test_doc_example_runs(fn):
    test = doctest.DocTestParser().get_doctest(fn.doc, {"torchlite": torchlite}, str(fn.name), str(fn.loc), 0)
    assert test.examples, f"{fn.name}: its doc has no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda text: pytest.fail(text))
    assert runner.summarize(verbose=False).failed == 0


def test_help_shows_typed_signatures_then_the_doc():
    doc = torchlite._C.add.__doc__
    lines = doc.splitlines()
    assert lines[0] == "add(input: Tensor, other: Tensor, *, alpha: Number = 1, out: Tensor | None = None) -> Tensor"
    assert lines[1] == "add(input: Tensor, other: Number, alpha: Number = 1, *, out: Tensor | None = None) -> Tensor"
    assert "Adds `other`, scaled by `alpha`" in doc
    assert torchlite.Tensor.add.__doc__.startswith("add(self, other: Tensor, *, alpha: Number = 1) -> Tensor")


def _generated_callables():
    """(name, docstring) of every generated binding: functions of _C and Tensor methods."""
    names = {f.func.name.name for f in load_native_functions(str(ROOT / "native_functions.yaml"))}
    for name in names:
        for owner, label in ((torchlite._C, name), (torchlite._C.Tensor, f"Tensor.{name}")):
            doc = getattr(getattr(owner, name, None), "__doc__", None)
            if isinstance(doc, str) and doc.startswith(f"{name}("):
                yield label, doc


def test_no_signature_reads_object():
    # pybind11's own signatures typed every result `object`; the generated ones name the type.
    docs = dict(_generated_callables())
    assert len(docs) > 500
    assert [n for n, d in docs.items() if "-> object" in d] == []
    assert docs["Tensor.max"].splitlines()[0].endswith("-> Tensor")
    assert "-> tuple[Tensor, Tensor]" in torchlite._C.sort.__doc__
