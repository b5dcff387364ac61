"""torchlite.backends.cpu: the vector instruction set torchlite's CPU kernels run with."""

from torchlite import _C

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """"AVX512", "AVX2" or "DEFAULT", as PyTorch names them: the capability whose copy of the hot
    CPU kernels runs, chosen at import: the best this CPU supports, or a lower one that the
    environment variable TORCHLITE_CPU_CAPABILITY (avx512, avx2, default) asks for."""
    return _C._cpu_capability()
