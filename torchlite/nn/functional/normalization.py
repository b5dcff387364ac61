"""torchlite.nn.functional: batch/layer/group normalisation and normalize."""

__all__ = []
