"""Forward-mode AD (torchlite.autograd.forward_ad): dual tensors, the generated tangent
formulas of derivatives.yaml, and gradcheck(check_forward_ad=True).

Every registry op is run on dual tensors with a random tangent and its tangent compared with
a central finite difference in float64; an op may instead raise PyTorch's "does not support
it" error, except the ones the forward formulas were written for (REQUIRED)."""

import numpy as np
import pytest

import torchlite as tl
import torchlite.autograd.forward_ad as fwAD
from helpers import _map_arrays, _sample
from opinfo import REGISTRY
from torchlite.autograd import gradcheck

# Registry entries whose samples must run under forward AD (the ops the formulas cover).
REQUIRED = {
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "hypot", "lerp", "addcmul", "addcdiv", "where",
    "exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "sqrt", "rsqrt", "abs", "neg", "reciprocal", "erf", "log1p",
    "expm1", "clamp", "relu", "gelu", "silu", "elu", "leaky_relu", "softplus", "hardtanh", "mish",
    "sum", "mean", "prod", "amax", "amin", "logsumexp", "softmax", "log_softmax",
    "mm", "bmm", "matmul", "addmm", "linear", "dot", "mv",
    "view", "reshape", "transpose", "permute", "expand", "cat", "stack", "select", "index_select", "gather",
    "squeeze", "unsqueeze", "flatten",
    "conv2d", "batch_norm", "layer_norm", "max_pool2d", "cross_entropy_loss", "nll_loss_nd", "embedding",
}


def _first_grad_sample(info):
    for i, s in enumerate(info.sample_inputs(tl.float64, np.random.default_rng(0))):
        if s.grad:
            return i
    return None


def _cases():
    out = []
    for info in REGISTRY:
        if not info.differentiable or tl.float64 not in info.dtypes:
            continue
        i = _first_grad_sample(info)
        if i is not None:
            out.append(pytest.param(info, i, id=info.name))
    return out


def test_required_ops_are_in_the_registry():
    names = {p.values[0].name for p in _cases()}
    assert REQUIRED - names == set()


def _float_outputs(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, tl.Tensor) and o.is_floating_point()]


@pytest.mark.parametrize("info,i", _cases())
def test_jvp_matches_finite_differences(info, i):
    s = _sample(info, i, tl.float64)
    floating = []
    _map_arrays((s.args, s.kwargs), lambda a: floating.append(a) if a.dtype.kind == "f" else None)
    # only float64 arrays get a tangent: finite differences in float32 are too coarse
    chosen = [floating[k] for k in (range(len(floating)) if info.grad_args is None else info.grad_args)
              if floating[k].dtype == np.float64]
    rng = np.random.default_rng(1)
    tangents = {id(a): rng.standard_normal(a.shape) for a in chosen}

    def run(shift=0.0, dual=False):
        def to_tensor(a):
            if id(a) not in tangents:
                return tl.tensor(a)
            if dual:
                return fwAD.make_dual(tl.tensor(a), tl.tensor(tangents[id(a)]))
            return tl.tensor(np.asarray(a + shift * tangents[id(a)]))  # a 0-d array stays float64
        tl.manual_seed(0)  # random ops (dropout) draw the same mask in every call
        return info.call(tl, *_map_arrays(s.args, to_tensor), **_map_arrays(s.kwargs, to_tensor))

    with fwAD.dual_level():
        try:
            out = run(dual=True)
        except NotImplementedError as e:
            assert "Trying to use forward AD with" in str(e) and "that does not support it" in str(e)
            assert info.name not in REQUIRED, str(e)
            return
        got = [fwAD.unpack_dual(o).tangent for o in _float_outputs(out)]
    eps = 1e-6
    plus, minus = _float_outputs(run(eps)), _float_outputs(run(-eps))
    for g, p, m in zip(got, plus, minus):
        expected = (p.numpy() - m.numpy()) / (2 * eps)
        actual = np.zeros_like(expected) if g is None else g.numpy()
        np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5 + info.grad_atol)


# ---- the API -----------------------------------------------------------------------------------

def test_make_dual_and_unpack_dual():
    x, v = tl.tensor([1.0, 2.0]), tl.tensor([0.5, -1.0])
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, v)
        assert d.data_ptr() == x.data_ptr()  # a view of the primal
        u = fwAD.unpack_dual(d)
        assert isinstance(u, fwAD.UnpackedDualTensor) and u.tangent is v
        assert u.primal.data_ptr() == x.data_ptr() and fwAD.unpack_dual(u.primal).tangent is None
        assert fwAD.unpack_dual(x).tangent is None
        y = d.sin()
    # leaving the level drops the tangents
    assert fwAD.unpack_dual(y) == (y, None)
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None


def test_tangents_flow_under_no_grad_and_make_dual_is_backward_differentiable():
    x = tl.tensor([0.3, 0.7], requires_grad=True)
    with fwAD.dual_level():
        with tl.no_grad():
            t = fwAD.unpack_dual(fwAD.make_dual(x.detach(), tl.ones(2)).exp()).tangent
        np.testing.assert_allclose(t.numpy(), np.exp([0.3, 0.7]))
        y = fwAD.make_dual(x, tl.ones(2)).mul(2.0).sum()
        y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_inplace_and_views_match_pytorch():
    torch = pytest.importorskip("torch")
    x, v, w = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.1, 0.2], [0.3, 0.4]]), np.array([[2.0, -1.0]])
    results = []
    for lib, ad in ((tl, fwAD), (torch, torch.autograd.forward_ad)):
        with ad.dual_level():
            d = ad.make_dual(lib.tensor(x), lib.tensor(v))
            y = d.clone()
            y.mul_(lib.tensor(w))  # in-place reads the value before the op
            z = y.t()[1].unsqueeze(0).expand(3, 2)
            row = y[0]  # a view: its tangent follows later in-place changes of y
            y.add_(d)
            buf = lib.zeros(3, 2, dtype=lib.float64)
            buf[1] = d[1].exp()  # written into a view of a tensor with no tangent: the base gets one
            results.append([ad.unpack_dual(t).tangent.numpy() for t in (z, row, y, buf)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b)


def test_errors_match_pytorch():
    x = tl.ones(2)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    assert fwAD.unpack_dual(x) == (x, None)
    with fwAD.dual_level():
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
            fwAD.make_dual(tl.ones(2, dtype=tl.int64), x)
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex"):
            fwAD.make_dual(x, tl.ones(2, dtype=tl.int64))
        with pytest.raises(RuntimeError, match="different size than that of the original Tensor"):
            fwAD.make_dual(x, tl.ones(3))
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level"):
            fwAD.make_dual(fwAD.make_dual(x, x), x)
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="not the last one that was created"):
            fwAD.exit_dual_level(level=3)
        d = fwAD.make_dual(x, x)
        # an op with no forward formula raises PyTorch's NotImplementedError
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with logcumsumexp that does not "
                                                      "support it"):
            tl.logcumsumexp(d, 0)
        with pytest.raises(NotImplementedError, match="because it is an out= function"):
            tl.sin(d, out=tl.empty(2))


def test_gradcheck_checks_forward_ad():
    x = tl.tensor([0.2, -0.4, 0.9], dtype=tl.float64, requires_grad=True)
    w = tl.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype=tl.float64, requires_grad=True)
    assert gradcheck(lambda a, b: tl.tanh(b.mv(a)).softmax(0), (x, w), check_forward_ad=True,
                     check_backward_ad=False)
    assert gradcheck(lambda a: (a.sin(), a.sum()), (x,), check_forward_ad=True)
    with pytest.raises(NotImplementedError, match="logcumsumexp"):
        gradcheck(lambda a: tl.logcumsumexp(a, 0), (x,), check_forward_ad=True)
    assert gradcheck(lambda a: tl.logcumsumexp(a, 0), (x,))  # backward only: no forward formula needed


# ---- nn ops the examples use, against PyTorch's forward AD -------------------------------------

NN_CASES = {
    "conv2d": (lambda F, x, w, b: F.conv2d(x, w, b, padding=1, stride=2), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    "batch_norm_train": (lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True), [(4, 3, 2, 2), (3,), (3,)]),
    "batch_norm_eval": (lambda F, x, w, b: F.batch_norm(x, _stat(F, 0.5), _stat(F, 2.0), w, b, training=False),
                        [(4, 3, 2), (3,), (3,)]),
    "layer_norm": (lambda F, x, w, b: F.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    "max_pool2d": (lambda F, x: F.max_pool2d(x, 2), [(1, 2, 4, 4)]),
    "cross_entropy": (lambda F, x: F.cross_entropy(x, _target(F, x)), [(5, 3)]),
    "log_softmax": (lambda F, x: F.log_softmax(x, dim=1), [(2, 5)]),
    "embedding": (lambda F, w: F.embedding(_target(F, w), w), [(5, 3)]),
    "linear": (lambda F, x, w, b: F.linear(x, w, b).relu().logsumexp(1), [(2, 3), (4, 3), (4,)]),
    "dropout_eval": (lambda F, x: F.dropout(x, 0.5, training=False), [(3, 3)]),
}


def _lib(F):
    return tl if F is tl.nn.functional else __import__("torch")


def _target(F, x):
    return _lib(F).tensor([0, 2, 1, 1, 0][: x.shape[0]])


def _stat(F, value):  # running statistics: constants, not dual (PyTorch refuses tangents there)
    return _lib(F).tensor([value, value + 0.5, value * 2], dtype=_lib(F).float64)


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_nn_ops_match_pytorch_jvp(name):
    torch = pytest.importorskip("torch")
    fn, shapes = NN_CASES[name]
    rng = np.random.default_rng(0)
    primals = [rng.standard_normal(s) for s in shapes]
    tangents = [rng.standard_normal(s) for s in shapes]
    got = []
    for lib, ad, F in ((tl, fwAD, tl.nn.functional), (torch, torch.autograd.forward_ad, torch.nn.functional)):
        with ad.dual_level():
            duals = [ad.make_dual(lib.tensor(p), lib.tensor(t)) for p, t in zip(primals, tangents)]
            out = ad.unpack_dual(fn(F, *duals))
            got.append((out.primal.detach().numpy(), out.tangent.numpy()))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6, atol=1e-8)
