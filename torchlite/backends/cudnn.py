"""torchlite.backends.cudnn: cuDNN's switches. torchlite does not use cuDNN (its convolutions are
its own), so is_available() is False and `enabled`, `benchmark`, `deterministic` and `allow_tf32`
are recorded for programs that set and read them, with no effect."""

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    """The cuDNN version; None, as none is linked."""
    return None
