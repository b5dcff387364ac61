"""The generated bindings' argument parser (Note [Argument parser] in
torchlite/csrc/python_arg_parser.h): which overload a call resolves to, keywords, *args, defaults,
and what a call that no overload takes raises, against PyTorch."""

import inspect

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


def _value(r):
    return r.tolist() if hasattr(r, "tolist") else r


# Calls both libraries resolve to the same overload with the same result.
CALLS = {
    "Tensor other": lambda lib: lib.add(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])),
    "Number other": lambda lib: lib.add(lib.tensor([1, 2]), 2),
    "float other of an int tensor": lambda lib: lib.add(lib.tensor([1, 2]), 2.5),
    "bool Number": lambda lib: lib.tensor([1.0, 2.0]).mul(True),
    "keyword-only default overridden": lambda lib: lib.add(lib.ones(2), lib.ones(2), alpha=3),
    "every argument by keyword": lambda lib: lib.add(input=lib.ones(2), other=lib.ones(2), alpha=2),
    "keyword of an optional": lambda lib: lib.clamp(lib.tensor([1.0, 5.0]), max=2),
    "int list as a tuple": lambda lib: lib.sum(lib.ones(2, 3), dim=(0, 1), keepdim=True),
    "int list as one int": lambda lib: lib.ones(2, 3).sum(1),
    "named tuple result": lambda lib: lib.max(lib.tensor([1.0, 3.0, 2.0]), 0).indices,
    "Tensor list": lambda lib: lib.cat((lib.ones(1), lib.zeros(2))),
    "sizes as *args": lambda lib: lib.zeros(2, 3),
    "sizes as *args with a NumPy int": lambda lib: lib.zeros(np.int64(2), 3),
    "sizes as a tuple": lambda lib: lib.zeros((2, 3)),
    "sizes by keyword": lambda lib: lib.zeros(size=(2, 3)),
    "method sizes as *args": lambda lib: lib.ones(4).view(2, 2),
    "method sizes as a tuple": lambda lib: lib.ones(4).view((2, 2)),
    "factory keywords after *args": lambda lib: lib.ones(2, 2, dtype=lib.int64),
    "out=": lambda lib: lib.add(lib.ones(2), 1, out=lib.empty(2)),
}


@pytest.mark.parametrize("name", CALLS)
def test_call_resolves_as_pytorch(name):
    assert _value(CALLS[name](tl)) == _value(CALLS[name](torch))


def test_keyword_names_need_not_be_interned():
    # A keyword built at run time is another string object than the table's interned name.
    alpha = "".join(["al", "pha"])
    assert tl.add(tl.ones(2), tl.ones(2), **{alpha: 3}).tolist() == [4.0, 4.0]


# Calls that no overload takes: the same exception and first line as PyTorch.
ERRORS = {
    "unknown keyword": lambda lib: lib.add(lib.ones(2), lib.ones(2), alpah=2),
    "wrong type, one overload": lambda lib: lib.relu("x"),
    "float for an int": lambda lib: lib.ones(2, 2).sum(1.0),
    "missing argument": lambda lib: lib.relu(),
    "too many positional": lambda lib: lib.relu(lib.ones(2), lib.ones(2)),
    "Tensor for a Tensor list": lambda lib: lib.cat(lib.ones(2, 1)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_matches_pytorch(name):
    with pytest.raises(TypeError) as ours:
        ERRORS[name](tl)
    with pytest.raises(TypeError) as theirs:
        ERRORS[name](torch)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_keyword_given_by_position_too_is_not_taken():
    with pytest.raises(TypeError, match=r"^add\(\) received an invalid combination of arguments"):
        tl.add(tl.ones(2), tl.ones(2), input=tl.ones(2))


def test_binary_operator_slot_returns_not_implemented():
    x = tl.ones(2)
    assert x.__add__("a") is NotImplemented
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and 'str'"):
        x + "a"  # noqa: B018


def test_conversion_errors_and_kernel_errors_propagate():
    with pytest.raises(ValueError, match="without overflow"):
        tl.add(tl.ones(2), 2**70)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\)"):
        tl.add(tl.ones(2), tl.ones(3))


def test_bindings_are_builtin_functions_with_their_signatures():
    assert inspect.isbuiltin(tl._C.add) and tl._C.add.__name__ == "add"
    assert tl._C.add.__doc__.startswith("add(input: Tensor, other: Tensor, *, alpha: Number = 1")
    assert tl._C._nn.linear.__module__ == "torchlite._C._nn"
    assert tl.Tensor.add.__doc__.startswith("add(self, other: Tensor, *, alpha: Number = 1)")
    assert tl.ones(2).add(1).tolist() == [2.0, 2.0]
