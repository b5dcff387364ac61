"""Ops and autograd called from several Python threads at once stay correct: each thread trains
its own small model and must end exactly where a single-threaded run of the same model ends.
Grad mode is per thread, and the allocator and the generators are shared safely."""

import os
import re
import subprocess
import sys
import threading

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn

STEPS = 25


def _train(seed):
    """A small MLP trained with SGD on fixed data; returns its final parameters and losses."""
    rng = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 1))
    with tl.no_grad():
        for p in model.parameters():
            p.copy_(tl.tensor(rng.normal(0, 0.3, size=tuple(p.shape)).astype(np.float32)))
    x = tl.tensor(rng.normal(size=(256, 16)).astype(np.float32))
    y = tl.tensor(rng.normal(size=(256, 1)).astype(np.float32))
    opt = tl.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [p.detach().numpy().copy() for p in model.parameters()], losses


def _run_in_threads(fn, args):
    results, errors = [None] * len(args), []

    def work(i):
        try:
            results[i] = fn(args[i])
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(args))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_four_threads_train_like_one():
    seeds = [0, 1, 2, 3]
    alone = [_train(s) for s in seeds]
    together = _run_in_threads(_train, seeds)
    for (params_a, losses_a), (params_t, losses_t) in zip(alone, together):
        assert losses_a == losses_t
        for a, t in zip(params_a, params_t):
            np.testing.assert_array_equal(a, t)


def test_grad_mode_is_per_thread():
    inside = threading.Event()
    leave = threading.Event()
    seen = {}

    def no_grad_thread():
        with tl.no_grad():
            inside.set()
            leave.wait(10)
            seen["other"] = tl.is_grad_enabled()

    t = threading.Thread(target=no_grad_thread)
    t.start()
    inside.wait(10)
    # The other thread is inside no_grad; this one still records history.
    x = tl.ones(3, requires_grad=True)
    assert tl.is_grad_enabled() and (x * 2).requires_grad
    leave.set()
    t.join()
    assert seen["other"] is False


def test_threads_allocate_and_sample_concurrently():
    # The CPU allocator's cache and the default generator are shared by every thread.
    def work(seed):
        total = 0.0
        for i in range(200):
            a = tl.empty(1000 + 37 * (i % 7)).uniform_()
            assert 0.0 <= a.min().item() and a.max().item() < 1.0
            total += a.sum().item()
        return total

    totals = _run_in_threads(work, [0, 1, 2, 3])
    assert all(np.isfinite(totals))


def test_long_ops_release_the_gil():
    # Note [GIL]: with a long switch interval another thread runs only while the GIL is released,
    # so its counter moves during one large matmul only if the binding released the GIL.
    a = tl.ones(1024, 1024)
    state = {"n": 0, "stop": False}

    def spin():
        while not state["stop"]:
            state["n"] += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.5)
    t = threading.Thread(target=spin)
    try:
        t.start()
        a @ a  # warm up: the spinner has started and handed the GIL back
        before = state["n"]
        a @ a
        during = state["n"] - before
    finally:
        state["stop"] = True
        t.join()
        sys.setswitchinterval(interval)
    assert during > 0


_OMP_KEYS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def _gomp_settings_after_import(env):
    """Import torchlite in a fresh process with `env` (no OpenMP settings but the test's): the spin
    count libgomp itself reports it loaded with (OMP_DISPLAY_ENV), and the OpenMP variables that
    process's os.environ and a child process it starts see after the import."""
    base = {k: v for k, v in os.environ.items() if k not in _OMP_KEYS}
    code = ("import os, subprocess, sys, torchlite\n"
            f"keys = {_OMP_KEYS!r}\n"
            "print([os.environ.get(k) for k in keys])\n"
            "child = 'import os; print([os.environ.get(k) for k in ' + repr(keys) + '])'\n"
            "sys.stdout.flush()\n"
            "subprocess.run([sys.executable, '-c', child], check=True)\n")
    r = subprocess.run([sys.executable, "-c", code], env={**base, **env, "OMP_DISPLAY_ENV": "verbose"},
                       capture_output=True, text=True, timeout=60, check=True)
    spin = re.search(r"GOMP_SPINCOUNT = '(\d+)'", r.stderr)
    assert spin, r.stderr
    seen = r.stdout.split("\n")
    return spin.group(1), seen[0], seen[1]


@pytest.mark.parametrize("env, spincount", [
    ({}, tl._GOMP_SPINCOUNT),  # Note [OpenMP wait policy]: a bounded spin by default
    ({"OMP_WAIT_POLICY": "active"}, "30000000000"),  # the user's choice is kept
    ({"OMP_WAIT_POLICY": "PASSIVE"}, "0"),
    ({"GOMP_SPINCOUNT": "1000"}, "1000"),
])
def test_openmp_wait_policy(env, spincount):
    # Only the user's own variables stay in os.environ and reach a child process: ours is gone.
    own = str([env.get(k) for k in _OMP_KEYS])
    assert _gomp_settings_after_import(env) == (spincount, own, own)
