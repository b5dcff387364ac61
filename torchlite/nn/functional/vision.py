"""torchlite.nn.functional: pad and interpolate."""

__all__ = []
