#pragma once
// CPU matrix multiply used by mm/bmm/matmul. Note [CPU GEMM]:
// C (m x n, row-major, leading dim n, overwritten) = A (m x k) @ B (k x n), where A and B are
// given by a pointer and element strides (any layout: transposed, sliced...).
// - n == 1 or m == 1: a matrix-vector loop (dot products with several accumulators when the
//   reduced axis is contiguous, axpy over rows otherwise).
// - otherwise: blocked GEMM in the BLIS style. For each (NC columns, KC depth) block, B is
//   packed into NR-wide column panels and A into MR-tall row panels (zero padded), then an
//   MR x NR register-tile micro-kernel (AVX-512 intrinsics for float/double where the build
//   has them, else a fixed-length loop gcc vectorises) stores the first depth block into C and
//   adds the others.
// - threads: C is cut into one block of whole tiles per thread (rows, columns or both, whichever
//   packs least per thread), and each thread computes its block alone, packing what it uses: no
//   packed panel is shared and no barrier is met before the end.
// - one MC row tile: each B panel is packed just before its use, and full-width panels of a
//   row-major B are read in place, unpacked; when B's rows start off a cache line (NumPy memory),
//   the columns before the first line boundary are a strip of their own, so that the panels read
//   in place start on one.
// - n within one AVX-512 register (16 floats, 8 doubles) and A, B with contiguous rows: no packing;
//   rows of A are broadcast against masked rows of B (packing A cost more than the product).
// - otherwise n < NR (and m >= 4 NR): computed as C^T = B^T A^T.
// Supported dtypes: all but bool; Half/BFloat16 are computed in float by the caller.
#include <cstdint>

#include "aten/core/Tensor.h"
#include "aten/native/cpu/CpuCapability.h"

namespace tl::native {

// One copy per CPU capability (GemmKernel.cpp; Note [CPU capabilities]).
TL_DECLARE_CPU_KERNEL(void gemm_cpu(ScalarType dtype, int64_t m, int64_t n, int64_t k, const void* A, int64_t sa0,
                                    int64_t sa1, const void* B, int64_t sb0, int64_t sb1, void* C, bool parallel))

// `parallel`: allow OpenMP inside (false when the caller already parallelises, e.g. bmm).
inline void gemm_cpu(ScalarType dtype, int64_t m, int64_t n, int64_t k, const void* A, int64_t sa0, int64_t sa1,
                     const void* B, int64_t sb0, int64_t sb1, void* C, bool parallel) {
  TL_CPU_KERNEL(gemm_cpu)(dtype, m, n, k, A, sa0, sa1, B, sb0, sb1, C, parallel);
}

// B packed once for many products with different left operands (an RNN layer's weights, the same
// at every step): the whole-depth panels that gemm_cpu would pack per call, or read in place from
// rows a page apart, in this CPU capability's layout. float and double.
// gemm_pack_b returns the elements the packed B takes, and packs it into dst unless dst is null.
TL_DECLARE_CPU_KERNEL(int64_t gemm_pack_b(ScalarType dtype, int64_t k, int64_t n, const void* B, int64_t sb0,
                                          int64_t sb1, void* dst))
// C (m x n, contiguous, overwritten) = A @ B, with B as gemm_pack_b packed it.
TL_DECLARE_CPU_KERNEL(void gemm_cpu_prepacked(ScalarType dtype, int64_t m, int64_t n, int64_t k, const void* A,
                                              int64_t sa0, int64_t sa1, const void* packed_b, void* C, bool parallel))

inline int64_t gemm_pack_b(ScalarType dtype, int64_t k, int64_t n, const void* B, int64_t sb0, int64_t sb1,
                           void* dst) {
  return TL_CPU_KERNEL(gemm_pack_b)(dtype, k, n, B, sb0, sb1, dst);
}
inline void gemm_cpu_prepacked(ScalarType dtype, int64_t m, int64_t n, int64_t k, const void* A, int64_t sa0,
                               int64_t sa1, const void* packed_b, void* C, bool parallel) {
  TL_CPU_KERNEL(gemm_cpu_prepacked)(dtype, m, n, k, A, sa0, sa1, packed_b, C, parallel);
}

}  // namespace tl::native
