"""torch.* names of nn functions PyTorch implements as ATen composites (prelu, rrelu, the dropout
family, rms_norm, instance_norm, the margin/embedding losses): ATen's signatures (a `train`
flag, an integer `reduction`) over the torchlite.nn.functional compositions."""

import importlib

from torchlite import _C

# The modules, not the functions of the same names torchlite.nn.functional re-exports.
_act, _dist, _drop, _loss, _norm, _sparse = (importlib.import_module(f"torchlite.nn.functional.{m}") for m in
                                             ("activation", "distance", "dropout", "loss", "normalization", "sparse"))

__all__ = ["alpha_dropout", "alpha_dropout_", "cosine_embedding_loss", "dropout_", "embedding_renorm_",
           "feature_alpha_dropout",
           "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "hinge_embedding_loss", "instance_norm",
           "margin_ranking_loss", "poisson_nll_loss", "prelu", "rms_norm", "rrelu", "rrelu_", "triplet_margin_loss"]

def _reduction_name(reduction):
    """ATen's integer reduction: 1 mean, 2 sum, anything else none."""
    return {1: "mean", 2: "sum"}.get(reduction, "none")


def prelu(input, weight):
    return _act.prelu(input, weight)


def _prelu_method(self, weight):
    """x.prelu(weight): torchlite.prelu(x, weight)."""
    return prelu(self, weight)


_C.Tensor.prelu = _prelu_method


def embedding_renorm_(input, indices, max_norm, norm_type):
    """embedding_renorm_(input, indices, max_norm, norm_type): the rows of the embedding matrix
    `input` that `indices` looks up rescaled in place to norm at most max_norm; returns input."""
    with _sparse.no_grad():
        return _sparse._embedding_renorm_(input, indices, max_norm, norm_type)


def rrelu(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    return _act._rrelu(input, lower, upper, training, False, generator)


def rrelu_(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    return _act._rrelu(input, lower, upper, training, True, generator)


def _torch_dropout(name, functional, inplace):
    """torch.<name>(input, p, train): ATen's RuntimeError for a bad p, then the functional form."""
    def op(input, p, train):
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        return functional(input, p, train, inplace)
    op.__name__ = op.__qualname__ = name
    return op


dropout_ = _torch_dropout("dropout_", _drop.dropout, True)
feature_dropout = _torch_dropout("feature_dropout", _drop._channel_dropout, False)
feature_dropout_ = _torch_dropout("feature_dropout_", _drop._channel_dropout, True)
alpha_dropout = _torch_dropout("alpha_dropout", _drop.alpha_dropout, False)
alpha_dropout_ = _torch_dropout("alpha_dropout_", _drop.alpha_dropout, True)
feature_alpha_dropout = _torch_dropout("feature_alpha_dropout", _drop.feature_alpha_dropout, False)
feature_alpha_dropout_ = _torch_dropout("feature_alpha_dropout_", _drop.feature_alpha_dropout, True)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _norm.rms_norm(input, normalized_shape, weight, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _norm._instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _loss.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction_name(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _loss.hinge_embedding_loss(input, target, margin, reduction=_reduction_name(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _loss.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction_name(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1):
    loss = _loss._triplet(anchor, positive, negative, lambda a, b: _dist.pairwise_distance(a, b, p, eps), margin, swap)
    return _loss._reduce(loss, _reduction_name(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _loss.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction_name(reduction))
