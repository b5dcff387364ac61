"""torchlite.backends.mps: Apple's Metal back-end, which torchlite does not have."""

__all__ = ["is_available", "is_built"]


def is_available():
    return False


def is_built():
    return False
