"""torchlite.backends.mkldnn: oneDNN is not linked; `enabled` is recorded with no effect."""

__all__ = ["enabled", "is_available"]

enabled = True


def is_available():
    return False
