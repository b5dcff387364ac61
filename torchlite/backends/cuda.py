"""torchlite.backends.cuda: cuBLAS and attention switches.

`matmul.allow_tf32` is another view of set_float32_matmul_precision, as in PyTorch (True is
"high", False "highest"): True lets float32 matmuls on CUDA use TF32 tensor cores. The
reduced-precision-reduction flags and the scaled-dot-product-attention backend switches are
recorded and read back: torchlite's attention has one (math) implementation.
"""

import contextlib

from torchlite import _C
from torchlite._global_state import get_float32_matmul_precision, set_float32_matmul_precision

__all__ = ["cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp",
           "flash_sdp_enabled", "is_built", "math_sdp_enabled", "matmul", "mem_efficient_sdp_enabled", "sdp_kernel"]


def is_built():
    """Whether torchlite was built with CUDA kernels."""
    return _C._cuda.is_built()


class _CuBLASSettings:
    """torch.backends.cuda.matmul."""

    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        set_float32_matmul_precision("high" if value else "highest")


matmul = _CuBLASSettings()

_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_switches(name):
    def enabled():
        return _sdp_enabled[name]

    def enable(value):
        _sdp_enabled[name] = bool(value)

    enabled.__name__, enable.__name__ = f"{name}_sdp_enabled", f"enable_{name}_sdp"
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switches("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switches("mem_efficient")
math_sdp_enabled, enable_math_sdp = _sdp_switches("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switches("cudnn")


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Deprecated in PyTorch for torch.nn.attention.sdpa_kernel: sets the four switches for the
    duration of the context."""
    saved = dict(_sdp_enabled)
    _sdp_enabled.update(flash=bool(enable_flash), math=bool(enable_math), mem_efficient=bool(enable_mem_efficient),
                        cudnn=bool(enable_cudnn))
    try:
        yield
    finally:
        _sdp_enabled.update(saved)
