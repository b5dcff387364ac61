// Pooling: argument checks, output sizes and the 1-d composites (which run the 2-d kernels on a
// height-1 view). Loops: cpu/PoolingKernel.cpp.
#include "aten/native/Pooling.h"

#include <tuple>
#include <vector>

#include "aten/core/CheckedArith.h"
#include "aten/core/Tensor.h"
#include "aten/native/SpatialInput.h"
#include "generated/ops/_adaptive_avg_pool2d.h"
#include "generated/ops/_adaptive_avg_pool2d_backward_native.h"
#include "generated/ops/_adaptive_avg_pool2d_native.h"
#include "generated/ops/_max_pool_gather_native.h"
#include "generated/ops/_max_pool_scatter_native.h"
#include "generated/ops/adaptive_avg_pool1d.h"
#include "generated/ops/adaptive_avg_pool1d_native.h"
#include "generated/ops/adaptive_avg_pool2d.h"
#include "generated/ops/adaptive_avg_pool2d_native.h"
#include "generated/ops/adaptive_max_pool1d.h"
#include "generated/ops/adaptive_max_pool1d_native.h"
#include "generated/ops/adaptive_max_pool2d.h"
#include "generated/ops/adaptive_max_pool2d_native.h"
#include "generated/ops/avg_pool1d.h"
#include "generated/ops/avg_pool1d_native.h"
#include "generated/ops/avg_pool2d.h"
#include "generated/ops/avg_pool2d_backward_native.h"
#include "generated/ops/avg_pool2d_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/flatten.h"
#include "generated/ops/gather.h"
#include "generated/ops/max_pool1d.h"
#include "generated/ops/max_pool1d_native.h"
#include "generated/ops/max_pool1d_with_indices.h"
#include "generated/ops/max_pool1d_with_indices_native.h"
#include "generated/ops/max_pool2d.h"
#include "generated/ops/max_pool2d_native.h"
#include "generated/ops/max_pool2d_with_indices.h"
#include "generated/ops/max_pool2d_with_indices_native.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {

// One value or two (H, W); an empty list (the `stride=[]` default) means `fallback`.
std::pair<int64_t, int64_t> pair_param(IntArrayRef v, IntArrayRef fallback, const char* op, const char* name) {
  if (v.empty()) v = fallback;
  TL_CHECK(v.size() == 1 || v.size() == 2, op, ": ", name, " must either be a single int, or a tuple of two ints");
  return {v[0], v.size() == 1 ? v[0] : v[1]};
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const char* op = "pooling";
  const int64_t reach = checked_add(checked_mul(dilation, k - 1, op), 1, op);
  const int64_t padded = checked_add(in, checked_mul(2, pad, op), op);
  const int64_t span = checked_add(padded - reach, ceil_mode ? stride - 1 : 0, op);
  // Rounded toward -inf: a window larger than the padded input gives 0 windows, not 1.
  int64_t out = (span >= 0 ? span / stride : -((-span - 1) / stride) - 1) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// The input as (planes, H, W) and the leading sizes of the result.
void check_pool_input(const Tensor& self, const char* op) {
  TL_CHECK(is_spatial_input(self, 2, true), op,
           ": Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:", self.sizes());
}

std::vector<int64_t> out_shape(const Tensor& self, int64_t oh, int64_t ow) {
  std::vector<int64_t> s(self.sizes().begin(), self.sizes().end() - 2);
  s.push_back(oh);
  s.push_back(ow);
  return s;
}

// Kernel, stride, padding, dilation and output size of a (max or avg) window pooling.
PoolGeom window_geom(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool ceil_mode, const char* op, bool is_max) {
  check_pool_input(self, op);
  PoolGeom g;
  std::tie(g.KH, g.KW) = pair_param(kernel_size, kernel_size, op, "kernel_size");
  std::tie(g.sh, g.sw) = pair_param(stride, kernel_size, op, "stride");
  std::tie(g.ph, g.pw) = pair_param(padding, padding, op, "padding");
  std::tie(g.dh, g.dw) = pair_param(dilation, dilation, op, "dilation");
  TL_CHECK(g.sh != 0 && g.sw != 0, "stride should not be zero");
  TL_CHECK(g.KH > 0 && g.KW > 0, op, ": kernel_size must be greater than zero, but got kH: ", g.KH, " kW: ", g.KW);
  TL_CHECK(g.sh > 0 && g.sw > 0, op, ": stride must be greater than zero, but got dH: ", g.sh, " dW: ", g.sw);
  TL_CHECK(g.dh > 0 && g.dw > 0, "dilation should be greater than zero, but got dilationH: ", g.dh,
           " dilationW: ", g.dw);
  TL_CHECK(g.ph >= 0 && g.pw >= 0, op, ": pad must be non-negative, but got padH: ", g.ph, " padW: ", g.pw);
  if (is_max) {
    const auto half_span = [op](int64_t d, int64_t k) { return checked_add(checked_mul(d, k - 1, op), 1, op) / 2; };
    const bool ok_h = g.ph <= half_span(g.dh, g.KH), ok_w = g.pw <= half_span(g.dw, g.KW);
    TL_CHECK(ok_h && ok_w, "pad should be at most half of effective kernel size, but got pad=", ok_h ? g.pw : g.ph,
             ", kernel_size=", ok_h ? g.KW : g.KH, " and dilation=", ok_h ? g.dw : g.dh);
  }
  TL_CHECK(g.ph <= g.KH / 2 && g.pw <= g.KW / 2,
           "pad should be smaller than or equal to half of kernel size, but got padW = ", g.pw, ", padH = ", g.ph,
           ", kW = ", g.KW, ", kH = ", g.KH);
  const int64_t d = self.dim();
  g.H = self.sizes()[d - 2];
  g.W = self.sizes()[d - 1];
  g.OH = pooled_size(g.H, g.KH, g.ph, g.sh, g.dh, ceil_mode);
  g.OW = pooled_size(g.W, g.KW, g.pw, g.sw, g.dw, ceil_mode);
  const int64_t channels = self.sizes()[d - 3];
  TL_CHECK(g.OH > 0 && g.OW > 0, "Given input size: (", channels, "x", g.H, "x", g.W, "). Calculated output size: (",
           channels, "x", g.OH, "x", g.OW, "). Output size is too small");
  g.planes = self.numel() / (g.H * g.W);
  return g;
}

PoolGeom adaptive_geom(const Tensor& self, IntArrayRef output_size, const char* op) {
  TL_CHECK(is_spatial_input(self, 2, false), op, "(): Expected 3D or 4D tensor, but got ", self.sizes());
  for (int64_t i = 1; i < self.dim(); ++i)
    TL_CHECK(self.sizes()[i] > 0, op,
             "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
             self.sizes(), " with dimension ", i, " being empty");
  TL_CHECK(output_size.size() == 2, op, "(): internal error: output_size must be 2");
  TL_CHECK(output_size[0] >= 0 && output_size[1] >= 0, op, "(): output_size must be non-negative, but got ",
           output_size);
  PoolGeom g;
  g.H = self.sizes()[self.dim() - 2];
  g.W = self.sizes()[self.dim() - 1];
  g.OH = output_size[0];
  g.OW = output_size[1];
  g.planes = self.numel() / (g.H * g.W);
  return g;
}

Tensor to_float(const Tensor& t) { return t.to(ScalarType::Float); }

// The 1-d form of a pooling op: (N, C, L) / (C, L) as (.., 1, L).
void check_1d_input(const Tensor& self, const char* op) {
  TL_CHECK(is_spatial_input(self, 1, false), op, ": Expected 2D or 3D (batch mode) tensor with optional 0 dim ",
           "batch size for input, but got:", self.sizes());
}

std::vector<int64_t> with_one(IntArrayRef v, int64_t one) {
  if (v.empty()) return {};
  return {one, v[0]};
}

}  // namespace

// ---- max pooling ---------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool2d_with_indices_cpu(const Tensor& self, IntArrayRef kernel_size,
                                                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                       bool ceil_mode) {
  const PoolGeom g = window_geom(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d", true);
  if (low_precision(self.dtype())) {
    auto [o, i] = max_pool2d_with_indices_cpu(to_float(self), kernel_size, stride, padding, dilation, ceil_mode);
    return {o.to(self.dtype()), i};
  }
  const std::vector<int64_t> shape = out_shape(self, g.OH, g.OW);
  Tensor out = empty_tensor(shape, self.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, self.device()));
  if (out.numel() > 0) max_pool2d_kernel(g, self.contiguous(), out, indices);
  return {out, indices};
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(tl::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  check_1d_input(self, "max_pool1d");
  TL_CHECK(kernel_size.size() == 1 && stride.size() <= 1 && padding.size() == 1 && dilation.size() == 1,
           "max_pool1d: kernel_size, stride, padding and dilation must be single ints");
  TL_CHECK(kernel_size[0] <= 0 || padding[0] <= kernel_size[0] / 2,
           "max_pool1d() padding should be at most half of kernel size, but got padding=", padding[0],
           " and kernel_size=", kernel_size[0]);
  auto [out, idx] = tl::max_pool2d_with_indices(self.unsqueeze(-2), with_one(kernel_size, 1), with_one(stride, 1),
                                                with_one(padding, 0), with_one(dilation, 1), ceil_mode);
  return {out.squeeze(-2), idx.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(tl::max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_cpu(const Tensor& self, IntArrayRef output_size) {
  const PoolGeom g = adaptive_geom(self, output_size, "adaptive_max_pool2d");
  if (low_precision(self.dtype())) {
    auto [o, i] = adaptive_max_pool2d_cpu(to_float(self), output_size);
    return {o.to(self.dtype()), i};
  }
  const std::vector<int64_t> shape = out_shape(self, g.OH, g.OW);
  Tensor out = empty_tensor(shape, self.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, self.device()));
  if (out.numel() > 0) adaptive_max_pool2d_kernel(g, self.contiguous(), out, indices);
  return {out, indices};
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  check_1d_input(self, "adaptive_max_pool1d");
  TL_CHECK(output_size.size() == 1, "adaptive_max_pool1d: output_size must be a single int");
  auto [out, idx] = tl::adaptive_max_pool2d(self.unsqueeze(-2), {1, output_size[0]});
  return {out.squeeze(-2), idx.squeeze(-2)};
}

namespace {

// Plane sizes for _max_pool_gather/_max_pool_scatter: `big` (*, H, W) and `small` (*, OH, OW)
// share their leading sizes.
void check_gather_shapes(IntArrayRef big, IntArrayRef small, const Tensor& indices, const char* op) {
  TL_CHECK(indices.dtype() == ScalarType::Long, op, ": expected indices of dtype int64, got ",
           dtype_name(indices.dtype()));
  bool ok = big.size() == small.size() && big.size() >= 2;
  for (size_t i = 0; ok && i + 2 < big.size(); ++i) ok = big[i] == small[i];
  TL_CHECK(ok, op, ": the sizes ", big, " and ", small,
           " must agree in all but the last two dimensions");
}

}  // namespace

// gather along the flattened planes (it checks the indices). The scatter below keeps its own
// loop: it runs on every max pooling backward, in parallel over planes (scatter_add is serial),
// and sums Half/BFloat16 gradients in float.
Tensor _max_pool_gather_cpu(const Tensor& self, const Tensor& indices) {
  check_gather_shapes(self.sizes(), indices.sizes(), indices, "_max_pool_gather");
  return self.flatten(-2).gather(-1, indices.flatten(-2)).view(indices.sizes());
}

Tensor _max_pool_scatter_cpu(const Tensor& grad_output, const Tensor& indices, IntArrayRef self_size) {
  check_gather_shapes(self_size, indices.sizes(), indices, "_max_pool_scatter");
  TL_CHECK(grad_output.sizes().equals(indices.sizes()), "_max_pool_scatter: grad_output ",
           grad_output.sizes(), " and indices ", indices.sizes(), " must have the same size");
  if (low_precision(grad_output.dtype()))
    return _max_pool_scatter_cpu(to_float(grad_output), indices, self_size).to(grad_output.dtype());
  Tensor gx = empty_tensor(self_size, grad_output.options());
  const int64_t d = static_cast<int64_t>(self_size.size()), in_len = self_size[d - 1] * self_size[d - 2];
  const int64_t out_len = indices.sizes()[d - 1] * indices.sizes()[d - 2];
  if (gx.numel() > 0) {
    if (out_len == 0) return gx.zero_();
    pool_scatter_kernel(gx.numel() / in_len, in_len, out_len, grad_output.contiguous(), indices.contiguous(), gx);
  }
  return gx;
}

// ---- average pooling -----------------------------------------------------------------------------

Tensor avg_pool2d_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const PoolGeom g = window_geom(self, kernel_size, stride, padding, IntArrayRef({1}), ceil_mode, "avg_pool2d", false);
  TL_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  if (low_precision(self.dtype()))
    return avg_pool2d_cpu(to_float(self), kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override)
        .to(self.dtype());
  Tensor out = empty_tensor(out_shape(self, g.OH, g.OW), self.options());
  if (out.numel() > 0) avg_pool2d_kernel(g, self.contiguous(), out, count_include_pad, divisor_override);
  return out;
}

Tensor avg_pool2d_backward_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                               IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                               std::optional<int64_t> divisor_override) {
  const PoolGeom g = window_geom(self, kernel_size, stride, padding, IntArrayRef({1}), ceil_mode, "avg_pool2d", false);
  TL_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  TL_CHECK(grad_output.sizes().equals(out_shape(self, g.OH, g.OW)), "avg_pool2d_backward: grad_output of size ",
           grad_output.sizes(), " does not match the output size ",
           IntArrayRef(out_shape(self, g.OH, g.OW)));
  if (low_precision(grad_output.dtype()))
    return avg_pool2d_backward_cpu(to_float(grad_output), self, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override)
        .to(grad_output.dtype());
  Tensor gx = empty_tensor(self.sizes(), grad_output.options());
  if (gx.numel() > 0) avg_pool2d_backward_kernel(g, grad_output.contiguous(), gx, count_include_pad, divisor_override);
  return gx;
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  TL_CHECK(is_spatial_input(self, 1, false), "Expected 2 to 3 dimensions, but got ", self.dim(),
           "-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)");
  TL_CHECK(kernel_size.size() == 1 && stride.size() <= 1 && padding.size() == 1,
           "avg_pool1d: kernel_size, stride and padding must be single ints");
  return tl::avg_pool2d(self.unsqueeze(-2), with_one(kernel_size, 1), with_one(stride, 1), with_one(padding, 0),
                        ceil_mode, count_include_pad, std::nullopt)
      .squeeze(-2);
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return tl::_adaptive_avg_pool2d(self, output_size);
}

Tensor _adaptive_avg_pool2d_cpu(const Tensor& self, IntArrayRef output_size) {
  const PoolGeom g = adaptive_geom(self, output_size, "adaptive_avg_pool2d");
  if (low_precision(self.dtype())) return _adaptive_avg_pool2d_cpu(to_float(self), output_size).to(self.dtype());
  Tensor out = empty_tensor(out_shape(self, g.OH, g.OW), self.options());
  if (out.numel() > 0) adaptive_avg_pool2d_kernel(g, self.contiguous(), out);
  return out;
}

Tensor _adaptive_avg_pool2d_backward_cpu(const Tensor& grad_output, const Tensor& self) {
  TL_CHECK(grad_output.dim() == self.dim() && self.dim() >= 3, "_adaptive_avg_pool2d_backward: grad_output ",
           grad_output.sizes(), " and self ", self.sizes(), " do not match");
  const int64_t d = self.dim();
  const PoolGeom g = adaptive_geom(self, {grad_output.sizes()[d - 2], grad_output.sizes()[d - 1]}, "adaptive_avg_pool2d");
  TL_CHECK(grad_output.sizes().equals(out_shape(self, g.OH, g.OW)), "_adaptive_avg_pool2d_backward: grad_output ",
           grad_output.sizes(), " and self ", self.sizes(), " do not match");
  if (low_precision(grad_output.dtype()))
    return _adaptive_avg_pool2d_backward_cpu(to_float(grad_output), self).to(grad_output.dtype());
  Tensor gx = empty_tensor(self.sizes(), grad_output.options());
  if (gx.numel() > 0) adaptive_avg_pool2d_backward_kernel(g, grad_output.contiguous(), gx);
  return gx;
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  check_1d_input(self, "adaptive_avg_pool1d");
  TL_CHECK(output_size.size() == 1, "adaptive_avg_pool1d: output_size must be a single int");
  return tl::adaptive_avg_pool2d(self.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
}

}  // namespace tl::native
