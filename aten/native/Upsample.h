#pragma once
// Bilinear upsampling (checks in Upsample.cpp, loops in cpu/UpsampleKernel.cpp; nearest
// upsampling is a plane gather, Padding.h). Planes as in Padding.h: `planes` contiguous H x W
// input planes, OH x OW output planes.
#include <cstdint>
#include <optional>

#include "aten/core/Tensor.h"

namespace tl::native {

struct BilinearGeom {
  int64_t planes = 0, H = 1, W = 1, OH = 1, OW = 1;
  bool align_corners = false;
  std::optional<double> scales_h, scales_w;  // the user's scale factors (they set the sampling grid)
};

void upsample_bilinear2d_kernel(const BilinearGeom& g, const Tensor& x, const Tensor& out);
// The adjoint: gx (zeroed here) receives each gy element spread over its four taps.
void upsample_bilinear2d_backward_kernel(const BilinearGeom& g, const Tensor& gy, const Tensor& gx);

}  // namespace tl::native
