#pragma once
// The per-point math of grid_sampler_2d / grid_sampler_3d (layout in GridSampler.h), shared by the
// CPU loops (cpu/GridSamplerKernel.cpp) and the CUDA kernels (cuda/GridSamplerKernel.cu).
//
// Each output point reads a fixed number of input "taps" per mode: 2^nd for (bi/tri)linear, 1
// for nearest, 16 for bicubic. The taps (input offset, weight and, for the backward, the
// weight's derivative with respect to each grid component) are computed once per point and
// reused for every channel. A tap outside the input has offset -1 and reads zero, which is
// zeros padding; border and reflection padding move the coordinate (or, for
// bicubic, each tap) inside first. The coordinate arithmetic follows PyTorch's, in the tensor's
// own precision, so results agree to rounding.
//
// Note [Non-finite grid values]: PyTorch's 2-d and 3-d CPU kernels differ here and we follow
// each. Border and reflection padding clamp a NaN coordinate (infinities reflect to NaN) to 0 in
// 2-d and to size - 1 in 3-d. A 2-d tap outside the input still multiplies its weight by zero,
// so a NaN weight (a NaN or infinite coordinate, or any bicubic tap of one) gives NaN; a 3-d tap
// outside the input is skipped. So 2-d zeros padding gives NaN where 3-d gives 0.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aten/core/Macros.h"
#include "aten/native/GridSampler.h"

namespace tl::native::grid {

// Grid value in [-1, 1] -> input coordinate; d receives the derivative.
template <typename T>
TL_HOST_DEVICE T unnormalize(T g, int64_t size, bool align_corners, T& d) {
  if (align_corners) {
    d = static_cast<T>(size - 1) / 2;
    return (g + 1) / 2 * static_cast<T>(size - 1);
  }
  d = static_cast<T>(size) / 2;
  return ((g + 1) * static_cast<T>(size) - 1) / 2;
}

// Clamps to [0, size - 1]; the derivative is 0 where clamped (at the bounds too, as PyTorch).
// NaN goes to `nan_to` (see Note [Non-finite grid values]).
template <typename T>
TL_HOST_DEVICE T clip(T x, int64_t size, T nan_to, T& d) {
  const T hi = static_cast<T>(size - 1);
  if (std::isnan(x)) {
    d = 0;
    return nan_to;
  }
  if (x <= 0) {
    d = 0;
    return 0;
  }
  if (x >= hi) {
    d = 0;
    return hi;
  }
  d = 1;
  return x;
}

// Reflects x into [twice_lo / 2, twice_hi / 2] as often as needed; d is +1 or -1. Two ways
// that agree but for rounding far out (Note [Non-finite grid values]): 2-d takes the distance
// to the nearest even multiple of the period (PyTorch's vectorised kernel: huge coordinates
// land on the low edge), 3-d counts reflections with fmod (its scalar kernel).
template <int ND, typename T>
TL_HOST_DEVICE T reflect(T x, T twice_lo, T twice_hi, T& d) {
  d = 1;
  if (twice_lo == twice_hi) {
    d = 0;
    return 0;
  }
  const T lo = twice_lo / 2;
  x -= lo;
  if (x < 0) {
    x = -x;
    d = -1;
  }
  if constexpr (ND == 2) {
    const T period = twice_hi - twice_lo;
    const T extra = x - std::trunc(x / period) * period, other = period - extra;
    if (extra <= other || std::isnan(extra)) return extra + lo;
    d = -d;
    return other + lo;
  } else {
    const T span = (twice_hi - twice_lo) / 2;
    const T extra = std::fmod(x, span);
    // The parity of the number of reflections, in floating point (it can exceed int64 range).
    if (std::fmod(std::floor(x / span), T(2)) == 0) return extra + lo;
    d = -d;
    return span - extra + lo;
  }
}

template <int ND, typename T>
TL_HOST_DEVICE T apply_padding(T x, int64_t size, GridPadding padding, bool align_corners, T nan_to, T& d) {
  d = 1;
  if (padding == GridPadding::Zeros) return x;
  if (padding == GridPadding::Reflection)
    x = align_corners ? reflect<ND>(x, T(0), static_cast<T>(2 * (size - 1)), d)
                      : reflect<ND>(x, T(-1), static_cast<T>(2 * size - 1), d);
  T dc;
  x = clip(x, size, nan_to, dc);
  d *= dc;
  return x;
}

// floor(x) as an index; NaN, infinities and far-away values give an index outside every input
// (a float-to-integer conversion out of range would be undefined behaviour).
template <typename T>
TL_HOST_DEVICE int64_t floor_index(T x) {
  return x > T(-16) && x < static_cast<T>(int64_t(1) << 52) ? static_cast<int64_t>(std::floor(x)) : -16;
}

// Keys' cubic convolution weights (A = -0.75, as PyTorch) of the 4 taps around t in [0, 1)
// and their derivatives with respect to t.
template <typename T>
TL_HOST_DEVICE void cubic_weights(T t, T w[4], T dw[4]) {
  constexpr T A = T(-0.75);
  auto near = [&](T x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };  // |x| <= 1
  auto far = [&](T x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };  // 1 < |x| < 2
  auto dnear = [&](T x) { return (3 * (A + 2) * x - 2 * (A + 3)) * x; };
  auto dfar = [&](T x) { return (3 * A * x - 10 * A) * x + 8 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
  dw[0] = dfar(t + 1);
  dw[1] = dnear(t);
  dw[2] = -dnear(1 - t);
  dw[3] = -dfar(2 - t);
}

TL_HOST_DEVICE inline int tap_count(GridInterpolation mode, int nd) {
  return mode == GridInterpolation::Nearest ? 1 : mode == GridInterpolation::Bicubic ? 16 : 1 << nd;
}

// The taps of one output point; dweight[k][j] = d weight[k] / d grid component j (only for the
// backward).
template <typename T, int ND, bool Grad>
struct Taps {
  int64_t offset[16];
  T weight[16];
  std::conditional_t<Grad, T[16][ND], char> dweight;
};

template <typename T, int ND, bool Grad>
struct TapMaker {
  const GridSamplerGeom g;  // a copy: the taps written cannot alias it, so its fields stay in registers
  int64_t stride[3] = {1, 1, 1};

  TL_HOST_DEVICE explicit TapMaker(const GridSamplerGeom& geom) : g(geom) {
    stride[1] = g.in[0];
    stride[2] = g.in[0] * g.in[1];
  }

  TL_HOST_DEVICE bool inside(int j, int64_t i) const { return i >= 0 && i < g.in[j]; }

  TL_HOST_DEVICE void make(const T* gp, Taps<T, ND, Grad>& t) const {
    switch (g.mode) {
      case GridInterpolation::Bilinear: linear(gp, t); break;
      case GridInterpolation::Nearest: nearest(gp, t); break;
      case GridInterpolation::Bicubic:
        if constexpr (ND == 2) bicubic(gp, t);
        break;
    }
  }

  // A tap outside keeps its weight in 2-d only (Note [Non-finite grid values]).
  TL_HOST_DEVICE void set(Taps<T, ND, Grad>& t, int k, bool in, int64_t offset, T weight) const {
    t.offset[k] = in ? offset : -1;
    t.weight[k] = in || ND == 2 ? weight : T(0);
  }

  TL_HOST_DEVICE T nan_to(int j) const { return ND == 2 ? T(0) : static_cast<T>(g.in[j] - 1); }

  TL_HOST_DEVICE T source(T gv, int j, T& d) const {
    T du, dp;
    const T u = unnormalize(gv, g.in[j], g.align_corners, du);
    const T x = apply_padding<ND>(u, g.in[j], g.padding, g.align_corners, nan_to(j), dp);
    d = du * dp;
    return x;
  }

  TL_HOST_DEVICE void linear(const T* gp, Taps<T, ND, Grad>& t) const {
    T dx[ND], w0[ND], w1[ND];
    int64_t i0[ND];
    for (int j = 0; j < ND; ++j) {
      const T x = source(gp[j], j, dx[j]);
      const T f = std::floor(x);
      i0[j] = floor_index(x);
      w1[j] = x - f;
      w0[j] = (f + 1) - x;
    }
    for (int k = 0; k < (1 << ND); ++k) {
      int64_t off = 0;
      bool in = true;
      T w = 1;
      for (int j = 0; j < ND; ++j) {
        const int hi = (k >> j) & 1;
        const int64_t i = i0[j] + hi;
        in = in && inside(j, i);
        off += i * stride[j];
        w *= hi ? w1[j] : w0[j];
      }
      set(t, k, in, off, w);
      if constexpr (Grad) {
        for (int j = 0; j < ND; ++j) {
          T dw = ((k >> j) & 1) ? dx[j] : -dx[j];
          for (int i = 0; i < ND; ++i)
            if (i != j) dw *= ((k >> i) & 1) ? w1[i] : w0[i];
          t.dweight[k][j] = in ? dw : T(0);
        }
      }
    }
  }

  // Ties round to even (std::nearbyint), as PyTorch. The gradient with respect to the grid is 0.
  TL_HOST_DEVICE void nearest(const T* gp, Taps<T, ND, Grad>& t) const {
    int64_t off = 0;
    bool in = true;
    for (int j = 0; j < ND; ++j) {
      T d;
      const int64_t i = floor_index(std::nearbyint(source(gp[j], j, d)));
      in = in && inside(j, i);
      off += i * stride[j];
    }
    set(t, 0, in, off, T(1));
    if constexpr (Grad)
      for (int j = 0; j < ND; ++j) t.dweight[0][j] = T(0);
  }

  // The coordinate is not padded; each of the 4 x 4 taps is (PyTorch's get_value_bounded), so
  // the weights' derivatives are those of the unnormalised coordinate.
  TL_HOST_DEVICE void bicubic(const T* gp, Taps<T, ND, Grad>& t) const {
    T w[2][4], dw[2][4], du[2];
    int64_t idx[2][4];
    for (int j = 0; j < 2; ++j) {
      const T x = unnormalize(gp[j], g.in[j], g.align_corners, du[j]);
      const T f = std::floor(x);
      cubic_weights(x - f, w[j], dw[j]);
      for (int i = 0; i < 4; ++i) {
        T d;
        idx[j][i] = floor_index(apply_padding<ND>(f - 1 + i, g.in[j], g.padding, g.align_corners, nan_to(j), d));
      }
    }
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) {
        const int k = r * 4 + c;
        const bool in = inside(1, idx[1][r]) && inside(0, idx[0][c]);
        set(t, k, in, idx[1][r] * stride[1] + idx[0][c], w[0][c] * w[1][r]);
        if constexpr (Grad) {
          t.dweight[k][0] = in ? dw[0][c] * w[1][r] * du[0] : T(0);
          t.dweight[k][1] = in ? w[0][c] * dw[1][r] * du[1] : T(0);
        }
      }
  }
};

}  // namespace tl::native::grid
