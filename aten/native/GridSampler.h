#pragma once
// grid_sampler_2d / grid_sampler_3d (argument checks in GridSampler.cpp, loops behind the stubs
// below in cpu/GridSamplerKernel.cpp and cuda/GridSamplerKernel.cu). The input is contiguous (N, C, *in) and the grid contiguous
// (N, *out, nd) in the same float or double dtype; the grid's last dimension holds (x, y[, z])
// normalised to [-1, 1], x indexing the last (width) axis, as in PyTorch.
#include <array>
#include <cstdint>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

// The integer codes of PyTorch's interpolation_mode and padding_mode arguments.
enum class GridInterpolation : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPadding : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

struct GridSamplerGeom {
  int nd = 2;                    // spatial dimensions: 2 or 3
  int64_t N = 0, C = 0;
  std::array<int64_t, 3> in{};   // input spatial sizes, innermost first: (W, H[, D])
  int64_t points = 0;            // output points per batch element (the product of grid's *out)
  GridInterpolation mode = GridInterpolation::Bilinear;
  GridPadding padding = GridPadding::Zeros;
  bool align_corners = false;
};

// out: contiguous (N, C, *out).
extern DispatchStub<void(const GridSamplerGeom& g, const Tensor& input, const Tensor& grid, const Tensor& out)>
    grid_sampler_stub;
// grad_input (N, C, *in; zeroed by the caller, accumulated into) and grad_grid (N, *out, nd;
// written), contiguous, or undefined when not asked for; grad_output is contiguous (N, C, *out).
extern DispatchStub<void(const GridSamplerGeom& g, const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                         const Tensor& grad_input, const Tensor& grad_grid)>
    grid_sampler_backward_stub;

}  // namespace tl::native
