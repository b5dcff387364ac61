"""torchlite.backends: the switches PyTorch programs set on torch.backends.

Programs set these flags to tune vendor libraries (cuDNN, cuBLAS, MKL-DNN, opt_einsum).
torchlite accepts every flag it lists and reads it back; each submodule's docstring says what
the flag does here, which is often nothing, because torchlite's kernels are its own and give
the same result whatever the flag says.
"""

from torchlite.backends import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
