"""torchlite.backends.cuda: cuBLAS and attention switches, and the cuFFT plan cache.

`matmul.allow_tf32` is another view of set_float32_matmul_precision, as in PyTorch (True is
"high", False "highest"): True lets float32 matmuls on CUDA use TF32 tensor cores. The
reduced-precision-reduction flags and the scaled-dot-product-attention backend switches are
recorded and read back: torchlite's attention has one (math) implementation.

`cufft_plan_cache[i]` is device i's cache of cuFFT plans (Note [cuFFT plan cache] in
aten/native/cuda/FFTKernel.cu): `size`, `max_size` (settable; 0 keeps none) and `clear()`; used
directly, `cufft_plan_cache` is the current device's.
"""

import contextlib

from torchlite import _C
from torchlite._global_state import get_float32_matmul_precision, set_float32_matmul_precision

__all__ = ["cuFFTPlanCache", "cuFFTPlanCacheManager", "cudnn_sdp_enabled", "cufft_plan_cache",
           "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp",
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


class cuFFTPlanCache:
    """The cuFFT plan cache of one device."""

    def __init__(self, device_index):
        self.device_index = device_index

    @property
    def size(self):
        """How many plans the cache holds (read-only; set max_size to change the capacity)."""
        return _C._cufft_get_plan_cache_size(self.device_index)

    @size.setter
    def size(self, value):
        raise RuntimeError("cufft_plan_cache.size is read-only (the number of plans held); set max_size to change "
                           "the capacity")

    @property
    def max_size(self):
        return _C._cufft_get_plan_cache_max_size(self.device_index)

    @max_size.setter
    def max_size(self, value):
        _C._cufft_set_plan_cache_max_size(self.device_index, value)

    def clear(self):
        _C._cufft_clear_plan_cache(self.device_index)


class cuFFTPlanCacheManager:
    """Every device's cuFFT plan cache: indexed by a device, or used as the current device's."""

    def __getitem__(self, device):
        import torchlite.cuda

        # A device without an index ("cuda") is the current one.
        index = device if isinstance(device, int) else torchlite.device(device).index
        if index is None:
            index = torchlite.cuda.current_device()
        count = torchlite.cuda.device_count()
        if not 0 <= index < count:
            raise RuntimeError(f"cufft_plan_cache: expected 0 <= device index < {count}, but got device with "
                               f"index {index}")
        return cuFFTPlanCache(index)

    def _current(self):
        import torchlite.cuda

        return self[torchlite.cuda.current_device()]

    def __getattr__(self, name):
        return getattr(self._current(), name)

    def __setattr__(self, name, value):
        setattr(self._current(), name, value)


cufft_plan_cache = cuFFTPlanCacheManager()

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
