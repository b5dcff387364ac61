"""torchlite.nn.functional: loss functions.

Most are thin wrappers over the generated operators: they turn PyTorch's `reduction` strings (and
the legacy size_average/reduce flags) into the operators' enum and do PyTorch's Python-level
checks and warnings. The margin, embedding and likelihood losses (PyTorch's own are composites
or small kernels) are compositions of differentiable operators."""

import math
import warnings

from torchlite import _C
from torchlite.autograd.grad_mode import no_grad
from torchlite.nn.functional.activation import logsigmoid
from torchlite.nn.functional.distance import _broadcast, pairwise_distance

__all__ = ["linear_cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cross_entropy",
           "ctc_loss", "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "kl_div", "l1_loss",
           "margin_ranking_loss", "mse_loss", "multi_margin_loss", "multilabel_margin_loss",
           "multilabel_soft_margin_loss", "nll_loss", "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _legacy_get_string(size_average, reduce):
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(
        "mean" if (size_average is None or size_average) and (reduce is None or reduce) else
        "sum" if reduce is None or reduce else "none"), stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _broadcast_pair(input, target, stacklevel=3):
    """PyTorch's pointwise losses warn on (and broadcast) a target of another size."""
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=stacklevel)
        input, target = _broadcast(input, target)
    return input, target


def _weighted(loss_none, weight, input, reduction, mean_by_weight):
    """Elementwise `weight` applied to an unreduced loss (mse/l1/huber's weight argument)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss_none * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _C._nn.nll_loss_nd(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...) for input (in_features,) or
    (N, in_features) and linear_weight (C, *out_features, in_features); ignore_index None means -100.
    `options` (LinearCrossEntropyOptions) selects PyTorch's chunked evaluation, which computes the same
    value: torchlite always evaluates the reference form."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{in_features} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None and (out_features or reduction not in ("mean", "sum", "none") or label_smoothing != 0.0
                                or target.dtype != _C.int64):
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                      "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). Got "
                      f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                      f"out_features={out_features}", stacklevel=2)
    flat = math.prod(out_features, start=num_classes)
    linear_weight = linear_weight.reshape(flat, in_features)
    linear_bias = None if linear_bias is None else linear_bias.reshape(flat)
    logits = _C._nn.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    return _C._nn.cross_entropy_loss(input, target, weight, _reduction(reduction, size_average, reduce),
                                     ignore_index, label_smoothing)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted(_C._nn.mse_loss(input, target, 0), weight, input, reduction, True)
    return _C._nn.mse_loss(input, target, red)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted(_C._nn.l1_loss(input, target, 0), weight, input, reduction, True)
    return _C._nn.l1_loss(input, target, red)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target)
    return _C._nn.smooth_l1_loss(input, target, red, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    red = _reduction(reduction)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted(_C._nn.huber_loss(input, target, 0, delta), weight, input, reduction, False)
    return _C._nn.huber_loss(input, target, red, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(input.shape)
    return _C._nn.binary_cross_entropy(input, target, weight, red)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    red = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _C.binary_cross_entropy_with_logits(input, target, weight, pos_weight, red)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        red = _reduction(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        red = _reduction("sum" if reduction == "batchmean" else reduction)
    loss = _C.kl_div(input, target, red, log_target=log_target)
    # As in PyTorch, 'batchmean' divides by the batch size even where legacy flags chose the reduction.
    return loss / input.size(0) if reduction == "batchmean" and input.dim() != 0 else loss


def _reduce(loss, reduction, size_average=None, reduce=None):
    """Applies a reduction string (or the legacy flags) to an unreduced loss."""
    red = _reduction(reduction, size_average, reduce)
    return loss if red == 0 else loss.mean() if red == 1 else loss.sum()


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    loss = (-target * (input1 - input2) + margin).clamp_min(0)
    return _reduce(loss, reduction, size_average, reduce)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target == 1, max(0, margin - input) where target == -1 (both terms elsewhere)."""
    zeros = _C.zeros_like(input)
    loss = _C.where(target != 1, (margin - input).clamp_min(0), zeros) + _C.where(target != -1, input, zeros)
    return _reduce(loss, reduction, size_average, reduce)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _reduce(-logsigmoid(target * input), reduction, size_average, reduce)


_COSINE_EPS = 1e-12  # added to the squared norms, as PyTorch does


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1."""
    tdim = target.dim()
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if tdim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    prod = (input1 * input2).sum(tdim)
    denom = (((input1 * input1).sum(tdim) + _COSINE_EPS) * ((input2 * input2).sum(tdim) + _COSINE_EPS)).sqrt()
    cos = prod / denom
    zeros = _C.zeros_like(cos)
    loss = _C.where(target == 1, 1 - cos, zeros) + _C.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(loss, reduction, size_average, reduce)


def _check_triplet_dims(anchor, positive, negative):
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")


def _triplet(anchor, positive, negative, distance, margin, swap):
    _check_triplet_dims(anchor, positive, negative)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _C.minimum(dist_neg, distance(positive, negative))
    return (margin + distance(anchor, positive) - dist_neg).clamp_min(0)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    loss = _triplet(anchor, positive, negative, lambda a, b: pairwise_distance(a, b, p, eps), margin, swap)
    return _reduce(loss, ("none", "mean", "sum")[red])


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    loss = _triplet(anchor, positive, negative, distance_function or pairwise_distance, margin, swap)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        # Stirling's approximation of log(target!), counted only where target > 1.
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _C.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):  # one variance per sample (homoscedastic)
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim()
                  and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():  # the clamp is for stability only: gradients pass as if unclamped
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def _check_margin_input(input):
    if not ((input.dim() == 2 and input.size(1) != 0) or (input.dim() == 1 and input.size(0) != 0)
            or input.dim() == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def _check_long(target):
    if target.dtype != _C.int64:
        name = {"float32": "Float", "float64": "Double", "int32": "Int"}.get(str(target.dtype).split(".")[-1])
        raise RuntimeError(f"expected scalar type Long but found {name or target.dtype}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample: sum over classes i != y of max(0, margin - x[y] + x[i]) ** p (times weight[y]) / C."""
    red = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_margin_input(input)
    _check_long(target)
    x = input.reshape(-1, 1) if input.dim() == 0 else input.reshape(-1, input.shape[-1])
    n, c = x.shape
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. Input "
                           f"has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    y = target.reshape(n, 1)
    if n and bool(((y < 0) | (y >= c)).any()):
        raise RuntimeError("target out of range")
    z = (margin - x.gather(1, y) + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y]
    loss = z.masked_fill(_C.arange(c, device=x.device) == y, 0).sum(1) / c
    if input.dim() <= 1:
        loss = loss.reshape(())
    return loss if red == 0 else loss.mean() if red == 1 else loss.sum()


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])) / C;
    each target row lists its classes and ends at the first -1."""
    red = _reduction(reduction, size_average, reduce)
    _check_margin_input(input)
    _check_long(target)
    if input.dim() <= 1:
        c = 1 if input.dim() == 0 else input.size(0)
        if target.dim() > 1 or target.numel() != c:
            raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                               f"{list(input.shape)}")
    elif target.dim() != 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    x = input.reshape(-1, input.shape[-1] if input.dim() else 1)
    t = target.reshape(x.shape)
    n, c = x.shape
    listed = (t >= 0).cumprod(1).bool()  # entries before the first -1
    if n and bool(((t >= c) | (t < -1)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    idx = t.clamp_min(0)
    is_target = _C.zeros(n, c, dtype=_C.int64, device=x.device).scatter_add_(1, idx, listed.long()) > 0
    gap = (1 - x.gather(1, idx).unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)  # [n, j, i]
    pairs = listed.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = _C.where(pairs, gap, 0.0).sum((1, 2)) / c  # where, not a product: a NaN in an unused pair stays out
    if input.dim() <= 1:
        loss = loss.reshape(())
    return loss if red == 0 else loss.mean() if red == 1 else loss.sum()


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss of (T, N, C) log-probabilities (log_softmax
    outputs) against padded (N, S) or concatenated targets."""
    return _C.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                       zero_infinity)
