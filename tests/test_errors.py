"""Exceptions as PyTorch raises them: every sample of tests/opinfo/errors.py.

torchlite must raise the sample's type with a message starting with its `match`; with PyTorch
installed, torch must too (so the registry stays true to PyTorch). Principle 10 of DESIGN.md.
"""

import pytest
from opinfo.errors import ERRORS

import torchlite

IDS = [s.desc for s in ERRORS]


def _raised(sample, lib):
    with pytest.raises(BaseException) as info:
        sample.fn(lib)
    return info.value


def _check(sample, lib):
    e = _raised(sample, lib)
    name = lib.__name__
    assert type(e) is sample.exc, f"{name}: {type(e).__name__}: {e}"
    assert str(e).startswith(sample.match), f"{name}: {str(e)!r} does not start with {sample.match!r}"


def test_registry_is_big_enough():
    assert len(ERRORS) >= 60
    assert len(set(IDS)) == len(IDS), "error sample descriptions must be unique"


@pytest.mark.parametrize("sample", ERRORS, ids=IDS)
def test_torchlite_error(sample):
    _check(sample, torchlite)


@pytest.mark.parametrize("sample", ERRORS, ids=IDS)
def test_pytorch_error(sample):
    torch = pytest.importorskip("torch")
    _check(sample, torch)


def test_argument_error_lists_overloads():
    with pytest.raises(TypeError) as info:
        torchlite.sum(torchlite.ones(3), "a")
    lines = str(info.value).splitlines()
    assert lines[1:] and all(line.startswith(" * (") for line in lines[1:])
    assert any("tuple of ints dim" in line for line in lines[1:])


def test_argument_error_keeps_working_calls():
    # The catch-all overload must not catch calls a real overload takes only with conversion.
    t = torchlite.ones(3)
    assert torchlite.add(t, 1).tolist() == [2.0] * 3
    assert t.add(True).tolist() == [2.0] * 3
    assert torchlite.nn.functional.leaky_relu(-t, 0).tolist() == [0.0] * 3
    assert torchlite.empty(3).uniform_(2, 2).tolist() == [2.0] * 3  # ints for float parameters
    assert t.view(3, 1).shape == (3, 1)
    assert (t == None) is False  # noqa: E711 (binary operators return NotImplemented)
