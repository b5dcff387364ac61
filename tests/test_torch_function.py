"""The __torch_function__ protocol (torchlite.overrides), against PyTorch's behaviour.

Most tests run the same code on both libraries (the `lib` fixture) and compare what comes out:
the examples of PyTorch's "Extending torch with a Tensor-like type" and "Subclassing
torch.Tensor" notes, dispatch order, error messages and the has_torch_function checks.
"""

import importlib
import sys

import numpy as np

import pytest

import torchlite as tl
import torchlite.nn.functional as TF
from torchlite.overrides import (BaseTorchFunctionMode, TorchFunctionMode, get_ignored_functions,
                                 get_overridable_functions, get_testing_overrides, handle_torch_function,
                                 has_torch_function_unary, has_torch_function_variadic, is_tensor_like, resolve_name,
                                 wrap_torch_function)

torch = pytest.importorskip("torch")


@pytest.fixture(params=["torchlite", "torch"])
def lib(request):
    return importlib.import_module(request.param)


# ---- a Tensor-like duck type (the "Extending torch" example) -------------------------------


def scalar_tensor_type(lib):
    """ScalarTensor: an N x N diagonal matrix of one value, implementing a few functions."""
    handled = {}

    class ScalarTensor:
        def __init__(self, n, value):
            self._n, self._value = n, value

        def tensor(self):
            return self._value * lib.eye(self._n)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func not in handled or not all(issubclass(t, (lib.Tensor, ScalarTensor)) for t in types):
                return NotImplemented
            return handled[func](*args, **(kwargs or {}))

    def implements(func):
        def register(f):
            handled[func] = f
            return f
        return register

    def ensure_tensor(x):
        return x.tensor() if isinstance(x, ScalarTensor) else x

    @implements(lib.mean)
    def mean(input):
        return float(input._value) / input._n

    @implements(lib.add)
    def add(input, other):
        if isinstance(input, ScalarTensor) and isinstance(other, ScalarTensor) and input._n == other._n:
            return ScalarTensor(input._n, input._value + other._value)
        return lib.add(ensure_tensor(input), ensure_tensor(other))

    @implements(lib.nn.functional.relu)
    def relu(input, inplace=False):
        return ScalarTensor(input._n, max(input._value, 0))

    return ScalarTensor


def test_duck_type_handles_what_it_implements(lib):
    ScalarTensor = scalar_tensor_type(lib)
    s = ScalarTensor(5, 2)
    assert lib.mean(s) == 0.4
    both = lib.add(s, ScalarTensor(5, 3))
    assert (type(both).__name__, both._value) == ("ScalarTensor", 5)
    mixed = lib.add(s, lib.ones(5, 5))
    np.testing.assert_allclose(np.asarray(mixed.tolist()), 2 * np.eye(5) + 1)
    assert lib.nn.functional.relu(ScalarTensor(2, -1))._value == 0


def test_duck_type_unhandled_function_message(lib):
    ScalarTensor = scalar_tensor_type(lib)
    s = ScalarTensor(2, 1.0)
    with pytest.raises(TypeError) as mul_error:
        lib.mul(s, 2)
    with pytest.raises(TypeError) as method_error:
        lib.ones(2).add(s)
    for err, name in ((mul_error, "mul"), (method_error, "Tensor.add")):
        assert str(err.value).startswith(
            f"Multiple dispatch failed for '{lib.__name__}.{name}'; all __torch_function__ handlers returned "
            f"NotImplemented:\n\n  - tensor subclass {ScalarTensor!r}\n")
    # Python-level functions word it as torch.overrides.handle_torch_function does.
    with pytest.raises(TypeError, match=r"^no implementation found for '" + lib.__name__
                       + r"\.nn\.functional\.softmax' on types that implement __torch_function__: \[<class"):
        lib.nn.functional.softmax(s, 0)


def test_binary_operator_falls_back_to_python(lib):
    ScalarTensor = scalar_tensor_type(lib)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: 'Tensor' and 'ScalarTensor'"):
        lib.ones(2) * ScalarTensor(2, 1.0)


# ---- subclasses -----------------------------------------------------------------------------


def test_subclass_survives_operations(lib):
    class MyTensor(lib.Tensor):
        pass

    x = lib.arange(6.0).reshape(2, 3).as_subclass(MyTensor)
    t = lib.ones(2, 3)
    results = {"add": x + 1, "radd": 1 + x, "rsub": 1 - x, "function": lib.add(t, x), "matmul": x @ t.T,
               "index": x[0], "slice": x[:, 1:], "method": x.sum(0), "softmax": lib.nn.functional.softmax(x, 1),
               "cat": lib.cat([t, x]), "relu": lib.nn.functional.relu(x)}
    for name, r in results.items():
        assert type(r) is MyTensor, name
    values, indices = x.max(1)
    assert type(values) is MyTensor and type(indices) is MyTensor
    assert type(x.split(1)) is tuple and all(type(p) is MyTensor for p in x.split(1))
    assert x.add_(1) is x
    assert x.size() == (2, 3) and x.dim() == 2
    np.testing.assert_allclose(np.asarray((x * 2).tolist()), 2 * (np.arange(6.0).reshape(2, 3) + 1))


def test_as_subclass_keeps_data_and_graph(lib):
    class MyTensor(lib.Tensor):
        pass

    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.as_subclass(MyTensor)
    assert type(y) is MyTensor and y.requires_grad
    (y * y).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    z = lib.zeros(3)
    w = z.as_subclass(MyTensor)
    w.add_(5)  # same storage
    assert z.tolist() == [5.0, 5.0, 5.0]
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        z.as_subclass(int)


def test_make_subclass_constructor(lib):
    class Wrapped(lib.Tensor):
        @staticmethod
        def __new__(cls, data, tag):
            obj = lib.Tensor._make_subclass(cls, data)
            obj.tag = tag
            return obj

        def __init__(self, data, tag):
            pass

    w = Wrapped(lib.ones(2), "a")
    assert type(w) is Wrapped and w.tag == "a"
    assert type(w + 1) is Wrapped


def test_logging_subclass_sees_each_call(lib):
    seen = []

    class LoggingTensor(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    x = lib.ones(2, 2).as_subclass(LoggingTensor)
    out = lib.matmul(x, x).add(1).sum(0)[1]
    y = x * 2
    lib.nn.functional.relu(y)
    y += 1
    assert type(out) is LoggingTensor
    assert seen == ["matmul", "add", "sum", "__getitem__", "mul", "relu", "add_"]
    seen.clear()
    b = x > 0
    _ = (x == 1, x < 1, x // 2, x % 2, -x, abs(x), b & b, ~b, x / 2, x - 1)
    assert seen == ["gt", "__eq__", "lt", "__floordiv__", "remainder", "neg", "abs", "__and__", "__invert__", "div",
                    "sub"]


def test_parameter_results_are_plain_tensors(lib):
    p = lib.nn.Parameter(lib.ones(2))
    assert type(p * 2) is lib.Tensor and type(lib.add(p, p)) is lib.Tensor and type(p[0]) is lib.Tensor
    with lib.no_grad():
        assert p.add_(1) is p
    assert not lib.overrides.has_torch_function((p,))


def test_disable_torch_function_subclass(lib):
    class MyTensor(lib.Tensor):
        pass

    x = lib.ones(2).as_subclass(MyTensor)
    with lib._C.DisableTorchFunctionSubclass():
        assert type(x + 1) is lib.Tensor
        assert not lib.overrides.has_torch_function_unary(x)
    assert type(x + 1) is MyTensor


# ---- dispatch order -------------------------------------------------------------------------


def test_order_subclasses_first_and_not_implemented_passes_on(lib):
    calls = []

    def handler(name, result):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(name)
            return result
        return __torch_function__

    class Parent:
        __torch_function__ = handler("parent", "parent")

    class Child(Parent):
        __torch_function__ = handler("child", NotImplemented)

    class Other:
        __torch_function__ = handler("other", NotImplemented)

    assert lib.add(Other(), Parent(), alpha=1) == "parent"
    first = list(calls)
    calls.clear()
    assert lib.stack([Parent(), Child(), Other()]) == "parent"
    assert (first, calls) == (["other", "parent"], ["child", "parent"])
    calls.clear()
    with pytest.raises(TypeError, match="Multiple dispatch failed"):
        lib.sub(Child(), Other())
    assert calls == ["child", "other"]


def test_handler_receives_func_types_args_kwargs(lib):
    got = []

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            got.append((func, types, args, kwargs))
            return "handled"

    d, t = Duck(), lib.ones(1)
    assert lib.add(t, d, alpha=2) == "handled"
    assert t.sub(d) == "handled"
    assert lib.nn.functional.layer_norm(d, (3,)) == "handled"
    (f1, types1, args1, kw1), (f2, types2, args2, kw2), (f3, _, args3, _) = got
    assert f1 is lib.add and types1 == (Duck,) and args1 == (t, d) and kw1 == {"alpha": 2}
    assert f2 is lib.Tensor.sub and args2 == (t, d) and not kw2
    assert f3 is lib.nn.functional.layer_norm and args3[:2] == (d, (3,))


# ---- the checks -----------------------------------------------------------------------------


def test_has_torch_function_matches_pytorch():
    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    for lib, ov in ((tl, tl.overrides), (torch, torch.overrides)):
        class Sub(lib.Tensor):
            pass

        t, s, d = lib.ones(1), lib.ones(1).as_subclass(Sub), Duck()
        got = [ov.has_torch_function((t, 1, None)), ov.has_torch_function((t, s)), ov.has_torch_function([d]),
               ov.has_torch_function_unary(t), ov.has_torch_function_unary(s), ov.has_torch_function_variadic(t, 2),
               ov.has_torch_function_variadic(t, d), ov.is_tensor_like(t), ov.is_tensor_like(s),
               ov.is_tensor_like(d), ov.is_tensor_like(1.0)]
        if lib is tl:
            ours = got
        else:
            assert ours == got


def test_modes_see_every_call(lib):
    seen = []

    class Recording(lib.overrides.TorchFunctionMode):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((self.tag, func.__name__))
            return func(*args, **(kwargs or {}))

    with Recording("outer"), Recording("inner"):
        z = lib.zeros(2)
        lib.nn.functional.relu(lib.add(z, 1))
    assert lib.zeros(1).tolist() == [0.0]  # the stack is empty again
    assert seen == [("inner", "zeros"), ("outer", "zeros"), ("inner", "add"), ("outer", "add"),
                    ("inner", "relu"), ("outer", "relu")]
    assert not lib.overrides.has_torch_function(())


def test_torchlite_overrides_helpers():
    calls = []

    @wrap_torch_function(lambda a, b=None: (a, b))
    def twice(a, b=None):
        return a * 2

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func)
            return "duck"

    assert twice(tl.ones(1)).tolist() == [2.0] and twice(1, Duck()) == "duck" and calls == [twice]
    assert handle_torch_function(twice, (Duck(),), Duck()) == "duck"
    declines = type("Declines", (), {"__torch_function__": classmethod(lambda *a: NotImplemented)})()
    with pytest.raises(TypeError, match=r"no implementation found for '.*test_torch_function\.twice' on types "
                       r"that implement __torch_function__: \[<class '.*Declines'>\]"):
        handle_torch_function(twice, (declines,), declines)
    overridable = get_overridable_functions()
    assert tl.add in overridable[tl] and tl.Tensor.add in overridable[tl.Tensor]
    assert TF.relu in overridable[TF] and tl.linalg.det in overridable[tl.linalg] and tl.fft.fft in overridable[tl.fft]
    ignored = get_ignored_functions()
    assert tl.is_tensor in ignored and tl.add not in ignored
    stand_ins = get_testing_overrides()
    assert stand_ins[tl.add](1, 2) == -1 and stand_ins[TF.softmax].__wrapped__ is TF.softmax
    assert (resolve_name(tl.add), resolve_name(tl.Tensor.add), resolve_name(TF.relu)) == (
        "torchlite.add", "torchlite.Tensor.add", "torchlite.nn.functional.relu")
    assert not has_torch_function_unary(tl.ones(1)) and has_torch_function_variadic(1, Duck())
    assert is_tensor_like(Duck()) and not is_tensor_like([tl.ones(1)])
    with BaseTorchFunctionMode():
        assert tl.add(tl.ones(1), 1).tolist() == [2.0]
    assert issubclass(BaseTorchFunctionMode, TorchFunctionMode)


def test_every_routed_binding_dispatches():
    """Every generated binding (and routed hand-bound method) hands a call with an overriding
    argument to its handler, whatever else the call passes."""
    class Recorder:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("recorded", func)

    class RecordingTensor(tl.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("recorded", func)

    r, sub = Recorder(), tl.ones(1).as_subclass(RecordingTensor)
    routed = tl._C._routed_bindings()
    assert len(routed) > 1000
    for func, name in routed:
        method = name.rsplit(".", 1)[1]
        if not name.startswith("torchlite.Tensor."):
            # the public name's current object: set_default_device wraps the factories in Python
            module, _, short = name.rpartition(".")
            public = getattr(sys.modules.get(module), short, None)
            assert func(r) in (("recorded", func), ("recorded", public)), name
            continue
        # Handlers of an operator slot receive its operator's method (x + y: Tensor.add), as in
        # PyTorch (test_logging_subclass_sees_each_call); some methods were replaced by Python ones.
        assert func(r)[0] == "recorded", name
        if getattr(tl.Tensor, method) is func:
            assert getattr(sub, method)()[0] == "recorded", name
    # inside a Tensor[] argument, or passed by keyword
    assert tl.cat([tl.ones(1), r]) == ("recorded", tl.cat)
    assert tl.add(tl.ones(1), other=r) == ("recorded", tl.add)


def test_python_level_functions_check_every_argument_and_stay_functions():
    """torchlite's Python-level functions (F.relu, F.gelu, fft.*) are wrapped by a C callable
    (Note [Overridable Python functions]): it checks positional and keyword arguments and list
    elements, and otherwise behaves as the function it wraps does in PyTorch."""
    import copy
    import inspect
    import pickle
    import weakref

    from torchlite.overrides import _overridable

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("duck", func, args, kwargs)

    d, t = Duck(), tl.ones(2)

    @_overridable
    def combine(tensors, scale=1.0):
        """Sums tensors."""
        return sum(tensors) * scale

    assert combine([t, t], scale=2.0).tolist() == [4.0, 4.0]
    assert combine([t, d]) == ("duck", combine, ([t, d],), {})
    assert combine((t,), scale=d) == ("duck", combine, ((t,),), {"scale": d})
    with tl._C.DisableTorchFunctionSubclass():
        with pytest.raises(TypeError):
            combine([t, d])  # not dispatched: the function itself runs, and cannot add a Duck
    assert (combine.__name__, combine.__doc__, combine.__wrapped__.__name__) == ("combine", "Sums tensors.", "combine")
    assert str(inspect.signature(combine)) == "(tensors, scale=1.0)"
    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    for ours, theirs in ((TF.relu, torch.nn.functional.relu), (TF.normalize, torch.nn.functional.normalize),
                         (tl.tensordot, torch.tensordot)):
        assert params(ours) == params(theirs)
        assert pickle.loads(pickle.dumps(ours)) is ours and copy.deepcopy(ours) is ours
        assert repr(ours).startswith(f"<function {theirs.__name__} at ")
        assert weakref.ref(ours)() is ours and hash(ours) == hash(ours)

    # functions of other modules that PyTorch's counterparts dispatch are wrapped where they are exported
    for f in (tl.numel, tl.is_floating_point, tl.special.ndtr, tl.linalg.norm, tl.hann_window, TF.pdist,
              tl.cosine_similarity):
        assert f(d)[:2] == ("duck", f), f

    class Holder:  # a function stored on a class binds as a method, as plain functions do
        act = TF.relu

    assert Holder.act is TF.relu and Holder().act.__self__.__class__ is Holder
    with pytest.raises(TypeError, match="expected a callable"):
        tl._C._OverridableFunction(3)
