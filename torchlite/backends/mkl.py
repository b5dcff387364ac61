"""torchlite.backends.mkl: Intel MKL is not linked (the BLAS is OpenBLAS, the FFT torchlite's own)."""

__all__ = ["is_available"]


def is_available():
    return False
