// Winograd F(4x4, 3x3) convolution (Note [Winograd convolution] in ConvolutionWinograd.h).
// Samples go through in chunks of about kChunkTiles tiles. The input transform copies each
// channel's planes into zero-padded planes sized to whole tiles, so that it reads 6x6 patches
// without bounds checks. A chunk's transformed input V (36 x C x tiles) and products
// M (36 x O x tiles) are written once and read once, by the 36 GEMMs and the output transform
// (in cache for the smaller channel counts). The transforms work on kLanes tiles at once, one
// tile per SIMD lane; in AVX-512 builds, float patches and whole 4x4 tiles move between memory
// and the lanes a row at a time, transposed in registers (load_patches, store_whole_tiles),
// elsewhere element by element.
#include "aten/native/cpu/ConvolutionWinograd.h"

#include <omp.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/native/cpu/Gemm.h"

namespace tl::native {

namespace {

constexpr int64_t kLanes = 16;
constexpr int64_t kXi = 36;  // entries of the 6x6 transformed domain
// Enough GEMM columns for the micro-kernel's speed; more would only grow V and M.
constexpr int64_t kChunkTiles = 256;

int64_t tiles_along(int64_t out) { return (out + 3) / 4; }
int64_t winograd_tiles(const ConvGeom& g) { return g.N * tiles_along(g.out[1]) * tiles_along(g.out[2]); }

// Elements between the transformed entries xi of a chunk's V, M or Gy (rows x nt each). The
// kLanes elements of slack keep the 36 entries of one tile group from being a multiple of 4 KiB
// apart (rows * nt often is), where they would all fall into one L1 set: the output transform,
// which reads one line from each, measured 40% of its time on that load. The last entry's
// slack lets the output transform read whole lane groups past the last tile.
int64_t entry_stride(int64_t rows, int64_t nt) { return rows * nt + kLanes; }

// dst[0, n) = src[0, n) for n <= kLanes. The full-width copy has a fixed length and compiles to
// vector moves: a memcpy of a run-time length is a library call, and the transforms make one per
// transformed entry (36 per kLanes tiles), which measured as half of the input transform's time.
template <typename T>
inline void copy_lanes(T* __restrict dst, const T* __restrict src, int64_t n) {
  if (n == kLanes) {
#pragma omp simd
    for (int64_t l = 0; l < kLanes; ++l) dst[l] = src[l];
  } else {
    std::memcpy(dst, src, sizeof(T) * static_cast<size_t>(n));
  }
}

// Where a tile's 6x6 patch starts in the chunk's padded planes of one channel, and where its 4x4
// outputs go in y (channel 0 of the chunk's first sample), cropped to `rows` x `cols`.
struct Tile {
  int64_t in, out;
  int rows, cols;
};

// out[k][l] = (G g)[k] for the three lane vectors g[j][l] = in[j * is + l].
template <typename T>
inline void weight_transform_1d(const T* __restrict in, int64_t is, T* __restrict out, int64_t os) {
#pragma omp simd
  for (int64_t l = 0; l < kLanes; ++l) {
    const T g0 = in[l], g1 = in[is + l], g2 = in[2 * is + l];
    const T even = g0 + g2, q = g0 / 24 + g2 / 6;
    out[l] = g0 / 4;
    out[os + l] = -(even + g1) / 6;
    out[2 * os + l] = (g1 - even) / 6;
    out[3 * os + l] = q + g1 / 12;
    out[4 * os + l] = q - g1 / 12;
    out[5 * os + l] = g2;
  }
}

// U[xi][o][c] (entries entry_stride(O, C) apart) = (G w_oc G^T)[xi], kLanes input channels at a
// time. A weight not in (O, C, 3, 3) order (the input gradient's transposed, flipped one) is
// first copied into it: read in place, each lane group would take its channels' taps from
// kLanes rows far apart (measured 1.6x the forward's weight transform at 512 channels).
template <typename T>
void transform_weight(const ConvGeom& g, const T* w, const int64_t ws[4], T* U, bool par) {
  const int64_t O = g.O, C = g.C, su = entry_stride(O, C);
  if (ws[0] != C * 9 || ws[1] != 9 || ws[2] != 3 || ws[3] != 1) {
    thread_local std::vector<T> wbuf;
    T* dense = scratch(wbuf, O * C * 9);
#pragma omp parallel for schedule(static) if (par)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t o = 0; o < O; ++o)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) dense[(o * C + c) * 9 + i * 3 + j] = w[o * ws[0] + c * ws[1] + i * ws[2] + j * ws[3]];
    const int64_t dense_strides[4] = {C * 9, 9, 3, 1};
    return transform_weight(g, static_cast<const T*>(dense), dense_strides, U, par);
  }
#pragma omp parallel for schedule(static) if (par)
  for (int64_t o = 0; o < O; ++o) {
    alignas(64) T k[3][3][kLanes];
    alignas(64) T r[3][6][kLanes];
    alignas(64) T u[6][6][kLanes];
    for (int64_t c0 = 0; c0 < C; c0 += kLanes) {
      const int64_t n = std::min(kLanes, C - c0);
      for (int64_t l = 0; l < kLanes; ++l) {
        const T* wp = w + o * ws[0] + (c0 + std::min(l, n - 1)) * ws[1];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) k[i][j][l] = wp[i * ws[2] + j * ws[3]];
      }
      for (int i = 0; i < 3; ++i) weight_transform_1d(&k[i][0][0], kLanes, &r[i][0][0], kLanes);
      for (int j = 0; j < 6; ++j) weight_transform_1d(&r[0][j][0], 6 * kLanes, &u[0][j][0], 6 * kLanes);
      for (int64_t xi = 0; xi < kXi; ++xi)
        copy_lanes(U + xi * su + o * C + c0, u[xi / 6][xi % 6], n);
    }
  }
}

// out[k][l] = (B^T d)[k] for the six lane vectors d[j][l] = in[j * is + l].
template <typename T>
inline void input_transform_1d(const T* __restrict in, int64_t is, T* __restrict out, int64_t os) {
#pragma omp simd
  for (int64_t l = 0; l < kLanes; ++l) {
    const T d0 = in[l], d1 = in[is + l], d2 = in[2 * is + l], d3 = in[3 * is + l], d4 = in[4 * is + l],
            d5 = in[5 * is + l];
    out[l] = 4 * d0 - 5 * d2 + d4;
    out[os + l] = d3 + d4 - 4 * (d1 + d2);
    out[2 * os + l] = 4 * (d1 - d2) + d4 - d3;
    out[3 * os + l] = 2 * (d3 - d1) + d4 - d2;
    out[4 * os + l] = 2 * (d1 - d3) + d4 - d2;
    out[5 * os + l] = 4 * d1 - 5 * d3 + d5;
  }
}

// out[k][l] = (A^T m)[k] (k < 4) for the six lane vectors m[j][l] = in[j * is + l].
template <typename T>
inline void output_transform_1d(const T* __restrict in, int64_t is, T* __restrict out, int64_t os) {
#pragma omp simd
  for (int64_t l = 0; l < kLanes; ++l) {
    const T m0 = in[l], m1 = in[is + l], m2 = in[2 * is + l], m3 = in[3 * is + l], m4 = in[4 * is + l],
            m5 = in[5 * is + l];
    const T a = m1 + m2, b = m1 - m2, c = m3 + m4, d = m3 - m4;
    out[l] = m0 + a + c;
    out[os + l] = b + 2 * d;
    out[2 * os + l] = a + 4 * c;
    out[3 * os + l] = b + 8 * d + m5;
  }
}

// out[k][l] = (A g)[k] (k < 6) for the four lane vectors g[j][l] = in[j * is + l]: the adjoint
// of output_transform_1d, which carries an output gradient into the transformed domain.
template <typename T>
inline void output_adjoint_1d(const T* __restrict in, int64_t is, T* __restrict out, int64_t os) {
#pragma omp simd
  for (int64_t l = 0; l < kLanes; ++l) {
    const T g0 = in[l], g1 = in[is + l], g2 = in[2 * is + l], g3 = in[3 * is + l];
    const T even = g0 + 4 * g2, odd = 2 * g1 + 8 * g3;
    out[l] = g0;
    out[os + l] = g0 + g1 + g2 + g3;
    out[2 * os + l] = g0 - g1 + g2 - g3;
    out[3 * os + l] = even + odd;
    out[4 * os + l] = even - odd;
    out[5 * os + l] = g3;
  }
}

// out[k][l] = (G^T u)[k] (k < 3) for the six lane vectors u[j][l] = in[j * is + l]: the adjoint
// of weight_transform_1d, which carries a gradient of U back to the 3x3 weight.
template <typename T>
inline void weight_adjoint_1d(const T* __restrict in, int64_t is, T* __restrict out, int64_t os) {
#pragma omp simd
  for (int64_t l = 0; l < kLanes; ++l) {
    const T u0 = in[l], u1 = in[is + l], u2 = in[2 * is + l], u3 = in[3 * is + l], u4 = in[4 * is + l],
            u5 = in[5 * is + l];
    const T s12 = (u1 + u2) / 6, s34 = u3 + u4;
    out[l] = u0 / 4 - s12 + s34 / 24;
    out[os + l] = (u2 - u1) / 6 + (u3 - u4) / 12;
    out[2 * os + l] = s34 / 6 - s12 + u5;
  }
}

// d[i][j][l] = p[l][i * ld + j] (i, j < S) for the kLanes S x S patches p[l] (the input
// transform's 6x6, the output gradient's whole 4x4 tiles): element by element.
template <int S, typename T>
inline void load_patches(const T* const (&p)[kLanes], int64_t ld, T (&d)[S][S][kLanes]) {
  for (int64_t l = 0; l < kLanes; ++l)
    for (int i = 0; i < S; ++i)
      for (int j = 0; j < S; ++j) d[i][j][l] = p[l][i * ld + j];
}

#if defined(__AVX512F__)
// Index of a two-register permute (_mm512_permutex2var_ps) whose operands each hold `a`
// patches of `b` columns (patch t's column j at t * b + j): the result holds the 2a patches'
// columns [h * b / 2, (h + 1) * b / 2), patch t's at t * b / 2.
struct PatchMerge {
  alignas(64) int32_t idx[16];
  constexpr PatchMerge(int a, int b, int h) : idx() {
    for (int pos = 0; pos < 16; ++pos) {
      const int t = pos / (b / 2), j = h * (b / 2) + pos % (b / 2);
      idx[pos] = t < a ? t * b + j : 16 + (t - a) * b + j;
    }
  }
  __m512i get() const { return _mm512_load_si512(idx); }
};

// float, 6x6: per patch row, the 16 patches' 6-element rows are loaded whole and transposed in
// registers by four rounds of two-register permutes, each doubling the patches per register
// (the first joins two loads of 8 columns; then 8, 4 and 2 columns, halved each round).
inline void load_patches(const float* const (&p)[kLanes], int64_t Wp, float (&d)[6][6][kLanes]) {
  static_assert(kLanes == 16, "one zmm register of lanes");
  static constexpr PatchMerge join(1, 16, 0), m8[2] = {{2, 8, 0}, {2, 8, 1}}, m4[2] = {{4, 4, 0}, {4, 4, 1}},
                              m2[2] = {{8, 2, 0}, {8, 2, 1}};
  for (int i = 0; i < 6; ++i) {
    __m512 s[8], x[4][2], y[2][3];
    for (int k = 0; k < 8; ++k)  // patches 2k, 2k + 1
      s[k] = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(0x3F, p[2 * k] + i * Wp), join.get(),
                                    _mm512_maskz_loadu_ps(0x3F, p[2 * k + 1] + i * Wp));
    for (int q = 0; q < 4; ++q)  // patches 4q..4q+3, columns 0-3 and 4-7
      for (int h = 0; h < 2; ++h) x[q][h] = _mm512_permutex2var_ps(s[2 * q], m8[h].get(), s[2 * q + 1]);
    for (int o = 0; o < 2; ++o)  // patches 8o..8o+7, columns 2P, 2P + 1
      for (int P = 0; P < 3; ++P)
        y[o][P] = _mm512_permutex2var_ps(x[2 * o][P / 2], m4[P % 2].get(), x[2 * o + 1][P / 2]);
    for (int j = 0; j < 6; ++j) _mm512_store_ps(d[i][j], _mm512_permutex2var_ps(y[0][j / 2], m2[j % 2].get(), y[1][j / 2]));
  }
}
#endif

// V[xi][c][t] (entries entry_stride(C, tiles) apart) = (B^T d B)[xi] of tile t's 6x6 patch in
// channel c. Per channel, the chunk's
// planes (nb samples from x) are first copied into zero-padded Hp x Wp planes, small enough to
// stay in L1 or L2 while their tiles are read.
template <typename T>
void transform_input(const ConvGeom& g, const T* x, int64_t nb, int64_t Hp, int64_t Wp, const std::vector<Tile>& tiles,
                     T* V, bool par) {
  const int64_t C = g.C, H = g.in[1], W = g.in[2], plane = Hp * Wp;
  const int64_t nt = static_cast<int64_t>(tiles.size()), sv = entry_stride(C, nt);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t c = 0; c < C; ++c) {
    thread_local std::vector<T> padbuf;
    T* xp = scratch(padbuf, nb * plane);
    for (int64_t s = 0; s < nb; ++s) {
      T* dst = xp + s * plane;
      const T* src = x + (s * C + c) * H * W;
      std::fill(dst, dst + plane, T(0));
      for (int64_t h = 0; h < H; ++h)
        std::memcpy(dst + (h + g.pad[1]) * Wp + g.pad[2], src + h * W, sizeof(T) * static_cast<size_t>(W));
    }
    alignas(64) T d[6][6][kLanes];
    alignas(64) T r[6][6][kLanes];
    alignas(64) T v[6][6][kLanes];
    for (int64_t t0 = 0; t0 < nt; t0 += kLanes) {
      const int64_t n = std::min(kLanes, nt - t0);
      const T* patches[kLanes];
      for (int64_t l = 0; l < kLanes; ++l) patches[l] = xp + tiles[static_cast<size_t>(t0 + std::min(l, n - 1))].in;
      load_patches(patches, Wp, d);
      for (int i = 0; i < 6; ++i) input_transform_1d(&d[i][0][0], kLanes, &r[i][0][0], kLanes);
      for (int k = 0; k < 6; ++k) input_transform_1d(&r[0][k][0], 6 * kLanes, &v[0][k][0], 6 * kLanes);
      for (int64_t xi = 0; xi < kXi; ++xi) {
        T* dst = V + xi * sv + c * nt + t0;
        __builtin_prefetch(dst + 2 * kLanes, 1);
        copy_lanes(dst, v[xi / 6][xi % 6], n);
      }
    }
  }
}

// Writes the 4x4 outputs out[i][j][l] + b of the kLanes tiles l, all whole, to y + at[l]
// (rows OW apart): a generic loop stores them one element at a time, 16 stores per tile.
template <typename T>
inline void store_whole_tiles(const T (&out)[4][4][kLanes], T b, const int64_t (&at)[kLanes], int64_t OW, T* y) {
  for (int64_t l = 0; l < kLanes; ++l)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) y[at[l] + i * OW + j] = out[i][j][l] + b;
}

#if defined(__AVX512F__)
// float: per output row, two rounds of two-register permutes turn the four row vectors into
// the tiles' 4-element rows, four tiles per register, stored whole. (The unpack and extract
// intrinsics would do as well, but gcc 12 warns about their undefined pass-through operand.)
template <>
inline void store_whole_tiles<float>(const float (&out)[4][4][kLanes], float b, const int64_t (&at)[kLanes],
                                     int64_t OW, float* y) {
  static_assert(kLanes == 16, "one zmm register of lanes");
  // Pairs (a[l], b[l]) of tiles l = 0..7 and of l = 8..15.
  const __m512i pairs_lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i pairs_hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  // Pair m of the first operand, then of the second, for m = 0..3 and for m = 4..7.
  const __m512i quads_lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i quads_hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  const __m512 bv = _mm512_set1_ps(b);
  alignas(64) float rows[kLanes];
  for (int i = 0; i < 4; ++i) {
    const __m512 o0 = _mm512_add_ps(_mm512_load_ps(out[i][0]), bv), o1 = _mm512_add_ps(_mm512_load_ps(out[i][1]), bv);
    const __m512 o2 = _mm512_add_ps(_mm512_load_ps(out[i][2]), bv), o3 = _mm512_add_ps(_mm512_load_ps(out[i][3]), bv);
    const __m512d p01[2] = {_mm512_castps_pd(_mm512_permutex2var_ps(o0, pairs_lo, o1)),
                            _mm512_castps_pd(_mm512_permutex2var_ps(o0, pairs_hi, o1))};
    const __m512d p23[2] = {_mm512_castps_pd(_mm512_permutex2var_ps(o2, pairs_lo, o3)),
                            _mm512_castps_pd(_mm512_permutex2var_ps(o2, pairs_hi, o3))};
    float* yi = y + i * OW;
    for (int k = 0; k < 4; ++k) {  // tiles 4k..4k+3
      _mm512_store_ps(rows, _mm512_castpd_ps(_mm512_permutex2var_pd(p01[k / 2], k % 2 ? quads_hi : quads_lo,
                                                                     p23[k / 2])));
      for (int q = 0; q < 4; ++q) std::memcpy(yi + at[4 * k + q], rows + 4 * q, 4 * sizeof(float));
    }
  }
}
#endif

// y tile t of channel o = (A^T m A) + bias with m[xi] = M[xi][o][t] (entries entry_stride(O,
// tiles) apart).
template <typename T>
void transform_output(const T* M, int64_t O, int64_t L, int64_t OW, const std::vector<Tile>& tiles, const T* bias,
                      T* y, bool par) {
  const int64_t nt = static_cast<int64_t>(tiles.size()), sm = entry_stride(O, nt);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t o = 0; o < O; ++o) {
    alignas(64) T m[6][6][kLanes];
    alignas(64) T r[6][4][kLanes];
    alignas(64) T out[4][4][kLanes];
    const T b = bias ? bias[o] : T(0);
    T* yo = y + o * L;
    for (int64_t t0 = 0; t0 < nt; t0 += kLanes) {
      const int64_t n = std::min(kLanes, nt - t0);
      for (int64_t xi = 0; xi < kXi; ++xi) {
        const T* src = M + xi * sm + o * nt + t0;
        __builtin_prefetch(src + 2 * kLanes);
        std::memcpy(m[xi / 6][xi % 6], src, sizeof(T) * kLanes);
      }
      for (int i = 0; i < 6; ++i) output_transform_1d(&m[i][0][0], kLanes, &r[i][0][0], kLanes);
      for (int k = 0; k < 4; ++k) output_transform_1d(&r[0][k][0], 4 * kLanes, &out[0][k][0], 4 * kLanes);
      bool whole = n == kLanes;
      int64_t at[kLanes];
      for (int64_t l = 0; l < n; ++l) {
        const Tile& t = tiles[static_cast<size_t>(t0 + l)];
        at[l] = t.out;
        whole = whole && t.rows == 4 && t.cols == 4;
      }
      if (whole) {
        store_whole_tiles(out, b, at, OW, yo);
        continue;
      }
      for (int64_t l = 0; l < n; ++l) {
        const Tile& t = tiles[static_cast<size_t>(t0 + l)];
        for (int i = 0; i < t.rows; ++i)
          for (int j = 0; j < t.cols; ++j) yo[t.out + i * OW + j] = out[i][j][l] + b;
      }
    }
  }
}

#if defined(__AVX512F__)
// float, 4x4: per tile row, four tiles' 4-element rows per register, transposed by two rounds of
// two-register permutes as for the 6x6 patches.
inline void load_patches(const float* const (&at)[kLanes], int64_t OW, float (&m)[4][4][kLanes]) {
  static_assert(kLanes == 16, "one zmm register of lanes");
  static constexpr PatchMerge m4[2] = {{4, 4, 0}, {4, 4, 1}}, m2[2] = {{8, 2, 0}, {8, 2, 1}};
  for (int i = 0; i < 4; ++i) {
    __m512 q[4], y[2][2];
    for (int k = 0; k < 4; ++k) {  // tiles 4k..4k+3
      q[k] = _mm512_insertf32x4(_mm512_setzero_ps(), _mm_loadu_ps(at[4 * k] + i * OW), 0);
      q[k] = _mm512_insertf32x4(q[k], _mm_loadu_ps(at[4 * k + 1] + i * OW), 1);
      q[k] = _mm512_insertf32x4(q[k], _mm_loadu_ps(at[4 * k + 2] + i * OW), 2);
      q[k] = _mm512_insertf32x4(q[k], _mm_loadu_ps(at[4 * k + 3] + i * OW), 3);
    }
    for (int o = 0; o < 2; ++o)  // tiles 8o..8o+7, columns 2P, 2P + 1
      for (int P = 0; P < 2; ++P) y[o][P] = _mm512_permutex2var_ps(q[2 * o], m4[P].get(), q[2 * o + 1]);
    for (int j = 0; j < 4; ++j) _mm512_store_ps(m[i][j], _mm512_permutex2var_ps(y[0][j / 2], m2[j % 2].get(), y[1][j / 2]));
  }
}
#endif

// Gy[xi][o][t] (entries entry_stride(O, tiles) apart) = (A gy_t A^T)[xi] of tile t's 4x4 output
// gradient in channel o (zero where the tile passes the output's edge).
template <typename T>
void transform_grad_output(const T* gy, int64_t O, int64_t L, int64_t OW, const std::vector<Tile>& tiles, T* Gy,
                           bool par) {
  const int64_t nt = static_cast<int64_t>(tiles.size()), sg = entry_stride(O, nt);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t o = 0; o < O; ++o) {
    alignas(64) T m[4][4][kLanes];
    alignas(64) T r[4][6][kLanes];
    alignas(64) T u[6][6][kLanes];
    const T* go = gy + o * L;
    for (int64_t t0 = 0; t0 < nt; t0 += kLanes) {
      const int64_t n = std::min(kLanes, nt - t0);
      bool whole = n == kLanes;
      const T* at[kLanes];
      for (int64_t l = 0; l < n; ++l) {
        const Tile& t = tiles[static_cast<size_t>(t0 + l)];
        at[l] = go + t.out;
        whole = whole && t.rows == 4 && t.cols == 4;
      }
      if (whole) {
        load_patches(at, OW, m);
      } else {
        std::fill(&m[0][0][0], &m[0][0][0] + 16 * kLanes, T(0));
        for (int64_t l = 0; l < n; ++l) {
          const Tile& t = tiles[static_cast<size_t>(t0 + l)];
          for (int i = 0; i < t.rows; ++i)
            for (int j = 0; j < t.cols; ++j) m[i][j][l] = at[l][i * OW + j];
        }
      }
      for (int i = 0; i < 4; ++i) output_adjoint_1d(&m[i][0][0], kLanes, &r[i][0][0], kLanes);
      for (int k = 0; k < 6; ++k) output_adjoint_1d(&r[0][k][0], 6 * kLanes, &u[0][k][0], 6 * kLanes);
      for (int64_t xi = 0; xi < kXi; ++xi) {
        T* dst = Gy + xi * sg + o * nt + t0;
        __builtin_prefetch(dst + 2 * kLanes, 1);
        copy_lanes(dst, u[xi / 6][xi % 6], n);
      }
    }
  }
}

// gw[o][c] = G^T dU[.][o][c] G; gw is (O, C, 3, 3) and dU's entries are O x C, or C x O where
// `transposed`. kLanes elements of a row of dU at a time: contiguous loads (reading a column of a
// 512-channel dU, one cache line per element, took 4x the GEMMs' time).
template <typename T>
void weight_from_transformed(const T* dU, int64_t O, int64_t C, bool transposed, T* gw, bool par) {
  const int64_t rows = transposed ? C : O, cols = transposed ? O : C;
#pragma omp parallel for schedule(static) if (par)
  for (int64_t i0 = 0; i0 < rows; ++i0) {
    alignas(64) T u[6][6][kLanes];
    alignas(64) T r[6][3][kLanes];
    alignas(64) T k[3][3][kLanes];
    for (int64_t j0 = 0; j0 < cols; j0 += kLanes) {
      const int64_t n = std::min(kLanes, cols - j0);
      if (n < kLanes) std::fill(&u[0][0][0], &u[0][0][0] + kXi * kLanes, T(0));  // unused lanes
      for (int64_t xi = 0; xi < kXi; ++xi) copy_lanes(u[xi / 6][xi % 6], dU + (xi * rows + i0) * cols + j0, n);
      for (int i = 0; i < 6; ++i) weight_adjoint_1d(&u[i][0][0], kLanes, &r[i][0][0], kLanes);
      for (int j = 0; j < 3; ++j) weight_adjoint_1d(&r[0][j][0], 3 * kLanes, &k[0][j][0], 3 * kLanes);
      for (int64_t l = 0; l < n; ++l) {
        T* dst = gw + (transposed ? (j0 + l) * C + i0 : i0 * C + j0 + l) * 9;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) dst[i * 3 + j] = k[i][j][l];
      }
    }
  }
}

// Whether the weight gradient's GEMMs compute dU_xi transposed, C x O, with the y-side channels as
// their columns: the side that fills the GEMM's column panels (two AVX-512 vectors) better. At 16
// x-side and 32 y-side channels, 16 columns left half of each panel's multiply-adds on padding.
template <typename T>
bool weight_grad_cols_o(int64_t C, int64_t O) {
  constexpr int64_t panel = 128 / sizeof(T);
  const auto padded = [](int64_t n) { return (n + panel - 1) / panel * panel; };
  return padded(O) * C < padded(C) * O;
}

// How the batch is cut into chunks, and the tiles' geometry.
struct Plan {
  int64_t th, tw, per_sample, Hp, Wp, nb, count;
  bool par_chunks;  // chunks run in parallel, each on one thread
};

// Chunks run in parallel only with at least min_par_tiles tiles each (see the weight gradient).
Plan make_plan(const ConvGeom& g, int64_t min_par_tiles = 0) {
  Plan p;
  p.th = tiles_along(g.out[1]);
  p.tw = tiles_along(g.out[2]);
  p.per_sample = p.th * p.tw;
  p.Hp = p.th * 4 + 2;
  p.Wp = p.tw * 4 + 2;
  const int64_t threads = omp_get_max_threads();
  p.nb = std::min(g.N, std::max<int64_t>(1, kChunkTiles / p.per_sample));
  const int64_t split = (g.N + threads - 1) / threads;
  if (threads > 1 && (g.N + p.nb - 1) / p.nb < threads && g.N >= threads && split * p.per_sample >= min_par_tiles)
    p.nb = split;
  p.count = (g.N + p.nb - 1) / p.nb;
  p.par_chunks = threads > 1 && p.count >= threads && p.nb * p.per_sample >= min_par_tiles;
  return p;
}

// The tiles of the chunk of nb samples, in (sample, tile row, tile column) order.
void chunk_tiles(const ConvGeom& g, const Plan& p, int64_t nb, std::vector<Tile>& tiles) {
  const int64_t OH = g.out[1], OW = g.out[2];
  tiles.clear();
  for (int64_t s = 0; s < nb; ++s)
    for (int64_t ty = 0; ty < p.th; ++ty)
      for (int64_t tx = 0; tx < p.tw; ++tx)
        tiles.push_back({s * p.Hp * p.Wp + ty * 4 * p.Wp + tx * 4, s * g.O * OH * OW + ty * 4 * OW + tx * 4,
                         static_cast<int>(std::min<int64_t>(4, OH - ty * 4)),
                         static_cast<int>(std::min<int64_t>(4, OW - tx * 4))});
}

}  // namespace

bool winograd_suits(const ConvGeom& g) {
  if (g.groups != 1 || g.in[0] != 1 || g.out[0] != 1 || g.k[0] != 1 || g.k[1] != 3 || g.k[2] != 3) return false;
  for (int d = 1; d < 3; ++d)
    if (g.stride[d] != 1 || g.dil[d] != 1 || g.pad[d] < 0 || g.pad[d] > 2) return false;
  return g.C >= 16 && g.O >= 16 && winograd_tiles(g) >= 32;
}

template <typename T>
void winograd_conv3x3(const ConvGeom& g, const T* x, const T* w, const int64_t ws[4], const T* bias, T* y) {
  const int64_t C = g.C, O = g.O, OW = g.out[2], L = g.out_numel();
  const Plan p = make_plan(g);
  // Reused across calls like the chunks' buffers: a fresh vector of deep layers' size (36 MiB
  // at 512 channels) is zeroed and page-faulted every call, which measured as much as the GEMMs.
  thread_local std::vector<T> ubuf;
  T* U = scratch(ubuf, kXi * entry_stride(O, C));
  transform_weight(g, w, ws, U, omp_get_max_threads() > 1);
  const ScalarType dt = CppToScalarType<T>::value;
#pragma omp parallel for schedule(static) if (p.par_chunks)
  for (int64_t ch = 0; ch < p.count; ++ch) {
    const int64_t n0 = ch * p.nb, nb = std::min(p.nb, g.N - n0), nt = nb * p.per_sample;
    const bool inner = !p.par_chunks;  // the chunk's own loops and GEMMs may then use the threads
    thread_local std::vector<T> vbuf, mbuf;
    thread_local std::vector<Tile> tiles;
    chunk_tiles(g, p, nb, tiles);
    const int64_t sv = entry_stride(C, nt), sm = entry_stride(O, nt);
    T* V = scratch(vbuf, kXi * sv);
    T* M = scratch(mbuf, kXi * sm);
    transform_input(g, x + n0 * C * g.in_numel(), nb, p.Hp, p.Wp, tiles, V, inner);
    for (int64_t xi = 0; xi < kXi; ++xi)
      gemm_cpu(dt, O, nt, C, U + xi * entry_stride(O, C), C, 1, V + xi * sv, nt, 1, M + xi * sm, inner);
    transform_output(M, O, L, OW, tiles, bias, y + n0 * O * L, inner);
  }
}

// dL/dU_xi = sum over tiles of Gy_xi (O x tiles) @ V_xi^T (tiles x C), summed over the chunks
// (each thread into its own copy: its first chunk's GEMMs write it, later ones add to it), then
// carried back to the weight by G^T . G. The copies (36 C O elements each, 36 MiB at 512
// channels) cost a pass over memory per chunk, so chunks run in parallel only with 64 tiles or
// more: at 16 tiles a chunk (32 samples of 4x4 planes, 512 channels, 2 threads) the copies
// took longer than the GEMMs.
template <typename T>
void winograd_conv3x3_backward_weight(const ConvGeom& g, const T* x, const T* gy, T* gw) {
  const int64_t C = g.C, O = g.O, OW = g.out[2], L = g.out_numel(), usize = kXi * O * C;
  const Plan p = make_plan(g, 64);
  const bool cols_o = weight_grad_cols_o<T>(C, O);
  const int nthreads = p.par_chunks ? omp_get_max_threads() : 1;
  thread_local std::vector<T> dubuf;  // reused, as U in winograd_conv3x3
  T* dU = scratch(dubuf, nthreads * usize);
  std::vector<char> written(static_cast<size_t>(nthreads), 0);  // whether a thread's copy holds a sum
  const ScalarType dt = CppToScalarType<T>::value;
#pragma omp parallel num_threads(nthreads) if (p.par_chunks)
  {
    const int tid = omp_get_thread_num();
    T* acc = dU + tid * usize;
    thread_local std::vector<T> vbuf, gbuf, prodbuf;
    thread_local std::vector<Tile> tiles;
#pragma omp for schedule(static)
    for (int64_t ch = 0; ch < p.count; ++ch) {
      const int64_t n0 = ch * p.nb, nb = std::min(p.nb, g.N - n0), nt = nb * p.per_sample;
      const bool inner = !p.par_chunks;
      chunk_tiles(g, p, nb, tiles);
      const int64_t sv = entry_stride(C, nt), sg = entry_stride(O, nt);
      T* V = scratch(vbuf, kXi * sv);
      T* Gy = scratch(gbuf, kXi * sg);
      const bool first = !written[static_cast<size_t>(tid)];
      T* prod = first ? acc : scratch(prodbuf, usize);
      transform_input(g, x + n0 * C * g.in_numel(), nb, p.Hp, p.Wp, tiles, V, inner);
      transform_grad_output(gy + n0 * O * L, O, L, OW, tiles, Gy, inner);
      for (int64_t xi = 0; xi < kXi; ++xi) {
        if (cols_o) {  // dU_xi^T (C x O) = V_xi @ Gy_xi^T
          gemm_cpu(dt, C, O, nt, V + xi * sv, nt, 1, Gy + xi * sg, 1, nt, prod + xi * O * C, inner);
        } else {
          gemm_cpu(dt, O, C, nt, Gy + xi * sg, nt, 1, V + xi * sv, 1, nt, prod + xi * O * C, inner);
        }
      }
      written[static_cast<size_t>(tid)] = 1;
      if (first) continue;
#pragma omp parallel for schedule(static) if (inner)
      for (int64_t i = 0; i < usize; ++i) acc[i] += prod[i];
    }
  }
  // Thread 0 has a chunk: with chunks in parallel there are at least as many as threads.
  for (int t = 1; t < nthreads; ++t) {
    if (!written[static_cast<size_t>(t)]) continue;
    const T* part = dU + t * usize;
    for (int64_t i = 0; i < usize; ++i) dU[i] += part[i];
  }
  weight_from_transformed(dU, O, C, cols_o, gw, omp_get_max_threads() > 1);
}

template void winograd_conv3x3<float>(const ConvGeom&, const float*, const float*, const int64_t[4], const float*,
                                      float*);
template void winograd_conv3x3<double>(const ConvGeom&, const double*, const double*, const int64_t[4],
                                       const double*, double*);
template void winograd_conv3x3_backward_weight<float>(const ConvGeom&, const float*, const float*, float*);
template void winograd_conv3x3_backward_weight<double>(const ConvGeom&, const double*, const double*, double*);

}  // namespace tl::native
