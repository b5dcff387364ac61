// Winograd F(4x4, 3x3) convolution (Note [Winograd convolution] in ConvolutionWinograd.h).
// Samples go through in chunks of about kChunkTiles tiles. The input transform copies each
// channel's planes into zero-padded planes sized to whole tiles, so that it reads 6x6 patches
// without bounds checks; the chunk's transformed input V (36 x C x tiles) and products
// M (36 x O x tiles) stay in cache between the transforms and the 36 GEMMs. The transforms work on kLanes tiles at
// once, one tile per SIMD lane.
#include "aten/native/cpu/ConvolutionWinograd.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/native/cpu/Gemm.h"

namespace tl::native {

namespace {

constexpr int64_t kLanes = 16;
constexpr int64_t kXi = 36;  // entries of the 6x6 transformed domain
// Enough GEMM columns to run near the micro-kernel's speed while V and M stay in L2.
constexpr int64_t kChunkTiles = 256;

int64_t tiles_along(int64_t out) { return (out + 3) / 4; }

template <typename T>
T* scratch(std::vector<T>& buf, int64_t n) {
  if (buf.size() < static_cast<size_t>(n)) buf.resize(static_cast<size_t>(n));
  return buf.data();
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

// U[xi][o][c] = (G w_oc G^T)[xi], kLanes input channels at a time.
template <typename T>
void transform_weight(const ConvGeom& g, const T* w, const int64_t ws[4], T* U, bool par) {
  const int64_t O = g.O, C = g.C;
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
        std::memcpy(U + (xi * O + o) * C + c0, u[xi / 6][xi % 6], sizeof(T) * static_cast<size_t>(n));
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

// V[xi][c][t] = (B^T d B)[xi] of tile t's 6x6 patch in channel c. Per channel, the chunk's
// planes (nb samples from x) are first copied into zero-padded Hp x Wp planes, small enough to
// stay in L1 or L2 while their tiles are read.
template <typename T>
void transform_input(const ConvGeom& g, const T* x, int64_t nb, int64_t Hp, int64_t Wp, const std::vector<Tile>& tiles,
                     T* V, bool par) {
  const int64_t C = g.C, H = g.in[1], W = g.in[2], plane = Hp * Wp;
  const int64_t nt = static_cast<int64_t>(tiles.size());
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
      for (int64_t l = 0; l < kLanes; ++l) {
        const T* p = xp + tiles[static_cast<size_t>(t0 + std::min(l, n - 1))].in;
        for (int i = 0; i < 6; ++i)
          for (int j = 0; j < 6; ++j) d[i][j][l] = p[i * Wp + j];
      }
      for (int i = 0; i < 6; ++i) input_transform_1d(&d[i][0][0], kLanes, &r[i][0][0], kLanes);
      for (int k = 0; k < 6; ++k) input_transform_1d(&r[0][k][0], 6 * kLanes, &v[0][k][0], 6 * kLanes);
      for (int64_t xi = 0; xi < kXi; ++xi)
        std::memcpy(V + (xi * C + c) * nt + t0, v[xi / 6][xi % 6], sizeof(T) * static_cast<size_t>(n));
    }
  }
}

// y tile t of channel o = (A^T m A) + bias with m[xi] = M[xi][o][t]. M holds kLanes elements
// past its end, so that the last lanes read inside it.
template <typename T>
void transform_output(const T* M, int64_t O, int64_t L, int64_t OW, const std::vector<Tile>& tiles, const T* bias,
                      T* y, bool par) {
  const int64_t nt = static_cast<int64_t>(tiles.size());
#pragma omp parallel for schedule(static) if (par)
  for (int64_t o = 0; o < O; ++o) {
    alignas(64) T m[6][6][kLanes];
    alignas(64) T r[6][4][kLanes];
    alignas(64) T out[4][4][kLanes];
    const T b = bias ? bias[o] : T(0);
    T* yo = y + o * L;
    for (int64_t t0 = 0; t0 < nt; t0 += kLanes) {
      const int64_t n = std::min(kLanes, nt - t0);
      for (int64_t xi = 0; xi < kXi; ++xi)
        std::memcpy(m[xi / 6][xi % 6], M + (xi * O + o) * nt + t0, sizeof(T) * kLanes);
      for (int i = 0; i < 6; ++i) output_transform_1d(&m[i][0][0], kLanes, &r[i][0][0], kLanes);
      for (int k = 0; k < 4; ++k) output_transform_1d(&r[0][k][0], 4 * kLanes, &out[0][k][0], 4 * kLanes);
      for (int64_t l = 0; l < n; ++l) {
        const Tile& t = tiles[static_cast<size_t>(t0 + l)];
        T* yt = yo + t.out;
        if (t.rows == 4 && t.cols == 4) {  // fixed bounds: unrolled stores
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) yt[i * OW + j] = out[i][j][l] + b;
        } else {
          for (int i = 0; i < t.rows; ++i)
            for (int j = 0; j < t.cols; ++j) yt[i * OW + j] = out[i][j][l] + b;
        }
      }
    }
  }
}

}  // namespace

bool winograd_suits(const ConvGeom& g) {
  if (g.groups != 1 || g.in[0] != 1 || g.out[0] != 1 || g.k[0] != 1 || g.k[1] != 3 || g.k[2] != 3) return false;
  for (int d = 1; d < 3; ++d)
    if (g.stride[d] != 1 || g.dil[d] != 1 || g.pad[d] < 0 || g.pad[d] > 2) return false;
  const int64_t tiles = g.N * tiles_along(g.out[1]) * tiles_along(g.out[2]);
  return g.C >= 16 && g.O >= 16 && tiles >= 64;
}

template <typename T>
void winograd_conv3x3(const ConvGeom& g, const T* x, const T* w, const int64_t ws[4], const T* bias, T* y) {
  const int64_t C = g.C, O = g.O, OW = g.out[2], L = g.out_numel();
  const int64_t th = tiles_along(g.out[1]), tw = tiles_along(OW), per_sample = th * tw;
  const int64_t Hp = th * 4 + 2, Wp = tw * 4 + 2, plane = Hp * Wp;
  const int64_t threads = omp_get_max_threads();
  int64_t nb = std::min(g.N, std::max<int64_t>(1, kChunkTiles / per_sample));
  if (threads > 1 && (g.N + nb - 1) / nb < threads && g.N >= threads) nb = (g.N + threads - 1) / threads;
  const int64_t count = (g.N + nb - 1) / nb;
  const bool par_chunks = threads > 1 && count >= threads;
  std::vector<T> U(static_cast<size_t>(kXi * O * C));
  transform_weight(g, w, ws, U.data(), threads > 1);
  const ScalarType dt = CppToScalarType<T>::value;
#pragma omp parallel for schedule(static) if (par_chunks)
  for (int64_t ch = 0; ch < count; ++ch) {
    const int64_t n0 = ch * nb, cnb = std::min(nb, g.N - n0), nt = cnb * per_sample;
    const bool inner = !par_chunks;  // the chunk's own loops and GEMMs may then use the threads
    thread_local std::vector<T> vbuf, mbuf;
    thread_local std::vector<Tile> tiles;
    tiles.clear();
    for (int64_t s = 0; s < cnb; ++s)
      for (int64_t ty = 0; ty < th; ++ty)
        for (int64_t tx = 0; tx < tw; ++tx)
          tiles.push_back({s * plane + ty * 4 * Wp + tx * 4, s * O * L + ty * 4 * OW + tx * 4,
                           static_cast<int>(std::min<int64_t>(4, g.out[1] - ty * 4)),
                           static_cast<int>(std::min<int64_t>(4, OW - tx * 4))});
    T* V = scratch(vbuf, kXi * C * nt);
    T* M = scratch(mbuf, kXi * O * nt + kLanes);
    transform_input(g, x + n0 * C * g.in_numel(), cnb, Hp, Wp, tiles, V, inner);
    for (int64_t xi = 0; xi < kXi; ++xi)
      gemm_cpu(dt, O, nt, C, U.data() + xi * O * C, C, 1, V + xi * C * nt, nt, 1, M + xi * O * nt, inner);
    transform_output(M, O, L, OW, tiles, bias, y + n0 * O * L, inner);
  }
}

template void winograd_conv3x3<float>(const ConvGeom&, const float*, const float*, const int64_t[4], const float*,
                                      float*);
template void winograd_conv3x3<double>(const ConvGeom&, const double*, const double*, const int64_t[4],
                                       const double*, double*);

}  // namespace tl::native
