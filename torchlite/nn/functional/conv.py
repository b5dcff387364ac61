"""torchlite.nn.functional: convolutions."""

__all__ = []
