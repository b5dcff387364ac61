"""Registry entries for the sequence-model operators: embedding_bag (bags of embedding rows),
ctc_loss (connectionist temporal classification) and conv_tbc (time-batch-channel convolution),
with NumPy references that loop plainly over bags, samples and time steps."""

import numpy as np

from opinfo.core import OpInfo, SampleInput, rand

# ---- embedding_bag ----------------------------------------------------------------------------


def _np_embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                      mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                      padding_idx=None):
    psw = per_sample_weights
    if input.ndim == 2:
        offsets = np.arange(0, input.size, input.shape[1])
        include_last_offset = False
        input = input.reshape(-1)
        psw = None if psw is None else psw.reshape(-1)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    bags = len(offsets) - 1 if include_last_offset else len(offsets)
    out = np.zeros((bags, weight.shape[1]), weight.dtype)
    for b in range(bags):
        end = offsets[b + 1] if b + 1 < bags else input.size  # the last bag runs to the end
        rows = [weight[input[k]] * (1 if psw is None else psw[k]) for k in range(offsets[b], end)
                if input[k] != padding_idx]
        if rows:
            out[b] = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode](np.stack(rows), axis=0)
    return out


def _embedding_bag_samples(dtype, rng):
    w = rand((6, 3), dtype, rng)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 0])
    offsets = np.array([0, 2, 2, 5])  # bag 1 is empty
    for mode in ("sum", "mean", "max"):
        yield SampleInput((rng.integers(0, 6, size=(3, 4)), w), {"mode": mode})
        yield SampleInput((idx, w, offsets), {"mode": mode})
        yield SampleInput((idx, w, offsets), {"mode": mode, "padding_idx": 2})
    yield SampleInput((idx, w, offsets), {"mode": "sum", "per_sample_weights": rand((8,), dtype, rng)})
    yield SampleInput((idx, w, offsets), {"mode": "sum", "per_sample_weights": rand((8,), dtype, rng),
                                          "padding_idx": -2})
    yield SampleInput((rng.integers(0, 6, size=(2, 3)), w), {"mode": "sum", "per_sample_weights": rand((2, 3), dtype, rng)})
    yield SampleInput((idx, w, np.array([0, 2, 2, 5, 8])), {"mode": "mean", "include_last_offset": True})
    yield SampleInput((np.zeros(0, np.int64), w, np.array([0, 0])), {"mode": "max"})
    # scale_grad_by_freq changes the gradient on purpose: compared with PyTorch only. The repeated
    # index sorts last: PyTorch 2.13's CPU kernel divides a once-seen index that sorts after a
    # repeated one by the wrong count (pytorch/pytorch#190063; tests/test_sequence_ops.py)
    yield SampleInput((np.array([4, 4, 1, 4, 0]), w, np.array([0, 3])), {"mode": "mean", "scale_grad_by_freq": True},
                      grad=False)


# ---- ctc_loss ---------------------------------------------------------------------------------


def _np_ctc_loss(logits, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The loss of log_softmax(logits), by the alpha recursion of Graves et al. (2006)."""
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    unbatched = lp.ndim == 2
    if unbatched:
        lp, targets = lp[:, None], targets[None]
    in_lens = np.atleast_1d(np.asarray(input_lengths))
    tg_lens = np.atleast_1d(np.asarray(target_lengths))
    losses, start = [], 0
    for n in range(lp.shape[1]):
        length = tg_lens[n]
        labels = targets[n, :length] if targets.ndim == 2 else targets[start:start + length]
        start += length
        ext = [blank]
        for c in labels:
            ext += [c, blank]
        alpha = np.full(len(ext), -np.inf)
        alpha[0] = lp[0, n, blank]
        if len(ext) > 1:
            alpha[1] = lp[0, n, ext[1]]
        for t in range(1, in_lens[n]):
            prev = alpha
            alpha = np.full(len(ext), -np.inf)
            for s in range(len(ext)):
                terms = [prev[s]] + ([prev[s - 1]] if s > 0 else [])
                terms += [prev[s - 2]] if s > 1 and ext[s] != ext[s - 2] else []
                alpha[s] = np.logaddexp.reduce(terms) + lp[t, n, ext[s]]
        losses.append(-np.logaddexp.reduce(alpha[-2:]))
    loss = np.array(losses)
    if zero_infinity:
        loss = np.where(np.isinf(loss), 0.0, loss)
    if reduction == "mean":
        loss = (loss / np.maximum(tg_lens, 1)).mean()
    elif reduction == "sum":
        loss = loss.sum()
    elif unbatched:
        loss = loss[0]
    return np.asarray(loss, dtype=logits.dtype)


def _ctc_samples(dtype, rng):
    x = rand((6, 2, 4), dtype, rng)
    padded, in_lens, tg_lens = np.array([[1, 2, 2], [3, 1, 0]]), np.array([6, 5]), np.array([3, 2])
    for reduction in ("mean", "sum", "none"):
        yield SampleInput((x, padded, in_lens, tg_lens), {"reduction": reduction})
    # concatenated targets, lengths as tuples (the int[] overload)
    yield SampleInput((x, np.array([1, 2, 2, 3, 1]), (6, 5), (3, 2)), {"reduction": "none"})
    yield SampleInput((x, np.array([[0, 1, 1], [2, 2, 2]]), in_lens, tg_lens), {"blank": 3, "reduction": "sum"})
    # an empty target, and a repeated label that needs a blank between its frames
    yield SampleInput((rand((5, 3, 3), dtype, rng), np.array([[1, 1], [0, 0], [2, 1]]), np.array([5, 3, 4]),
                       np.array([2, 0, 1])), {"reduction": "none"})
    # two frames cannot hold "1 1" (it needs three): infinite loss, zeroed by zero_infinity
    yield SampleInput((rand((4, 2, 3), dtype, rng), np.array([[1, 1], [2, 1]]), np.array([2, 4]), np.array([2, 2])),
                      {"zero_infinity": True, "reduction": "none"})
    # unbatched: (T, C) log_probs, (S,) targets, 0-d lengths
    yield SampleInput((rand((5, 3), dtype, rng), np.array([1, 2]), np.array(5), np.array(2)))


def _ctc_call(lib, logits, *args, **kwargs):
    # log_softmax first: the gradient is PyTorch's, which is the true one through log_softmax
    return lib.nn.functional.ctc_loss(logits.log_softmax(-1), *args, **kwargs)


# ---- conv_tbc ---------------------------------------------------------------------------------


def _np_conv_tbc(x, weight, bias, pad=0):
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0))) if pad >= 0 else x[-pad:x.shape[0] + pad]
    steps = xp.shape[0] - weight.shape[0] + 1
    out = [sum(xp[t + k] @ weight[k] for k in range(weight.shape[0])) + bias for t in range(steps)]
    return np.array(out, dtype=x.dtype).reshape(steps, x.shape[1], weight.shape[2])


def _conv_tbc_samples(dtype, rng):
    x, w, b = rand((5, 2, 3), dtype, rng), rand((2, 3, 4), dtype, rng), rand((4,), dtype, rng)
    yield SampleInput((x, w, b))
    yield SampleInput((x, w, b, 1))
    yield SampleInput((x, rand((3, 3, 2), dtype, rng), rand((2,), dtype, rng), -1))  # negative pad crops
    yield SampleInput((x, rand((1, 3, 4), dtype, rng), b, 2))
    yield SampleInput((x, rand((4, 3, 4), dtype, rng), b, -1), grad=False)  # an empty result


OPS = [
    OpInfo("embedding_bag", _embedding_bag_samples, ref=_np_embedding_bag,
           op=lambda lib, *a, **k: lib.nn.functional.embedding_bag(*a, **k),
           covers=("_embedding_bag", "_embedding_bag_backward", "_embedding_bag_per_sample_weights_backward")),
    OpInfo("ctc_loss", _ctc_samples, ref=_np_ctc_loss, op=_ctc_call, covers=("_ctc_loss", "_ctc_loss_backward"),
           gradgrad=False),  # _ctc_loss_backward has no derivative, as in PyTorch
    OpInfo("conv_tbc", _conv_tbc_samples, ref=_np_conv_tbc),
]
