#pragma once
// cuBLAS for the CUDA matrix products, loaded at run time (CUDA builds only).
//
// Note [cuBLAS at run time]: torchlite does not link cuBLAS (a wheel of hundreds of MiB that
// the CPU-only and most test installs lack). The first GEMM loads libcublas.so.13 as Note [CUDA
// libraries] (CUDALibraries.h) describes. When it finds none, or the environment variable
// TORCHLITE_CUBLAS is "0" (read once; the tests switch with set_cublas_enabled), the matrix
// products run the tiled kernel of MatmulKernel.cu. An error cuBLAS reports raises a
// RuntimeError naming its status and the call. Each host thread keeps one cuBLAS handle per
// device, bound to the current stream at each call (never shared across threads: CuBLAS.cpp).
#include <cstdint>

#include "aten/core/ScalarType.h"

namespace tl::cuda::blas {

// Whether GEMMs of `dtype` go to cuBLAS now: Float, Double, Half or BFloat16, the library
// loaded (tried on the first call) and cuBLAS not switched off.
bool enabled(ScalarType dtype);

// An operand as cuBLAS (column-major) takes it: op(stored) where `stored` has leading
// dimension `ld`, op the transpose when `transposed`, batch z at data + z * batch_stride.
struct GemmOperand {
  const void* data;
  bool transposed;
  int64_t ld;
  int64_t batch_stride;
};

// Column-major c[z] (m x n, leading dimension ldc, batch stride stride_c) = op(a[z]) op(b[z])
// for z < batches, on the current stream of `device` (the current device). Half and BFloat16
// accumulate in float; Float uses TF32 tensor cores only when matmul_allow_tf32(). Every size
// must fit an int (the caller checks) and k > 0.
void gemm_strided_batched(ScalarType dtype, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                          const GemmOperand& b, void* c, int64_t ldc, int64_t stride_c, int64_t batches,
                          int device);

}  // namespace tl::cuda::blas
