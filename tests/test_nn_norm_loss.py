"""softmax, normalization, losses and attention: nn.functional semantics, errors and larger
shapes against PyTorch (the registry in tests/opinfo/nn_norm_loss.py covers the operators'
values and gradients on small inputs)."""

import warnings

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F
from helpers import TORCH, assert_close

needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed")
TF = TORCH.nn.functional if TORCH is not None else None


def _r(*shape, seed=0, scale=1.0):
    return np.asarray(np.random.default_rng(seed).standard_normal(shape) * scale)


def _both(*arrays, grad=False):
    ours = [tl.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    theirs = [TORCH.from_numpy(np.array(a)).requires_grad_(grad and a.dtype.kind == "f") for a in arrays]
    return ours, theirs


def _check_fwd_bwd(fn_tl, fn_torch, *arrays, rtol=1e-10, atol=1e-10, seed=7):
    """fn on both libraries: outputs, then the gradients of every floating input."""
    ours, theirs = _both(*arrays, grad=True)
    out, ref = fn_tl(*ours), fn_torch(*theirs)
    assert_close(out, ref.detach().numpy(), rtol=rtol, atol=atol)
    g = _r(*ref.shape, seed=seed)
    out.backward(tl.tensor(g))
    ref.backward(TORCH.from_numpy(g))
    for a, b in zip(ours, theirs):
        if b.requires_grad:
            assert_close(a.grad, b.grad.numpy(), rtol=rtol, atol=atol)


# ---- softmax ------------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape, dim", [((64, 1000), -1), ((8, 50, 7), 1), ((5, 6, 7, 3), 0), ((3, 257), 0),
                                        ((2, 5, 600), 1)])
def test_softmax_larger_matches_torch(name, shape, dim):
    _check_fwd_bwd(lambda x: getattr(F, name)(x, dim), lambda x: getattr(TF, name)(x, dim), _r(*shape))


@needs_torch
@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmax_implicit_dim_warns_like_torch(ndim):
    x = _r(*(2, 3, 4, 5)[:ndim])
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        ours = F.softmax(tl.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = TF.softmax(TORCH.from_numpy(x))
    assert_close(ours, ref.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an explicit dim never warns
        F.softmax(tl.tensor(x), dim=0 if ndim < 2 else 1)
        F.log_softmax(tl.tensor(x), 0)


def test_softmax_stable_and_special_values():
    x = tl.tensor([[1000.0, 1000.0], [-1000.0, 0.0]], dtype=tl.float64)
    assert_close(F.softmax(x, 1), np.array([[0.5, 0.5], [0.0, 1.0]]))
    assert_close(F.log_softmax(x, 1), np.array([[-np.log(2), -np.log(2)], [-1000.0, 0.0]]))
    y = F.softmax(tl.tensor([[-np.inf, 0.0], [-np.inf, -np.inf]], dtype=tl.float64), 1).numpy()
    assert_close(tl.tensor(y[0]), np.array([0.0, 1.0]))
    assert np.isnan(y[1]).all()  # as PyTorch


def test_softmax_dtypes():
    x = tl.tensor(_r(3, 4)).float()
    assert F.softmax(x, 1).dtype == tl.float32
    assert F.softmax(x, 1, dtype=tl.float64).dtype == tl.float64
    assert x.softmax(1).dtype == tl.float32 and x.log_softmax(-1, dtype=tl.float64).dtype == tl.float64
    h = x.to(tl.bfloat16)
    assert_close(F.softmax(h, 1).float(), F.softmax(h.float(), 1).numpy(), rtol=1e-2, atol=1e-2)
    assert tl._C._softmax(x.half(), 1, True).dtype == tl.float32
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.softmax(tl.tensor([1, 2]), 0)
    with pytest.raises(IndexError):
        F.softmax(x, 2)


def test_softmax_double_backward():
    x = tl.tensor(_r(3, 5), requires_grad=True)
    for fn in (F.softmax, F.log_softmax):
        assert tl.autograd.gradgradcheck(lambda t, f=fn: f(t, 1), (x,))


# ---- normalization ------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("shape, nshape, affine", [((16, 64, 128), (128,), True), ((4, 6, 5, 7), (5, 7), False)])
def test_layer_norm_larger_matches_torch(shape, nshape, affine):
    x = _r(*shape, scale=3) + 5
    arrays = (x, _r(*nshape, seed=1), _r(*nshape, seed=2)) if affine else (x,)
    _check_fwd_bwd(lambda x, *wb: F.layer_norm(x, nshape, *wb), lambda x, *wb: TF.layer_norm(x, nshape, *wb),
                   *arrays, rtol=1e-9, atol=1e-9)


@needs_torch
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(16, 8), (4, 6, 5, 5)])
def test_batch_norm_matches_torch_with_running_stats(training, shape):
    c = shape[1]
    rm, rv = _r(c, seed=3), np.abs(_r(c, seed=4)) + 0.5
    ours_stats, torch_stats = [tl.tensor(rm), tl.tensor(rv)], [TORCH.from_numpy(rm.copy()), TORCH.from_numpy(rv.copy())]
    _check_fwd_bwd(lambda x, w, b: F.batch_norm(x, *ours_stats, w, b, training=training, momentum=0.3),
                   lambda x, w, b: TF.batch_norm(x, *torch_stats, w, b, training=training, momentum=0.3),
                   _r(*shape), _r(c, seed=1), _r(c, seed=2), rtol=1e-9, atol=1e-9)
    for a, b in zip(ours_stats, torch_stats):  # updated in place: momentum, unbiased variance
        assert_close(a, b.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("nshape, eps", [((6,), None), ((4, 6), 1e-3)])
def test_rms_norm_matches_torch(nshape, eps):
    _check_fwd_bwd(lambda x, w: F.rms_norm(x, nshape, w, eps), lambda x, w: TF.rms_norm(x, nshape, w, eps),
                   _r(3, 4, 6), _r(*nshape, seed=1))


@needs_torch
def test_native_norm_statistics_match_torch():
    x, w, b = _r(3, 4, 5), _r(5, seed=1), _r(5, seed=2)
    ours = tl.native_layer_norm(tl.tensor(x), [5], tl.tensor(w), tl.tensor(b), 1e-5)
    theirs = TORCH.native_layer_norm(*[TORCH.from_numpy(a) for a in (x, w, b)][:1], [5],
                                     TORCH.from_numpy(w), TORCH.from_numpy(b), 1e-5)
    for a, t in zip(ours, theirs):
        assert tuple(a.shape) == tuple(t.shape)
        assert_close(a, t.numpy(), rtol=1e-10, atol=1e-10)
    xb = _r(6, 4, 3)
    ours = tl.native_batch_norm(tl.tensor(xb), None, None, None, None, True, 0.1, 1e-5)
    theirs = TORCH.native_batch_norm(TORCH.from_numpy(xb), None, None, None, None, True, 0.1, 1e-5)
    for a, t in zip(ours, theirs):
        assert_close(a, t.numpy(), rtol=1e-10, atol=1e-10)


def test_batch_norm_double_backward_and_float32():
    x = tl.tensor(_r(4, 3, 2), requires_grad=True)
    w = tl.tensor(_r(3, seed=1), requires_grad=True)
    fn = lambda x, w: F.batch_norm(x, None, None, w, None, training=True)  # noqa: E731
    assert tl.autograd.gradgradcheck(fn, (x, w))
    xf = tl.tensor(_r(8, 3, 4).astype(np.float32))
    y = F.batch_norm(xf, None, None, training=True)
    assert y.dtype == tl.float32
    assert_close(y.mean((0, 2)), np.zeros(3, np.float32), atol=1e-6)


def test_layer_norm_double_backward():
    x = tl.tensor(_r(3, 4), requires_grad=True)
    w, b = tl.tensor(_r(4, seed=1), requires_grad=True), tl.tensor(_r(4, seed=2), requires_grad=True)
    assert tl.autograd.gradgradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (x, w, b))


@needs_torch
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_normalize_pairwise_distance_match_torch(p):
    _check_fwd_bwd(lambda x: F.normalize(x, p, dim=1), lambda x: TF.normalize(x, p, dim=1), _r(4, 6, 5))
    _check_fwd_bwd(lambda a, b: F.pairwise_distance(a, b, p), lambda a, b: TF.pairwise_distance(a, b, p),
                   _r(5, 7), _r(5, 7, seed=1))


@needs_torch
def test_group_norm_cosine_similarity_match_torch():
    _check_fwd_bwd(lambda x, w, b: F.group_norm(x, 3, w, b), lambda x, w, b: TF.group_norm(x, 3, w, b),
                   _r(4, 6, 5), _r(6, seed=1), _r(6, seed=2))
    _check_fwd_bwd(lambda a, b: F.cosine_similarity(a, b, dim=-1), lambda a, b: TF.cosine_similarity(a, b, dim=-1),
                   _r(4, 5, 6), _r(5, 6, seed=1))
    z = tl.zeros(2, 3, requires_grad=True)
    F.normalize(z).sum().backward()
    assert np.isfinite(z.grad.numpy()).all()  # a zero vector: finite gradient


@pytest.mark.parametrize("call, exc, message", [
    (lambda: F.layer_norm(tl.zeros(2, 5), (4,)), RuntimeError,
     r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but got input of size\[2, 5\]"),
    (lambda: F.layer_norm(tl.zeros(2, 4), (4,), tl.zeros(3)), RuntimeError,
     "Expected weight to be of same shape as normalized_shape"),
    (lambda: F.layer_norm(tl.zeros(2, 4), ()), RuntimeError, "Expected normalized_shape to be at least 1-dimensional"),
    (lambda: F.batch_norm(tl.zeros(1, 3), None, None, training=True), ValueError,
     "Expected more than 1 value per channel when training"),
    (lambda: F.batch_norm(tl.zeros(4, 3), tl.zeros(4), tl.ones(4)), RuntimeError,
     "running_mean should contain 3 elements not 4"),
    (lambda: F.group_norm(tl.zeros(2, 5, 3), 2), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups"),
    (lambda: F.group_norm(tl.zeros(4), 2), RuntimeError, "Expected at least 2 dimensions for input tensor"),
])
def test_normalization_errors(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


# ---- losses -------------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("kw", [{}, {"label_smoothing": 0.1}, {"reduction": "sum", "ignore_index": 3},
                                {"weight": "w", "label_smoothing": 0.2, "ignore_index": 0}])
def test_cross_entropy_larger_matches_torch(kw):
    x, t = _r(64, 10, scale=30), np.random.default_rng(5).integers(0, 10, 64)
    wt = _r(10, seed=9) ** 2 + 0.5
    kw_ours = {k: (tl.tensor(wt) if v == "w" else v) for k, v in kw.items()}
    kw_torch = {k: (TORCH.from_numpy(wt) if v == "w" else v) for k, v in kw.items()}
    _check_fwd_bwd(lambda x, t: F.cross_entropy(x, t, **kw_ours), lambda x, t: TF.cross_entropy(x, t, **kw_torch),
                   x, t)


def test_cross_entropy_stable_on_huge_logits():
    x = tl.tensor([[1e4, -1e4, 0.0], [0.0, 3e4, -3e4]], dtype=tl.float64, requires_grad=True)
    loss = F.cross_entropy(x, tl.tensor([1, 1]))
    loss.backward()
    assert_close(loss, np.array(1e4))
    assert np.isfinite(x.grad.numpy()).all()
    y = F.binary_cross_entropy_with_logits(tl.tensor([1e4, -1e4], dtype=tl.float64),
                                           tl.tensor([0.0, 1.0], dtype=tl.float64), reduction="none")
    assert_close(y, np.array([1e4, 1e4]))


@needs_torch
@pytest.mark.parametrize("red", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_gradient_matches_torch_at_saturation(red, weighted):
    # Probabilities at exactly 0 and 1 (a saturated sigmoid) must give PyTorch's finite input
    # gradient, (x - t) / max(x (1 - x), 1e-12), not the NaN of differentiating clamped logs.
    x = np.array([0.0, 1.0, 1.0, 0.0, 0.3, 1e-20, 0.999])
    t = np.array([0.0, 1.0, 0.0, 1.0, 0.6, 1.0, 0.2])
    w = _r(7, seed=3) ** 2 + 0.1
    kw = {"reduction": red}
    _check_fwd_bwd(lambda x: F.binary_cross_entropy(x, tl.tensor(t), weight=tl.tensor(w) if weighted else None, **kw),
                   lambda x: TF.binary_cross_entropy(x, TORCH.from_numpy(t),
                                                     weight=TORCH.from_numpy(w) if weighted else None, **kw),
                   x, rtol=1e-8)  # PyTorch's bound is 1e-12 rounded to float32: 4e-9 apart where it applies
    probs = TORCH.sigmoid(TORCH.tensor([30.0, -120.0]))  # float32 rounds these to exactly 1 and 0
    ours = tl.tensor(probs.numpy(), requires_grad=True)
    F.binary_cross_entropy(ours, tl.tensor([1.0, 0.0])).backward()
    assert ours.grad.tolist() == [0.0, 0.0]


def test_binary_cross_entropy_target_and_weight_gradients():
    # Away from 0 and 1 the loss is smooth in all three arguments: finite differences.
    x, t, w = _r(5, seed=1) ** 2 / 4 + 0.1, _r(5, seed=2) ** 2 / 4, _r(5, seed=3) ** 2 + 0.1
    args = [tl.tensor(a, requires_grad=True) for a in (x, t, w)]
    assert tl.autograd.gradcheck(lambda x, t, w: F.binary_cross_entropy(x, t, weight=w), args)
    assert tl.autograd.gradgradcheck(lambda x, t: F.binary_cross_entropy(x, t, reduction="sum"), args[:2])
    assert tl.autograd.gradcheck(lambda x, t, w: F.binary_cross_entropy(x, t, weight=w, reduction="none"), args,
                                 check_forward_ad=True)


def test_losses_float32_and_legacy_args():
    x, t = tl.tensor(_r(4, 3).astype(np.float32)), tl.tensor(_r(4, 3, seed=1).astype(np.float32))
    assert F.mse_loss(x, t).dtype == tl.float32
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        summed = F.mse_loss(x, t, size_average=False)
    assert_close(summed, F.mse_loss(x, t, reduction="sum").numpy())
    with pytest.warns(UserWarning, match="Using a target size"):
        F.l1_loss(x, t[0])
    assert F.cross_entropy(x, tl.tensor([0, 1, 2, 0])).dtype == tl.float32


@needs_torch
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_pointwise_loss_weights_match_torch(name, red):
    x, t, w = _r(4, 3), _r(4, 3, seed=1), _r(4, 3, seed=2) ** 2
    _check_fwd_bwd(lambda x, w: getattr(F, name)(x, tl.tensor(t), reduction=red, weight=w),
                   lambda x, w: getattr(TF, name)(x, TORCH.from_numpy(t), reduction=red, weight=w), x, w)


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_nll_loss_double_backward(red):
    x = tl.tensor(_r(4, 5), requires_grad=True)
    t = tl.tensor([0, 4, 2, 2])
    assert tl.autograd.gradgradcheck(lambda x: F.cross_entropy(x, t, reduction=red, label_smoothing=0.1), (x,))


@pytest.mark.parametrize("call, exc, message", [
    (lambda: F.cross_entropy(tl.zeros(3, 4), tl.tensor([0, 4, 1])), IndexError, "Target 4 is out of bounds."),
    (lambda: F.nll_loss(tl.zeros(3, 4), tl.tensor([0, -2, 1])), IndexError, "Target -2 is out of bounds."),
    (lambda: F.cross_entropy(tl.zeros(3, 4), tl.tensor([0, 1])), ValueError,
     r"Expected input batch_size \(3\) to match target batch_size \(2\)"),
    (lambda: F.nll_loss(tl.zeros(2, 3, 4), tl.zeros(2, 3, dtype=tl.int64)), RuntimeError,
     r"Expected target size \[2, 4\], got \[2, 3\]"),
    (lambda: F.nll_loss(tl.zeros(3, 4), tl.zeros(3)), RuntimeError, "expected scalar type Long but found float32"),
    (lambda: F.nll_loss(tl.zeros(3, 4), tl.tensor([0, 1, 1]), weight=tl.ones(3)), RuntimeError,
     "weight tensor should be defined either for all 4 classes or no classes"),
    (lambda: F.cross_entropy(tl.zeros(3, 4), tl.zeros(3, 5)), RuntimeError,
     "Expected input and target to have the same size"),
    (lambda: F.cross_entropy(tl.zeros(3, 4), tl.tensor([0, 1, 1]), label_smoothing=1.5), RuntimeError,
     "label_smoothing must be between 0.0 and 1.0"),
    (lambda: F.binary_cross_entropy(tl.tensor([0.5, 1.5]), tl.tensor([0.0, 1.0])), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.binary_cross_entropy(tl.tensor([0.5, 0.5]), tl.tensor([[0.0, 1.0]])), ValueError,
     "Using a target size"),
    (lambda: F.binary_cross_entropy_with_logits(tl.zeros(3), tl.zeros(2)), ValueError,
     r"Target size .* must be the same as input size"),
    (lambda: F.mse_loss(tl.zeros(3), tl.zeros(3), reduction="avg"), ValueError, "avg is not a valid value for reduction"),
    (lambda: F.smooth_l1_loss(tl.zeros(3), tl.zeros(3), beta=-1.0), RuntimeError,
     "smooth_l1_loss does not support negative values for beta"),
    (lambda: F.huber_loss(tl.zeros(3), tl.zeros(3), delta=0.0), RuntimeError,
     "huber_loss does not support non-positive values for delta"),
])
def test_loss_errors(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(tl.zeros(2, 3), tl.ones(2, 3))


# ---- attention ----------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"}, {"scale": 0.3},
                                {"is_causal": True, "enable_gqa": True}])
def test_sdpa_matches_torch(kw):
    kw = dict(kw)
    heads_kv = 1 if kw.get("enable_gqa") else 4
    q, k, v = _r(2, 4, 5, 8), _r(2, heads_kv, 7, 8, seed=1), _r(2, heads_kv, 7, 6, seed=2)
    mask = kw.pop("mask", None)
    extra = ()
    if mask == "bool":
        m = np.random.default_rng(3).random((5, 7)) > 0.3
        m[:, 0] = True
        extra = (m,)
    elif mask == "float":
        extra = (_r(5, 7, seed=4),)
    _check_fwd_bwd(lambda q, k, v, *m: F.scaled_dot_product_attention(q, k, v, *m, **kw),
                   lambda q, k, v, *m: TF.scaled_dot_product_attention(q, k, v, *m, **kw), q, k, v, *extra)


def test_sdpa_dropout():
    q = tl.tensor(_r(2, 3, 4))
    if not callable(getattr(F, "dropout", None)):
        with pytest.raises(NotImplementedError):
            F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
        return
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert tuple(out.shape) == (2, 3, 4)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=tl.ones(3, 3), is_causal=True)
