"""torchlite.nn.functional: dropout."""

__all__ = []
