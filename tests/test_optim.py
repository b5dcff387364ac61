"""torchlite.optim: optimizers vs NumPy references of their update rules (always) and vs PyTorch
(when installed), state_dict round trips, parameter groups, error paths."""

import math

import numpy as np
import pytest

import torchlite as tl
import torchlite.optim as optim
from helpers import TORCH
from opinfo.optim import np_adagrad, np_adam, np_adamw, np_rmsprop, np_sgd

SHAPES = [(4, 3), (7,), (2, 1, 3)]
NP = {tl.float32: np.float32, tl.float64: np.float64}

# (optimizer name, constructor kwargs) — option combinations each optimizer is checked with.
CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, dampening=0.3, maximize=True)),
    ("Adam", dict(lr=0.1)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.05, maximize=True, weight_decay=0.05)),
    ("Adam", dict(lr=0.05, weight_decay=0.05, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.1)),
    ("AdamW", dict(lr=0.05, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.02, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2, maximize=True)),
]
CONFIG_IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CONFIGS]


def _initial(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(NP[dtype]) for s in SHAPES]


def _grads(step, dtype):
    """Gradients of step `step`; the last parameter has none on step 1 (it must be skipped)."""
    rng = np.random.default_rng(100 + step)
    out = [rng.standard_normal(s).astype(NP[dtype]) for s in SHAPES]
    if step == 1:
        out[-1] = None
    return out


def _tl_run(name, kwargs, dtype, steps, params=None, opt=None):
    params = params or [tl.tensor(a, requires_grad=True) for a in _initial(dtype)]
    opt = opt or getattr(optim, name)(params, **kwargs)
    for k in range(steps):
        for p, g in zip(params, _grads(k, dtype)):
            p.grad = None if g is None else tl.tensor(g)
        opt.step()
    return params, opt


def _np(t):
    return t.detach().numpy()


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == tl.float32 else dict(rtol=1e-12, atol=1e-12)


# ---- vs NumPy references of the update rules ---------------------------------------------------

def _np_run(name, kwargs, steps):
    """The optimizer's trajectory in float64 NumPy, from the rules in tests/opinfo/optim.py."""
    params = _initial(tl.float64)
    n = len(params)
    state = [dict() for _ in range(n)]
    d = dict(lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False,
             betas=(0.9, 0.999), eps=1e-8, amsgrad=False, alpha=0.99, centered=False, lr_decay=0.0,
             initial_accumulator_value=0.0, decoupled_weight_decay=name == "AdamW")
    if name == "RMSprop":
        d["lr"] = 0.01
    if name == "Adagrad":
        d.update(lr=0.01, eps=1e-10)
    if name == "AdamW":
        d["weight_decay"] = 1e-2
    d.update(kwargs)
    if name == "Adagrad":
        for s, p in zip(state, params):
            s.update(step=0.0, sum=np.full_like(p, d["initial_accumulator_value"]))
    for k in range(steps):
        grads = _grads(k, tl.float64)
        for i in [i for i in range(n) if grads[i] is not None]:
            p, g, s = [params[i]], [grads[i]], state[i]
            if name == "SGD":
                first = "buf" not in s
                bufs = [s.get("buf", np.zeros_like(p[0]))] if d["momentum"] != 0 else []
                out_p, out_b = np_sgd(p, g, bufs, weight_decay=d["weight_decay"], momentum=d["momentum"],
                                      lr=d["lr"], dampening=d["dampening"], nesterov=d["nesterov"],
                                      maximize=d["maximize"], is_first_step=first)
                params[i] = out_p[0]
                if out_b:
                    s["buf"] = out_b[0]
            elif name in ("Adam", "AdamW"):
                if not s:
                    s.update(step=0.0, m=np.zeros_like(p[0]), v=np.zeros_like(p[0]), vmax=np.zeros_like(p[0]))
                s["step"] += 1
                fn = np_adamw if d["decoupled_weight_decay"] else np_adam
                out = fn(p, g, [s["m"]], [s["v"]], [s["vmax"]] if d["amsgrad"] else [], [s["step"]], lr=d["lr"],
                         beta1=d["betas"][0], beta2=d["betas"][1], weight_decay=d["weight_decay"], eps=d["eps"],
                         amsgrad=d["amsgrad"], maximize=d["maximize"])
                params[i], s["m"], s["v"] = out[0][0], out[1][0], out[2][0]
                if d["amsgrad"]:
                    s["vmax"] = out[3][0]
            elif name == "RMSprop":
                if not s:
                    s.update(sq=np.zeros_like(p[0]), ga=np.zeros_like(p[0]), buf=np.zeros_like(p[0]))
                out = np_rmsprop(p, g, [s["sq"]], [s["ga"]] if d["centered"] else [],
                                 [s["buf"]] if d["momentum"] > 0 else [], lr=d["lr"], alpha=d["alpha"], eps=d["eps"],
                                 weight_decay=d["weight_decay"], momentum=d["momentum"], centered=d["centered"],
                                 maximize=d["maximize"])
                params[i], s["sq"] = out[0][0], out[1][0]
                if d["centered"]:
                    s["ga"] = out[2][0]
                if d["momentum"] > 0:
                    s["buf"] = out[3][0]
            else:
                s["step"] += 1
                out = np_adagrad(p, g, [s["sum"]], [s["step"]], lr=d["lr"], lr_decay=d["lr_decay"],
                                 weight_decay=d["weight_decay"], eps=d["eps"], maximize=d["maximize"])
                params[i], s["sum"] = out[0][0], out[1][0]
    return params


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=CONFIG_IDS)
def test_matches_numpy_reference(name, kwargs):
    params, _ = _tl_run(name, kwargs, tl.float64, 4)
    expected = _np_run(name, kwargs, 4)
    for p, e in zip(params, expected):
        np.testing.assert_allclose(_np(p), e, rtol=1e-12, atol=1e-12)


# ---- vs PyTorch ----------------------------------------------------------------------------------

def _torch_run(name, kwargs, dtype, steps):
    torch = pytest.importorskip("torch")
    tdt = {tl.float32: torch.float32, tl.float64: torch.float64}[dtype]
    params = [torch.tensor(a, dtype=tdt, requires_grad=True) for a in _initial(dtype)]
    opt = getattr(torch.optim, name)(params, **kwargs)
    for k in range(steps):
        for p, g in zip(params, _grads(k, dtype)):
            p.grad = None if g is None else torch.tensor(g, dtype=tdt)
        opt.step()
    return params, opt


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=CONFIG_IDS)
def test_matches_torch(name, kwargs, dtype):
    t_params, t_opt = _torch_run(name, kwargs, dtype, 5)
    params, opt = _tl_run(name, kwargs, dtype, 5)
    for p, tp in zip(params, t_params):
        np.testing.assert_allclose(_np(p), tp.detach().numpy(), **_tol(dtype))
    # Same state, under the same keys.
    for p, tp in zip(params, t_params):
        ours, theirs = opt.state[p], t_opt.state[tp]
        assert set(ours) == set(theirs)
        for key, tv in theirs.items():
            if key == "step":
                assert float(ours[key]) == float(tv)
                assert ours[key].dtype == {4: tl.float32, 8: tl.float64}[tv.element_size()]
            else:
                np.testing.assert_allclose(_np(ours[key]), tv.detach().numpy(), **_tol(dtype))
    # Same state_dict layout.
    sd, tsd = opt.state_dict(), t_opt.state_dict()
    assert sorted(sd["state"]) == sorted(tsd["state"])
    assert [g["params"] for g in sd["param_groups"]] == [g["params"] for g in tsd["param_groups"]]
    assert [set(g) for g in sd["param_groups"]] == [set(g) for g in tsd["param_groups"]]


def test_defaults_match_torch():
    torch = pytest.importorskip("torch")
    p = tl.tensor([1.0], requires_grad=True)
    tp = torch.ones(1, requires_grad=True)
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"):
        assert getattr(optim, name)([p]).defaults == getattr(torch.optim, name)([tp]).defaults, name


def test_load_torch_state_dict_and_continue():
    torch = pytest.importorskip("torch")
    t_params, t_opt = _torch_run("Adam", dict(lr=0.05, amsgrad=True), tl.float64, 3)
    tsd = t_opt.state_dict()
    state = {k: {n: tl.tensor(v.detach().numpy().copy()) for n, v in s.items()} for k, s in tsd["state"].items()}
    params = [tl.tensor(p.detach().numpy().copy(), requires_grad=True) for p in t_params]
    opt = optim.Adam(params, lr=0.05, amsgrad=True)
    opt.load_state_dict({"state": state, "param_groups": tsd["param_groups"]})
    for k in range(3, 6):
        for p, tp, g in zip(params, t_params, _grads(k, tl.float64)):
            p.grad = tl.tensor(g)
            tp.grad = torch.tensor(g)
        opt.step()
        t_opt.step()
    for p, tp in zip(params, t_params):
        np.testing.assert_allclose(_np(p), tp.detach().numpy(), rtol=1e-12, atol=1e-12)


# ---- state_dict ----------------------------------------------------------------------------------

def _clone_state(sd):
    def clone(v):
        if isinstance(v, tl.Tensor):
            return v.clone()
        if isinstance(v, dict):
            return {k: clone(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clone(x) for x in v]
        return v

    return clone(sd)


@pytest.mark.parametrize("name,kwargs", [CONFIGS[2], CONFIGS[5], CONFIGS[9], CONFIGS[11], CONFIGS[14]],
                         ids=[CONFIG_IDS[i] for i in (2, 5, 9, 11, 14)])
def test_state_dict_round_trip(name, kwargs):
    # Uninterrupted: 6 steps.
    full, _ = _tl_run(name, kwargs, tl.float64, 6)
    # Interrupted after 3: save, build a new optimizer on copies of the parameters, load, go on.
    params, opt = _tl_run(name, kwargs, tl.float64, 3)
    sd = _clone_state(opt.state_dict())
    assert all(isinstance(k, int) for k in sd["state"])
    assert sd["param_groups"][0]["params"] == [0, 1, 2]
    new_params = [tl.tensor(_np(p).copy(), requires_grad=True) for p in params]
    new_opt = getattr(optim, name)(new_params, **kwargs)
    new_opt.load_state_dict(sd)
    assert new_opt.param_groups[0]["params"][0] is new_params[0]
    for k in range(3, 6):
        for p, g in zip(new_params, _grads(k, tl.float64)):
            p.grad = None if g is None else tl.tensor(g)
        new_opt.step()
    for p, e in zip(new_params, full):
        np.testing.assert_allclose(_np(p), _np(e), rtol=0, atol=0)


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    params, opt = _tl_run("Adam", dict(lr=0.1), tl.float64, 2)
    sd = _clone_state(opt.state_dict())
    p32 = [tl.tensor(_np(p).astype(np.float32), requires_grad=True) for p in params]
    opt32 = optim.Adam(p32, lr=0.1)
    opt32.load_state_dict(sd)
    st = opt32.state[p32[0]]
    assert st["exp_avg"].dtype == tl.float32 and st["exp_avg_sq"].dtype == tl.float32
    assert st["step"].dtype == tl.float32 and float(st["step"]) == 2.0
    for k in range(2):
        for p, g in zip(p32, _grads(k, tl.float32)):
            p.grad = None if g is None else tl.tensor(g)
        opt32.step()  # runs on the cast state


def test_load_state_dict_errors():
    p = [tl.tensor([1.0, 2.0], requires_grad=True), tl.tensor([3.0], requires_grad=True)]
    opt = optim.SGD(p, lr=0.1)
    sd = opt.state_dict()
    other = optim.SGD([{"params": [p[0]]}, {"params": [p[1]]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        other.load_state_dict(sd)
    single = optim.SGD([p[0]], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        single.load_state_dict(sd)


def test_state_dict_keeps_group_options():
    p = [tl.tensor([1.0], requires_grad=True), tl.tensor([2.0], requires_grad=True)]
    opt = optim.SGD([{"params": [p[0]], "lr": 0.5}, {"params": [p[1]]}], lr=0.1, momentum=0.9)
    sd = opt.state_dict()
    assert sd["param_groups"][0]["lr"] == 0.5 and sd["param_groups"][1]["lr"] == 0.1
    assert sd["param_groups"][1]["params"] == [1]
    opt.param_groups[0]["lr"] = 0.0
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.5


# ---- groups, closure, zero_grad, autograd --------------------------------------------------------

def test_param_groups_use_their_own_options():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([3.0], requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 1.0}], lr=0.1)
    assert opt.param_groups[1]["momentum"] == 0 and opt.param_groups[1]["lr"] == 1.0
    a.grad = tl.tensor([1.0, 1.0])
    b.grad = tl.tensor([1.0])
    opt.step()
    np.testing.assert_allclose(_np(a), [0.9, 1.9])
    np.testing.assert_allclose(_np(b), [2.0])
    c = tl.tensor([0.0], requires_grad=True)
    opt.add_param_group({"params": [c], "lr": 2.0, "momentum": 0.5})
    assert len(opt.param_groups) == 3 and opt.param_groups[2]["dampening"] == 0


def test_step_does_not_record_history_and_bumps_versions():
    p = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    opt = optim.Adam([p], lr=0.1)
    p.grad = tl.tensor([1.0, 1.0, 1.0])
    v = p._version
    opt.step()
    assert p.grad_fn is None and p.is_leaf and p.requires_grad
    assert p._version > v
    # The parameter still works as a leaf afterwards.
    (p * p).sum().backward()
    assert p.grad is not None


def test_step_with_closure():
    p = tl.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    calls = []

    def closure():
        opt.zero_grad()
        assert tl.is_grad_enabled()
        loss = (p * p).sum()
        loss.backward()
        calls.append(float(loss))
        return loss

    loss = opt.step(closure)
    assert calls == [5.0] and float(loss) == 5.0
    np.testing.assert_allclose(_np(p), [0.8, -1.6])


def test_zero_grad():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([3.0], requires_grad=True)
    opt = optim.SGD([a, b], lr=0.1)
    a.grad = tl.tensor([5.0, 6.0])
    opt.zero_grad(set_to_none=False)
    assert b.grad is None
    np.testing.assert_array_equal(_np(a.grad), [0.0, 0.0])
    opt.zero_grad()
    assert a.grad is None


def test_params_without_grad_are_skipped():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([3.0], requires_grad=True)
    for name in ("SGD", "Adam", "AdamW", "RMSprop"):
        opt = getattr(optim, name)([a, b], lr=0.1)
        b_before = _np(b).copy()
        a.grad = tl.tensor([1.0, 1.0])
        opt.step()
        np.testing.assert_array_equal(_np(b), b_before)
        assert len(opt.state[b]) == 0, name


def test_tensor_lr():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([a], lr=tl.tensor(0.5))
    a.grad = tl.tensor([1.0, 1.0])
    opt.step()
    np.testing.assert_allclose(_np(a), [0.5, 1.5])


def test_step_hooks():
    a = tl.tensor([1.0], requires_grad=True)
    opt = optim.SGD([a], lr=0.1)
    seen = []
    h1 = opt.register_step_pre_hook(lambda o, args, kw: seen.append("pre"))
    opt.register_step_post_hook(lambda o, args, kw: seen.append("post"))
    a.grad = tl.tensor([1.0])
    opt.step()
    h1.remove()
    opt.step()
    assert seen == ["pre", "post", "post"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_noncontiguous_and_half_parameters(name):
    # A transposed parameter is updated in place through its view; float16 computes in float32.
    base = np.random.default_rng(3).standard_normal((3, 4))
    g = np.random.default_rng(4).standard_normal((4, 3))
    kwargs = dict(lr=0.1, momentum=0.9) if name in ("SGD", "RMSprop") else dict(lr=0.1)
    p = tl.tensor(base).t().detach().requires_grad_()
    assert not p.is_contiguous()
    ref = tl.tensor(np.ascontiguousarray(base.T), requires_grad=True)
    for q in (p, ref):
        opt = getattr(optim, name)([q], **kwargs)
        for _ in range(2):
            q.grad = tl.tensor(g)
            opt.step()
    np.testing.assert_allclose(_np(p), _np(ref), rtol=0, atol=0)
    h = tl.tensor(base.astype(np.float16), requires_grad=True)
    f = tl.tensor(base.astype(np.float16).astype(np.float32), requires_grad=True)
    for q, dt in ((h, np.float16), (f, np.float32)):
        opt = getattr(optim, name)([q], **kwargs)
        q.grad = tl.tensor(g.T.astype(dt))
        opt.step()
    assert h.dtype == tl.float16
    np.testing.assert_allclose(h.float().detach().numpy(), _np(f), rtol=2e-3, atol=2e-3)


def test_many_and_large_parameters_use_the_parallel_path():
    # 200k elements in several chunks plus many small tensors: same result as one at a time.
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(n) for n in (200_000, 3, 40_000, 1)]
    grads = [rng.standard_normal(a.shape) for a in arrays]
    together = [tl.tensor(a, requires_grad=True) for a in arrays]
    opt = optim.Adam(together, lr=0.01, weight_decay=0.1)
    for p, g in zip(together, grads):
        p.grad = tl.tensor(g)
    opt.step()
    for a, g, p in zip(arrays, grads, together):
        alone = tl.tensor(a, requires_grad=True)
        o = optim.Adam([alone], lr=0.01, weight_decay=0.1)
        alone.grad = tl.tensor(g)
        o.step()
        np.testing.assert_array_equal(_np(p), _np(alone))
        expected = np_adam([a], [g], [np.zeros_like(a)], [np.zeros_like(a)], [], [1.0], lr=0.01, beta1=0.9,
                           beta2=0.999, weight_decay=0.1, eps=1e-8, amsgrad=False, maximize=False)[0][0]
        np.testing.assert_allclose(_np(p), expected, rtol=1e-12, atol=1e-12)


def test_repr():
    opt = optim.SGD([tl.tensor([1.0], requires_grad=True)], lr=0.1)
    text = repr(opt)
    assert text.startswith("SGD (") and "lr: 0.1" in text and "Parameter Group 0" in text


# ---- errors --------------------------------------------------------------------------------------

HYPER_ERRORS = [
    ("SGD", dict(lr=-1), "Invalid learning rate: -1"),
    ("SGD", dict(momentum=-1), "Invalid momentum value: -1"),
    ("SGD", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("SGD", dict(nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1), "Nesterov momentum requires a momentum and zero"),
    ("Adam", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adam", dict(eps=-1), "Invalid epsilon value: -1"),
    ("Adam", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    ("Adam", dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    ("Adam", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("AdamW", dict(lr=-0.5), "Invalid learning rate: -0.5"),
    ("RMSprop", dict(lr=-1), "Invalid learning rate: -1"),
    ("RMSprop", dict(eps=-1), "Invalid epsilon value: -1"),
    ("RMSprop", dict(momentum=-1), "Invalid momentum value: -1"),
    ("RMSprop", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("RMSprop", dict(alpha=-1), "Invalid alpha value: -1"),
    ("Adagrad", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adagrad", dict(lr_decay=-1), "Invalid lr_decay value: -1"),
    ("Adagrad", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("Adagrad", dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    ("Adagrad", dict(eps=-1), "Invalid epsilon value: -1"),
]


@pytest.mark.parametrize("name,kwargs,msg", HYPER_ERRORS, ids=[f"{n}-{m[:30]}" for n, _, m in HYPER_ERRORS])
def test_bad_hyperparameters(name, kwargs, msg):
    p = [tl.tensor([1.0], requires_grad=True)]
    with pytest.raises(ValueError) as info:
        getattr(optim, name)(p, **kwargs)
    assert str(info.value).startswith(msg)
    if TORCH is not None:  # the same message as PyTorch's
        with pytest.raises(ValueError) as tinfo:
            getattr(TORCH.optim, name)([TORCH.ones(1, requires_grad=True)], **kwargs)
        assert str(tinfo.value) == str(info.value)


def test_bad_params():
    p = tl.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got torchlite.Tensor"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [p]})
    with pytest.raises(TypeError, match="ordering of tensors in sets will change"):
        opt.add_param_group({"params": {tl.tensor([2.0], requires_grad=True)}})
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        opt.add_param_group({"params": [1]})
    nonleaf = p * 2
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([nonleaf], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([p, p], lr=0.1)
    with pytest.raises(RuntimeError, match="differentiable=True"):
        optim.Adam([p], differentiable=True)


def test_kernel_errors():
    p = [tl.tensor([1.0, 2.0]), tl.tensor([3.0])]
    g = [tl.tensor([1.0, 1.0]), tl.tensor([1.0])]
    kw = dict(weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False, maximize=False,
              is_first_step=False)
    with pytest.raises(RuntimeError, match=r"_fused_sgd_: expected momentum_buffer_list to have 2 tensors"):
        tl._C._fused_sgd_(p, g, [tl.zeros(2)], **kw)
    with pytest.raises(RuntimeError, match=r"_fused_sgd_: grads\[1\] has shape \[2\] but its parameter self\[1\] "
                                           r"has shape \[1\]"):
        tl._C._fused_sgd_(p, [g[0], tl.zeros(2)], [tl.zeros(2), tl.zeros(1)], **kw)
    with pytest.raises(TypeError, match=r"_fused_sgd_: grads\[0\] has dtype torchlite.float64 but its parameter"):
        tl._C._fused_sgd_(p, [g[0].double(), g[1]], [tl.zeros(2), tl.zeros(1)], **kw)
    with pytest.raises(TypeError, match=r"expected floating point parameters, but self\[0\] has dtype torchlite.int64"):
        tl._C._fused_sgd_([tl.tensor([1, 2])], [tl.tensor([1, 2])], [tl.tensor([1, 2])], **kw)
    adam_kw = dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    with pytest.raises(RuntimeError, match="expected state_steps to have 2 tensors"):
        tl._C._fused_adam_(p, g, [tl.zeros(2), tl.zeros(1)], [tl.zeros(2), tl.zeros(1)], [], [], **adam_kw)


def test_grad_scale_and_found_inf():
    kw = dict(weight_decay=0.0, momentum=0.0, lr=1.0, dampening=0.0, nesterov=False, maximize=False,
              is_first_step=False)
    p, g = [tl.tensor([1.0, 2.0])], [tl.tensor([4.0, 8.0])]
    tl._C._fused_sgd_(p, g, [], **kw, grad_scale=tl.tensor(4.0))
    np.testing.assert_array_equal(_np(g[0]), [1.0, 2.0])  # unscaled in place
    np.testing.assert_array_equal(_np(p[0]), [0.0, 0.0])
    tl._C._fused_sgd_(p, g, [], **kw, found_inf=tl.tensor(1.0))
    np.testing.assert_array_equal(_np(p[0]), [0.0, 0.0])  # skipped


def test_foreach_norm_matches_numpy():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((3, 4), (200_000,), (0,))]
    ts = [tl.tensor(a) for a in arrays]
    for ord_ in (2, 1, 3.0, math.inf, -math.inf):
        got = tl._C._foreach_norm(ts, ord_)
        for g, a in zip(got, arrays):
            e = np.linalg.norm(a.ravel(), ord_) if a.size else 0.0
            np.testing.assert_allclose(float(g), e, rtol=1e-12)
    out = tl._C._foreach_norm([tl.tensor(arrays[0])], dtype=tl.float32)
    assert out[0].dtype == tl.float32
    with pytest.raises(RuntimeError, match="_foreach_norm: only ord > 0"):
        tl._C._foreach_norm(ts, 0)


def test_kernels_bump_the_versions_of_what_they_write():
    # Generated from the schemas: Tensor(a!)[] lists are bumped, Tensor[] state_steps is not.
    p, g = [tl.tensor([1.0, 2.0])], [tl.tensor([1.0, 1.0])]
    m, v, step = [tl.zeros(2)], [tl.zeros(2)], [tl.tensor(1.0)]
    before = [t._version for t in (p[0], g[0], m[0], v[0], step[0])]
    tl._C._fused_adam_(p, g, m, v, [], step, lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8,
                       amsgrad=False, maximize=False)
    after = [t._version for t in (p[0], g[0], m[0], v[0], step[0])]
    assert [a - b for a, b in zip(after, before)] == [1, 1, 1, 1, 0]
    s = [tl.tensor(0.0)]
    version = s[0]._version
    tl._C._foreach_add_(s, 1)
    assert s[0]._version == version + 1 and float(s[0]) == 1.0


def test_empty_parameters_and_empty_lists():
    e = tl.tensor(np.zeros((0, 3)), requires_grad=True)
    p = tl.tensor([1.0], requires_grad=True)
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"):
        opt = getattr(optim, name)([e, p], lr=0.1)
        e.grad = tl.tensor(np.zeros((0, 3)))
        p.grad = tl.tensor([1.0])
        opt.step()
        assert tuple(e.shape) == (0, 3)
    tl._C._fused_sgd_([], [], [], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0, nesterov=False,
                      maximize=False, is_first_step=False)


def test_operands_sharing_memory_are_rejected():
    kw = dict(weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False, maximize=False,
              is_first_step=False)
    p = tl.tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError, match=r"_fused_sgd_: (self|momentum_buffer_list)\[0\] and "
                                           r"(self|momentum_buffer_list)\[0\] share memory"):
        tl._C._fused_sgd_([p], [tl.ones(4)], [p], **kw)
    # Two parameters overlapping in one storage would race.
    with pytest.raises(RuntimeError, match="share memory"):
        tl._C._fused_sgd_([p[:3], p[1:]], [tl.ones(3), tl.ones(3)], [tl.zeros(3), tl.zeros(3)], **kw)
    # A gradient read by two parameters is fine; disjoint slices of one tensor are fine too.
    g = tl.ones(2)
    tl._C._fused_sgd_([p[:2], p[2:]], [g, g], [tl.zeros(2), tl.zeros(2)], **kw)
    np.testing.assert_allclose(_np(p), [0.9, 1.9, 2.9, 3.9])


def test_named_parameters():
    a = tl.tensor([1.0], requires_grad=True)
    b = tl.tensor([2.0], requires_grad=True)
    opt = optim.SGD([("w", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["params"][0] is a and opt.param_groups[0]["params"][1] is b
    assert opt.param_groups[0]["param_names"] == ["w", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]
    with pytest.raises(ValueError, match="Some param names are missing"):
        optim.SGD([("w", tl.tensor([1.0], requires_grad=True)), tl.tensor([1.0], requires_grad=True)])


def _train_mlp(lib, name):
    """30 steps of a two-layer MLP on fixed data, with a OneCycleLR schedule: (losses, parameters)."""
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 8)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((64, 3)).astype(np.float32))
    w = np.random.default_rng(1)
    ps = [lib.nn.Parameter(lib.tensor((w.standard_normal(s) * 0.3).astype(np.float32)))
          for s in [(8, 16), (16,), (16, 3), (3,)]]
    opt = getattr(lib.optim, name)(ps, lr=0.05)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=30) if name != "Adagrad" else None
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = ((((x @ ps[0] + ps[1]).relu() @ ps[2] + ps[3]) - y) ** 2).mean()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(float(loss.detach()))
    return np.array(losses), [p.detach().numpy() for p in ps]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_training_loop_with_autograd_and_scheduler(name):
    losses, params = _train_mlp(tl, name)
    assert losses[-1] < 0.6 * losses[0]
    # The update rules are checked against PyTorch above; here one end-to-end comparison (slow in torch).
    if TORCH is not None and name == "AdamW":
        threads = TORCH.get_num_threads()
        TORCH.set_num_threads(1)  # tiny ops: torch's intra-op threads only add contention
        try:
            t_losses, t_params = _train_mlp(TORCH, name)
        finally:
            TORCH.set_num_threads(threads)
        np.testing.assert_allclose(losses, t_losses, rtol=1e-5, atol=1e-6)
        for p, tp in zip(params, t_params):
            np.testing.assert_allclose(p, tp, rtol=1e-4, atol=2e-5)


def test_state_dict_hooks_like_torch():
    real_torch = pytest.importorskip("torch")

    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        p.grad = lib.ones(2)
        opt.step()
        calls = []
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
        opt.register_state_dict_post_hook(lambda o, sd: calls.append("post") or {**sd, "extra": 1})
        opt.register_state_dict_post_hook(lambda o, sd: calls.append("post-first"), prepend=True)
        sd = opt.state_dict()
        handle = opt.register_load_state_dict_pre_hook(
            lambda o, sd: calls.append("load-pre") or {k: v for k, v in sd.items() if k != "extra"})
        opt.register_load_state_dict_post_hook(lambda o: calls.append(("load-post", o.param_groups[0]["lr"])))
        sd["param_groups"][0]["lr"] = 0.5
        opt.load_state_dict(sd)
        handle.remove()
        opt.load_state_dict({k: v for k, v in sd.items() if k != "extra"})
        return calls, sorted(sd)

    assert run(tl) == run(real_torch)
