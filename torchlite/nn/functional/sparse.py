"""torchlite.nn.functional: embedding and one_hot."""

__all__ = []
