"""torchlite.nn.functional: dropout.

Masks come from the default Generator, so torchlite.manual_seed makes them reproducible.
dropout runs the native_dropout operator (mask and scaling in one pass); the channel-wise
variants and alpha_dropout draw a bernoulli mask and scale with ordinary ops."""

import warnings

from torchlite import _C

__all__ = ["alpha_dropout", "dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"]

_SELU_ALPHA_SCALE = 1.7580993408473766  # -SELU's negative saturation value, alpha * scale


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if not training or p == 0.0:
        return input
    if input.device.type != "cpu":  # native_dropout has a CPU kernel only
        return _masked(input, input.new_empty(input.shape), p, inplace, False)
    out = _C.native_dropout(input, p, True)[0]
    return input.copy_(out) if inplace else out


def _channel_dropout(input, p, training, inplace, alpha=False):
    """Zeroes whole channels: one mask value per (batch, channel), broadcast over the rest."""
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    noise_shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    return _masked(input, input.new_empty(noise_shape), p, inplace, alpha)


def _masked(input, noise, p, inplace, alpha):
    if p == 1.0:  # every unit dropped, alpha dropout's included
        return input.mul_(0.0) if inplace else input * 0.0
    noise.bernoulli_(1.0 - p)
    if alpha:
        # Dropped units take SELU's saturation value; a and b keep the mean and variance.
        k = _SELU_ALPHA_SCALE
        a = 1.0 / ((k * k * p + 1.0) * (1.0 - p)) ** 0.5
        b = (noise - 1.0) * (k * a) + k * a * p
        noise = noise * a
        return input.mul_(noise).add_(b) if inplace else input * noise + b
    noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


def _check_dims(name, input, dims):
    if input.dim() not in dims:
        raise RuntimeError(f"{name}: Expected {' or '.join(f'{d}D' for d in dims)} input, but received a "
                           f"{input.dim()}D input.")


def _unbatched_channel_dropout(input, p, training, inplace):
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _channel_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_dims("dropout1d", input, (2, 3))
    if input.dim() == 2:
        return _unbatched_channel_dropout(input, p, training, inplace)
    return _channel_dropout(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L).", stacklevel=2)
    elif input.dim() != 4:
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated.", stacklevel=2)
    return _channel_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_dims("dropout3d", input, (4, 5))
    if input.dim() == 4:
        return _unbatched_channel_dropout(input, p, training, inplace)
    return _channel_dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    return _masked(input, input.new_empty(input.shape), p, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _channel_dropout(input, p, training, inplace, alpha=True)
