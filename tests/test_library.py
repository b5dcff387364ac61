"""torchlite.library: operators defined from Python, side by side with torch.library."""

import contextlib
import itertools

import numpy as np
import pytest

import torchlite as tl
from torchlite import library

torch = pytest.importorskip("torch")

_counter = itertools.count()


@pytest.fixture
def ns():
    """A fresh namespace per test (operators live as long as the process, as in PyTorch)."""
    return f"tltest{next(_counter)}"


def _custom_scale(name):
    @library.custom_op(name, mutates_args=())
    def scale(x: tl.Tensor, factor: float, bias: tl.Tensor | None = None) -> tl.Tensor:
        out = x.detach() * factor  # kernels compute; autograd comes from the formula below
        return out if bias is None else out + bias.detach()

    @scale.register_fake
    def _(x, factor, bias=None):
        return x.new_empty(x.shape)

    def setup_context(ctx, inputs, output):
        ctx.factor = inputs[1]
        ctx.has_bias = inputs[2] is not None

    def backward(ctx, grad):
        return grad * ctx.factor, None, grad if ctx.has_bias else None

    scale.register_autograd(backward, setup_context=setup_context)
    return scale


def test_custom_op_values_and_gradients_match_pytorch(ns):
    # PyTorch's reference is the same computation in plain ops (calling a torch.library custom op
    # the first time costs PyTorch tens of seconds of imports)
    scale = _custom_scale(f"{ns}::scale")
    data, bias = np.arange(6.0).reshape(2, 3), np.ones(3)
    xt, bt = tl.tensor(data, requires_grad=True), tl.tensor(bias, requires_grad=True)
    xr, br = torch.tensor(data, requires_grad=True), torch.tensor(bias, requires_grad=True)
    yt, yr = scale(xt, 2.5, bt), xr * 2.5 + br
    np.testing.assert_allclose(yt.tolist(), yr.tolist())
    (yt * yt).sum().backward()
    (yr * yr).sum().backward()
    np.testing.assert_allclose(xt.grad.tolist(), xr.grad.tolist())
    np.testing.assert_allclose(bt.grad.tolist(), br.grad.tolist())
    # reachable as torchlite.ops.<ns>.<name>, keyword arguments bound by the schema
    op = getattr(tl.ops, ns).scale
    assert op.default(xt, factor=1.0).tolist() == data.tolist()
    assert tl.autograd.gradcheck(lambda x: op(x, 3.0), (tl.rand(3, dtype=tl.float64, requires_grad=True),))
    fake = op.default._fake(xt, 2.0)
    assert fake.shape == yt.shape and fake.dtype == yt.dtype
    with pytest.raises(RuntimeError, match="already has a fake implementation"):
        library.register_fake(op, lambda x, factor, bias=None: x, allow_override=False)


def test_inferred_schema_matches_pytorch():
    def f(x: tl.Tensor, ys: list[tl.Tensor], n: int, eps: float = 1e-5, *, flag: bool = False) -> tl.Tensor:
        raise NotImplementedError

    def g(x: torch.Tensor, ys: list[torch.Tensor], n: int, eps: float = 1e-5, *, flag: bool = False) -> torch.Tensor:
        raise NotImplementedError

    assert library.infer_schema(f, mutates_args=()) == torch.library.infer_schema(g, mutates_args=())

    def h(out: tl.Tensor, src: tl.Tensor) -> None:
        raise NotImplementedError

    def k(out: torch.Tensor, src: torch.Tensor) -> None:
        raise NotImplementedError

    assert library.infer_schema(h, mutates_args={"out"}) == torch.library.infer_schema(k, mutates_args={"out"})
    with pytest.raises(ValueError, match="were not found in the custom op's signature"):
        library.infer_schema(h, mutates_args={"nope"})
    with pytest.raises(ValueError, match="must have a type annotation"):
        library.infer_schema(lambda x: x, mutates_args=())


def test_library_define_impl_per_device_and_errors(ns):
    lib = library.Library(ns, "DEF")
    assert lib.define("mul3(Tensor self, *, Scalar alpha=1) -> Tensor") == "mul3"
    lib.define("mul3.twice(Tensor self) -> Tensor")
    lib.impl("mul3", lambda x, alpha: x * 3 * alpha, "CPU")
    lib.impl("mul3.twice", lambda x: x * 6, "CompositeImplicitAutograd")
    op = getattr(tl.ops, ns).mul3
    assert op(tl.ones(2), alpha=2).tolist() == [6, 6]
    assert op.twice(tl.ones(1)).tolist() == [6]
    assert sorted(op.overloads()) == ["default", "twice"]
    # the implicit-autograd kernel is traced; a CPU kernel without a formula refuses backward
    x = tl.ones(2, requires_grad=True)
    op.twice(x).sum().backward()
    assert x.grad.tolist() == [6, 6]
    with pytest.raises(RuntimeError, match="Autograd has not been implemented for operator"):
        op(x).sum().backward()
    with pytest.raises(RuntimeError, match="already a kernel registered"):
        lib.impl("mul3", lambda x, alpha: x, "CPU", allow_override=False)
    with pytest.raises(RuntimeError, match="same name and overload name multiple times"):
        lib.define("mul3(Tensor self) -> Tensor")
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
        library.Library(ns, "DEF")
    with pytest.raises(RuntimeError, match="invalid schema .*unknown type 'Tensr'"):
        lib.define("bad(Tensr x) -> Tensor")
    with pytest.raises(ValueError, match="Unsupported kind"):
        library.Library(ns, "NOPE")
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        op(tl.ones(1), beta=1)
    lib._destroy()  # the registrations go with their Library
    with pytest.raises(AttributeError):
        getattr(tl.ops, ns).mul3


def test_missing_kernel_and_functional_registration(ns):
    library.define(f"{ns}::plus", "(Tensor x, Tensor y) -> Tensor")
    with pytest.raises(NotImplementedError, match="Could not run .* 'CPU' backend"):
        getattr(tl.ops, ns).plus(tl.ones(1), tl.ones(1))

    @library.impl(f"{ns}::plus", "cpu")
    def plus(x, y):
        return x + y

    library.register_autograd(f"{ns}::plus", lambda ctx, g: (g, g))
    a, b = tl.ones(2, requires_grad=True), tl.ones(2, requires_grad=True)
    getattr(tl.ops, ns).plus(a, b).sum().backward()
    assert a.grad.tolist() == b.grad.tolist() == [1, 1]
    assert library.get_kernel(f"{ns}::plus", "CPU") is plus


def test_describe_and_call_hook(ns):
    scale = _custom_scale(f"{ns}::scale")
    text = library.describe(f"{ns}::scale")
    assert f"schema:   {ns}::scale(Tensor x, float factor, Tensor? bias=None) -> Tensor" in text
    assert "CompositeExplicitAutograd" in text and "test_library.py:" in text
    assert "autograd: backward" in text and "fake:" in text
    calls = []

    @contextlib.contextmanager
    def hook(name, args, kwargs):
        calls.append(name)
        yield

    library._op_call_hooks.append(hook)
    try:
        scale(tl.ones(1), 2.0)
    finally:
        library._op_call_hooks.remove(hook)
    assert calls == [f"{ns}::scale"]


def test_ops_aten_reaches_builtin_ops():
    a, b = tl.tensor([1.0, 2.0]), tl.tensor([3.0, 4.0])
    assert tl.ops.aten.add.Tensor(a, b).tolist() == torch.ops.aten.add.Tensor(torch.tensor([1.0, 2.0]),
                                                                              torch.tensor([3.0, 4.0])).tolist()
    assert tl.ops.aten.mul(a, 2).tolist() == [2, 4]
    with pytest.raises(AttributeError):
        tl.ops.aten.not_an_op


def test_keyword_only_arguments_reach_the_kernel_by_name(ns):
    @library.custom_op(f"{ns}::shift", mutates_args=())
    def shift(x: tl.Tensor, *, by: float = 1.0) -> tl.Tensor:
        return x.detach() + by

    shift.register_autograd(lambda ctx, g: (g, None))
    x = tl.zeros(2, requires_grad=True)
    assert shift(x.detach()).tolist() == [1, 1]
    y = shift(x, by=2.0)
    y.sum().backward()
    assert y.tolist() == [2, 2] and x.grad.tolist() == [1, 1]
