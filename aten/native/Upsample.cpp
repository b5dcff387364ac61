// Upsampling: argument checks and geometry of nearest (1-d, 2-d) and bilinear (2-d) upsampling
// and their backward operators, plus the pixel_shuffle / pixel_unshuffle composites. Nearest
// upsampling is a plane gather (Padding.h); bilinear loops: cpu/UpsampleKernel.cpp.
#include <cmath>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/Padding.h"
#include "aten/native/Upsample.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/permute.h"
#include "generated/ops/pixel_shuffle.h"
#include "generated/ops/pixel_shuffle_native.h"
#include "generated/ops/pixel_unshuffle.h"
#include "generated/ops/pixel_unshuffle_native.h"
#include "generated/ops/reshape.h"
#include "generated/ops/to.h"
#include "generated/ops/upsample_bilinear2d_backward_native.h"
#include "generated/ops/upsample_bilinear2d_native.h"
#include "generated/ops/upsample_nearest1d_backward_native.h"
#include "generated/ops/upsample_nearest1d_native.h"
#include "generated/ops/upsample_nearest2d_backward_native.h"
#include "generated/ops/upsample_nearest2d_native.h"

namespace tl::native {

namespace {

// Sizes of an nd-d upsampling (nd = 1 or 2) from the input size (N, C, [H,] W) and output_size,
// with PyTorch's checks; H = OH = 1 for nd = 1.
struct Sizes {
  int64_t planes, H, W, OH, OW;
};

Sizes upsample_sizes(int64_t nd, IntArrayRef input_size, IntArrayRef output_size) {
  TL_CHECK(static_cast<int64_t>(output_size.size()) == nd, "It is expected output_size equals to ", nd,
           ", but got size ", output_size.size());
  TL_CHECK(static_cast<int64_t>(input_size.size()) == nd + 2, "It is expected input_size equals to ", nd + 2,
           ", but got size ", input_size.size());
  Sizes s{input_size[0] * input_size[1], 1, input_size.back(), 1, output_size.back()};
  if (nd == 1) {
    TL_CHECK(s.W > 0 && s.OW > 0, "Input and output sizes should be greater than 0, but got input (W: ", s.W,
             ") and output (W: ", s.OW, ")");
  } else {
    s.H = input_size[2];
    s.OH = output_size[0];
    TL_CHECK(s.H > 0 && s.W > 0 && s.OH > 0 && s.OW > 0, "Input and output sizes should be greater than 0, but got ",
             "input (H: ", s.H, ", W: ", s.W, ") output (H: ", s.OH, ", W: ", s.OW, ")");
  }
  return s;
}

Sizes check_upsample_input(int64_t nd, const Tensor& self, IntArrayRef output_size) {
  const Sizes s = upsample_sizes(nd, self.sizes(), output_size);
  // A zero batch is allowed, empty channels are not.
  TL_CHECK(self.sizes()[1] != 0, "Non-empty ", nd + 2, "D data tensor expected but got a tensor with sizes ",
           self.sizes());
  return s;
}

Sizes check_upsample_grad(int64_t nd, const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size) {
  const Sizes s = upsample_sizes(nd, input_size, output_size);
  TL_CHECK(grad_output.dim() == nd + 2, "Expected grad_output to be a tensor of dimension ", nd + 2,
           " but got: dimension ", grad_output.dim());
  std::vector<int64_t> full{input_size[0], input_size[1]};
  full.insert(full.end(), output_size.begin(), output_size.end());
  for (int64_t i = 0; i < nd + 2; ++i)
    TL_CHECK(grad_output.sizes()[i] == full[i], "Expected grad_output to have the same shape as output; output.size(",
             i, ") = ", full[i], " but got grad_output.size(", i, ") = ", grad_output.sizes()[i]);
  return s;
}

// PyTorch's nearest rule (in float, as PyTorch computes it): output o reads floor(o * in / out),
// or floor(o / scale) when a scale factor is given.
std::vector<int64_t> nearest_indices(int64_t in, int64_t out, std::optional<double> scale) {
  const float ratio = scale && *scale > 0 ? static_cast<float>(1.0 / *scale)
                                          : static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> idx(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o)
    idx[o] = out == in       ? o
             : out == 2 * in ? o >> 1
                             : std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * ratio)), in - 1);
  return idx;
}

PlaneGather nearest_gather(const Sizes& s, std::optional<double> scales_h, std::optional<double> scales_w) {
  PlaneGather g;
  g.planes = s.planes;
  g.H = s.H;
  g.W = s.W;
  g.OH = s.OH;
  g.OW = s.OW;
  g.ih = nearest_indices(s.H, s.OH, scales_h);
  g.iw = nearest_indices(s.W, s.OW, scales_w);
  return g;
}

std::vector<int64_t> with_spatial(IntArrayRef lead, IntArrayRef spatial) {
  std::vector<int64_t> out{lead[0], lead[1]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  return out;
}

Tensor nearest_forward(int64_t nd, const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                       std::optional<double> scales_w) {
  const Sizes s = check_upsample_input(nd, self, output_size);
  Tensor out = empty_tensor(with_spatial(self.sizes(), output_size), self.options());
  if (out.numel() > 0)
    plane_gather_stub(self.device().type, nearest_gather(s, scales_h, scales_w), self.contiguous(), out);
  return out;
}

Tensor nearest_backward(int64_t nd, const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                        std::optional<double> scales_h, std::optional<double> scales_w) {
  const Sizes s = check_upsample_grad(nd, grad_output, output_size, input_size);
  if (low_precision(grad_output.dtype()))
    return nearest_backward(nd, grad_output.to(ScalarType::Float), output_size, input_size, scales_h, scales_w)
        .to(grad_output.dtype());
  Tensor gx = empty_tensor(input_size, grad_output.options());
  if (gx.numel() > 0)
    plane_scatter_stub(gx.device().type, nearest_gather(s, scales_h, scales_w), grad_output.contiguous(), gx);
  return gx;
}

BilinearGeom bilinear_geom(const Sizes& s, bool align_corners, std::optional<double> scales_h,
                           std::optional<double> scales_w) {
  return {s.planes, s.H, s.W, s.OH, s.OW, align_corners, scales_h, scales_w};
}

}  // namespace

DispatchStub<void(const BilinearGeom&, const Tensor&, const Tensor&)> upsample_bilinear2d_stub("upsample_bilinear2d");
DispatchStub<void(const BilinearGeom&, const Tensor&, const Tensor&)> upsample_bilinear2d_backward_stub(
    "upsample_bilinear2d_backward");

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales) {
  return nearest_forward(1, self, output_size, std::nullopt, scales);
}

Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return nearest_forward(2, self, output_size, scales_h, scales_w);
}

Tensor upsample_nearest1d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   std::optional<double> scales) {
  return nearest_backward(1, grad_output, output_size, input_size, std::nullopt, scales);
}

Tensor upsample_nearest2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                   std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest_backward(2, grad_output, output_size, input_size, scales_h, scales_w);
}

Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  const Sizes s = check_upsample_input(2, self, output_size);
  if (low_precision(self.dtype()))
    return upsample_bilinear2d(self.to(ScalarType::Float), output_size, align_corners, scales_h, scales_w)
        .to(self.dtype());
  Tensor out = empty_tensor(with_spatial(self.sizes(), output_size), self.options());
  if (out.numel() > 0)
    upsample_bilinear2d_stub(self.device().type, bilinear_geom(s, align_corners, scales_h, scales_w),
                             self.contiguous(), out);
  return out;
}

Tensor upsample_bilinear2d_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                    bool align_corners, std::optional<double> scales_h,
                                    std::optional<double> scales_w) {
  const Sizes s = check_upsample_grad(2, grad_output, output_size, input_size);
  if (low_precision(grad_output.dtype()))
    return upsample_bilinear2d_backward(grad_output.to(ScalarType::Float), output_size, input_size, align_corners,
                                        scales_h, scales_w)
        .to(grad_output.dtype());
  Tensor gx = empty_tensor(input_size, grad_output.options());
  if (gx.numel() > 0)
    upsample_bilinear2d_backward_stub(gx.device().type, bilinear_geom(s, align_corners, scales_h, scales_w),
                                      grad_output.contiguous(), gx);
  return gx;
}

// ---- pixel shuffle -------------------------------------------------------------------------------

// (*, C*r*r, H, W) -> (*, C, H*r, W*r): channel c*r*r + i*r + j lands at row h*r + i, column w*r + j.
Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  TL_CHECK(self.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
           self.dim(), " dimension(s)");
  TL_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got ", upscale_factor);
  const int64_t r = upscale_factor, d = self.dim(), c = self.sizes()[d - 3];
  TL_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square ",
           "of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  const int64_t h = self.sizes()[d - 2], w = self.sizes()[d - 1];
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - 3);
  std::vector<int64_t> split = lead, perm, shape = lead;
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  for (int64_t i = 0; i < d - 3; ++i) perm.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2}) perm.push_back(d - 3 + i);
  shape.insert(shape.end(), {c / (r * r), h * r, w * r});
  return self.reshape(split).permute(perm).reshape(shape);
}

// The inverse: (*, C, H*r, W*r) -> (*, C*r*r, H, W).
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  TL_CHECK(self.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
           self.dim(), " dimension(s)");
  TL_CHECK(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", downscale_factor);
  const int64_t r = downscale_factor, d = self.dim(), c = self.sizes()[d - 3];
  const int64_t h = self.sizes()[d - 2], w = self.sizes()[d - 1];
  TL_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
           " is not divisible by ", r);
  TL_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
           " is not divisible by ", r);
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - 3);
  std::vector<int64_t> split = lead, perm, shape = lead;
  split.insert(split.end(), {c, h / r, r, w / r, r});
  for (int64_t i = 0; i < d - 3; ++i) perm.push_back(i);
  for (int64_t i : {0, 2, 4, 1, 3}) perm.push_back(d - 3 + i);
  shape.insert(shape.end(), {c * r * r, h / r, w / r});
  return self.reshape(split).permute(perm).reshape(shape);
}

}  // namespace tl::native
