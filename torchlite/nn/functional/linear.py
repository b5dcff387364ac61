"""torchlite.nn.functional: linear (and bilinear) layers."""

__all__ = []
