"""Registry entries: softmax/log_softmax, normalization and losses."""

import numpy as np

import torchlite as tl
from opinfo.core import OpInfo, SampleInput, rand


def _dtypes(lib, args, kwargs):
    """Dtypes are written as names in samples (so that they reach PyTorch as its own)."""
    conv = lambda v: getattr(lib, v[3:]) if isinstance(v, str) and v.startswith("dt:") else v  # noqa: E731
    return [conv(a) for a in args], {k: conv(v) for k, v in kwargs.items()}


def _priv(name):
    """A private operator: torchlite._C.<name> / torch.<name>."""
    def call(lib, *a, **k):
        a, k = _dtypes(lib, a, k)
        return getattr(lib._C if lib is tl else lib, name)(*a, **k)
    return call


def _pub(name):
    def call(lib, *a, **k):
        a, k = _dtypes(lib, a, k)
        return getattr(lib, name)(*a, **k)
    return call


def _first(op):
    return lambda lib, *a, **k: op(lib, *a, **k)[0]


def _F(name):
    def call(lib, *a, **k):
        a, k = _dtypes(lib, a, k)
        return getattr(lib.nn.functional, name)(*a, **k)
    return call


# ---- softmax ------------------------------------------------------------------------------------

def np_log_softmax(x, dim, *_, dtype=None):
    x = x.astype(np.float64)
    if x.ndim == 0:  # one element: x - x (nan for inf, as PyTorch)
        return x - x
    m = x.max(axis=dim, keepdims=True, initial=-np.inf)
    with np.errstate(divide="ignore"):  # an empty row
        return x - m - np.log(np.exp(x - m).sum(axis=dim, keepdims=True))


def np_softmax(x, dim, *_, dtype=None):
    return np.exp(np_log_softmax(x, dim))


def np_softmax_backward(go, y, dim, _dtype):
    return y * (go - (go * y).sum(axis=dim, keepdims=True)) if y.ndim else y * (go - go * y)


def np_log_softmax_backward(go, y, dim, _dtype):
    return go - np.exp(y) * go.sum(axis=dim, keepdims=True) if y.ndim else go - np.exp(y) * go


def _softmax_samples(dtype, rng, private=False):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    extra = (False,) if private else ()
    for shape, dim in (((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2), ((4,), 0), ((), 0), ((2, 0, 3), 1),
                       ((1, 1), -1), ((2, 3, 1), 2)):
        yield SampleInput((r(*shape), dim, *extra))
    yield SampleInput((r(2, 6) * 300, 1, *extra))  # large logits: stable


def _softmax_dtype_samples(dtype, rng):
    yield from _softmax_samples(dtype, rng)
    # out=: the "dt:" spelling is resolved by the op wrapper, which the out= test does not use
    yield SampleInput((rand((3, 4), dtype, rng), 1), {"dtype": "dt:float64"}, grad=False, out=False)


def _softmax_backward_samples(log):
    def samples(dtype, rng):
        for shape, dim in (((3, 5), 1), ((2, 3, 4), 0), ((4,), -1), ((2, 0), 1)):
            x = rand(shape, dtype, rng)
            y = np_log_softmax(x, dim) if log else np_softmax(x, dim)
            yield SampleInput((rand(shape, dtype, rng), y.astype(x.dtype), dim, "dt:" + str(dtype)[10:]))
    return samples


# ---- normalization ------------------------------------------------------------------------------

def np_native_layer_norm(x, normalized_shape, w, b, eps):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    y = (x - mean) * rstd
    y = y * w if w is not None else y
    return (y + b if b is not None else y), mean, rstd


def np_layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return np_native_layer_norm(x, shape, weight, bias, eps)[0]


def _layer_norm_samples(dtype, rng, native=False):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    if native:
        yield SampleInput((r(3, 5), [5], r(5), r(5), 1e-5))
        yield SampleInput((r(2, 3, 4), [3, 4], r(3, 4), None, 1e-3))
        yield SampleInput((r(4), [4], None, r(4), 1e-5))
        yield SampleInput((r(0, 3), [3], r(3), r(3), 1e-5), grad=False)
        return
    yield SampleInput((r(3, 5), [5], r(5), r(5)))
    yield SampleInput((r(2, 3, 4), (3, 4)), {"eps": 1e-3})
    yield SampleInput((r(2, 1, 4), (4,)), {"weight": r(4)})
    yield SampleInput((r(1, 1), [1], r(1), r(1)))
    yield SampleInput((r(3, 6) * 100 + 50, [6]))  # large mean: two-pass variance


def np_batch_norm_train(x, w, b, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    mean = x.mean(axis=axes)
    invstd = 1 / np.sqrt(x.var(axis=axes) + eps)
    return _np_normalize(x, mean, invstd, w, b, shape), mean, invstd


def _np_normalize(x, mean, invstd, w, b, shape):
    """y = x * scale + shift with scale = invstd * w, shift = b - mean * scale: PyTorch's CPU
    kernel's form, which is what defines the non-finite cases (an inf weight times x == mean)."""
    scale = invstd * w if w is not None else invstd
    shift = (b if b is not None else 0) - mean * scale
    return x * scale.reshape(shape) + shift.reshape(shape)


def np_native_batch_norm(x, w, b, rm, rv, training, momentum, eps):
    if training:
        return np_batch_norm_train(x, w, b, eps)
    shape = [1, -1] + [1] * (x.ndim - 2)
    invstd = 1 / np.sqrt(rv + eps)
    return _np_normalize(x, rm, invstd, w, b, shape), rm, invstd


def np_batch_norm(x, rm, rv, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return np_native_batch_norm(x, weight, bias, rm, rv, training, momentum, eps)[0]


def _native_batch_norm_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    pos = lambda *s: rand(s, dtype, rng, 0.5, 2.0)  # noqa: E731
    yield SampleInput((r(4, 3), r(3), r(3), r(3), pos(3), True, 0.1, 1e-5))
    yield SampleInput((r(2, 3, 4), r(3), None, r(3), pos(3), True, 0.3, 1e-3))
    yield SampleInput((r(2, 2, 3, 2), None, r(2), r(2), pos(2), True, 0.1, 1e-5))
    yield SampleInput((r(2, 3, 4), r(3), r(3), r(3), pos(3), False, 0.1, 1e-5))
    yield SampleInput((r(0, 3), r(3), r(3), r(3), pos(3), False, 0.1, 1e-5), grad=False)


def _batch_norm_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    pos = lambda *s: rand(s, dtype, rng, 0.5, 2.0)  # noqa: E731
    yield SampleInput((r(4, 3), r(3), pos(3), r(3), r(3)), {"training": True})
    yield SampleInput((r(2, 3, 4), r(3), pos(3), r(3), r(3)), {"training": True, "momentum": 0.5})
    yield SampleInput((r(2, 2, 3, 2), r(2), pos(2), r(2), r(2)), {"training": True, "eps": 1e-3})
    yield SampleInput((r(2, 3, 4), r(3), pos(3), r(3), r(3)))  # eval: running statistics


def np_group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, num_groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = [1, c] + [1] * (x.ndim - 2)
    y = y * weight.reshape(shape) if weight is not None else y
    return y + bias.reshape(shape) if bias is not None else y


def _group_norm_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(2, 4, 3), 2, r(4), r(4)))
    yield SampleInput((r(2, 6, 2, 2), 3), {"eps": 1e-3})
    yield SampleInput((r(3, 4), 4, r(4)))
    yield SampleInput((r(1, 2, 5), 1), {"weight": r(2), "bias": r(2)})


# ---- losses -------------------------------------------------------------------------------------

def _reduce(loss, reduction):
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def np_nll_loss(x, t, weight=None, ignore_index=-100, reduction="mean"):
    c = x.shape[1] if x.ndim > 1 else x.shape[0]
    rows = np.moveaxis(x, 1, -1).reshape(-1, c) if x.ndim > 1 else x.reshape(1, c)
    tf = t.reshape(-1)
    w = weight if weight is not None else np.ones(c, x.dtype)
    keep = tf != ignore_index
    safe = np.where(keep, tf, 0)
    wt = np.where(keep, w[safe], 0)
    loss = -wt * rows[np.arange(len(tf)), safe]
    if reduction == "none":
        return loss.reshape(t.shape)
    return loss.sum() / wt.sum() if reduction == "mean" else loss.sum()


def _targets(rng, c, *shape, ignore=None):
    t = np.asarray(rng.integers(0, c, size=shape), dtype=np.int64)
    if ignore is not None and t.size:
        t.reshape(-1)[0] = ignore
    return t


def _nll_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(4, 5), _targets(rng, 5, 4)))
    yield SampleInput((r(4, 5), _targets(rng, 5, 4, ignore=2)), {"weight": rand((5,), dtype, rng, 0.5, 2.0),
                                                                 "ignore_index": 2})
    yield SampleInput((r(3, 4), _targets(rng, 4, 3, ignore=-1)), {"ignore_index": -1, "reduction": "sum"})
    yield SampleInput((r(3, 4), _targets(rng, 4, 3)), {"reduction": "none"})
    yield SampleInput((r(5), _targets(rng, 5)), {"reduction": "none"})
    yield SampleInput((r(5), _targets(rng, 5)))
    yield SampleInput((r(2, 3, 2, 2), _targets(rng, 3, 2, 2, 2)), {"reduction": "none"})
    yield SampleInput((r(2, 3, 4), _targets(rng, 3, 2, 4)), {"weight": rand((3,), dtype, rng, 0.5, 2.0)})
    yield SampleInput((r(0, 3), _targets(rng, 3, 0)), {"reduction": "sum"}, grad=False)


def np_cross_entropy(x, t, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    cdim = 0 if x.ndim == 1 else 1
    c = x.shape[cdim]
    logp = np_log_softmax(x, cdim)
    wshape = [1] * x.ndim
    wshape[cdim] = c
    w = (weight if weight is not None else np.ones(c)).reshape(wshape)
    if t.dtype.kind == "f":
        t = t * (1 - label_smoothing) + label_smoothing / c
        loss = -(logp * t * w).sum(axis=cdim)
        return loss.sum() / (x.size / c) if reduction == "mean" else _reduce(loss, reduction)
    nll = np_nll_loss(logp, t, weight, ignore_index, reduction)
    if not label_smoothing:
        return nll
    smooth = np.where(t == ignore_index, 0, -(logp * w).sum(axis=cdim))
    if reduction == "mean":
        tw = np_nll_loss(-np.ones_like(logp), t, weight, ignore_index, "sum")
        smooth = smooth.sum() / tw
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * nll + smooth * label_smoothing / c


def _softmax_probs(rng, dtype, *shape, axis=1):
    return np_softmax(rand(shape, dtype, rng), axis).astype(rand((1,), dtype, rng).dtype)


def _cross_entropy_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    yield SampleInput((r(4, 5), _targets(rng, 5, 4)))
    yield SampleInput((r(4, 5) * 200, _targets(rng, 5, 4)), {"reduction": "sum"})  # large logits: stable
    yield SampleInput((r(4, 5), _targets(rng, 5, 4, ignore=1)), {"ignore_index": 1, "label_smoothing": 0.2,
                                                                 "weight": rand((5,), dtype, rng, 0.5, 2.0)})
    yield SampleInput((r(3, 4), _targets(rng, 4, 3)), {"label_smoothing": 0.1, "reduction": "none"})
    yield SampleInput((r(2, 3, 2), _targets(rng, 3, 2, 2)), {"label_smoothing": 0.3, "reduction": "sum"})
    yield SampleInput((r(4), _targets(rng, 4)))
    yield SampleInput((r(3, 4), _softmax_probs(rng, dtype, 3, 4)))
    yield SampleInput((r(2, 3, 2), _softmax_probs(rng, dtype, 2, 3, 2)), {"label_smoothing": 0.2,
                                                                         "weight": rand((3,), dtype, rng, 0.5, 2.0)})
    yield SampleInput((r(3, 4), _softmax_probs(rng, dtype, 3, 4)), {"reduction": "none"})


def _pointwise_samples(extra=({},), low=-3.0, high=3.0):
    def samples(dtype, rng):
        r = lambda *s: rand(s, dtype, rng, low, high)  # noqa: E731
        for kw in extra:
            yield SampleInput((r(3, 4), r(3, 4)), dict(kw))
        yield SampleInput((r(3, 4), r(3, 4)), {"reduction": "sum"})
        yield SampleInput((r(2, 3), r(2, 3)), {"reduction": "none"})
        yield SampleInput((r(5), r(5)))
        yield SampleInput((r(0, 2), r(0, 2)), {"reduction": "sum"}, grad=False)
    return samples


def np_mse_loss(x, t, reduction="mean", weight=None):
    return _reduce((x - t) ** 2, reduction)


def np_l1_loss(x, t, reduction="mean", weight=None):
    return _reduce(np.abs(x - t), reduction)


def np_smooth_l1_loss(x, t, reduction="mean", beta=1.0):
    z = np.abs(x - t)
    return _reduce(z if beta == 0 else np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def np_huber_loss(x, t, reduction="mean", delta=1.0):
    z = np.abs(x - t)
    return _reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


def np_bce(x, t, weight=None, reduction="mean"):
    loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    return _reduce(loss * weight if weight is not None else loss, reduction)


def _bce_samples(dtype, rng):
    p = lambda *s: rand(s, dtype, rng, 0.05, 0.95)  # noqa: E731
    yield SampleInput((p(3, 4), p(3, 4)))
    yield SampleInput((p(3, 4), p(3, 4), rand((3, 4), dtype, rng, 0.5, 2.0)), {"reduction": "sum"})
    yield SampleInput((p(5), p(5)), {"reduction": "none"})
    yield SampleInput((p(0, 3), p(0, 3)), {"reduction": "sum"}, grad=False)


def np_bce_with_logits(x, t, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
    lw = 1 + (pos_weight - 1) * t if pos_weight is not None else 1
    loss = (1 - t) * x + lw * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))
    return _reduce(loss * weight if weight is not None else loss, reduction)


def _bce_logits_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    p = lambda *s: rand(s, dtype, rng, 0.0, 1.0)  # noqa: E731
    yield SampleInput((r(3, 4), p(3, 4)))
    yield SampleInput((r(3, 4) * 100, p(3, 4)), {"reduction": "sum"})  # large logits: stable
    yield SampleInput((r(3, 4), p(3, 4)), {"pos_weight": rand((4,), dtype, rng, 0.5, 2.0),
                                           "weight": rand((3, 1), dtype, rng, 0.5, 2.0)})
    yield SampleInput((r(5), p(5)), {"reduction": "none"})


def np_kl_div(x, t, size_average=None, reduce=None, reduction="mean", log_target=False):
    loss = np.exp(t) * (t - x) if log_target else np.where(t > 0, t * np.log(np.where(t > 0, t, 1)), 0) - t * x
    if reduction == "batchmean":
        return loss.sum() / x.shape[0]
    return _reduce(loss, reduction)


def _kl_div_samples(dtype, rng):
    r = lambda *s: rand(s, dtype, rng)  # noqa: E731
    p = lambda *s: rand(s, dtype, rng, 0.1, 1.0)  # noqa: E731
    yield SampleInput((r(3, 4), p(3, 4)), {"reduction": "batchmean"})
    yield SampleInput((r(3, 4), r(3, 4)), {"reduction": "sum", "log_target": True})
    yield SampleInput((r(2, 3), p(2, 3)), {"reduction": "none"})


OPS = [
    OpInfo("_softmax", lambda d, r: _softmax_samples(d, r, True), ref=np_softmax, op=_priv("_softmax"),
           covers=("_softmax_backward_data",)),
    OpInfo("_log_softmax", lambda d, r: _softmax_samples(d, r, True), ref=np_log_softmax,
           op=_priv("_log_softmax"), covers=("_log_softmax_backward_data",)),
    OpInfo("_softmax_backward_data", _softmax_backward_samples(False), ref=np_softmax_backward,
           op=_priv("_softmax_backward_data")),
    OpInfo("_log_softmax_backward_data", _softmax_backward_samples(True), ref=np_log_softmax_backward,
           op=_priv("_log_softmax_backward_data")),
    OpInfo("softmax", _softmax_dtype_samples, ref=np_softmax, op=_pub("softmax"), supports_out=True),
    OpInfo("log_softmax", _softmax_dtype_samples, ref=np_log_softmax, op=_pub("log_softmax"), supports_out=True),
    # The statistics outputs are not differentiable: only the normalised output is checked here
    # (tests/test_nn_norm_loss.py compares the statistics with PyTorch).
    OpInfo("native_layer_norm", lambda d, r: _layer_norm_samples(d, r, True), op=_first(_pub("native_layer_norm")),
           ref=lambda *a: np_native_layer_norm(*a)[0],
           covers=("native_layer_norm_backward",), atol=1e-5),
    OpInfo("layer_norm", _layer_norm_samples, ref=np_layer_norm, op=_F("layer_norm"), atol=1e-5),
    # PyTorch returns empty statistics in eval mode; F.batch_norm is compared with it below.
    OpInfo("native_batch_norm", _native_batch_norm_samples, op=_first(_pub("native_batch_norm")),
           ref=lambda *a: np_native_batch_norm(*a)[0], grad_args=(0, 1, 2),
           covers=("native_batch_norm_backward",), torch=False, atol=1e-5),
    OpInfo("batch_norm", _batch_norm_samples, ref=np_batch_norm, op=_F("batch_norm"), grad_args=(0, 3, 4), atol=1e-5),
    OpInfo("group_norm", _group_norm_samples, ref=np_group_norm, op=_F("group_norm"), atol=1e-5),
    OpInfo("nll_loss_nd", _nll_samples, ref=np_nll_loss, op=_F("nll_loss"), grad_args=(0,),
           covers=("nll_loss", "nll_loss_forward", "nll_loss_backward")),
    OpInfo("cross_entropy_loss", _cross_entropy_samples, ref=np_cross_entropy, op=_F("cross_entropy"),
           grad_args=(0,), atol=1e-5),
    OpInfo("mse_loss", _pointwise_samples(), ref=np_mse_loss, op=_F("mse_loss")),
    OpInfo("l1_loss", _pointwise_samples(), ref=np_l1_loss, op=_F("l1_loss")),
    OpInfo("smooth_l1_loss", _pointwise_samples(({"beta": 0.5}, {"beta": 0.0}, {"beta": 2.0})),
           ref=np_smooth_l1_loss, op=_F("smooth_l1_loss")),
    OpInfo("huber_loss", _pointwise_samples(({"delta": 0.5}, {"delta": 2.0})), ref=np_huber_loss,
           op=_F("huber_loss")),
    OpInfo("binary_cross_entropy", _bce_samples, ref=np_bce, op=_F("binary_cross_entropy"), grad_args=(0, 1)),
    OpInfo("binary_cross_entropy_with_logits", _bce_logits_samples, ref=np_bce_with_logits,
           op=_F("binary_cross_entropy_with_logits"), grad_args=(0, 1)),
    OpInfo("kl_div", _kl_div_samples, ref=np_kl_div, op=_F("kl_div")),
]
