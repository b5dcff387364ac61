#pragma once
// CUDA-side helpers for kernels and the runtime hooks (CUDA builds only: includes
// cuda_runtime.h). Error checking, the device guard and the current stream.
//
// Note [Current stream]: every device has a current stream per host thread, initially the
// legacy default stream (0). Kernels and copies are queued on current_cuda_stream(device);
// torchlite.cuda.stream(s) / set_current_stream change it. The caching allocator keeps a
// pool per stream (Note [CUDA caching allocator]).
#include <cuda_runtime.h>

#include "aten/core/Exception.h"

namespace tl::cuda {

// Raises AcceleratorError("CUDA error: <description>") (Note [Device errors]) and clears the error
// so later calls work.
[[noreturn]] void raise_cuda_error(cudaError_t err, const char* what);

#define TL_CUDA_CHECK(expr)                                              \
  do {                                                                   \
    cudaError_t tl_cuda_err_ = (expr);                                   \
    if (TL_UNLIKELY(tl_cuda_err_ != cudaSuccess)) ::tl::cuda::raise_cuda_error(tl_cuda_err_, #expr); \
  } while (0)

// After a kernel launch: reports launch failures (bad configuration, no device).
#define TL_CUDA_KERNEL_LAUNCH_CHECK() TL_CUDA_CHECK(cudaGetLastError())

// Device index with -1 meaning the current device; checks the range.
int resolve_device(int device);

cudaStream_t current_cuda_stream(int device = -1);

// RAII: makes `device` current for the scope and restores the previous one (no-op when
// the device already is current, or when device < 0).
class CUDAGuard {
 public:
  explicit CUDAGuard(int device);
  ~CUDAGuard();
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  int original_device() const { return prev_; }

 private:
  int prev_ = -1;
  bool changed_ = false;
};

}  // namespace tl::cuda
