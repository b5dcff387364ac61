// Spatial transformer operators: affine_grid_generator (a composite of mm, so its gradient
// with respect to theta comes from autograd) and grid_sampler{,_2d,_3d} with their backward
// operators: PyTorch's argument checks and output shapes here, loops behind stubs (GridSampler.h).
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/GridSampler.h"
#include "generated/ops/affine_grid_generator_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/grid_sampler_2d.h"
#include "generated/ops/grid_sampler_2d_backward_native.h"
#include "generated/ops/grid_sampler_2d_native.h"
#include "generated/ops/grid_sampler_3d.h"
#include "generated/ops/grid_sampler_3d_backward_native.h"
#include "generated/ops/grid_sampler_3d_native.h"
#include "generated/ops/grid_sampler_native.h"
#include "generated/ops/mm.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "generated/ops/t.h"
#include "generated/ops/to.h"
#include "generated/ops/zero.h"

namespace tl::native {

// ---- affine_grid_generator -------------------------------------------------------------------

// theta (N, nd, nd + 1) applied to the homogeneous coordinates (x, y[, z], 1) of every output
// pixel centre, normalised to [-1, 1] (to the pixel edges unless align_corners).
Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  const int64_t dims = static_cast<int64_t>(size.size());
  TL_CHECK(dims == 4 || dims == 5, "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs, but got size ",
           size);
  const int64_t nd = dims - 2;
  TL_CHECK(theta.dim() == 3 && theta.sizes()[0] == size[0] && theta.sizes()[1] == nd && theta.sizes()[2] == nd + 1,
           "affine_grid_generator: expected theta of shape (", size[0], ", ", nd, ", ", nd + 1, ") for size ", size,
           ", but got theta with sizes ", theta.sizes());
  TL_CHECK(theta.is_floating_point(), "affine_grid_generator: expected a floating point theta, but got ",
           theta.dtype());
  for (int64_t s : size) TL_CHECK(s >= 0, "affine_grid_generator: expected a non-negative size, but got ", size);
  // Spatial axes from the innermost (x: width) outwards, as the grid's last dimension lists them.
  std::vector<int64_t> axes;
  for (int64_t j = 0; j < nd; ++j) axes.push_back(size[dims - 1 - j]);
  int64_t points = 1;
  for (int64_t s : axes) points *= s;
  const std::vector<int64_t> base_sizes{points, nd + 1};
  Tensor base = empty_tensor(base_sizes, TensorOptions(ScalarType::Double, Device(DeviceType::CPU)));
  double* b = base.data_ptr<double>();
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (int64_t j = 0; j < nd; ++j) {
      const int64_t s = axes[j], i = rest % s;
      rest /= s;
      // A unit axis sits at the centre (0), as in PyTorch since 1.3.
      const double step = s > 1 ? 2.0 / static_cast<double>(s - 1) : 0.0;
      const double x = s > 1 ? -1.0 + step * static_cast<double>(i) : 0.0;
      b[p * (nd + 1) + j] = align_corners ? x : x * static_cast<double>(s - 1) / static_cast<double>(s);
    }
    b[p * (nd + 1) + nd] = 1.0;
  }
  std::vector<int64_t> shape(size.begin(), size.end());
  shape.erase(shape.begin() + 1);  // (N, [D,] H, W, nd)
  shape.push_back(nd);
  // One (points, nd + 1) x (nd + 1, N * nd) product: a broadcast batched matmul of such thin
  // matrices is many times slower.
  const std::vector<int64_t> theta_rows{size[0] * nd, nd + 1}, per_point{points, size[0], nd}, order{1, 0, 2};
  const Tensor flat = base.to(theta.device(), theta.dtype()).mm(theta.reshape(theta_rows).t());
  return flat.reshape(per_point).permute(order).reshape(shape);
}

// ---- grid_sampler ----------------------------------------------------------------------------

DispatchStub<void(const GridSamplerGeom&, const Tensor&, const Tensor&, const Tensor&)> grid_sampler_stub(
    "grid_sampler");
DispatchStub<void(const GridSamplerGeom&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&)>
    grid_sampler_backward_stub("grid_sampler_backward");

namespace {

// PyTorch's checks shared by the 2-d and 3-d samplers (and by grid_sampler before it picks one).
void check_grid_sampler_common(const Tensor& input, const Tensor& grid) {
  TL_CHECK(input.device() == grid.device(), "grid_sampler(): expected input and grid to be on same device, but ",
           "input is on ", input.device(), " and grid is on ", grid.device());
  // (Equal dims are checked by the 2-d / 3-d samplers, with PyTorch's message naming 4D or 5D.)
  TL_CHECK(input.dim() >= 1 && grid.dim() >= 1 && input.sizes()[0] == grid.sizes()[0],
           "grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
           input.sizes(), " and grid with sizes ", grid.sizes());
  TL_CHECK(grid.sizes().back() == input.dim() - 2, "grid_sampler(): expected grid to have size ", input.dim() - 2,
           " in last dimension, but got grid with sizes ", grid.sizes());
  for (int64_t i = 2; i < input.dim(); ++i)
    TL_CHECK(input.sizes()[i] > 0, "grid_sampler(): expected input to have non-empty spatial dimensions, but input ",
             "has sizes ", input.sizes(), " with dimension ", i, " being empty");
}

GridSamplerGeom check_grid_sampler(int nd, const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                                   int64_t padding_mode, bool align_corners) {
  check_grid_sampler_common(input, grid);
  TL_CHECK(input.dim() == nd + 2 && grid.dim() == nd + 2, "grid_sampler(): expected ", nd + 2, "D input and grid with same number of ",
           "dimensions, but got input with sizes ", input.sizes(), " and grid with sizes ", grid.sizes());
  TL_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2, "grid_sampler(): expected interpolation_mode to be ",
           "0 (bilinear), 1 (nearest) or 2 (bicubic), but got ", interpolation_mode);
  TL_CHECK(padding_mode >= 0 && padding_mode <= 2, "grid_sampler(): expected padding_mode to be 0 (zeros), ",
           "1 (border) or 2 (reflection), but got ", padding_mode);
  TL_CHECK(!(nd == 3 && interpolation_mode == 2), "grid_sampler(): bicubic interpolation only supports 4D input");
  TL_CHECK(input.dtype() == grid.dtype(), "grid_sampler(): expected input and grid to have the same dtype, but ",
           "input is ", input.dtype(), " and grid is ", grid.dtype());
  GridSamplerGeom g;
  g.nd = nd;
  g.N = input.sizes()[0];
  g.C = input.sizes()[1];
  for (int j = 0; j < nd; ++j) g.in[j] = input.sizes()[input.dim() - 1 - j];
  g.points = 1;
  for (int64_t i = 1; i <= nd; ++i) g.points *= grid.sizes()[i];
  g.mode = static_cast<GridInterpolation>(interpolation_mode);
  g.padding = static_cast<GridPadding>(padding_mode);
  g.align_corners = align_corners;
  return g;
}

// (N, C, *grid's spatial sizes)
std::vector<int64_t> output_sizes(const Tensor& input, const Tensor& grid) {
  std::vector<int64_t> s{input.sizes()[0], input.sizes()[1]};
  s.insert(s.end(), grid.sizes().begin() + 1, grid.sizes().end() - 1);
  return s;
}

Tensor grid_sampler_nd(int nd, const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners) {
  const GridSamplerGeom g = check_grid_sampler(nd, input, grid, interpolation_mode, padding_mode, align_corners);
  if (low_precision(input.dtype()))
    return grid_sampler_nd(nd, input.to(ScalarType::Float), grid.to(ScalarType::Float), interpolation_mode,
                           padding_mode, align_corners)
        .to(input.dtype());
  Tensor out = empty_tensor(output_sizes(input, grid), input.options());
  if (out.numel() > 0) grid_sampler_stub(input.device().type, g, input.contiguous(), grid.contiguous(), out);
  return out;
}

std::tuple<Tensor, Tensor> grid_sampler_nd_backward(int nd, const Tensor& grad_output, const Tensor& input,
                                                    const Tensor& grid, int64_t interpolation_mode,
                                                    int64_t padding_mode, bool align_corners,
                                                    std::array<bool, 2> output_mask) {
  const GridSamplerGeom g = check_grid_sampler(nd, input, grid, interpolation_mode, padding_mode, align_corners);
  const std::vector<int64_t> out_sizes = output_sizes(input, grid);
  TL_CHECK(grad_output.sizes().equals(out_sizes), "grid_sampler_", nd, "d_backward: expected grad_output of sizes ",
           IntArrayRef(out_sizes), ", but got ", grad_output.sizes());
  if (low_precision(input.dtype())) {
    auto [gi, gg] = grid_sampler_nd_backward(nd, grad_output.to(ScalarType::Float), input.to(ScalarType::Float),
                                             grid.to(ScalarType::Float), interpolation_mode, padding_mode,
                                             align_corners, output_mask);
    return {gi.defined() ? gi.to(input.dtype()) : gi, gg.defined() ? gg.to(grid.dtype()) : gg};
  }
  Tensor gi = output_mask[0] ? empty_tensor(input.sizes(), input.options()) : Tensor();
  Tensor gg = output_mask[1] ? empty_tensor(grid.sizes(), grid.options()) : Tensor();
  if (gi.defined() || gg.defined()) {
    if (gi.defined()) gi.zero_();
    if (gg.defined()) gg.zero_();
    if (out_sizes[0] * out_sizes[1] > 0 && g.points > 0)
      grid_sampler_backward_stub(input.device().type, g, grad_output.to(input.dtype()).contiguous(),
                                 input.contiguous(), grid.contiguous(), gi, gg);
  }
  return {gi, gg};
}

}  // namespace

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  check_grid_sampler_common(input, grid);
  if (input.dim() == 4) return tl::grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
  return tl::grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners);
}

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                           bool align_corners) {
  return grid_sampler_nd(2, input, grid, interpolation_mode, padding_mode, align_corners);
}

Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                           bool align_corners) {
  return grid_sampler_nd(3, input, grid, interpolation_mode, padding_mode, align_corners);
}

std::tuple<Tensor, Tensor> grid_sampler_2d_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& grid, int64_t interpolation_mode,
                                                        int64_t padding_mode, bool align_corners,
                                                        std::array<bool, 2> output_mask) {
  return grid_sampler_nd_backward(2, grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                                  output_mask);
}

std::tuple<Tensor, Tensor> grid_sampler_3d_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& grid, int64_t interpolation_mode,
                                                        int64_t padding_mode, bool align_corners,
                                                        std::array<bool, 2> output_mask) {
  return grid_sampler_nd_backward(3, grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                                  output_mask);
}

}  // namespace tl::native
