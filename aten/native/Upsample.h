#pragma once
// Bilinear upsampling (checks in Upsample.cpp, loops in cpu/UpsampleKernel.cpp and cuda/UpsampleKernel.cu; nearest
// upsampling is a plane gather, Padding.h). Planes as in Padding.h: `planes` contiguous H x W
// input planes, OH x OW output planes.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

struct BilinearGeom {
  int64_t planes = 0, H = 1, W = 1, OH = 1, OW = 1;
  bool align_corners = false;
  std::optional<double> scales_h, scales_w;  // the user's scale factors (they set the sampling grid)
};

// Per output index of one axis: the two input taps and their weights, computed with PyTorch's
// arithmetic (in the tensor's own precision T) so that results agree to rounding.
template <typename T>
struct Taps {
  std::vector<int64_t> i0, i1;
  std::vector<T> l0, l1;
};

template <typename T>
Taps<T> linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  Taps<T> t{std::vector<int64_t>(out), std::vector<int64_t>(out), std::vector<T>(out), std::vector<T>(out)};
  T ratio;
  if (align_corners)
    ratio = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  else
    ratio = scale && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
  for (int64_t o = 0; o < out; ++o) {
    if (in == out) {
      t.i0[o] = t.i1[o] = o;
      t.l0[o] = T(1);
      t.l1[o] = T(0);
      continue;
    }
    T src = align_corners ? ratio * static_cast<T>(o) : ratio * (static_cast<T>(o) + T(0.5)) - T(0.5);
    if (src < 0) src = T(0);
    const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
    const T l1 = std::clamp(src - static_cast<T>(i0), T(0), T(1));
    t.i0[o] = i0;
    t.i1[o] = i0 + (i0 < in - 1 ? 1 : 0);
    t.l1[o] = l1;
    t.l0[o] = T(1) - l1;
  }
  return t;
}

// Per-device loops (Note [Stubs]): x, gy contiguous; out, gx fresh contiguous tensors.
extern DispatchStub<void(const BilinearGeom& g, const Tensor& x, const Tensor& out)> upsample_bilinear2d_stub;
// The adjoint: gx (zeroed here) receives each gy element spread over its four taps.
extern DispatchStub<void(const BilinearGeom& g, const Tensor& gy, const Tensor& gx)> upsample_bilinear2d_backward_stub;

}  // namespace tl::native
