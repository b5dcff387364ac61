"""torchlite.autograd.functional, the Function extras (once_differentiable, mark_dirty,
mark_non_differentiable, set_materialize_grads, save_for_forward, NestedIOFunction) and the
engine switches of torchlite.autograd, against PyTorch on the same programs."""

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


def as_np(x):
    if isinstance(x, (tuple, list)):
        return [as_np(e) for e in x]
    return np.asarray(x.detach().tolist())


def assert_close(a, b):
    if isinstance(b, (tuple, list)):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_close(x, y)
    else:
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(as_np(a), as_np(b), rtol=1e-6, atol=1e-12)


X = [[0.3, -1.2], [0.7, 2.0]]
Y = [0.5, -0.25]


def inputs(lib):
    return lib.tensor(X, dtype=lib.float64), lib.tensor(Y, dtype=lib.float64)


def f_pair(x, y):
    return (x.sin() * y).sum(1), x.exp().sum() * y


def f_scalar(x, y):
    return (x.sin() * y).sum() + (x * x).sum() * y.prod()


def f_single(x):
    return x.tanh() * 2


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_jvp_vhp_hvp(create_graph):
    for name, fn, v in [("vjp", f_pair, lambda lib: (lib.ones(2, dtype=lib.float64), lib.tensor([1.0, -2.0],
                                                                                                 dtype=lib.float64))),
                        ("jvp", f_pair, lambda lib: inputs(lib)),
                        ("vhp", f_scalar, lambda lib: inputs(lib)),
                        ("hvp", f_scalar, lambda lib: inputs(lib))]:
        ours = getattr(tl.autograd.functional, name)(fn, inputs(tl), v(tl), create_graph=create_graph)
        theirs = getattr(torch.autograd.functional, name)(fn, inputs(torch), v(torch), create_graph=create_graph)
        assert_close(ours, theirs)


def test_jacobian_and_hessian_shapes_and_values():
    for kwargs in [{}, {"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}]:
        assert_close(tl.autograd.functional.jacobian(f_pair, inputs(tl), **kwargs),
                     torch.autograd.functional.jacobian(f_pair, inputs(torch), **kwargs))
    assert_close(tl.autograd.functional.jacobian(f_single, inputs(tl)[0]),
                 torch.autograd.functional.jacobian(f_single, inputs(torch)[0]))
    assert_close(tl.autograd.functional.hessian(f_scalar, inputs(tl)),
                 torch.autograd.functional.hessian(f_scalar, inputs(torch)))
    assert_close(tl.autograd.functional.hessian(lambda x: (x ** 3).sum(), inputs(tl)[1], create_graph=True),
                 torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), inputs(torch)[1], create_graph=True))


def test_create_graph_keeps_results_differentiable():
    for lib in (tl, torch):
        x = lib.tensor(Y, dtype=lib.float64, requires_grad=True)
        _, g = lib.autograd.functional.vjp(lambda t: (t ** 3).sum(), x, create_graph=True)
        assert g.requires_grad
        (gg,) = lib.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(as_np(gg), 6 * np.array(Y))
        _, g = lib.autograd.functional.vjp(lambda t: (t ** 3).sum(), x)
        assert not g.requires_grad


def _raises_same(call):
    """call(lib) raises the same exception type and message with both libraries."""
    with pytest.raises(Exception) as ours:
        call(tl)
    with pytest.raises(Exception) as theirs:
        call(torch)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).replace("torchlite.Size", "torch.Size") == str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda lib: lib.autograd.functional.vjp(f_single, [1.0]),
    lambda lib: lib.autograd.functional.vjp(f_single, (inputs(lib)[0], 3)),
    lambda lib: lib.autograd.functional.vjp(f_single, inputs(lib)[0]),
    lambda lib: lib.autograd.functional.vjp(f_single, inputs(lib)[0], lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.autograd.functional.vjp(f_pair, inputs(lib), (lib.ones(2, dtype=lib.float64),)),
    lambda lib: lib.autograd.functional.jvp(f_single, inputs(lib)[0]),
    lambda lib: lib.autograd.functional.vjp(lambda x, y: x.sum(), inputs(lib), strict=True),
    lambda lib: lib.autograd.functional.vjp(lambda x: lib.ones(1, dtype=lib.float64), inputs(lib)[1][:1],
                                            strict=True),
    lambda lib: lib.autograd.functional.jacobian(lambda x, y: x.sum(), inputs(lib), strict=True),
    lambda lib: lib.autograd.functional.jacobian(f_single, inputs(lib)[0], strict=True, vectorize=True),
    lambda lib: lib.autograd.functional.jacobian(f_single, inputs(lib)[0], strategy="sideways"),
    lambda lib: lib.autograd.functional.jacobian(f_single, inputs(lib)[0], strategy="forward-mode"),
    lambda lib: lib.autograd.functional.jacobian(f_single, inputs(lib)[0], strategy="forward-mode",
                                                 create_graph=True),
    lambda lib: lib.autograd.functional.hessian(f_pair, inputs(lib)),
    lambda lib: lib.autograd.functional.hessian(f_single, inputs(lib)[0]),
    lambda lib: lib.autograd.functional.hessian(lambda x: x.sum(), inputs(lib)[1], strict=True),
    lambda lib: lib.autograd.functional.hvp(f_single, inputs(lib)[0], inputs(lib)[0]),
    lambda lib: lib.autograd.functional.vhp(lambda x: (x * 2).sum(), inputs(lib)[1], inputs(lib)[1], strict=True),
])
def test_errors_match_torch(call):
    _raises_same(call)


# ---- Function extras ------------------------------------------------------------------------

def _square_once(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Square


def test_once_differentiable():
    for lib in (tl, torch):
        Square = _square_once(lib)
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        (g,) = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        assert g.tolist() == [2.0, 6.0] and not g.requires_grad  # the incoming gradient needs no grad
        v = lib.ones(2, requires_grad=True)
        (g,) = lib.autograd.grad(Square.apply(x), x, v, create_graph=True)
        assert g.requires_grad and g.tolist() == [2.0, 6.0]
        with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                               "@once_differentiable"):
            g.sum().backward()


def test_function_context_features():
    def run(lib):
        log = []

        class Split(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, scale):
                log.append(ctx.needs_input_grad)
                ctx.set_materialize_grads(False)
                ctx.save_for_forward(x)
                positive = x > 0
                ctx.mark_non_differentiable(positive)
                return x * scale, positive

            @staticmethod
            def backward(ctx, g, g_positive):
                log.append((g is None, g_positive is None))
                return g * 2, None

        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y, positive = Split.apply(x, 3.0)
        log.append(positive.requires_grad)
        y.sum().backward()
        return log, x.grad.tolist()

    assert run(tl) == run(torch)
    for lib in (tl, torch):
        ctx = lib.autograd.function.FunctionCtx()
        with pytest.raises(AssertionError, match="save_for_forward expects all arguments to be tensors"):
            ctx.save_for_forward(1)
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            lib.autograd.Function.jvp(None)


def test_mark_dirty():
    def run(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return 2 * g

        leaf = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            Double.apply(leaf)
        z = leaf.clone()
        w = Double.apply(z)
        assert w is z and w.grad_fn.name() == "DoubleBackward"
        w.sum().backward()
        return leaf.grad.tolist()

    assert run(tl) == run(torch)


def test_nested_io_function():
    class Nested(tl.autograd.function.NestedIOFunction):
        def forward_extended(self, pair, scale):
            a, b = pair
            self.save_for_backward((a, b))
            return (a * b * scale, [a + b])

        def backward_extended(self, g_prod, g_sums):
            ((a, b),) = self.saved_tensors
            return ((g_prod * b * 2 + g_sums[0], g_prod * a * 2 + g_sums[0]), None)

    a = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    b = tl.tensor([3.0, -1.0], dtype=tl.float64, requires_grad=True)
    scale = tl.tensor(2.0, dtype=tl.float64)
    prod, (sums,) = Nested()((a, b), scale)
    assert prod.tolist() == [6.0, -4.0] and sums.tolist() == [4.0, 1.0]
    (prod.sum() + sums.sum()).backward()
    assert a.grad.tolist() == [7.0, -1.0] and b.grad.tolist() == [3.0, 5.0]


# ---- module surface and engine switches -----------------------------------------------------

def test_variable_legacy_class():
    for lib in (tl, torch):
        t = lib.ones(2)
        v = lib.autograd.Variable(t, requires_grad=True)
        assert v is not t and v.requires_grad and not t.requires_grad
        assert isinstance(t, lib.autograd.Variable) and isinstance(t, lib.autograd.variable.Variable)
        assert not isinstance(3, lib.autograd.Variable)
        with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
            lib.autograd.Variable(3)


def test_set_grad_enabled_function_context_and_decorator():
    for lib in (tl, torch):
        lib.autograd.set_grad_enabled(False)
        assert not lib.is_grad_enabled()
        lib.autograd.set_grad_enabled(True)
        with lib.autograd.set_grad_enabled(False):
            assert not lib.is_grad_enabled()
        assert lib.is_grad_enabled()

        @lib.autograd.set_grad_enabled(False)
        def f(lib=lib):
            return lib.is_grad_enabled()

        assert lib.is_grad_enabled() and f() is False and lib.is_grad_enabled()
        with lib.inference_mode():
            assert lib.is_inference_mode_enabled()
        assert not lib.is_inference_mode_enabled()


def test_multithreading_and_view_replay_switches():
    for lib in (tl, torch):
        A = lib.autograd
        assert A.is_multithreading_enabled() and not A.is_view_replay_enabled()
        with A.set_multithreading_enabled(False):
            assert not A.is_multithreading_enabled()
        assert A.is_multithreading_enabled()
        A.set_multithreading_enabled(False)
        assert not A.is_multithreading_enabled()
        A.set_multithreading_enabled(True)

    # As a decorator it applies only inside the call, as set_grad_enabled does (PyTorch 2.13's
    # set_multithreading_enabled leaves the switch off for good).
    @tl.autograd.set_multithreading_enabled(False)
    def inside():
        return tl.autograd.is_multithreading_enabled()

    assert tl.autograd.is_multithreading_enabled() and not inside() and tl.autograd.is_multithreading_enabled()


def test_enforce_grad_layout_policy():
    def strides(lib, enforce):
        p = lib.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
        with lib.autograd.enforce_grad_layout_policy(enforce):
            (p.contiguous() * 2).sum().backward()
        q = lib.empty(2, 3, 4)[:, ::2].requires_grad_()  # not dense: a contiguous grad
        (q.contiguous() * 2).sum().backward()
        return tuple(p.grad.stride()), tuple(q.grad.stride())

    for enforce in (True, False):
        assert strides(tl, enforce) == strides(torch, enforce)
