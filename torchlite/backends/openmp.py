"""torchlite.backends.openmp: torchlite's CPU kernels are parallelised with OpenMP."""

__all__ = ["is_available"]


def is_available():
    return True
