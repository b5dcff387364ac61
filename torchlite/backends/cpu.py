"""torchlite.backends.cpu: the vector instruction set torchlite's CPU kernels were compiled for."""

from torchlite import _C

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """"AVX512", "AVX2" or "DEFAULT", as PyTorch names them: the widest x86 vector extension the
    extension was compiled to use (torchlite compiles for the build machine's CPU)."""
    return _C._cpu_capability()
