// CPU GEMM (Note [CPU GEMM] in Gemm.h), compiled once per CPU capability (Note [CPU
// capabilities]); the mm/bmm kernels built on it are in MatmulKernel.cpp.
#include <omp.h>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/native/cpu/Gemm.h"

namespace tl::native::CPU_CAPABILITY {

namespace {

// Bytes per vector register of this copy's capability (Note [CPU capabilities]).
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif

template <typename T>
struct GemmCfg {
  // The MR x NR tile is 12 vector accumulators (two vectors per row): they fit in the 16
  // registers of SSE and AVX2 beside a row of B and a broadcast element of A.
  static constexpr int MR = 6;
  static constexpr int NR = 2 * kVectorBytes / (sizeof(T) >= 8 ? 8 : 4);
  // The KC x NC packed B block (512 KiB) stays in L2; MR x KC A panels stream from L2/L3.
  static constexpr int64_t KC = 256;
  static constexpr int64_t MC = 96;  // rows per parallel tile (multiple of MR)
  static constexpr int64_t NC = sizeof(T) >= 8 ? 256 : 512;  // columns per packed B block
  static constexpr int64_t NG = 4;     // NR panels per parallel tile
};

// y[i] = sum_p M[i*si + p*sp] * x[p*sx], i < rows, p < len.
template <typename T>
void gemv(int64_t rows, int64_t len, const T* M, int64_t si, int64_t sp, const T* x, int64_t sx, T* y, bool parallel) {
  const bool par = parallel && rows * len >= 65536 && omp_get_max_threads() > 1;
  if (sp == 1 && sx == 1) {
#pragma omp parallel for schedule(static) if (par)
    for (int64_t i = 0; i < rows; ++i) {
      const T* __restrict r = M + i * si;
      constexpr int V = 16;
      T a[V] = {};
      int64_t p = 0;
      for (; p + V <= len; p += V)
        for (int j = 0; j < V; ++j) a[j] += r[p + j] * x[p + j];
      T s = T(0);
      for (int j = 0; j < V; ++j) s += a[j];
      for (; p < len; ++p) s += r[p] * x[p];
      y[i] = s;
    }
    return;
  }
  if (si == 1) {  // column-major M: y += M[:, p] * x[p], contiguous in i
    const int64_t blk = 4096;
    const int64_t nb = (rows + blk - 1) / blk;
#pragma omp parallel for schedule(static) if (par && nb > 1)
    for (int64_t b = 0; b < nb; ++b) {
      const int64_t i0 = b * blk, n = std::min(blk, rows - i0);
      T* __restrict yy = y + i0;
      for (int64_t i = 0; i < n; ++i) yy[i] = T(0);
      for (int64_t p = 0; p < len; ++p) {
        const T xp = x[p * sx];
        const T* __restrict c = M + p * sp + i0;
        for (int64_t i = 0; i < n; ++i) yy[i] += c[i] * xp;
      }
    }
    return;
  }
#pragma omp parallel for schedule(static) if (par)
  for (int64_t i = 0; i < rows; ++i) {
    T s = T(0);
    for (int64_t p = 0; p < len; ++p) s += M[i * si + p * sp] * x[p * sx];
    y[i] = s;
  }
}

// The register tile is written with vector types (gcc/clang vector extensions, half a tile
// row each) rather than left to the auto-vectoriser, which kept it in registers only for some
// (dtype, capability) pairs: float32 ran 20-50x slower on DEFAULT and AVX2, float64 on AVX2
// and AVX512.
template <typename T>
inline void micro_kernel(int64_t kc, const T* __restrict Ap, const T* __restrict Bp, T* __restrict C, int64_t ldc,
                         int mr, int nr, bool overwrite) {
  constexpr int MR = GemmCfg<T>::MR, NR = GemmCfg<T>::NR, H = NR / 2;
  typedef T Vec __attribute__((vector_size(H * sizeof(T))));
  Vec acc[MR][2] = {};
  for (int64_t p = 0; p < kc; ++p) {
    Vec b0, b1;
    std::memcpy(&b0, Bp + p * NR, sizeof(Vec));  // unaligned: std::vector gives 16-byte alignment
    std::memcpy(&b1, Bp + p * NR + H, sizeof(Vec));
    const T* __restrict a = Ap + p * MR;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      acc[i][0] += a[i] * b0;
      acc[i][1] += a[i] * b1;
    }
  }
  // The first depth block stores, so C needs no zeroing pass beforehand.
  if (mr == MR && nr == NR) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      Vec c0 = acc[i][0], c1 = acc[i][1];
      if (!overwrite) {
        Vec old0, old1;
        std::memcpy(&old0, C + i * ldc, sizeof(Vec));
        std::memcpy(&old1, C + i * ldc + H, sizeof(Vec));
        c0 += old0;
        c1 += old1;
      }
      std::memcpy(C + i * ldc, &c0, sizeof(Vec));
      std::memcpy(C + i * ldc + H, &c1, sizeof(Vec));
    }
  } else {
    T tile[MR][NR];
    std::memcpy(tile, acc, sizeof(tile));
    for (int i = 0; i < mr; ++i)
      for (int j = 0; j < nr; ++j) C[i * ldc + j] = overwrite ? tile[i][j] : C[i * ldc + j] + tile[i][j];
  }
}

#if defined(__AVX__)
// r[q] = row q of an 8x8 float block, transposed in place (r[q] becomes column q).
inline void transpose8x8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int q = 0; q < 8; q += 2) {
    t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
    t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
  }
  for (int q = 0; q < 8; q += 4) {
    u[q] = _mm256_shuffle_ps(t[q], t[q + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int q = 0; q < 4; ++q) {
    r[q] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x20);
    r[q + 4] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x31);
  }
}
#endif

// Packs a column-major block of B (a transposed weight), whose columns are contiguous:
// dst[p * NR + j] = src[p + j * ld] for p < kc, j < w, and zero for w <= j < NR. float goes
// through 8x8 register transposes (scalar stores strided by NR would cost twice as much).
template <typename T>
void pack_columns(const T* src, int64_t ld, int64_t kc, int64_t w, T* dst) {
  constexpr int NR = GemmCfg<T>::NR;
  int64_t j = 0;
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, float>) {
    for (; j + 8 <= w; j += 8) {
      int64_t p = 0;
      for (; p + 8 <= kc; p += 8) {
        __m256 r[8];
        for (int q = 0; q < 8; ++q) r[q] = _mm256_loadu_ps(src + (j + q) * ld + p);
        transpose8x8(r);
        for (int q = 0; q < 8; ++q) _mm256_storeu_ps(dst + (p + q) * NR + j, r[q]);
      }
      for (; p < kc; ++p)
        for (int q = 0; q < 8; ++q) dst[p * NR + j + q] = src[(j + q) * ld + p];
    }
  }
#endif
  for (; j < w; ++j)
    for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = src[j * ld + p];
  for (int64_t p = 0; p < kc; ++p)
    for (int64_t c = w; c < NR; ++c) dst[p * NR + c] = T(0);
}

// Tiny products (a few thousand multiply-adds): packing panels costs more than it saves, so
// accumulate rows of C directly; the inner loop runs along a row of B and vectorises when B's
// rows are contiguous.
template <typename T>
void gemm_small(int64_t m, int64_t n, int64_t k, const T* A, int64_t sa0, int64_t sa1, const T* B, int64_t sb0,
                int64_t sb1, T* C) {
  for (int64_t i = 0; i < m; ++i) {
    T* c = C + i * n;
    for (int64_t j = 0; j < n; ++j) c[j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      const T a = A[i * sa0 + p * sa1];
      const T* b = B + p * sb0;
      if (sb1 == 1) {
        for (int64_t j = 0; j < n; ++j) c[j] += a * b[j];
      } else {
        for (int64_t j = 0; j < n; ++j) c[j] += a * b[j * sb1];
      }
    }
  }
}

template <typename T>
void gemm_blocked(int64_t m, int64_t n, int64_t k, const T* A, int64_t sa0, int64_t sa1, const T* B, int64_t sb0,
                  int64_t sb1, T* C, bool parallel) {
  using Cfg = GemmCfg<T>;
  constexpr int MR = Cfg::MR, NR = Cfg::NR;
  if (k == 0) {
    std::memset(static_cast<void*>(C), 0, sizeof(T) * static_cast<size_t>(m * n));
    return;
  }
  const bool par = parallel && m * n * k >= 64 * 64 * 64 && omp_get_max_threads() > 1;
  const int64_t m_panels = (m + MR - 1) / MR;
  // Packing buffers are reused across calls (bmm calls this once per matrix), per thread.
  thread_local std::vector<T> Apack, Bpack;
  const size_t a_need = static_cast<size_t>(m_panels * MR * std::min(k, Cfg::KC));
  const size_t b_need = static_cast<size_t>(((std::min(n, Cfg::NC) + NR - 1) / NR) * NR * std::min(k, Cfg::KC));
  if (Apack.size() < a_need) Apack.resize(a_need);
  if (Bpack.size() < b_need) Bpack.resize(b_need);
  for (int64_t jc = 0; jc < n; jc += Cfg::NC) {
    const int64_t nc = std::min(Cfg::NC, n - jc);
    const int64_t n_panels = (nc + NR - 1) / NR;
    for (int64_t pc = 0; pc < k; pc += Cfg::KC) {
      const int64_t kc = std::min(Cfg::KC, k - pc);
      T* Bp = Bpack.data();
      T* Ap = Apack.data();
      const int64_t row_tiles = (m + Cfg::MC - 1) / Cfg::MC;
      const int64_t col_tiles = (n_panels + Cfg::NG - 1) / Cfg::NG;
#pragma omp parallel if (par)
      {
#pragma omp for schedule(static)
        for (int64_t jp = 0; jp < n_panels; ++jp) {  // pack B: panel jp holds columns jc+jp*NR ..
          T* dst = Bp + jp * NR * kc;
          const int64_t j0 = jc + jp * NR, w = std::min<int64_t>(NR, n - j0);
          if (sb0 == 1 && sb1 != 1) {
            pack_columns<T>(B + pc + j0 * sb1, sb1, kc, w, dst);
            continue;
          }
          for (int64_t p = 0; p < kc; ++p) {
            const T* src = B + (pc + p) * sb0 + j0 * sb1;
            T* d = dst + p * NR;
            if (sb1 == 1 && w == NR) {
              for (int j = 0; j < NR; ++j) d[j] = src[j];
            } else {
              int j = 0;
              for (; j < w; ++j) d[j] = src[j * sb1];
              for (; j < NR; ++j) d[j] = T(0);
            }
          }
        }
#pragma omp for schedule(static)
        for (int64_t ip = 0; ip < m_panels; ++ip) {  // pack A: panel ip holds rows ip*MR ..
          T* dst = Ap + ip * MR * kc;
          const int64_t i0 = ip * MR, h = std::min<int64_t>(MR, m - i0);
          for (int64_t p = 0; p < kc; ++p) {
            T* d = dst + p * MR;
            const T* src = A + i0 * sa0 + (pc + p) * sa1;
            int i = 0;
            for (; i < h; ++i) d[i] = src[i * sa0];
            for (; i < MR; ++i) d[i] = T(0);
          }
        }
#pragma omp for schedule(static) collapse(2)
        for (int64_t rt = 0; rt < row_tiles; ++rt) {
          for (int64_t ct = 0; ct < col_tiles; ++ct) {
            const int64_t ip0 = rt * (Cfg::MC / MR), ip1 = std::min(m_panels, ip0 + Cfg::MC / MR);
            const int64_t jp0 = ct * Cfg::NG, jp1 = std::min(n_panels, jp0 + Cfg::NG);
            for (int64_t jp = jp0; jp < jp1; ++jp) {
              const int64_t j0 = jp * NR;
              const int nr = static_cast<int>(std::min<int64_t>(NR, nc - j0));
              for (int64_t ip = ip0; ip < ip1; ++ip) {
                const int64_t i0 = ip * MR;
                const int mr = static_cast<int>(std::min<int64_t>(MR, m - i0));
                micro_kernel<T>(kc, Ap + ip * MR * kc, Bp + jp * NR * kc, C + i0 * n + jc + j0, n, mr, nr, pc == 0);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

void gemm_cpu(ScalarType dtype, int64_t m, int64_t n, int64_t k, const void* A, int64_t sa0, int64_t sa1,
              const void* B, int64_t sb0, int64_t sb1, void* C, bool parallel) {
  if (m == 0 || n == 0) return;
  TL_CHECK(dtype != ScalarType::Bool && dtype != ScalarType::Half && dtype != ScalarType::BFloat16,
           "gemm_cpu: unsupported dtype ", dtype);
  dispatch_all_types(dtype, "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      return;
    } else {
      const T* a = static_cast<const T*>(A);
      const T* b = static_cast<const T*>(B);
      T* c = static_cast<T*>(C);
      if (n == 1) {
        gemv<T>(m, k, a, sa0, sa1, b, sb0, c, parallel);
      } else if (m == 1) {
        gemv<T>(n, k, b, sb1, sb0, a, sa1, c, parallel);
      } else if (m * n * k <= 16 * 16 * 16) {
        gemm_small<T>(m, n, k, a, sa0, sa1, b, sb0, sb1, c);
      } else {
        gemm_blocked<T>(m, n, k, a, sa0, sa1, b, sb0, sb1, c, parallel);
      }
    }
  });
}

}  // namespace tl::native::CPU_CAPABILITY
