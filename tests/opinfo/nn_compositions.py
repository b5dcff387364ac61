"""Registry entries for the nn functions written as compositions of differentiable operators
(torchlite/nn/functional/*.py, torch.* names in torchlite/_nn_compositions.py): prelu, glu,
softsign, tanhshrink, instance_norm, local_response_norm, rms_norm and the margin, embedding and
likelihood losses. Not YAML operators (yaml=False); the random ones (rrelu, the dropouts) are
checked in tests/test_nn_compositions.py."""

import math

import numpy as np

from opinfo.core import OpInfo, SampleInput, positive, rand

REDUCTIONS = ("none", "mean", "sum")


def _py(name, samples, **kw):
    return OpInfo(name, samples, yaml=False, **kw)


def _F(name):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k)


def _reduce(loss, reduction="mean"):
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def _like(x, y):
    return np.asarray(y).astype(x.dtype)


def _signs(shape, dtype, rng):
    a = rand(shape, dtype, rng)
    return np.where(a > 0, 1, -1).astype(a.dtype)


# ---- activations -----------------------------------------------------------------------------

def _prelu_samples(dtype, rng):
    yield SampleInput((rand((2, 3, 4), dtype, rng), positive((3,), dtype, rng, 0.1, 0.9)))
    yield SampleInput((rand((2, 3), dtype, rng), positive((1,), dtype, rng, 0.1, 0.9)))
    yield SampleInput((rand((5,), dtype, rng), positive((), dtype, rng, 0.1, 0.9)))


def _prelu_ref(x, w):
    w = w.reshape([1] * x.ndim) if w.size == 1 else w.reshape([1, -1] + [1] * (x.ndim - 2))
    return _like(x, np.where(x > 0, x, w * x))


def _glu_samples(dtype, rng):
    yield SampleInput((rand((2, 4), dtype, rng),))
    yield SampleInput((rand((4, 3), dtype, rng), 0))
    yield SampleInput((rand((2, 6, 1), dtype, rng),), {"dim": 1})


def _glu_ref(x, dim=-1):
    a, b = np.split(x, 2, axis=dim)
    return _like(x, a / (1 + np.exp(-b)))


def _unary_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng),))
    yield SampleInput((rand((), dtype, rng),))
    yield SampleInput((rand((0, 3), dtype, rng),), grad=False)


# ---- normalisation ---------------------------------------------------------------------------

def _instance_norm_samples(dtype, rng):
    """(input, running_mean, running_var, weight, bias): PyTorch differentiates no running statistic."""
    def args(*shape):
        c = shape[1]
        return (rand(shape, dtype, rng), rand((c,), dtype, rng), positive((c,), dtype, rng), rand((c,), dtype, rng),
                rand((c,), dtype, rng))
    yield SampleInput(args(2, 3, 5))
    yield SampleInput(args(2, 3, 2, 3), {"eps": 1e-3, "momentum": 0.3})
    yield SampleInput(args(2, 3, 4), {"use_input_stats": False})


def _instance_norm_ref(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                       momentum=0.1, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    bshape = [1, -1] + [1] * (x.ndim - 2)
    if use_input_stats:
        mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    else:
        mean, var = running_mean.reshape(bshape), running_var.reshape(bshape)
    y = (x - mean) / np.sqrt(var + eps)
    if weight is not None:
        y = y * weight.reshape(bshape)
    if bias is not None:
        y = y + bias.reshape(bshape)
    return _like(x, y)


def _lrn_samples(dtype, rng):
    yield SampleInput((rand((2, 5, 3), dtype, rng), 3), {"alpha": 0.5})
    yield SampleInput((rand((1, 4, 2, 3), dtype, rng), 2), {"alpha": 0.3, "beta": 0.5, "k": 2.0})
    yield SampleInput((rand((1, 3, 2, 1, 2), dtype, rng), 4), {"alpha": 1.0})


def _lrn_ref(x, size, alpha=1e-4, beta=0.75, k=1.0):
    c = x.shape[1]
    sq = np.pad(x * x, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    window = sum(sq[:, i:i + c] for i in range(size))
    return _like(x, x / (k + alpha / size * window) ** beta)


def _rms_norm_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng), [3]))
    yield SampleInput((rand((2, 3, 4), dtype, rng), [3, 4], rand((3, 4), dtype, rng)), {"eps": 1e-3})


def _rms_norm_ref(x, shape, weight=None, eps=None):
    eps = np.finfo(x.dtype).eps if eps is None else eps
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    y = x / np.sqrt((x * x).mean(axes, keepdims=True) + eps)
    return _like(x, y if weight is None else y * weight)


# ---- losses ----------------------------------------------------------------------------------

def _loss_samples(make):
    """make(dtype, rng) -> (args, kwargs); one sample per reduction, plus legacy flags."""
    def samples(dtype, rng):
        for red in REDUCTIONS:
            args, kw = make(dtype, rng)
            yield SampleInput(args, {**kw, "reduction": red})
    return samples


def _margin_ranking_ref(x1, x2, t, margin=0, reduction="mean"):
    return _like(x1, _reduce(np.maximum(0, -t * (x1 - x2) + margin), reduction))


def _hinge_ref(x, t, margin=1.0, reduction="mean"):
    loss = np.where(t != 1, np.maximum(0, margin - x), 0) + np.where(t != -1, x, 0)
    return _like(x, _reduce(loss, reduction))


def _soft_margin_ref(x, t, reduction="mean"):
    return _like(x, _reduce(np.logaddexp(0, -t * x), reduction))


def _cosine_ref(x1, x2, t, margin=0, reduction="mean"):
    axis = t.ndim
    cos = (x1 * x2).sum(axis) / np.sqrt(((x1 * x1).sum(axis) + 1e-12) * ((x2 * x2).sum(axis) + 1e-12))
    loss = np.where(t == 1, 1 - cos, 0) + np.where(t == -1, np.maximum(0, cos - margin), 0)
    return _like(x1, _reduce(loss, reduction))


def _pdist(a, b, p=2.0, eps=1e-6):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


def _triplet_ref(a, pos, neg, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction="mean"):
    d_neg = _pdist(a, neg, p, eps)
    if swap:
        d_neg = np.minimum(d_neg, _pdist(pos, neg, p, eps))
    return _like(a, _reduce(np.maximum(0, margin + _pdist(a, pos, p, eps) - d_neg), reduction))


def _triplet_distance_ref(a, pos, neg, margin=1.0, swap=False, reduction="mean"):
    return _triplet_ref(a, pos, neg, margin, 2.0, 1e-6, swap, reduction)


def _poisson_ref(x, t, log_input=True, full=False, eps=1e-8, reduction="mean"):
    loss = np.exp(x) - t * x if log_input else x - t * np.log(x + eps)
    if full:
        safe = np.where(t > 1, t, 2.0)
        loss = loss + np.where(t > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * math.pi * safe), 0)
    return _like(x, _reduce(loss, reduction))


def _gaussian_ref(x, t, var, full=False, eps=1e-6, reduction="mean"):
    if var.ndim == x.ndim - 1:
        var = var[..., None]
    var = np.maximum(var, eps)
    loss = 0.5 * (np.log(var) + (x - t) ** 2 / var) + (0.5 * math.log(2 * math.pi) if full else 0)
    return _like(x, _reduce(loss, reduction))


def _multilabel_soft_ref(x, t, weight=None, reduction="mean"):
    loss = t * np.logaddexp(0, -x) + (1 - t) * np.logaddexp(0, x)
    if weight is not None:
        loss = loss * weight
    return _like(x, _reduce(loss.mean(-1), reduction))


def _multi_margin_ref(x, y, p=1, margin=1.0, weight=None, reduction="mean"):
    x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    y2 = y.reshape(-1)
    n, c = x2.shape
    xy = x2[np.arange(n), y2][:, None]
    z = np.maximum(0, margin - xy + x2) ** p
    if weight is not None:
        z = z * weight[y2][:, None]
    z[np.arange(n), y2] = 0
    loss = z.sum(1) / c
    return _like(x, _reduce(loss.reshape(()) if x.ndim <= 1 else loss, reduction))


def _multilabel_margin_ref(x, t, reduction="mean"):
    x2, t2 = x.reshape(-1, x.shape[-1]), t.reshape(-1, x.shape[-1])
    c = x2.shape[1]
    losses = []
    for xs, ts in zip(x2, t2):
        labels = []
        for v in ts:
            if v < 0:
                break
            labels.append(v)
        others = [i for i in range(c) if i not in labels]
        losses.append(sum(max(0.0, 1 - xs[j] + xs[i]) for j in labels for i in others) / c)
    loss = np.array(losses)
    return _like(x, _reduce(loss.reshape(()) if x.ndim <= 1 else loss, reduction))


def _multilabel_targets():
    return np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 0, 0, 0]], dtype=np.int64)


# ---- pooling and embeddings ------------------------------------------------------------------

def _np_lp_pool(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x^p over each window)^(1/p) for x (N, C, *spatial), windows without padding."""
    nd = x.ndim - 2
    kernel = (kernel_size,) * nd if np.ndim(kernel_size) == 0 else tuple(kernel_size)
    step = kernel if stride is None else ((stride,) * nd if np.ndim(stride) == 0 else tuple(stride))
    windows = np.lib.stride_tricks.sliding_window_view(x ** norm_type, kernel, axis=tuple(range(-nd, 0)))
    windows = windows[(..., *[slice(None, None, s) for s in step]) + (slice(None),) * nd]
    return windows.sum(axis=tuple(range(-nd, 0))) ** (1.0 / norm_type)


def _lp_pool_samples(nd):
    def samples(dtype, rng):
        shape = {1: (2, 3, 7), 2: (2, 3, 6, 5), 3: (2, 2, 4, 5, 4)}[nd]
        yield SampleInput((positive(shape, dtype, rng), 2.0, {1: 3, 2: (3, 2), 3: (2, 3, 2)}[nd]))
        yield SampleInput((positive(shape, dtype, rng), 3.0, 2), {"stride": 1})
        if nd == 3:
            yield SampleInput((positive(shape, dtype, rng), 1.5, 2), {"stride": (1, 2, 1)})
    return samples


def _np_unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """im2col by loops over the output grid, for (N, C, H, W) input."""
    k, d, p, s = ((v, v) if np.ndim(v) == 0 else tuple(v) for v in (kernel_size, dilation, padding, stride))
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (x.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (x.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = [x[:, :, i * s[0]:i * s[0] + d[0] * (k[0] - 1) + 1:d[0], j * s[1]:j * s[1] + d[1] * (k[1] - 1) + 1:d[1]]
            .reshape(x.shape[0], -1) for i in range(oh) for j in range(ow)]
    return np.stack(cols, -1)


def _np_fold(cols, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: the adjoint of _np_unfold, by pushing each column back onto the padded image."""
    k, d, p, s = ((v, v) if np.ndim(v) == 0 else tuple(v) for v in (kernel_size, dilation, padding, stride))
    size = (output_size, output_size) if np.ndim(output_size) == 0 else tuple(output_size)
    n, c = cols.shape[0], cols.shape[1] // (k[0] * k[1])
    out = np.zeros((n, c, size[0] + 2 * p[0], size[1] + 2 * p[1]), cols.dtype)
    ow = (out.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    for b in range(cols.shape[2]):
        i, j = divmod(b, ow)
        out[:, :, i * s[0]:i * s[0] + d[0] * (k[0] - 1) + 1:d[0],
            j * s[1]:j * s[1] + d[1] * (k[1] - 1) + 1:d[1]] += cols[:, :, b].reshape(n, c, k[0], k[1])
    return out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]


_FOLD_CASES = (({"kernel_size": 2}, (4, 5)), ({"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1,
                                               "stride": (2, 1)}, (4, 6)))


def _unfold_samples(dtype, rng):
    for kw, size in _FOLD_CASES:
        yield SampleInput((rand((2, 3, *size), dtype, rng),), dict(kw))


def _fold_samples(dtype, rng):
    for kw, size in _FOLD_CASES:
        cols = _np_unfold(np.zeros((1, 3, *size)), **kw)
        yield SampleInput((rand((2, *cols.shape[1:]), dtype, rng), size), dict(kw))


def _embedding_renorm_samples(dtype, rng):
    yield SampleInput((rand((5, 3), dtype, rng), np.array([0, 2, 2, 4]), 1.0, 2.0), grad=False, noncontiguous=False)
    yield SampleInput((rand((4, 2), dtype, rng), np.array([[1, 3]]), 1.5, 1.0), grad=False, noncontiguous=False)


def _np_embedding_renorm(w, indices, max_norm, norm_type):
    out = w.copy()
    for row in np.unique(indices):
        norm = (np.abs(w[row]) ** norm_type).sum() ** (1.0 / norm_type)
        if norm > max_norm:
            out[row] = w[row] * (max_norm / (norm + 1e-7))
    return out


OPS = [
    _py("lp_pool1d", _lp_pool_samples(1), ref=_np_lp_pool, op=_F("lp_pool1d")),
    _py("lp_pool2d", _lp_pool_samples(2), ref=_np_lp_pool, op=_F("lp_pool2d")),
    _py("lp_pool3d", _lp_pool_samples(3), ref=_np_lp_pool, op=_F("lp_pool3d")),
    _py("nn.functional.unfold", _unfold_samples, ref=_np_unfold, op=_F("unfold")),
    _py("nn.functional.fold", _fold_samples, ref=_np_fold, op=_F("fold")),
    _py("embedding_renorm_", _embedding_renorm_samples, ref=_np_embedding_renorm, differentiable=False),
    _py("prelu", _prelu_samples, ref=_prelu_ref),
    _py("glu", _glu_samples, ref=_glu_ref, op=_F("glu")),
    _py("softsign", _unary_samples, ref=lambda x: _like(x, x / (1 + np.abs(x))), op=_F("softsign")),
    _py("tanhshrink", _unary_samples, ref=lambda x: _like(x, x - np.tanh(x)), op=_F("tanhshrink")),
    _py("instance_norm", _instance_norm_samples, ref=_instance_norm_ref, op=_F("instance_norm"), atol=1e-5,
        grad_args=(0, 3, 4)),
    _py("local_response_norm", _lrn_samples, ref=_lrn_ref, op=_F("local_response_norm")),
    _py("rms_norm", _rms_norm_samples, ref=_rms_norm_ref, atol=1e-5),
    _py("margin_ranking_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), rand((3, 4), d, r),
                                                           _signs((3, 4), d, r)), {"margin": 0.3})),
        ref=_margin_ranking_ref, op=_F("margin_ranking_loss"), grad_args=(0, 1)),
    _py("hinge_embedding_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), _signs((3, 4), d, r)),
                                                            {"margin": 0.5})),
        ref=_hinge_ref, op=_F("hinge_embedding_loss"), grad_args=(0,)),
    _py("soft_margin_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), _signs((3, 4), d, r)), {})),
        ref=_soft_margin_ref, op=_F("soft_margin_loss"), grad_args=(0,)),
    _py("cosine_embedding_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), rand((3, 4), d, r),
                                                             _signs((3,), d, r)), {"margin": 0.2})),
        ref=_cosine_ref, op=_F("cosine_embedding_loss"), grad_args=(0, 1)),
    _py("triplet_margin_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), rand((3, 4), d, r),
                                                           rand((3, 4), d, r)), {"margin": 0.7, "swap": True})),
        ref=_triplet_ref, op=_F("triplet_margin_loss")),
    _py("triplet_margin_with_distance_loss",
        _loss_samples(lambda d, r: ((rand((3, 4), d, r), rand((3, 4), d, r), rand((3, 4), d, r)), {"margin": 2.0})),
        ref=_triplet_distance_ref, op=_F("triplet_margin_with_distance_loss")),
    _py("poisson_nll_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), positive((3, 4), d, r, 0.0, 4.0)),
                                                        {"full": True})),
        ref=_poisson_ref, op=_F("poisson_nll_loss"), grad_args=(0,)),
    _py("gaussian_nll_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), rand((3, 4), d, r),
                                                         positive((3,), d, r)), {"full": True})),
        ref=_gaussian_ref, op=_F("gaussian_nll_loss")),
    _py("multilabel_soft_margin_loss",
        _loss_samples(lambda d, r: ((rand((3, 4), d, r), (rand((3, 4), d, r) > 0).astype(rand((1,), d, r).dtype)),
                                    {"weight": positive((4,), d, r)})),
        ref=_multilabel_soft_ref, op=_F("multilabel_soft_margin_loss"), grad_args=(0,)),
    _py("multi_margin_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), np.array([2, 0, 3])),
                                                         {"p": 2, "margin": 0.5, "weight": positive((4,), d, r)})),
        ref=_multi_margin_ref, op=_F("multi_margin_loss"), grad_args=(0,)),
    _py("multilabel_margin_loss", _loss_samples(lambda d, r: ((rand((3, 4), d, r), _multilabel_targets()), {})),
        ref=_multilabel_margin_ref, op=_F("multilabel_margin_loss")),
]
