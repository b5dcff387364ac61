"""torchlite.nn.functional: activation functions, softmax and log_softmax."""

__all__ = []
