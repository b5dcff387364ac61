"""torchlite.autocast and torchlite.amp.GradScaler: the policies of Note [Autocast] (output dtypes
equal to PyTorch's, values close to float32), gradients reaching float32 parameters, the
per-thread state and its restoration, and loss scaling."""

import warnings

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn
from torchlite.nn import functional as F

try:
    import torch
except ImportError:  # the comparisons with PyTorch skip; the rest runs
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_matmul_family_runs_in_bfloat16_and_stays_close():
    a, b = _rand(4, 8), _rand(8, 3, seed=1)
    x, w = tl.tensor(a), tl.tensor(b)
    with tl.autocast("cpu"):
        for y in (tl.mm(x, w), x @ w, tl.matmul(x, w), F.linear(x, w.t()), tl.addmm(tl.zeros(3), x, w)):
            assert y.dtype == tl.bfloat16
            np.testing.assert_allclose(y.float().numpy(), a @ b, rtol=0.05, atol=0.1)
        assert tl.exp(tl.ones(2)).dtype == tl.float32  # not listed on CPU: runs in its input's dtype
        assert tl.mm(x.double(), w.double()).dtype == tl.float64  # float64 is never cast
    assert tl.mm(x, w).dtype == tl.float32 and not tl.is_autocast_enabled("cpu")


def test_fp32_and_promote_policies():
    with tl.autocast("cpu"):
        h = tl.mm(tl.ones(2, 3), tl.ones(3, 3))  # bfloat16
        assert F.mse_loss(h, tl.zeros(2, 3)).dtype == tl.float32
        assert F.nll_loss(h, tl.tensor([0, 1])).dtype == tl.float32
        assert F.binary_cross_entropy_with_logits(h, tl.ones(2, 3)).dtype == tl.float32
        assert tl.linalg.inv(tl.eye(3, dtype=tl.bfloat16)).dtype == tl.float32
        assert tl.cat([h, tl.zeros(1, 3)]).dtype == tl.float32  # the widest of the two
        assert tl.cat([h, h]).dtype == tl.bfloat16


def test_gradients_reach_float32_parameters():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 2))
    x = tl.randn(4, 6)
    with tl.autocast("cpu"):
        out = model(x)
        loss = F.cross_entropy(out, tl.tensor([0, 1, 1, 0]))
    assert out.dtype == tl.bfloat16 and loss.dtype == tl.float32
    loss.backward()
    for p in model.parameters():
        assert p.grad is not None and p.grad.dtype == tl.float32 and p.dtype == tl.float32


def test_state_nests_restores_and_decorates():
    assert not tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") == tl.bfloat16
    with tl.autocast("cpu", dtype=tl.float16):
        assert tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") == tl.float16
        with tl.autocast("cpu", enabled=False):
            assert tl.mm(tl.ones(2, 2), tl.ones(2, 2)).dtype == tl.float32
        assert tl.mm(tl.ones(2, 2), tl.ones(2, 2)).dtype == tl.float16
    assert not tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") == tl.bfloat16

    @tl.autocast("cpu")
    def f(a):
        return tl.mm(a, a)

    assert f(tl.ones(2, 2)).dtype == tl.bfloat16 and not tl.is_autocast_enabled("cpu")
    assert tl.autocast_increment_nesting() == 1 and tl.autocast_decrement_nesting() == 0
    with pytest.warns(DeprecationWarning, match="is_autocast_enabled"):
        assert tl.is_autocast_cpu_enabled() is False


def test_cached_weight_casts_are_reused_within_a_region():
    w = nn.Parameter(tl.ones(3, 3))
    x = tl.ones(2, 3)
    with tl.autocast("cpu"):
        a, b = F.linear(x, w), F.linear(x, w)
        (a.float().sum() + b.float().sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((3, 3), 4.0, np.float32))
    assert tl.is_autocast_cache_enabled()


def test_bad_devices_and_dtypes():
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'mps'"):
        tl.autocast("mps")
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        ctx = tl.autocast("cpu", dtype=tl.float64)
    with ctx:
        assert tl.mm(tl.ones(2, 2), tl.ones(2, 2)).dtype == tl.float32
    if not tl.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available"):
            tl.autocast("cuda")


@needs_torch
@pytest.mark.parametrize("name,call", [
    ("mm", lambda m, x: m.mm(x, x.t())),
    ("linear", lambda m, x: m.nn.functional.linear(x, x)),
    ("conv2d", lambda m, x: m.nn.functional.conv2d(x.reshape(1, 1, 4, 4), x[:2, :2].reshape(1, 1, 2, 2))),
    ("bmm", lambda m, x: m.bmm(x[None], x[None])),
    ("softmax", lambda m, x: m.softmax(m.mm(x, x), 0)),
    ("sum", lambda m, x: m.mm(x, x).sum()),
    ("exp", lambda m, x: m.exp(m.mm(x, x))),
    ("layer_norm", lambda m, x: m.nn.functional.layer_norm(m.mm(x, x), (4,))),
    ("mse_loss", lambda m, x: m.nn.functional.mse_loss(m.mm(x, x), x)),
    ("cross_entropy", lambda m, x: m.nn.functional.cross_entropy(m.mm(x, x), m.tensor([0, 1, 2, 3]))),
    ("cat", lambda m, x: m.cat([m.mm(x, x), x])),
    ("stack", lambda m, x: m.stack([m.mm(x, x), m.mm(x, x)])),
    ("addcmul", lambda m, x: m.addcmul(m.mm(x, x), x, x)),
])
def test_output_dtypes_equal_pytorchs(name, call):
    a = _rand(4, 4)
    with tl.autocast("cpu"):
        ours = call(tl, tl.tensor(a))
    with torch.autocast("cpu"):
        theirs = call(torch, torch.tensor(a))
    assert str(ours.dtype).replace("torchlite", "torch") == str(theirs.dtype)
    np.testing.assert_allclose(ours.float().detach().numpy(), theirs.float().detach().numpy(), rtol=0.02, atol=0.05)


# ---- GradScaler ---------------------------------------------------------------------------------

def _one_param_problem(grad_value):
    p = nn.Parameter(tl.ones(2))
    opt = tl.optim.SGD([p], lr=0.1)
    loss = (p * grad_value).sum()
    return p, opt, loss


def test_grad_scaler_scales_unscales_and_steps():
    scaler = tl.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    p, opt, loss = _one_param_problem(1.0)
    assert scaler.scale(loss).item() == pytest.approx(16.0)
    scaler.scale(loss).backward()
    assert p.grad.tolist() == [8.0, 8.0]
    scaler.step(opt)  # unscales, then steps: p -= 0.1 * 1
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9], rtol=1e-6)
    scaler.update()
    assert scaler.get_scale() == 8.0
    for _ in range(2):  # growth_interval clean steps double the scale
        opt.zero_grad()
        scaler.scale((p * 1.0).sum()).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 16.0


def test_grad_scaler_skips_a_step_with_inf_and_backs_off():
    scaler = tl.GradScaler("cpu", init_scale=4.0)
    p, opt, loss = _one_param_problem(float("inf"))
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, 1.0])  # skipped
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 2.0
    state = scaler.state_dict()
    other = tl.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.get_scale() == 2.0 and other.state_dict() == state


def test_grad_scaler_disabled_and_checks():
    scaler = tl.GradScaler("cpu", enabled=False)
    p, opt, loss = _one_param_problem(1.0)
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    with pytest.raises(ValueError, match="growth factor must be > 1.0"):
        tl.GradScaler("cpu", growth_factor=1.0)
    if not tl.cuda.is_available():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert not tl.GradScaler().is_enabled()  # device="cuda" by default, as in PyTorch
        assert any("CUDA is not available" in str(w.message) for w in caught)


def test_custom_fwd_casts_the_inputs_of_a_function():
    class Square(tl.autograd.Function):
        @staticmethod
        @tl.amp.custom_fwd(device_type="cpu", cast_inputs=tl.float32)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @tl.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = tl.ones(3, dtype=tl.bfloat16, requires_grad=True)
    with tl.autocast("cpu"):
        y = Square.apply(x)
    assert y.dtype == tl.float32
    y.sum().backward()
    assert x.grad.dtype == tl.bfloat16 and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_ffts_run_in_float32():
    x = tl.ones(8, dtype=tl.bfloat16)
    with tl.autocast("cpu"):
        assert tl.fft.rfft(x).dtype == tl.complex64 and tl.fft.fft(x).dtype == tl.complex64
    with pytest.raises(RuntimeError, match="Unsupported dtype BFloat16"):
        tl.fft.rfft(x)  # outside autocast, as in PyTorch
