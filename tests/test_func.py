"""torchlite.func transforms against torch.func on small functions, and their error paths."""

import numpy as np
import pytest

import torchlite as tl
import torchlite.func as tf

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal(3)
Y = RNG.standard_normal(3)
M = RNG.standard_normal((2, 3))


def _np(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_np(v) for v in x)
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _close(a, b):
    a, b = _np(a), _np(b)
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for u, v in zip(a, b):
            _close(u, v)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _close(a[k], b[k])
    else:
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


def both(build):
    """build(lib, func_module) evaluated on torchlite and PyTorch."""
    return build(tl, tf), build(torch, torch.func)


def f(lib, x, y):
    return (x.sin() * y).sum() + (x * x).exp().mean()


def vec(lib, x, m):
    return lib.tanh(m @ x).softmax(0)


@pytest.mark.parametrize("op", ["grad", "grad_and_value"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
def test_grad_and_grad_and_value(op, argnums):
    a, b = both(lambda lib, F: getattr(F, op)(lambda x, y: f(lib, x, y), argnums)(lib.tensor(X), lib.tensor(Y)))
    _close(a, b)


def test_grad_has_aux_nested_and_pytree_args():
    def g(lib, p, x):
        out = (p["w"] * x).sum().sin() + p["b"][0].exp().sum()
        return out, {"y": out * 2}

    a, b = both(lambda lib, F: F.grad(lambda p, x: g(lib, p, x), has_aux=True)(
        {"w": lib.tensor(X), "b": [lib.tensor(Y)]}, lib.tensor(Y)))
    _close(a, b)
    a, b = both(lambda lib, F: F.grad(F.grad(lambda x: x.sin().sum().mul(x.sum())))(lib.tensor(X[0])))
    _close(a, b)


def test_vjp_and_jvp():
    cot = RNG.standard_normal(2)
    a, b = both(lambda lib, F: (lambda out: (out[0], out[1](lib.tensor(cot))))(
        F.vjp(lambda x, m: vec(lib, x, m), lib.tensor(X), lib.tensor(M))))
    _close(a, b)
    a, b = both(lambda lib, F: F.jvp(lambda x, m: vec(lib, x, m), (lib.tensor(X), lib.tensor(M)),
                                     (lib.tensor(Y), lib.tensor(M * 0.5))))
    _close(a, b)
    a, b = both(lambda lib, F: F.jvp(lambda x: (x.exp(), {"s": x.sum()}), (lib.tensor(X),), (lib.tensor(Y),),
                                     has_aux=False))
    _close(a, b)


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_jacobians(jac, argnums):
    a, b = both(lambda lib, F: getattr(F, jac)(lambda x, m: vec(lib, x, m), argnums)(lib.tensor(X), lib.tensor(M)))
    _close(a, b)
    a, b = both(lambda lib, F: getattr(F, jac)(lambda x: (x.sin(), x.sum()), has_aux=False)(lib.tensor(X)))
    _close(a, b)


def test_hessian_and_linearize():
    a, b = both(lambda lib, F: F.hessian(lambda x, y: f(lib, x, y), argnums=(0, 1))(lib.tensor(X), lib.tensor(Y)))
    _close(a, b)
    a, b = both(lambda lib, F: (lambda o: (o[0], o[1](lib.tensor(Y))))(
        F.linearize(lambda x: x.sin().cumsum(0), lib.tensor(X))))
    _close(a, b)


def test_functional_call_and_vmap():
    model = tl.nn.Linear(3, 2)
    params = {k: v.detach() * 2 for k, v in model.named_parameters()}
    x = tl.tensor(M).float()
    out = tf.functional_call(model, params, (x,))
    expected = M @ params["weight"].numpy().T + params["bias"].numpy()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5)
    g = tf.grad(lambda p: tf.functional_call(model, p, (x,)).sum())(params)
    np.testing.assert_allclose(g["weight"].numpy(), np.tile(M.sum(0), (2, 1)), rtol=1e-5)
    np.testing.assert_allclose(g["bias"].numpy(), [2.0, 2.0])
    a, b = both(lambda lib, F: F.vmap(F.grad(lambda r: (r * r).sin().sum()))(lib.tensor(M)))
    _close(a, b)


def test_functional_call_several_dicts():
    model = tl.nn.Linear(2, 1)
    w, b = tl.ones(1, 2), tl.zeros(1)
    out = tf.functional_call(model, ({"weight": w}, {"bias": b}), (tl.tensor([[1.0, 2.0]]),))
    np.testing.assert_allclose(out.detach().numpy(), [[3.0]])
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        tf.functional_call(model, ({"weight": w}, {"weight": w}), (tl.ones(1, 2),))


def test_errors_match_pytorch():
    x = tl.tensor(X)
    for lib, F in ((tl, tf), (torch, torch.func)):
        t = lib.tensor(X)
        with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
            F.grad(lambda a: a * 2)(t)
        with pytest.raises(RuntimeError, match="Got argnum=2, but only 1 positional inputs"):
            F.grad(lambda a: a.sum(), argnums=2)(t)
        with pytest.raises(RuntimeError, match="argnums must be non-empty"):
            F.grad(lambda a: a.sum(), argnums=())(t)
        with pytest.raises(RuntimeError, match="argnums elements must be unique"):
            F.grad(lambda a, b: a.sum(), argnums=(0, 0))(t, t)
        with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
            F.grad(lambda a: a.sum(), has_aux=True)(t)
        with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
            F.jvp(lambda a: a, t, t)
        with pytest.raises(RuntimeError, match="same python structure"):
            F.jvp(lambda a: a, (t,), (t, t))
        with pytest.raises(ValueError, match="chunk_size` should be greater than 0"):
            F.jacrev(lambda a: a, chunk_size=0)
    # forward AD has one level: jvp inside jvp is refused (PyTorch nests them)
    with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
        tf.jvp(lambda a: tf.jvp(lambda b: b.sin(), (a,), (a,))[1], (x,), (x,))


def test_autograd_functional_forward_mode_strategies():
    def g(lib):
        return lambda a, c: (a.sin() * c).exp().sum()

    kw = dict(outer_jacobian_strategy="forward-mode", vectorize=True)
    a, b = both(lambda lib, F: lib.autograd.functional.hessian(g(lib), (lib.tensor(X), lib.tensor(Y)), **kw))
    _close(a, tuple(tuple(row) for row in b))  # PyTorch's vectorized path returns lists here
    kw = dict(strategy="forward-mode", vectorize=True)
    a, b = both(lambda lib, F: lib.autograd.functional.jacobian(lambda x: (x.exp(), x.sum()), lib.tensor(X), **kw))
    _close(a, b)
