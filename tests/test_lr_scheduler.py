"""torchlite.optim.lr_scheduler: lr sequences vs PyTorch's (bit for bit) and vs closed forms."""

import math
import warnings

import pytest

import torchlite as tl
from torchlite.optim import SGD, Adam, lr_scheduler
from helpers import TORCH

LRS = (0.1, 0.05)  # two parameter groups


def _optimizer(lib, opt="SGD", **kwargs):
    """An optimizer with two groups, built the same way on torchlite or PyTorch."""
    params = [lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)]
    groups = [{"params": [params[0]], "lr": LRS[0]}, {"params": [params[1]], "lr": LRS[1]}]
    cls = getattr(lib.optim, opt)
    if opt == "SGD":
        kwargs.setdefault("momentum", 0.9)
    return cls(groups, **kwargs)


def _sequence(lib, make, steps, opt="SGD", metrics=None):
    """[(lrs, momentum or beta1 per group)] after construction and after each step."""
    o = _optimizer(lib, opt)
    sched = make(lib.optim.lr_scheduler, o)
    key = (lambda g: g["betas"][0]) if opt == "Adam" else (lambda g: g["momentum"])
    seq = [(list(sched.get_last_lr()), [key(g) for g in o.param_groups])]
    for k in range(steps):
        o.step()
        if metrics is not None:
            sched.step(metrics[k])
        else:
            sched.step()
        seq.append(([g["lr"] for g in o.param_groups], [key(g) for g in o.param_groups]))
        assert sched.get_last_lr() == seq[-1][0]
    return seq


SCHEDULERS = {
    "StepLR": (lambda m, o: m.StepLR(o, step_size=3, gamma=0.5), 12),
    "MultiStepLR": (lambda m, o: m.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3), 12),
    "ExponentialLR": (lambda m, o: m.ExponentialLR(o, gamma=0.9), 10),
    "CosineAnnealingLR": (lambda m, o: m.CosineAnnealingLR(o, T_max=10, eta_min=0.001), 35),
    "CosineAnnealingLR-eta0": (lambda m, o: m.CosineAnnealingLR(o, T_max=7), 20),
    "LambdaLR": (lambda m, o: m.LambdaLR(o, lr_lambda=lambda e: 0.95**e), 8),
    "LambdaLR-list": (lambda m, o: m.LambdaLR(o, lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.5 * e]), 8),
    "LinearLR": (lambda m, o: m.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4), 8),
    "LinearLR-down": (lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=5), 8),
    "OneCycleLR-cos": (lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=20), 19),
    "OneCycleLR-linear": (lambda m, o: m.OneCycleLR(o, max_lr=1.0, epochs=4, steps_per_epoch=5,
                                                    anneal_strategy="linear", pct_start=0.4), 19),
    "OneCycleLR-3phase": (lambda m, o: m.OneCycleLR(o, max_lr=2.0, total_steps=30, three_phase=True,
                                                    div_factor=10.0, final_div_factor=100.0), 29),
    "MultiplicativeLR": (lambda m, o: m.MultiplicativeLR(o, lr_lambda=lambda e: 0.9 if e % 2 else 1.0), 8),
    "ConstantLR": (lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=3), 6),
    "PolynomialLR": (lambda m, o: m.PolynomialLR(o, total_iters=6, power=2.0), 8),
    "SequentialLR": (lambda m, o: m.SequentialLR(o, [m.LinearLR(o, start_factor=0.1, total_iters=3),
                                                     m.CosineAnnealingLR(o, T_max=6)], milestones=[3]), 12),
    "SequentialLR-3": (lambda m, o: m.SequentialLR(o, [m.ConstantLR(o, factor=0.5, total_iters=2),
                                                       m.ExponentialLR(o, gamma=0.8),
                                                       m.StepLR(o, step_size=2)], milestones=[2, 5]), 10),
    "OneCycleLR-nomomentum": (lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, cycle_momentum=False), 9),
    "CyclicLR": (lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4), 30),
    "CyclicLR-triangular2": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5,
                                                     mode="triangular2", base_momentum=0.7), 30),
    "CyclicLR-exp_range": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9,
                                                   cycle_momentum=False), 30),
    "CyclicLR-scale_fn": (lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 1 / (x + 1),
                                                  scale_mode="iterations"), 30),
    "CosineAnnealingWarmRestarts": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, eta_min=0.001), 30),
    "CosineAnnealingWarmRestarts-mult": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=3), 30),
    "ChainedScheduler": (lambda m, o: m.ChainedScheduler([m.ConstantLR(o, factor=0.5, total_iters=4),
                                                          m.ExponentialLR(o, gamma=0.9)]), 30),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_matches_torch(name):
    pytest.importorskip("torch")
    make, steps = SCHEDULERS[name]
    if not name.startswith("OneCycleLR"):  # OneCycleLR refuses to step past its total_steps
        steps = max(steps, 30)
    assert _sequence(tl, make, steps) == _sequence(TORCH, make, steps)


@pytest.mark.parametrize("name", ["OneCycleLR-cos", "OneCycleLR-3phase"])
def test_one_cycle_with_adam_betas_matches_torch(name):
    pytest.importorskip("torch")
    make, steps = SCHEDULERS[name]
    ours = _sequence(tl, make, steps, opt="Adam")
    assert ours == _sequence(TORCH, make, steps, opt="Adam")
    assert ours[0][1] == [0.95, 0.95] and min(m for _, ms in ours for m in ms) == pytest.approx(0.85)


def test_cyclic_lr_with_adam_betas_matches_torch():
    pytest.importorskip("torch")
    make = SCHEDULERS["CyclicLR-triangular2"][0]
    ours = _sequence(tl, make, 30, opt="Adam")
    assert ours == _sequence(TORCH, make, 30, opt="Adam")
    assert {m for _, ms in ours for m in ms} >= {0.7, 0.9}


def test_warm_restarts_with_fractional_epochs_matches_torch():
    pytest.importorskip("torch")
    epochs = [0.5, 1.0, 2.5, 3.0, 7.25, 13.0, 2.0, 20.5, 40.0]

    def lrs(lib, t_mult):
        o = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=t_mult, eta_min=0.01)
        out = []
        for e in epochs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sched.step(e)
            out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return out

    for t_mult in (1, 2):
        assert lrs(tl, t_mult) == lrs(TORCH, t_mult)
    with pytest.raises(ValueError, match="Expected non-negative epoch"):
        lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(tl), T_0=2).step(-1)


def test_chained_and_cyclic_state_dict_round_trip():
    o = _optimizer(tl)
    chain = lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(o, 2, 0.5), lr_scheduler.ExponentialLR(o, 0.9)])
    for _ in range(3):
        o.step()
        chain.step()
    sd = chain.state_dict()
    assert [s["last_epoch"] for s in sd["_schedulers"]] == [3, 3]
    o2 = _optimizer(tl)
    chain2 = lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(o2, 2, 0.5), lr_scheduler.ExponentialLR(o2, 0.9)])
    chain2.load_state_dict(sd)
    assert [s.last_epoch for s in chain2._schedulers] == [3, 3] and chain2.get_last_lr() == chain.get_last_lr()
    cyc = lr_scheduler.CyclicLR(_optimizer(tl), 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.5)
    sd = cyc.state_dict()
    assert sd["_scale_fn_custom"] is None and "_scale_fn_ref" not in sd
    cyc.load_state_dict(sd)
    assert cyc.scale_fn(2) == 0.25 and cyc.scale_mode == "iterations"


# ---- closed forms (no PyTorch needed) -------------------------------------------------------------

def _lrs(make, steps):
    return [lrs for lrs, _ in _sequence(tl, make, steps)]


def test_closed_forms():
    for e, lrs in enumerate(_lrs(SCHEDULERS["StepLR"][0], 12)):
        assert lrs == pytest.approx([b * 0.5 ** (e // 3) for b in LRS], rel=1e-12)
    for e, lrs in enumerate(_lrs(SCHEDULERS["MultiStepLR"][0], 12)):
        n = sum(1 for m in (2, 5, 5, 9) if m <= e)
        assert lrs == pytest.approx([b * 0.3**n for b in LRS], rel=1e-12)
    for e, lrs in enumerate(_lrs(SCHEDULERS["ExponentialLR"][0], 10)):
        assert lrs == pytest.approx([b * 0.9**e for b in LRS], rel=1e-12)
    for e, lrs in enumerate(_lrs(SCHEDULERS["CosineAnnealingLR"][0], 35)):
        expected = [0.001 + (b - 0.001) * (1 + math.cos(math.pi * e / 10)) / 2 for b in LRS]
        assert lrs == pytest.approx(expected, rel=1e-9, abs=1e-12)
    for e, lrs in enumerate(_lrs(SCHEDULERS["LambdaLR"][0], 8)):
        assert lrs == pytest.approx([b * 0.95**e for b in LRS], rel=1e-12)
    for e, lrs in enumerate(_lrs(SCHEDULERS["LinearLR"][0], 8)):
        f = 0.25 + 0.75 * min(e, 4) / 4
        assert lrs == pytest.approx([b * f for b in LRS], rel=1e-12)
    for e, lrs in enumerate(_lrs(SCHEDULERS["ConstantLR"][0], 6)):
        assert lrs == pytest.approx([b * (0.5 if e < 3 else 1.0) for b in LRS], rel=1e-12)
    for e, lrs in enumerate(_lrs(SCHEDULERS["PolynomialLR"][0], 8)):
        assert lrs == pytest.approx([b * (1 - min(e, 6) / 6) ** 2 for b in LRS], rel=1e-9, abs=1e-15)
    for e, lrs in enumerate(_lrs(SCHEDULERS["SequentialLR"][0], 12)):
        f = 0.1 + 0.9 * e / 3 if e < 3 else (1 + math.cos(math.pi * (e - 3) / 6)) / 2
        assert lrs == pytest.approx([b * f for b in LRS], rel=1e-9, abs=1e-15)


def test_one_cycle_shape():
    seq = _sequence(tl, SCHEDULERS["OneCycleLR-cos"][0], 19)
    lrs0 = [lrs[0] for lrs, _ in seq]
    assert lrs0[0] == pytest.approx(1.0 / 25)
    peak = max(range(len(lrs0)), key=lambda k: lrs0[k])
    assert lrs0[peak] == pytest.approx(1.0) and peak == 5  # pct_start * total_steps - 1
    assert lrs0[-1] == pytest.approx(1.0 / 25 / 1e4)
    assert all(a <= b for a, b in zip(lrs0[:peak], lrs0[1:peak + 1]))
    assert all(a >= b for a, b in zip(lrs0[peak:], lrs0[peak + 1:]))
    moms = [m[0] for _, m in seq]
    assert moms[0] == pytest.approx(0.95) and moms[peak] == pytest.approx(0.85) and moms[-1] == pytest.approx(0.95)
    o = _optimizer(tl)
    s = lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=3)
    for _ in range(3):
        o.step()
        s.step()
    o.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        s.step()


def test_step_with_epoch_uses_closed_form():
    o = _optimizer(tl)
    s = lr_scheduler.StepLR(o, step_size=2, gamma=0.1)
    o.step()
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        s.step(5)
    assert s.last_epoch == 5
    assert s.get_last_lr() == pytest.approx([b * 0.01 for b in LRS])


# ---- ReduceLROnPlateau ----------------------------------------------------------------------------

PLATEAU = {
    "min-rel": (dict(patience=2, factor=0.5), [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.81, 0.81, 0.81, 0.81, 0.7]),
    "max-abs-cooldown": (dict(mode="max", threshold_mode="abs", threshold=0.1, patience=1, cooldown=2, factor=0.2),
                         [1.0, 1.05, 1.0, 1.0, 1.0, 1.0, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2]),
    "min-lr": (dict(patience=0, factor=0.1, min_lr=[0.001, 0.0]), [1.0] * 8),
    "eps": (dict(patience=0, factor=0.5, eps=0.02, min_lr=0.0), [1.0] * 8),
}


@pytest.mark.parametrize("name", list(PLATEAU))
def test_reduce_on_plateau_matches_torch(name):
    pytest.importorskip("torch")
    kw, metrics = PLATEAU[name]
    make = lambda m, o: m.ReduceLROnPlateau(o, **kw)
    steps = len(metrics)
    assert _sequence(tl, make, steps, metrics=metrics) == _sequence(TORCH, make, steps, metrics=metrics)


def test_reduce_on_plateau_rule():
    o = _optimizer(tl)
    s = lr_scheduler.ReduceLROnPlateau(o, patience=2, factor=0.5)
    seen = []
    for m in [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5]:
        s.step(m)
        seen.append(s.get_last_lr()[0])
    # Three epochs without improvement (more than patience=2) halve the lr; improvement resets.
    assert seen == [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025]
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        lr_scheduler.ReduceLROnPlateau(o, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        lr_scheduler.ReduceLROnPlateau(o, mode="avg")
    with pytest.raises(ValueError, match="threshold mode x is unknown!"):
        lr_scheduler.ReduceLROnPlateau(o, threshold_mode="x")
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
        lr_scheduler.ReduceLROnPlateau(o, min_lr=[0.1])


def test_reduce_on_plateau_state_dict():
    o = _optimizer(tl)
    s = lr_scheduler.ReduceLROnPlateau(o, patience=1, mode="max")
    for m in [1.0, 0.5]:
        s.step(m)
    sd = s.state_dict()
    s2 = lr_scheduler.ReduceLROnPlateau(_optimizer(tl))
    s2.load_state_dict(sd)
    assert s2.mode == "max" and s2.num_bad_epochs == 1 and s2.best == 1.0


# ---- state_dict, warnings, errors ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "LambdaLR", "OneCycleLR-cos", "LinearLR",
                                  "SequentialLR"])
def test_state_dict_round_trip(name):
    make, steps = SCHEDULERS[name]
    full = _lrs(make, steps)
    o = _optimizer(tl)
    s = make(lr_scheduler, o)
    for _ in range(4):
        o.step()
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 4
    o_sd = o.state_dict()
    # As in PyTorch: build optimizer and scheduler, then load both (the optimizer's restores the lrs).
    o2 = _optimizer(tl)
    s2 = make(lr_scheduler, o2)
    o2.load_state_dict(o_sd)
    s2.load_state_dict(sd)
    rest = []
    for _ in range(4, steps):
        o2.step()
        s2.step()
        rest.append([g["lr"] for g in o2.param_groups])
    assert rest == full[5:]


def test_initial_lr_and_base_lrs():
    o = _optimizer(tl)
    s = lr_scheduler.ExponentialLR(o, gamma=0.5)
    assert [g["initial_lr"] for g in o.param_groups] == list(LRS) and s.base_lrs == list(LRS)
    assert s.last_epoch == 0
    # Resuming from last_epoch needs initial_lr in every group.
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.ExponentialLR(_optimizer(tl), gamma=0.5, last_epoch=3)
    resumed = lr_scheduler.ExponentialLR(o, gamma=0.5, last_epoch=3)
    assert resumed.last_epoch == 4


def test_lambda_state_dict_keeps_callable_objects():
    class Schedule:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor**epoch

    o = _optimizer(tl)
    s = lr_scheduler.LambdaLR(o, [Schedule(), lambda e: 1.0])
    s.lr_lambdas[0].factor = 0.25
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"factor": 0.25}, None]
    s2 = lr_scheduler.LambdaLR(_optimizer(tl), [Schedule(), lambda e: 1.0])
    s2.load_state_dict(sd)
    assert s2.lr_lambdas[0].factor == 0.25


def test_warns_when_scheduler_steps_before_optimizer():
    o = _optimizer(tl)
    s = lr_scheduler.StepLR(o, step_size=1)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        s.step()
    o2 = _optimizer(tl)
    s2 = lr_scheduler.StepLR(o2, step_size=1)
    o2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s2.step()


def test_errors():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], step_size=1)
    o = _optimizer(tl)
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
        lr_scheduler.LinearLR(o, start_factor=0)
    with pytest.raises(ValueError, match="Ending multiplicative factor expected to be between 0 and 1."):
        lr_scheduler.LinearLR(o, end_factor=1.5)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(o, [lambda e: 1.0])
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got float"):
        lr_scheduler.LambdaLR(o, 0.5)
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1."):
        lr_scheduler.ConstantLR(o, factor=2.0)
    with pytest.raises(ValueError, match="SequentialLR expects at least one scheduler"):
        lr_scheduler.SequentialLR(o, [], milestones=[])
    with pytest.raises(ValueError, match="expects number of schedulers provided to be one more"):
        lr_scheduler.SequentialLR(o, [lr_scheduler.StepLR(o, 2)], milestones=[3])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        lr_scheduler.SequentialLR(o, [lr_scheduler.ReduceLROnPlateau(o)], milestones=[])
    with pytest.raises(ValueError, match="You must define either total_steps OR \\(epochs AND steps_per_epoch\\)"):
        lr_scheduler.OneCycleLR(o, max_lr=1.0)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=0)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=5, anneal_strategy="exp")
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start, but got 2.0"):
        lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=5, pct_start=2.0)
    with pytest.raises(ValueError, match="max_lr must have the same length as optimizer.param_groups"):
        lr_scheduler.OneCycleLR(o, max_lr=[1.0], total_steps=5)
    from torchlite.optim import Adagrad

    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.OneCycleLR(Adagrad([tl.tensor([1.0], requires_grad=True)]), max_lr=1.0, total_steps=5)


def test_schedulers_drive_the_optimizer():
    # The lr a scheduler sets is the one the next step uses.
    p = tl.tensor([1.0], requires_grad=True)
    o = SGD([p], lr=1.0)
    s = lr_scheduler.StepLR(o, step_size=1, gamma=0.5)
    for expected in (0.0, -0.5, -0.75):
        p.grad = tl.tensor([1.0])
        o.step()
        s.step()
        assert float(p) == pytest.approx(expected)
    q = tl.tensor([1.0], requires_grad=True)
    a = Adam([q], lr=0.1)
    lr_scheduler.OneCycleLR(a, max_lr=0.1, total_steps=10)
    assert a.param_groups[0]["betas"] == (0.95, 0.999)
