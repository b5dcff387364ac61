// CPU GEMM (Note [CPU GEMM] in Gemm.h), compiled once per CPU capability (Note [CPU
// capabilities]); the mm/bmm kernels built on it are in MatmulKernel.cpp.
#include <omp.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aten/native/Parallel.h"
#include "aten/native/cpu/Gemm.h"

namespace tl::native::CPU_CAPABILITY {

namespace {

// Whether T's micro-kernel is the AVX-512 one below (its 32 registers hold a 12-row tile).
template <typename T>
constexpr bool kZmmKernel =
#if defined(__AVX512F__)
    std::is_same_v<T, float> || std::is_same_v<T, double>;
#else
    false;
#endif

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
  // The MR x NR tile is two vectors wide. The portable kernel's 6 rows (12 vector accumulators)
  // fit in the 16 registers of SSE and AVX2 beside a row of B and a broadcast element of A.
  static constexpr int MR = kZmmKernel<T> ? 12 : 6;
  static constexpr int NR = 2 * kVectorBytes / (sizeof(T) >= 8 ? 8 : 4);
  // The KC x NC packed B block (1 MiB float, 512 KiB double) is read once per MC-row tile, from
  // L2 where it fits (a 1 MiB L2 passes it on from L3 fast enough: one tile's multiply-adds take
  // far longer); MR x KC A panels stream from L2/L3. A is packed again for every NC columns: with
  // 1024 float columns (not 512) a 1024-wide product packs it once (1024x1024x1024 float,
  // 16.7 -> 16.1 ms on one core of this Sapphire Rapids machine, 8.3 -> 8.1 ms on two).
  static constexpr int64_t KC = 256;
  static constexpr int64_t MC = 96;  // rows per tile of C (a multiple of both MRs)
  static constexpr int64_t NC = sizeof(T) >= 8 ? 256 : 1024;  // columns per packed B block
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

// B panels read in place have rows a whole matrix row apart, too far for the hardware
// prefetchers to follow (each row is on its own page when N >= 1024): the micro-kernels fetch
// the row kPrefetchRows ahead themselves (16x1024 @ 1024x1024 float: 480 -> 310 us on one
// Sapphire Rapids core). The address is formed as an integer: past the last rows it points
// outside B, which a prefetch may do.
constexpr int64_t kPrefetchRows = 12;
template <typename T>
inline void prefetch_b_row(const T* Bp, int64_t p, int64_t ldb) {
  constexpr int64_t bytes = GemmCfg<T>::NR * static_cast<int64_t>(sizeof(T));
  const uintptr_t row = reinterpret_cast<uintptr_t>(Bp + p * ldb) +
                        static_cast<uintptr_t>(kPrefetchRows * ldb * static_cast<int64_t>(sizeof(T)));
  for (int64_t q = 0; q < bytes; q += 64) __builtin_prefetch(reinterpret_cast<const char*>(row + q));
  __builtin_prefetch(reinterpret_cast<const char*>(row + bytes - 1));  // a row that straddles one more line
}

// The portable micro-kernel, written with vector types (gcc/clang vector extensions, half a
// tile row each) rather than left to the auto-vectoriser, which kept the tile in registers only
// for some (dtype, capability) pairs: float32 ran 20-50x slower on DEFAULT and AVX2, float64 on
// AVX2 and AVX512.
template <typename T>
inline void micro_kernel_generic(int64_t kc, const T* __restrict Ap, const T* __restrict Bp, int64_t ldb, T* __restrict C,
                                 int64_t ldc, int mr, int nr, bool add) {
  constexpr int MR = GemmCfg<T>::MR, NR = GemmCfg<T>::NR, H = NR / 2;
  typedef T Vec __attribute__((vector_size(H * sizeof(T))));
  Vec acc[MR][2] = {};
  const bool in_place = ldb != NR;
  for (int64_t p = 0; p < kc; ++p) {
    if (in_place) prefetch_b_row(Bp, p, ldb);
    Vec b0, b1;
    std::memcpy(&b0, Bp + p * ldb, sizeof(Vec));  // unaligned: std::vector gives 16-byte alignment
    std::memcpy(&b1, Bp + p * ldb + H, sizeof(Vec));
    const T* __restrict a = Ap + p * MR;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      acc[i][0] += a[i] * b0;
      acc[i][1] += a[i] * b1;
    }
  }
  if (mr == MR && nr == NR) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      Vec c0 = acc[i][0], c1 = acc[i][1];
      if (add) {
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
    // The caller's edge tiles are never larger than MR x NR; saying so keeps gcc from warning
    // about copies past `tile` on paths that cannot run (-Warray-bounds, 8-bit types).
    if (mr > MR || nr > NR) __builtin_unreachable();
    T tile[MR][NR];
    std::memcpy(tile, acc, sizeof(tile));
    for (int i = 0; i < mr; ++i)
      for (int j = 0; j < nr; ++j) C[i * ldc + j] = add ? C[i * ldc + j] + tile[i][j] : tile[i][j];
  }
}

#if defined(__AVX512F__)
// gcc's tuning for AVX-512 cores keeps the generic kernel in 256-bit vectors, half the FMA
// width; this one holds the MR x NR tile in 2*MR zmm registers (NR = two vectors).
template <typename T>
struct Zmm;
template <>
struct Zmm<float> {
  using V = __m512;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static V bcast(float a) { return _mm512_set1_ps(a); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V load_masked(__mmask16 k, const float* p) { return _mm512_maskz_loadu_ps(k, p); }
  static void store_masked(float* p, __mmask16 k, V v) { _mm512_mask_storeu_ps(p, k, v); }
};
template <>
struct Zmm<double> {
  using V = __m512d;
  static V zero() { return _mm512_setzero_pd(); }
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static V bcast(double a) { return _mm512_set1_pd(a); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static V load_masked(__mmask8 k, const double* p) { return _mm512_maskz_loadu_pd(k, p); }
  static void store_masked(double* p, __mmask8 k, V v) { _mm512_mask_storeu_pd(p, k, v); }
};

// Computes the tile's first R rows (R = MR, or fewer for the last row panel, so that m = 64
// does not spend a third of its last panel's time on zero rows).
template <typename T, int R>
inline void micro_kernel_avx512(int64_t kc, const T* __restrict Ap, const T* __restrict Bp, int64_t ldb, T* __restrict C,
                                int64_t ldc, int mr, int nr, bool add) {
  using Z = Zmm<T>;
  constexpr int MR = GemmCfg<T>::MR, NR = GemmCfg<T>::NR, W = NR / 2;
  static_assert(W * sizeof(T) == 64, "NR must be two zmm vectors");
  typename Z::V acc[R][2];
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) {
    acc[i][0] = acc[i][1] = Z::zero();
    // Start fetching the C tile now: with a short depth (k = 64 in a convolution's input
    // gradient) its cache misses at the store would otherwise cost as much as the loop.
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc + W), _MM_HINT_T0);
  }
  const bool in_place = ldb != NR;
  // Two depth steps per iteration: 1024x1024x1024 float 8.3 -> 8.1 ms on two cores.
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    if (in_place) prefetch_b_row(Bp, p, ldb);
    const typename Z::V b0 = Z::load(Bp + p * ldb), b1 = Z::load(Bp + p * ldb + W);
    const T* a = Ap + p * MR;
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      const typename Z::V ai = Z::bcast(a[i]);
      acc[i][0] = Z::fma(ai, b0, acc[i][0]);
      acc[i][1] = Z::fma(ai, b1, acc[i][1]);
    }
  }
  if (mr == R && nr == NR) {
    if (add) {
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i) {
        acc[i][0] = Z::add(Z::load(C + i * ldc), acc[i][0]);
        acc[i][1] = Z::add(Z::load(C + i * ldc + W), acc[i][1]);
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      Z::store(C + i * ldc, acc[i][0]);
      Z::store(C + i * ldc + W, acc[i][1]);
    }
  } else {  // an edge tile: spill the tile and add its valid part
    alignas(64) T tile[R][NR];
    for (int i = 0; i < R; ++i) {
      Z::store(tile[i], acc[i][0]);
      Z::store(tile[i] + W, acc[i][1]);
    }
    for (int i = 0; i < mr; ++i)
      for (int j = 0; j < nr; ++j) C[i * ldc + j] = add ? C[i * ldc + j] + tile[i][j] : tile[i][j];
  }
}

// C (m x n, rows ldc apart) = A @ B when n fits one zmm register and A and B have contiguous
// rows: nothing is packed. Each depth step broadcasts an element of R rows of A against one
// (masked) row of B, and a KC-deep block of B (n wide) stays in L1 across a chunk of row blocks.
// The packed path would transpose all of A for at most 16 columns of output (512x4608 @ 4608x16
// float, a batch-1 convolution of ResNet's last stage, spent most of its time packing).
template <typename T, int R>
inline void narrow_rows_avx512(int64_t kc, const T* A, int64_t sa0, const T* B, int64_t sb0, T* C, int64_t ldc,
                               int n, bool add) {
  using Z = Zmm<T>;
  const auto mask = static_cast<std::conditional_t<sizeof(T) == 4, __mmask16, __mmask8>>((1u << n) - 1);
  typename Z::V acc[R];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) acc[i] = add ? Z::load_masked(mask, C + i * ldc) : Z::zero();
  for (int64_t p = 0; p < kc; ++p) {
    const typename Z::V b = Z::load_masked(mask, B + p * sb0);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) acc[i] = Z::fma(Z::bcast(A[i * sa0 + p]), b, acc[i]);
  }
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) Z::store_masked(C + i * ldc, mask, acc[i]);
}

template <typename T>
void gemm_narrow_avx512(int64_t m, int64_t n, int64_t k, const T* A, int64_t sa0, const T* B, int64_t sb0, T* C,
                        int64_t ldc, bool parallel) {
  constexpr int R = 8;           // rows a step: 8 independent FMA chains cover the FMA latency
  constexpr int64_t kRows = 64;  // rows per chunk, which reuse each block of B from L1
  constexpr int64_t KC = 256;    // rows of B a block: 16 KiB (one 64-byte line each)
  const int64_t chunks = (m + kRows - 1) / kRows;
  const bool par = parallel && worth_parallel(chunks, m * n * k, 64 * 64 * 64);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t r0 = c * kRows, r1 = std::min(m, r0 + kRows);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      int64_t i = r0;
      for (; i + R <= r1; i += R)
        narrow_rows_avx512<T, R>(kc, A + i * sa0 + pc, sa0, B + pc * sb0, sb0, C + i * ldc, ldc, static_cast<int>(n),
                                 pc > 0);
      for (; i < r1; ++i)
        narrow_rows_avx512<T, 1>(kc, A + i * sa0 + pc, sa0, B + pc * sb0, sb0, C + i * ldc, ldc, static_cast<int>(n),
                                 pc > 0);
    }
  }
}
#endif

// Computes C with gemm_narrow_avx512 and returns true where it applies.
template <typename T>
bool gemm_narrow(int64_t m, int64_t n, int64_t k, const T* A, int64_t sa0, int64_t sa1, const T* B, int64_t sb0,
                 int64_t sb1, T* C, bool parallel) {
#if defined(__AVX512F__)
  if constexpr (kZmmKernel<T>) {
    if (n * static_cast<int64_t>(sizeof(T)) <= 64 && sa1 == 1 && sb1 == 1) {
      gemm_narrow_avx512<T>(m, n, k, A, sa0, B, sb0, C, n, parallel);
      return true;
    }
  }
#endif
  return false;
}

// C (mr x nr of an MR x NR tile) = packed A panel @ B panel over kc, added to C's values when
// `add` (every depth block after the first), so that C needs no zeroing pass. The B panel's rows
// are NR wide, ldb apart (NR when packed).
template <typename T>
inline void micro_kernel(int64_t kc, const T* __restrict Ap, const T* __restrict Bp, int64_t ldb, T* __restrict C,
                         int64_t ldc, int mr, int nr, bool add) {
#if defined(__AVX512F__)
  if constexpr (kZmmKernel<T>) {
    static_assert(GemmCfg<T>::MR == 12, "the row counts below assume a 12-row tile");
    if (mr > 8)
      micro_kernel_avx512<T, 12>(kc, Ap, Bp, ldb, C, ldc, mr, nr, add);
    else if (mr > 4)
      micro_kernel_avx512<T, 8>(kc, Ap, Bp, ldb, C, ldc, mr, nr, add);
    else
      micro_kernel_avx512<T, 4>(kc, Ap, Bp, ldb, C, ldc, mr, nr, add);
    return;
  }
#endif
  micro_kernel_generic<T>(kc, Ap, Bp, ldb, C, ldc, mr, nr, add);
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

// Packs columns [j0, j0 + NR) of B's rows [pc, pc + kc) into the NR-wide panel dst (zero padded).
template <typename T>
void pack_b_panel(const T* B, int64_t sb0, int64_t sb1, int64_t n, int64_t pc, int64_t kc, int64_t j0, T* dst) {
  constexpr int NR = GemmCfg<T>::NR;
  const int64_t w = std::min<int64_t>(NR, n - j0);
  if (sb0 == 1 && sb1 != 1) {  // column-major B (a transposed weight): read each column contiguously
    const T* src = B + pc + j0 * sb1;
    int64_t j = 0;
#if defined(__AVX__)
    // float: 8x8 register transposes (scalar stores strided by NR cost twice as much).
    if constexpr (std::is_same_v<T, float>) {
      for (; j + 8 <= w; j += 8) {
        int64_t p = 0;
        for (; p + 8 <= kc; p += 8) {
          __m256 r[8];
          for (int q = 0; q < 8; ++q) r[q] = _mm256_loadu_ps(src + (j + q) * sb1 + p);
          transpose8x8(r);
          for (int q = 0; q < 8; ++q) _mm256_storeu_ps(dst + (p + q) * NR + j, r[q]);
        }
        for (; p < kc; ++p)
          for (int q = 0; q < 8; ++q) dst[p * NR + j + q] = src[(j + q) * sb1 + p];
      }
    }
#endif
    for (; j < w; ++j)
      for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = src[j * sb1 + p];
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t c = w; c < NR; ++c) dst[p * NR + c] = T(0);
    return;
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

// Packs rows [i0, i0 + MR) of A's columns [pc, pc + kc) into the MR-tall panel dst (zero padded).
template <typename T>
void pack_a_panel(const T* A, int64_t sa0, int64_t sa1, int64_t m, int64_t pc, int64_t kc, int64_t i0, T* dst) {
  constexpr int MR = GemmCfg<T>::MR;
  const int64_t h = std::min<int64_t>(MR, m - i0);
  int64_t p = 0;
#if defined(__SSE2__)
  // Row-major float A (a weight, or the left operand of most products): 4x4 register transposes
  // instead of one scalar load and store per element, which cost half the multiply time when N
  // is small.
  if constexpr (std::is_same_v<T, float> && MR % 4 == 0) {
    if (sa1 == 1 && h == MR) {
      for (; p + 4 <= kc; p += 4)
        for (int i = 0; i < MR; i += 4) {
          const float* s = A + (i0 + i) * sa0 + pc + p;
          __m128 r0 = _mm_loadu_ps(s), r1 = _mm_loadu_ps(s + sa0), r2 = _mm_loadu_ps(s + 2 * sa0),
                 r3 = _mm_loadu_ps(s + 3 * sa0);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          float* d = dst + p * MR + i;
          _mm_storeu_ps(d, r0);
          _mm_storeu_ps(d + MR, r1);
          _mm_storeu_ps(d + 2 * MR, r2);
          _mm_storeu_ps(d + 3 * MR, r3);
        }
    }
  }
#endif
  for (; p < kc; ++p) {
    T* d = dst + p * MR;
    const T* src = A + i0 * sa0 + (pc + p) * sa1;
    int i = 0;
    for (; i < h; ++i) d[i] = src[i * sa0];
    for (; i < MR; ++i) d[i] = T(0);
  }
}

// Packs the row panels [ip0, ip1) of A's columns [pc, pc + kc), panel q at dst + q * MR * kc.
template <typename T>
void pack_a_tile(const T* A, int64_t sa0, int64_t sa1, int64_t m, int64_t pc, int64_t kc, int64_t ip0, int64_t ip1,
                 T* dst) {
  constexpr int MR = GemmCfg<T>::MR;
  if (sa0 == 1 && ip1 * MR <= m) {
    // Column-major A (the transposed operand of a weight gradient, dy^T x): each depth step is one
    // contiguous run across the tile's panels, read at once (panel by panel, each step read a few
    // elements of a new page: 1024x1600 @ 1600x256 float, 7.4 -> 6.5 ms).
    for (int64_t p = 0; p < kc; ++p) {
      const T* src = A + ip0 * MR + (pc + p) * sa1;
      for (int64_t q = 0; q < ip1 - ip0; ++q) std::memcpy(dst + q * MR * kc + p * MR, src + q * MR, sizeof(T) * MR);
    }
    return;
  }
  for (int64_t ip = ip0; ip < ip1; ++ip) pack_a_panel(A, sa0, sa1, m, pc, kc, ip * MR, dst + (ip - ip0) * MR * kc);
}

// One thread's blocked GEMM of C (m x n, rows ldc apart) = A @ B, or A @ (the B that gemm_pack_b
// packed into Bpre: its whole-depth panels are read as they are, and B is not used).
template <typename T>
void gemm_serial(int64_t m, int64_t n, int64_t k, const T* A, int64_t sa0, int64_t sa1, const T* B, int64_t sb0,
                 int64_t sb1, T* C, int64_t ldc, const T* Bpre) {
  using Cfg = GemmCfg<T>;
  constexpr int MR = Cfg::MR, NR = Cfg::NR;
  const int64_t m_panels = (m + MR - 1) / MR;
  // Packing buffers are reused across calls (bmm calls this once per matrix), per thread.
  thread_local std::vector<T> Apack, Bpack;
  const size_t a_need = static_cast<size_t>(std::min<int64_t>(m_panels, Cfg::MC / MR) * MR * std::min(k, Cfg::KC));
  const size_t b_need = static_cast<size_t>(((std::min(n, Cfg::NC) + NR - 1) / NR) * NR * std::min(k, Cfg::KC));
  if (Apack.size() < a_need) Apack.resize(a_need);
  if (Bpack.size() < b_need) Bpack.resize(b_need);
  T* Bp = Bpack.data();
  T* Ap = Apack.data();
  // With one row tile each B panel serves that tile only: it is packed just before its use, or
  // read in place when it is a full-width panel of a row-major B (with the micro-kernel's
  // prefetch this beat packing even when every row of B maps to the same L1 sets, at m = 64:
  // 64x576 @ 576x1024 float 640 -> 540 us, and the per-panel packing reads B the same way).
  const int64_t row_tiles = (m + Cfg::MC - 1) / Cfg::MC;
  const bool pack_in_tile = row_tiles == 1;
  const bool b_in_place = !Bpre && pack_in_tile && sb1 == 1;
  // Panels read in place start on a cache line: a row of an NR-wide panel is then two lines, not
  // three. Where B's rows share one offset from a line (a NumPy array is 16 bytes past one), the
  // columns up to the first line boundary are computed first, as a narrow packed strip
  // (16x1024 @ 1024x1024 float from NumPy, one core: 436 -> 340 us).
  const uintptr_t b_offset = reinterpret_cast<uintptr_t>(B) % 64;
  const int64_t lead = static_cast<int64_t>((64 - b_offset) % 64 / sizeof(T));
  if (b_in_place && lead > 0 && n > lead + NR && b_offset % sizeof(T) == 0 && sb0 * sizeof(T) % 64 == 0) {
    gemm_serial<T>(m, lead, k, A, sa0, sa1, B, sb0, sb1, C, ldc, nullptr);
    gemm_serial<T>(m, n - lead, k, A, sa0, sa1, B + lead, sb0, sb1, C + lead, ldc, nullptr);
    return;
  }
  for (int64_t jc = 0; jc < n; jc += Cfg::NC) {
    const int64_t nc = std::min(Cfg::NC, n - jc);
    const int64_t n_panels = (nc + NR - 1) / NR;
    for (int64_t pc = 0; pc < k; pc += Cfg::KC) {
      const int64_t kc = std::min(Cfg::KC, k - pc);
      if (!pack_in_tile && !Bpre)
        for (int64_t jp = 0; jp < n_panels; ++jp) pack_b_panel(B, sb0, sb1, n, pc, kc, jc + jp * NR, Bp + jp * NR * kc);
      // MC x (NG panels) tiles of C: an NR-wide B panel stays in L1 while the tile's A panels
      // stream from L2. The tile's A panels are packed just before it, so that they are still in
      // L2 (packing all of A's rows first spilled them when A is tall: 1600x1024 @ 1024x256 float
      // packed 1.6 MB per depth block).
      for (int64_t ip0 = 0; ip0 < m_panels; ip0 += Cfg::MC / MR) {
        const int64_t ip1 = std::min(m_panels, ip0 + Cfg::MC / MR);
        pack_a_tile(A, sa0, sa1, m, pc, kc, ip0, ip1, Ap);
        for (int64_t jp = 0; jp < n_panels; ++jp) {
          const int64_t j0 = jp * NR;
          const int nr = static_cast<int>(std::min<int64_t>(NR, nc - j0));
          const bool in_place = b_in_place && nr == NR;
          if (pack_in_tile && !in_place && !Bpre) pack_b_panel(B, sb0, sb1, n, pc, kc, jc + j0, Bp + jp * NR * kc);
          const T* bp = Bpre       ? Bpre + (jc + j0) / NR * k * NR + pc * NR
                        : in_place ? B + pc * sb0 + (jc + j0) * sb1
                                   : Bp + jp * NR * kc;
          const int64_t ldb = in_place ? sb0 : NR;
          for (int64_t ip = ip0; ip < ip1; ++ip) {
            const int64_t i0 = ip * MR;
            const int mr = static_cast<int>(std::min<int64_t>(MR, m - i0));
            micro_kernel<T>(kc, Ap + (ip - ip0) * MR * kc, bp, ldb, C + i0 * ldc + jc + j0, ldc, mr, nr, pc > 0);
          }
        }
      }
    }
  }
}

// C (m x n, rows ldc apart) = A @ B. The threads share no packed panel and meet at no barrier:
// C is cut into one block of whole MR x NR tiles per thread, and each thread computes its block
// with gemm_serial, packing the A rows and B columns it uses. A barrier per depth block costs
// a futex wake-up under the passive wait policy (Note [OpenMP wait policy], torchlite/__init__.py)
// and waits for a descheduled thread on a busy machine; the A rows (or B columns) that two
// threads both pack cost less.
template <typename T>
void gemm_blocked(int64_t m, int64_t n, int64_t k, const T* A, int64_t sa0, int64_t sa1, const T* B, int64_t sb0,
                  int64_t sb1, T* C, int64_t ldc, bool parallel, const T* Bpre = nullptr) {
  constexpr int MR = GemmCfg<T>::MR, NR = GemmCfg<T>::NR;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::memset(static_cast<void*>(C + i * ldc), 0, sizeof(T) * static_cast<size_t>(n));
    return;
  }
  const int threads = parallel && m * n * k >= 64 * 64 * 64 ? omp_get_max_threads() : 1;
  const int64_t m_panels = (m + MR - 1) / MR, n_panels = (n + NR - 1) / NR;
  // The rows x columns grid of blocks: the one whose largest block costs least, counting a
  // packed element of A or B as kPackCost multiply-adds.
  constexpr int64_t kPackCost = 8;
  int64_t grid_rows = 1, grid_cols = 1, best = -1;
  for (int64_t r = 1; r <= std::min<int64_t>(threads, m_panels); ++r) {
    const int64_t c = std::min<int64_t>(threads / r, n_panels);
    const int64_t rows = (m_panels + r - 1) / r * MR, cols = (n_panels + c - 1) / c * NR;
    const int64_t cost = rows * cols + kPackCost * (rows + cols);
    if (best < 0 || cost < best) best = cost, grid_rows = r, grid_cols = c;
  }
  const int64_t blocks = grid_rows * grid_cols;
#pragma omp parallel for schedule(static) num_threads(static_cast<int>(blocks)) if (blocks > 1)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t br = b / grid_cols, bc = b % grid_cols;
    const int64_t i0 = std::min(m, br * m_panels / grid_rows * MR);
    const int64_t i1 = std::min(m, (br + 1) * m_panels / grid_rows * MR);
    const int64_t j0 = std::min(n, bc * n_panels / grid_cols * NR);
    const int64_t j1 = std::min(n, (bc + 1) * n_panels / grid_cols * NR);
    gemm_serial<T>(i1 - i0, j1 - j0, k, A + i0 * sa0, sa0, sa1, B + j0 * sb1, sb0, sb1, C + i0 * ldc + j0, ldc,
                   Bpre ? Bpre + j0 / NR * k * NR : nullptr);
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
      } else if (gemm_narrow<T>(m, n, k, a, sa0, sa1, b, sb0, sb1, c, parallel)) {
        // computed there, unpacked
      } else if (n < GemmCfg<T>::NR && m >= 4 * GemmCfg<T>::NR) {
        // Fewer columns than one B panel: much of each micro-kernel call would be zero padding
        // (a batch-1 convolution's 512x4608 @ 4608x16 float ran at 1.7x PyTorch's time).
        // C^T = B^T A^T has the short side as its rows, in whole row panels but the last; it is
        // computed aside and transposed into C. A column-major A (a transposed weight) becomes a
        // row-major right operand, read in place, instead of being packed column by column.
        thread_local std::vector<T> ct;
        if (ct.size() < static_cast<size_t>(m * n)) ct.resize(static_cast<size_t>(m * n));
        gemm_blocked<T>(n, m, k, b, sb1, sb0, a, sa1, sa0, ct.data(), m, parallel);
        constexpr int64_t kTile = 64;
        for (int64_t i0 = 0; i0 < m; i0 += kTile)
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = i0; i < std::min(m, i0 + kTile); ++i) c[i * n + j] = ct[j * m + i];
      } else {
        gemm_blocked<T>(m, n, k, a, sa0, sa1, b, sb0, sb1, c, n, parallel);
      }
    }
  });
}

int64_t gemm_pack_b(ScalarType dtype, int64_t k, int64_t n, const void* B, int64_t sb0, int64_t sb1, void* dst) {
  return dispatch_float_double(dtype, "gemm_pack_b", [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    constexpr int NR = GemmCfg<T>::NR;
    const int64_t panels = (n + NR - 1) / NR;
    if (dst != nullptr && k > 0)
      for (int64_t jp = 0; jp < panels; ++jp)
        pack_b_panel(static_cast<const T*>(B), sb0, sb1, n, 0, k, jp * NR, static_cast<T*>(dst) + jp * NR * k);
    return panels * NR * k;
  });
}

void gemm_cpu_prepacked(ScalarType dtype, int64_t m, int64_t n, int64_t k, const void* A, int64_t sa0, int64_t sa1,
                        const void* packed_b, void* C, bool parallel) {
  if (m == 0 || n == 0) return;
  dispatch_float_double(dtype, "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gemm_blocked<T>(m, n, k, static_cast<const T*>(A), sa0, sa1, nullptr, 0, 0, static_cast<T*>(C), n, parallel,
                    static_cast<const T*>(packed_b));
  });
}

}  // namespace tl::native::CPU_CAPABILITY
