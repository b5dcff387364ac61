"""Autograd: the generated backward nodes, the C++ engine and the Python surface."""

import gc
import weakref

import numpy as np
import pytest

import torchlite as tl
from torchlite.autograd import Function, gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def leaf(values, dtype=tl.float64):
    return tl.tensor(values, dtype=dtype, requires_grad=True)


def np_of(t):
    return t.detach().numpy()


# ---- basics -----------------------------------------------------------------------------

def test_leaf_and_requires_grad():
    x = tl.tensor([1.0, 2.0])
    assert not x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    assert x.requires_grad_() is x and x.requires_grad and x.is_leaf
    x.requires_grad = False
    assert not x.requires_grad
    y = leaf([1.0, 2.0]) + 1.0
    assert y.requires_grad and not y.is_leaf
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        tl.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        tl.tensor([1, 2]).requires_grad_()


def test_repr_shows_autograd_state():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x + x) == "tensor([2., 4.], grad_fn=<AddBackward0>)"


def test_grad_fn_name_next_functions_and_saved():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([[1.0, 2.0, 3.0]])
    y = tl.add(x, w, alpha=2)
    fn = y.grad_fn
    assert fn.name() == "AddBackward0" and type(fn).__name__ == "AddBackward0"
    (a, na), (b, nb) = fn.next_functions
    assert a.name() == "torch::autograd::AccumulateGrad" and a.variable is x and na == 0
    assert b.variable is w and nb == 0
    assert fn._saved_alpha == 2
    assert fn._saved_self_sym_sizes == (3,) and fn._saved_other_sym_sizes == (1, 3)
    s = y.select(1, 2)
    assert s.grad_fn.name() == "SelectBackward0"
    assert s.grad_fn._saved_dim == 1 and s.grad_fn._saved_index == 2
    assert s.grad_fn.next_functions[0][0] is fn
    v = y.unsqueeze(0).view(3).slice(0, 1)
    assert [v.grad_fn.name(), v.grad_fn.next_functions[0][0].name()] == ["SliceBackward0", "ViewBackward0"]
    assert y.clone().grad_fn.name() == "CloneBackward0"


def test_chain_of_adds_and_views_matches_expected():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = leaf([10.0, 20.0, 30.0])
    y = tl.add(x, b)                     # broadcast: b's gradient is summed over dim 0
    z = y.select(0, 1).add(y.slice(1, 0, 2).contiguous().view(4).slice(0, 0, 3), alpha=3)
    z.backward(tl.tensor([1.0, 1.0, 1.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(x.grad), [[3.0, 3.0, 0.0], [4.0, 1.0, 1.0]])
    np.testing.assert_allclose(np_of(b.grad), [7.0, 4.0, 1.0])


def test_gradient_accumulates_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x + x).backward(tl.tensor([1.0, 1.0], dtype=tl.float64))
    g = x.grad
    (x + 1.0).backward(tl.tensor([1.0, 3.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(x.grad), [3.0, 5.0])
    assert x.grad is g  # accumulated in place, as PyTorch does outside create_graph
    x.grad = None
    x.select(0, 1).backward()
    np.testing.assert_allclose(np_of(x.grad), [0.0, 1.0])


def test_linear_weight_gradient_is_kept_without_a_copy():
    # mm's backward forms a transposed operand's gradient (linear's weight.t()) in that layout, so
    # AccumulateGrad keeps it as the weight's .grad; a view whose base nobody else holds counts
    lin = tl.nn.Linear(5, 7)
    x = tl.randn(3, 5)
    seen = []
    lin.weight.register_hook(lambda g: seen.append((g.data_ptr(), g.stride())))
    lin(x).sum().backward()
    assert seen == [(lin.weight.grad.data_ptr(), (5, 1))]
    np.testing.assert_allclose(np_of(lin.weight.grad), np.tile(np_of(x).sum(0), (7, 1)), rtol=1e-5)
    shared = tl.randn(7, 5)
    w = tl.randn(7, 5, requires_grad=True)
    w.backward(shared)  # the gradient is `shared` itself, which the caller holds: copied
    assert w.grad.data_ptr() != shared.data_ptr() and tl.equal(w.grad, shared)


def test_backward_errors():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x + x).backward()
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        tl.tensor([1.0]).backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x + x).backward(tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64))
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=\.\.\. arguments don't support automatic"):
        tl.add(x, x, out=tl.empty(2, dtype=tl.float64))


def test_integer_outputs_never_require_grad():
    x = leaf([1.5, 2.5])
    i = x.to(tl.int64)
    assert not i.requires_grad and i.grad_fn is None
    f = x.to(tl.float32)
    assert f.requires_grad and f.grad_fn.name() == "CopyBackward0"
    f.select(0, 0).backward()
    assert x.grad.dtype == tl.float64
    np.testing.assert_allclose(np_of(x.grad), [1.0, 0.0])


# ---- grad mode ----------------------------------------------------------------------------

def test_no_grad_enable_grad_set_grad_enabled():
    x = leaf([1.0])
    with tl.no_grad():
        assert not tl.is_grad_enabled()
        y = x + x
        with tl.enable_grad():
            z = x + x
    assert tl.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad

    @tl.no_grad()
    def f(a):
        return a + a

    assert not f(x).requires_grad

    @tl.no_grad
    def f2(a):
        return a + a

    assert not f2(x).requires_grad and f2.__name__ == "f2"
    tl.set_grad_enabled(False)
    assert not (x + x).requires_grad
    tl.set_grad_enabled(True)
    with tl.set_grad_enabled(False):
        assert not (x + x).requires_grad
    assert tl.is_grad_enabled()
    with tl.inference_mode():
        assert tl.is_inference_mode_enabled() and not (x + x).requires_grad
    assert not tl.is_inference_mode_enabled()


def test_detach_and_data():
    x = leaf([1.0, 2.0])
    y = x + x
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d._shares_storage(y)
    assert not x.data.requires_grad
    y.detach_()
    assert not y.requires_grad and y.grad_fn is None


# ---- in-place ops -----------------------------------------------------------------------------

def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x.select(0, 0).add_(1.0)
    with tl.no_grad():
        x.add_(1.0)  # allowed: how optimizers update parameters
    np.testing.assert_allclose(np_of(x), [2.0, 3.0])
    assert x._version == 1


def test_inplace_records_history():
    x = leaf([1.0, 2.0])
    y = x.clone()
    v = y._version
    y.add_(x, alpha=2)
    assert y.grad_fn.name() == "AddBackward0" and y._version == v + 1
    y.backward(tl.tensor([1.0, 1.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(x.grad), [3.0, 3.0])
    # in-place on a fresh tensor that did not require grad
    a = tl.tensor([0.0, 0.0], dtype=tl.float64)
    a.copy_(x)
    assert a.requires_grad and a.grad_fn.name() == "CopyBackward0"


class SaveInput(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g.add(x, alpha=0)


def test_modified_saved_tensor_raises():
    x = leaf([1.0, 2.0, 3.0], dtype=tl.float32)
    a = x.clone()
    y = SaveInput.apply(a)
    v = a._version
    a.add_(1.0)
    msg = (r"one of the variables needed for gradient computation has been modified by an inplace operation: "
           r"\[torchlite.FloatTensor \[3\]\], which is output 0 of CloneBackward0, is at version "
           rf"{v + 1}; expected version {v} ")
    with pytest.raises(RuntimeError, match=msg):
        y.backward(tl.tensor([1.0, 1.0, 1.0]))


def test_backward_twice_needs_retain_graph():
    x = leaf([1.0, 2.0])
    y = SaveInput.apply(x + 1.0)
    g = tl.tensor([1.0, 1.0], dtype=tl.float64)
    y.backward(g, retain_graph=True)
    y.backward(g)
    np.testing.assert_allclose(np_of(x.grad), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward(g)


# ---- hooks ------------------------------------------------------------------------------------

def test_tensor_hooks_and_retain_grad():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: g.add(g))  # doubles the leaf's gradient
    y = x + 1.0
    y.register_hook(lambda g: seen.append(np_of(g).copy()))
    y.retain_grad()
    assert y.retains_grad
    y.backward(tl.tensor([1.0, 3.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(x.grad), [2.0, 6.0])
    np.testing.assert_allclose(np_of(y.grad), [1.0, 3.0])
    np.testing.assert_allclose(seen[0], [1.0, 3.0])
    h.remove()
    x.grad = None
    (x + 1.0).backward(tl.tensor([1.0, 1.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(x.grad), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        tl.tensor([1.0]).register_hook(lambda g: g)


def test_node_hooks():
    x = leaf([1.0, 2.0])
    y = x + x
    calls = []
    y.grad_fn.register_prehook(lambda gout: calls.append("pre"))
    y.grad_fn.register_hook(lambda gin, gout: calls.append(("post", len(gin), len(gout))))
    y.backward(tl.tensor([1.0, 1.0], dtype=tl.float64))
    assert calls == ["pre", ("post", 2, 1)]


# ---- autograd.grad and backward(inputs=) ----------------------------------------------------

def test_autograd_grad():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = tl.add(x, w, alpha=5)
    gx, gw = tl.autograd.grad(y, (x, w), tl.tensor([1.0, 2.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(gx), [1.0, 2.0])
    np.testing.assert_allclose(np_of(gw), [5.0, 10.0])
    assert x.grad is None and w.grad is None  # grad() does not accumulate
    u = leaf([1.0, 1.0])
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        tl.autograd.grad(x + 1.0, (x, u), tl.tensor([1.0, 1.0], dtype=tl.float64))
    gx, gu = tl.autograd.grad(x + 1.0, (x, u), tl.tensor([1.0, 1.0], dtype=tl.float64), allow_unused=True)
    assert gu is None
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        tl.autograd.grad(x.select(0, 0), tl.tensor([1.0]))


def test_backward_inputs():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    h = x + w
    y = h + h
    y.backward(tl.tensor([1.0, 1.0], dtype=tl.float64), inputs=[x, h])
    np.testing.assert_allclose(np_of(x.grad), [2.0, 2.0])
    np.testing.assert_allclose(np_of(h.grad), [2.0, 2.0])
    assert w.grad is None


def test_graph_is_freed():
    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.clone()
            ctx.save_for_backward(x, y)  # a saved output: must not form a cycle
            return y

        @staticmethod
        def backward(ctx, g):
            return g

    x = leaf([1.0, 2.0])
    y = Keep.apply(x + 1.0)
    z = y.select(0, 0)
    ctx_ref = weakref.ref(y.grad_fn._ctx)
    z.backward()
    del y, z
    gc.collect()
    assert ctx_ref() is None


# ---- custom Function --------------------------------------------------------------------------

class Double(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x.add(x, alpha=k - 1)

    @staticmethod
    def backward(ctx, g):
        assert ctx.needs_input_grad == (True, False)
        return g.add(g, alpha=ctx.k - 1), None


def test_custom_function():
    x = leaf([1.0, 2.0])
    y = Double.apply(x, 3)
    assert y.grad_fn.name() == "DoubleBackward"
    np.testing.assert_allclose(np_of(y), [3.0, 6.0])
    y.backward(tl.tensor([1.0, 1.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(x.grad), [3.0, 3.0])
    with tl.no_grad():
        assert not Double.apply(x, 3).requires_grad
    assert gradcheck(lambda a: Double.apply(a, 2), (leaf([1.0, 2.0]),))


def test_custom_function_higher_order():
    # backward is written with differentiable ops, so its result has a graph of its own.
    x = leaf([1.0, 2.0])
    go = leaf([1.0, 1.0])
    (gx,) = tl.autograd.grad(Double.apply(x, 3), x, go, create_graph=True)
    assert gx.requires_grad and gx.grad_fn is not None
    (ggo,) = tl.autograd.grad(gx, go, tl.tensor([1.0, 2.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(ggo), [3.0, 6.0])
    assert gradgradcheck(lambda a: Double.apply(a, 2), (leaf([1.0, 2.0]),))


def test_custom_function_ctx_features():
    class Fancy(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            aux = x.detach().clone()
            ctx.mark_non_differentiable(aux)
            return x.clone(), aux

        @staticmethod
        def backward(ctx, g, g_aux):
            assert g_aux is None
            return g

    x = leaf([1.0, 2.0])
    y, aux = Fancy.apply(x)
    assert y.requires_grad and not aux.requires_grad
    y.select(0, 1).backward()
    np.testing.assert_allclose(np_of(x.grad), [0.0, 1.0])

    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = leaf([1.0, 2.0]).clone()
    b = AddOneInPlace.apply(a)
    assert b is a and a.grad_fn.name() == "AddOneInPlaceBackward"


# ---- gradcheck on every differentiable op of this branch --------------------------------------

def _t(shape, seed=0):
    rng = np.random.default_rng(seed)
    return tl.tensor(rng.standard_normal(shape), dtype=tl.float64, requires_grad=True)


# Per-operator gradients are checked for every op by the registry (tests/test_ops.py); these
# are compositions the registry does not express: in-place ops inside a graph, chains.
OPS = {
    "view_noncontig": (lambda a: a.slice(1, 0, 3).view(-1), [(1, 4)]),
    "copy_": (lambda a, b: a.clone().copy_(b), [(2, 3), (3,)]),
    "inplace_add": (lambda a, b: a.clone().add_(b, alpha=-2), [(2, 3), (2, 3)]),
    "inplace_mul": (lambda a, b: a.clone().mul_(b), [(2, 3), (2, 3)]),
    "mul_relu_chain": (lambda x, w: x.mul(w).relu().add(x.sigmoid()), [(2, 3), (3,)]),
    "floor_plus_self": (lambda a: a.floor().add(a), [(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradcheck(name):
    fn, shapes = OPS[name]
    inputs = tuple(_t(s, i) for i, s in enumerate(shapes))
    assert gradcheck(fn, inputs, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, inputs)


def test_mul_relu_sum_backward_matches_torch():
    rng = np.random.default_rng(3)
    xa, wa = rng.standard_normal((4, 3)), rng.standard_normal((3,))
    x, w = tl.tensor(xa, requires_grad=True), tl.tensor(wa, requires_grad=True)
    y = (x * w).relu().sum()
    y.backward()
    assert y.grad_fn.name() == "SumBackward0"
    if torch is not None:
        xt, wt = torch.tensor(xa, requires_grad=True), torch.tensor(wa, requires_grad=True)
        (xt * wt).relu().sum().backward()
        np.testing.assert_allclose(np_of(x.grad), xt.grad.numpy())
        np.testing.assert_allclose(np_of(w.grad), wt.grad.numpy())


def test_gradcheck_detects_a_wrong_gradient():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g.add(g)

    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        gradcheck(Wrong.apply, (_t((2,)),))
    assert not gradcheck(Wrong.apply, (_t((2,)),), raise_exception=False)


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_matches_torch():
    rng = np.random.default_rng(1)
    xa, ba, ga = rng.standard_normal((3, 4)), rng.standard_normal((4,)), rng.standard_normal((2,))

    def run(lib, x, b, g):
        y = lib.add(x, b, alpha=2.0)
        z = y.unsqueeze(0).view(12)[2:8:3].add(y.select(1, 3)[1:], alpha=-1)
        z.backward(g)
        return x.grad, b.grad

    tx, tb = run(tl, tl.tensor(xa, requires_grad=True), tl.tensor(ba, requires_grad=True), tl.tensor(ga))
    rx, rb = run(torch, torch.tensor(xa, requires_grad=True), torch.tensor(ba, requires_grad=True), torch.tensor(ga))
    np.testing.assert_allclose(np_of(tx), rx.numpy())
    np.testing.assert_allclose(np_of(tb), rb.numpy())


# ---- the generator's checks -------------------------------------------------------------------

def _codegen_check(tmp_path, text):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = tmp_path / "derivatives.yaml"
    path.write_text(text)
    return subprocess.run([sys.executable, "-m", "codegen", "--derivatives", str(path), "check"], cwd=root,
                          capture_output=True, text=True, check=False)


def test_codegen_rejects_unknown_argument_and_unknown_op(tmp_path):
    r = _codegen_check(tmp_path, "- name: clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor\n"
                                 "  self: grad\n"
                                 "  selff: grad\n")
    assert r.returncode == 1 and "derivatives.yaml:3:" in r.stderr and "'selff'" in r.stderr
    r = _codegen_check(tmp_path, "- name: clone(Tensor self) -> Tensor\n  self: grad\n")
    assert r.returncode == 1 and "derivatives.yaml:1:" in r.stderr and "matches no operator" in r.stderr
    r = _codegen_check(tmp_path, "- name: select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)\n"
                                 "  dim: grad\n")
    assert r.returncode == 1 and "not a Tensor argument" in r.stderr
    r = _codegen_check(tmp_path, "- name: clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor\n"
                                 "  self: grad\n")
    assert r.returncode == 0, r.stderr


# ---- in-place on views (CopySlices) ---------------------------------------------------------

def test_inplace_on_view_of_non_leaf():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([10.0])
    y = x.clone()
    v = y.slice(0, 1, 3)
    v.add_(w, alpha=2)
    assert y.grad_fn.name() == "CopySlices" and v.grad_fn.name() == "AsStridedBackward0"
    np.testing.assert_allclose(np_of(y), [1.0, 22.0, 23.0])
    g = tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64)
    gx, gw = tl.autograd.grad(y, (x, w), g, retain_graph=True)
    np.testing.assert_allclose(np_of(gx), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(np_of(gw), [10.0])
    (gv,) = tl.autograd.grad(v, x, tl.tensor([1.0, 1.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(gv), [0.0, 1.0, 1.0])


def test_copy_into_view_of_non_leaf():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([5.0, 6.0])
    y = x.clone()
    y.slice(0, 0, 2).copy_(w)
    y.backward(tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64))
    np.testing.assert_allclose(np_of(x.grad), [0.0, 0.0, 3.0])
    np.testing.assert_allclose(np_of(w.grad), [1.0, 2.0])


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_setitem_on_non_leaf_matches_torch():
    rng = np.random.default_rng(2)
    xa, wa, ga = rng.standard_normal((3, 4)), rng.standard_normal((4,)), rng.standard_normal((3, 4))

    def run(lib, x, w, g):
        y = x.clone()
        y[1] = w
        y[0, 1:3] += w[2:]
        y.backward(g)
        return x.grad, w.grad

    tx, tw = run(tl, tl.tensor(xa, requires_grad=True), tl.tensor(wa, requires_grad=True), tl.tensor(ga))
    rx, rw = run(torch, torch.tensor(xa, requires_grad=True), torch.tensor(wa, requires_grad=True), torch.tensor(ga))
    np.testing.assert_allclose(np_of(tx), rx.numpy())
    np.testing.assert_allclose(np_of(tw), rw.numpy())


def test_generated_graph_is_freed():
    class Sentinel:
        pass

    x = leaf([1.0, 2.0, 3.0])
    y = tl.add(x, x).view(3, 1).select(1, 0)
    sentinels = [Sentinel(), Sentinel()]
    refs = [weakref.ref(s) for s in sentinels]
    # The hooks' closures live as long as the C++ nodes do.
    y.grad_fn.register_prehook(lambda g, s=sentinels[0]: None)
    y.grad_fn.next_functions[0][0].next_functions[0][0].register_prehook(lambda g, s=sentinels[1]: None)
    del sentinels
    y.backward(tl.tensor([1.0, 1.0, 1.0], dtype=tl.float64))
    gc.collect()
    assert all(r() is not None for r in refs)
    del y
    gc.collect()
    assert all(r() is None for r in refs)


def test_factory_functions_take_requires_grad():
    for t in (tl.zeros(2, 3, requires_grad=True), tl.ones((2,), dtype=tl.float64, requires_grad=True),
              tl.full((2,), 3.0, requires_grad=True), tl.randn(2, requires_grad=True),
              tl.arange(3.0, requires_grad=True), tl.zeros_like(tl.ones(2), requires_grad=True),
              tl.ones(2).new_zeros(3, requires_grad=True)):
        assert t.requires_grad and t.is_leaf and t.grad_fn is None
    assert not tl.zeros(2).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        tl.zeros(2, dtype=tl.int64, requires_grad=True)


def test_inplace_comparison_on_float_tensor_gives_zero_gradients():
    a = tl.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = tl.tensor([0.5], requires_grad=True)
    x = a * 2
    x.gt_(b)
    assert x.grad_fn.name() == "GtBackward1"
    x.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0] and b.grad.tolist() == [0.0]


def test_inplace_through_view_of_plain_tensor_records_history():
    g = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    buf = tl.zeros(5)
    view = buf[1:4]  # created while nothing requires grad
    view.copy_(g * 2)
    assert buf.requires_grad and buf.grad_fn.name() == "CopySlices"
    (buf * tl.arange(5.0)).sum().backward()
    assert g.grad.tolist() == [2.0, 4.0, 6.0]
