"""torchlite.nn.functional: loss functions.

Thin wrappers over the generated operators: they turn PyTorch's `reduction` strings (and the
legacy size_average/reduce flags) into the operators' enum and do PyTorch's Python-level checks
and warnings."""

import warnings

from torchlite import _C
from torchlite.nn.functional.distance import _broadcast

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "huber_loss", "kl_div",
           "l1_loss", "mse_loss", "nll_loss", "smooth_l1_loss"]

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
