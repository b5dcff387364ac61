// Pooling: argument checks, output sizes, the 2-d and 3-d operators (one body each, over the
// 3-d loops), max unpooling and the 1-d composites (which run the 2-d operators on a height-1
// view). Loops: cpu/PoolingKernel.cpp.
#include "aten/native/Pooling.h"

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/CheckedArith.h"
#include "aten/core/Tensor.h"
#include "aten/native/SpatialInput.h"
#include "generated/ops/_adaptive_avg_pool2d.h"
#include "generated/ops/_adaptive_avg_pool2d_backward_native.h"
#include "generated/ops/_adaptive_avg_pool2d_native.h"
#include "generated/ops/_adaptive_avg_pool3d.h"
#include "generated/ops/_adaptive_avg_pool3d_backward_native.h"
#include "generated/ops/_adaptive_avg_pool3d_native.h"
#include "generated/ops/_max_pool_gather_native.h"
#include "generated/ops/_max_pool_scatter_native.h"
#include "generated/ops/adaptive_avg_pool1d.h"
#include "generated/ops/adaptive_avg_pool1d_native.h"
#include "generated/ops/adaptive_avg_pool2d.h"
#include "generated/ops/adaptive_avg_pool2d_native.h"
#include "generated/ops/adaptive_avg_pool3d_native.h"
#include "generated/ops/adaptive_max_pool1d.h"
#include "generated/ops/adaptive_max_pool1d_native.h"
#include "generated/ops/adaptive_max_pool2d.h"
#include "generated/ops/adaptive_max_pool2d_native.h"
#include "generated/ops/adaptive_max_pool3d_native.h"
#include "generated/ops/avg_pool1d.h"
#include "generated/ops/avg_pool1d_native.h"
#include "generated/ops/avg_pool2d.h"
#include "generated/ops/avg_pool2d_backward_native.h"
#include "generated/ops/avg_pool2d_native.h"
#include "generated/ops/avg_pool3d_backward_native.h"
#include "generated/ops/avg_pool3d_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/flatten.h"
#include "generated/ops/gather.h"
#include "generated/ops/max.h"
#include "generated/ops/max_pool1d.h"
#include "generated/ops/max_pool1d_native.h"
#include "generated/ops/max_pool1d_with_indices.h"
#include "generated/ops/max_pool1d_with_indices_native.h"
#include "generated/ops/max_pool2d.h"
#include "generated/ops/max_pool2d_native.h"
#include "generated/ops/max_pool2d_with_indices.h"
#include "generated/ops/max_pool2d_with_indices_native.h"
#include "generated/ops/max_pool3d_native.h"
#include "generated/ops/max_pool3d_with_indices.h"
#include "generated/ops/max_pool3d_with_indices_native.h"
#include "generated/ops/max_unpool2d_native.h"
#include "generated/ops/max_unpool3d_native.h"
#include "generated/ops/min.h"
#include "generated/ops/scatter.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/zero.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

// One value or nd; an empty list (the `stride=[]` default) means `fallback`.
std::vector<int64_t> tuple_param(IntArrayRef v, IntArrayRef fallback, int64_t nd, const char* op, const char* name) {
  if (v.empty()) v = fallback;
  TL_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == nd, op, ": ", name,
           " must either be a single int, or a tuple of ", nd == 2 ? "two" : "three", " ints");
  return v.size() == 1 ? std::vector<int64_t>(static_cast<size_t>(nd), v[0]) : v.vec();
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

void check_pool_input(const Tensor& self, int64_t nd, const char* op) {
  if (nd == 2) {
    TL_CHECK(is_spatial_input(self, 2, true), op,
             ": Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:",
             self.sizes());
  } else {
    TL_CHECK(is_spatial_input(self, 3, true), "non-empty 4D or 5D (batch mode) tensor expected for input");
  }
}

// The input's leading (batch, channel) sizes followed by the geometry's nd output sizes.
std::vector<int64_t> out_shape(const Tensor& self, const PoolGeom& g, int64_t nd) {
  std::vector<int64_t> s(self.sizes().begin(), self.sizes().end() - nd);
  s.insert(s.end(), g.out + 3 - nd, g.out + 3);
  return s;
}

// PyTorch's "kT: a kH: b kW: c"-style lists of per-dimension values in its messages, in the
// dimension `order` given (T, H, W: depth, height, width; only the last nd exist).
std::string dims_text(const char* prefix, const int64_t (&v)[3], int64_t nd, const std::string& order = "THW",
                      const char* sep = ": ", const char* join = " ") {
  std::ostringstream os;
  const std::string letters = "THW";
  for (char c : order) {
    const int64_t i = static_cast<int64_t>(letters.find(c));
    if (i < 3 - nd) continue;
    os << (os.tellp() > 0 ? join : "") << prefix << c << sep << v[i];
  }
  return os.str();
}

// The input's spatial sizes, kernel, stride, padding, dilation and output size of a (max or
// avg) window pooling over the last nd dimensions.
PoolGeom window_geom(const Tensor& self, int64_t nd, IntArrayRef kernel_size, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, const char* op) {
  check_pool_input(self, nd, op);
  const std::vector<int64_t> k = tuple_param(kernel_size, kernel_size, nd, op, "kernel_size"),
                             st = tuple_param(stride, kernel_size, nd, op, "stride"),
                             pd = tuple_param(padding, padding, nd, op, "padding"),
                             dl = tuple_param(dilation, dilation, nd, op, "dilation");
  PoolGeom g;
  const int64_t lead = 3 - nd;
  for (int64_t i = 0; i < nd; ++i) {
    g.k[lead + i] = k[i];
    g.stride[lead + i] = st[i];
    g.pad[lead + i] = pd[i];
    g.dil[lead + i] = dl[i];
  }
  bool k_ok = true, s_ok = true, d_ok = true, p_ok = true, half_ok = true;
  for (int64_t i = lead; i < 3; ++i) {
    TL_CHECK(g.stride[i] != 0, "stride should not be zero");
    k_ok = k_ok && g.k[i] > 0;
    s_ok = s_ok && g.stride[i] > 0;
    d_ok = d_ok && g.dil[i] > 0;
    p_ok = p_ok && g.pad[i] >= 0;
  }
  if (nd == 2) {
    TL_CHECK(k_ok, op, ": kernel_size must be greater than zero, but got ", dims_text("k", g.k, nd));
    TL_CHECK(s_ok, op, ": stride must be greater than zero, but got ", dims_text("d", g.stride, nd));
    TL_CHECK(d_ok, "dilation should be greater than zero, but got ", dims_text("dilation", g.dil, nd));
    TL_CHECK(p_ok, op, ": pad must be non-negative, but got ", dims_text("pad", g.pad, nd));
  } else {
    TL_CHECK(k_ok, "kernel sizes should be greater than zero, but got ", dims_text("k", g.k, nd));
    TL_CHECK(s_ok, "stride should be greater than zero, but got ", dims_text("d", g.stride, nd));
    TL_CHECK(d_ok, "dilation should be greater than zero, but got ", dims_text("dilation", g.dil, nd));
    TL_CHECK(p_ok, "pad must be non-negative, but got ", dims_text("pad", g.pad, nd));
  }
  // PyTorch checks the padding against the dilated kernel first (for avg pooling, whose dilation
  // is 1, that is the whole check), then against the kernel itself.
  for (int64_t i = lead; i < 3; ++i) {
    const int64_t half_span = checked_add(checked_mul(g.dil[i], g.k[i] - 1, op), 1, op) / 2;
    TL_CHECK(g.pad[i] <= half_span, "pad should be at most half of effective kernel size, but got pad=", g.pad[i],
             ", kernel_size=", g.k[i], " and dilation=", g.dil[i]);
  }
  for (int64_t i = lead; i < 3; ++i) half_ok = half_ok && g.pad[i] <= g.k[i] / 2;
  TL_CHECK(half_ok, "pad should be smaller than or equal to half of kernel size, but got ",
           nd == 2 ? dims_text("pad", g.pad, nd, "WH", " = ", ", ") + ", " + dims_text("k", g.k, nd, "WH", " = ", ", ")
                   : dims_text("k", g.k, nd, "TWH") + " " + dims_text("pad", g.pad, nd, "TWH"));
  const int64_t d = self.dim();
  bool fits = true;
  for (int64_t i = lead; i < 3; ++i) {
    g.in[i] = self.sizes()[d - 3 + i];
    g.out[i] = pooled_size(g.in[i], g.k[i], g.pad[i], g.stride[i], g.dil[i], ceil_mode);
    fits = fits && g.out[i] > 0;
  }
  if (!fits) {
    std::ostringstream in, out;
    in << self.sizes()[d - nd - 1];
    out << self.sizes()[d - nd - 1];
    for (int64_t i = lead; i < 3; ++i) {
      in << "x" << g.in[i];
      out << "x" << g.out[i];
    }
    TL_ERROR("Given input size: (", in.str(), "). Calculated output size: (", out.str(),
             "). Output size is too small");
  }
  g.planes = self.numel() / g.in_numel();
  return g;
}

PoolGeom adaptive_geom(const Tensor& self, IntArrayRef output_size, int64_t nd, const char* op) {
  TL_CHECK(is_spatial_input(self, nd, false), op, "(): Expected ", nd + 1, "D or ", nd + 2, "D tensor, but got ",
           self.sizes());
  for (int64_t i = 1; i < self.dim(); ++i)
    TL_CHECK(self.sizes()[i] > 0, op,
             "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
             self.sizes(), " with dimension ", i, " being empty");
  TL_CHECK(static_cast<int64_t>(output_size.size()) == nd, op, ": output_size must be ", nd);
  for (int64_t v : output_size)
    TL_CHECK(v >= 0, op, "(): output_size must be non-negative, but got ", output_size);
  PoolGeom g;
  for (int64_t i = 0; i < nd; ++i) {
    g.in[3 - nd + i] = self.sizes()[self.dim() - nd + i];
    g.out[3 - nd + i] = output_size[i];
  }
  g.planes = self.numel() / g.in_numel();
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

// The shared bodies of the 2-d and 3-d operators; `op` names the operator in messages.
std::tuple<Tensor, Tensor> max_pool_with_indices(const Tensor& self, int64_t nd, IntArrayRef kernel_size,
                                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                 bool ceil_mode, const char* op) {
  const PoolGeom g = window_geom(self, nd, kernel_size, stride, padding, dilation, ceil_mode, op);
  if (low_precision(self.dtype())) {
    auto [o, i] = max_pool_with_indices(to_float(self), nd, kernel_size, stride, padding, dilation, ceil_mode, op);
    return {o.to(self.dtype()), i};
  }
  const std::vector<int64_t> shape = out_shape(self, g, nd);
  Tensor out = empty_tensor(shape, self.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, self.device()));
  if (out.numel() > 0) max_pool_stub(self.device().type, g, self.contiguous(), out, indices);
  return {out, indices};
}

std::tuple<Tensor, Tensor> adaptive_max_pool(const Tensor& self, IntArrayRef output_size, int64_t nd,
                                             const char* op) {
  const PoolGeom g = adaptive_geom(self, output_size, nd, op);
  if (low_precision(self.dtype())) {
    auto [o, i] = adaptive_max_pool(to_float(self), output_size, nd, op);
    return {o.to(self.dtype()), i};
  }
  const std::vector<int64_t> shape = out_shape(self, g, nd);
  Tensor out = empty_tensor(shape, self.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, self.device()));
  if (out.numel() > 0) adaptive_max_pool_stub(self.device().type, g, self.contiguous(), out, indices);
  return {out, indices};
}

Tensor avg_pool(const Tensor& self, int64_t nd, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, const char* op) {
  const PoolGeom g = window_geom(self, nd, kernel_size, stride, padding, IntArrayRef({1}), ceil_mode, op);
  TL_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  if (low_precision(self.dtype()))
    return avg_pool(to_float(self), nd, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                    op)
        .to(self.dtype());
  Tensor out = empty_tensor(out_shape(self, g, nd), self.options());
  if (out.numel() > 0)
    avg_pool_stub(self.device().type, g, self.contiguous(), out, count_include_pad, divisor_override);
  return out;
}

Tensor avg_pool_backward(const Tensor& grad_output, const Tensor& self, int64_t nd, IntArrayRef kernel_size,
                         IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override, const char* op) {
  const PoolGeom g = window_geom(self, nd, kernel_size, stride, padding, IntArrayRef({1}), ceil_mode, op);
  TL_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  const std::vector<int64_t> shape = out_shape(self, g, nd);
  TL_CHECK(grad_output.sizes().equals(shape), op, "_backward: grad_output of size ", grad_output.sizes(),
           " does not match the output size ", IntArrayRef(shape));
  if (low_precision(grad_output.dtype()))
    return avg_pool_backward(to_float(grad_output), self, nd, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override, op)
        .to(grad_output.dtype());
  Tensor gx = empty_tensor(self.sizes(), grad_output.options());
  if (gx.numel() > 0) avg_pool_backward_stub(gx.device().type, g, grad_output.contiguous(), gx, count_include_pad,
                                               divisor_override);
  return gx;
}

Tensor adaptive_avg_pool(const Tensor& self, IntArrayRef output_size, int64_t nd, const char* op) {
  const PoolGeom g = adaptive_geom(self, output_size, nd, op);
  if (low_precision(self.dtype())) return adaptive_avg_pool(to_float(self), output_size, nd, op).to(self.dtype());
  Tensor out = empty_tensor(out_shape(self, g, nd), self.options());
  if (out.numel() > 0) adaptive_avg_pool_stub(self.device().type, g, self.contiguous(), out);
  return out;
}

Tensor adaptive_avg_pool_backward(const Tensor& grad_output, const Tensor& self, int64_t nd, const char* op) {
  TL_CHECK(grad_output.dim() == self.dim() && self.dim() > nd, "_", op, "_backward: grad_output ",
           grad_output.sizes(), " and self ", self.sizes(), " do not match");
  const IntArrayRef out_size(grad_output.sizes().data() + self.dim() - nd, static_cast<size_t>(nd));
  const PoolGeom g = adaptive_geom(self, out_size, nd, op);
  TL_CHECK(grad_output.sizes().equals(out_shape(self, g, nd)), "_", op, "_backward: grad_output ",
           grad_output.sizes(), " and self ", self.sizes(), " do not match");
  if (low_precision(grad_output.dtype()))
    return adaptive_avg_pool_backward(to_float(grad_output), self, nd, op).to(grad_output.dtype());
  Tensor gx = empty_tensor(self.sizes(), grad_output.options());
  if (gx.numel() > 0) adaptive_avg_pool_backward_stub(gx.device().type, g, grad_output.contiguous(), gx);
  return gx;
}

}  // namespace

DispatchStub<void(const PoolGeom&, const Tensor&, const Tensor&, const Tensor&)> max_pool_stub("max_pool");
DispatchStub<void(const PoolGeom&, const Tensor&, const Tensor&, bool, std::optional<int64_t>)> avg_pool_stub(
    "avg_pool");
DispatchStub<void(const PoolGeom&, const Tensor&, const Tensor&, bool, std::optional<int64_t>)> avg_pool_backward_stub(
    "avg_pool_backward");
DispatchStub<void(const PoolGeom&, const Tensor&, const Tensor&)> adaptive_avg_pool_stub("adaptive_avg_pool");
DispatchStub<void(const PoolGeom&, const Tensor&, const Tensor&)> adaptive_avg_pool_backward_stub(
    "adaptive_avg_pool_backward");
DispatchStub<void(const PoolGeom&, const Tensor&, const Tensor&, const Tensor&)> adaptive_max_pool_stub(
    "adaptive_max_pool");
DispatchStub<void(int64_t, int64_t, int64_t, const Tensor&, const Tensor&, const Tensor&)> pool_scatter_stub(
    "_max_pool_scatter");

// ---- max pooling ---------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                   bool ceil_mode) {
  return max_pool_with_indices(self, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d");
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                   bool ceil_mode) {
  return max_pool_with_indices(self, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d");
}

Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(tl::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
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

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_pool(self, output_size, 2, "adaptive_max_pool2d");
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max_pool(self, output_size, 3, "adaptive_max_pool3d");
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
Tensor _max_pool_gather(const Tensor& self, const Tensor& indices) {
  check_gather_shapes(self.sizes(), indices.sizes(), indices, "_max_pool_gather");
  return self.flatten(-2).gather(-1, indices.flatten(-2)).view(indices.sizes());
}

Tensor _max_pool_scatter(const Tensor& grad_output, const Tensor& indices, IntArrayRef self_size) {
  check_gather_shapes(self_size, indices.sizes(), indices, "_max_pool_scatter");
  TL_CHECK(grad_output.sizes().equals(indices.sizes()), "_max_pool_scatter: grad_output ",
           grad_output.sizes(), " and indices ", indices.sizes(), " must have the same size");
  if (low_precision(grad_output.dtype()))
    return _max_pool_scatter(to_float(grad_output), indices, self_size).to(grad_output.dtype());
  Tensor gx = empty_tensor(self_size, grad_output.options());
  const int64_t d = static_cast<int64_t>(self_size.size()), in_len = self_size[d - 1] * self_size[d - 2];
  const int64_t out_len = indices.sizes()[d - 1] * indices.sizes()[d - 2];
  if (gx.numel() > 0) {
    if (out_len == 0) return gx.zero_();
    pool_scatter_stub(gx.device().type, gx.numel() / in_len, in_len, out_len, grad_output.contiguous(),
                      indices.contiguous(), gx);
  }
  return gx;
}

// ---- max unpooling -----------------------------------------------------------------------------

namespace {

Tensor max_unpool(const Tensor& self, const Tensor& indices, IntArrayRef output_size, int64_t nd, const char* op) {
  TL_CHECK(indices.dtype() == ScalarType::Long, "elements in indices should be type int64 but got: ",
           dtype_name(indices.dtype()));
  TL_CHECK(self.sizes().equals(indices.sizes()), "Expected shape of indices to be same as that of the input tensor (",
           self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  TL_CHECK(is_spatial_input(self, nd, false), "Input to ", op, " should be a ", nd + 1, "d or ", nd + 2,
           "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  TL_CHECK(static_cast<int64_t>(output_size.size()) == nd, "There should be exactly ", nd,
           " elements in output_size, but got ", output_size.size(), " elements.");
  for (int64_t i = 1; i < self.dim(); ++i)
    TL_CHECK(self.sizes()[i] > 0, op, "(): Expected input to have non-zero size for non-batch dimensions, but got ",
             self.sizes(), " with dimension ", i, " being empty.");
  int64_t plane = 1;
  for (int64_t v : output_size) {
    TL_CHECK(v >= 0, op, ": negative output_size ", output_size);
    plane = checked_mul(plane, v, op);
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - nd);
  std::vector<int64_t> flat_shape = shape;
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  flat_shape.push_back(plane);
  Tensor out = tl::zeros(flat_shape, self.dtype(), std::nullopt, self.device());
  if (self.numel() == 0) return out.view(shape);
  const Tensor flat_indices = indices.flatten(-nd);
  for (const Tensor& bad : {flat_indices.min(), flat_indices.max()}) {
    const int64_t i = bad.item().to_long();
    if (i < 0 || i >= plane) {
      std::ostringstream sizes;
      for (size_t d = 0; d < output_size.size(); ++d) sizes << (d ? "x" : "") << output_size[d];
      TL_ERROR("Found an invalid max index: ", i, " (output volumes are of size ", sizes.str(), ")");
    }
  }
  return out.scatter(-1, flat_indices, self.flatten(-nd)).view(shape);
}

}  // namespace

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return max_unpool(self, indices, output_size, 2, "max_unpooling2d");
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding) {
  TL_CHECK(stride.size() == 3 && padding.size() == 3, "max_unpool3d: stride and padding must have three elements");
  for (int64_t v : stride) TL_CHECK(v > 0, "strides should be greater than zero, but got stride: ", stride);
  for (int64_t v : padding) TL_CHECK(v >= 0, "padding should be non-negative, but got padding: ", padding);
  return max_unpool(self, indices, output_size, 3, "max_unpooling3d");
}

// ---- average pooling -----------------------------------------------------------------------------

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, "avg_pool2d");
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, "avg_pool3d");
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward(grad_output, self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override, "avg_pool2d");
}

Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return avg_pool_backward(grad_output, self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override, "avg_pool3d");
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

Tensor _adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_pool(self, output_size, 2, "adaptive_avg_pool2d");
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return tl::_adaptive_avg_pool3d(self, output_size);
}

Tensor _adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg_pool(self, output_size, 3, "adaptive_avg_pool3d");
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_pool_backward(grad_output, self, 2, "adaptive_avg_pool2d");
}

Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  return adaptive_avg_pool_backward(grad_output, self, 3, "adaptive_avg_pool3d");
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  check_1d_input(self, "adaptive_avg_pool1d");
  TL_CHECK(output_size.size() == 1, "adaptive_avg_pool1d: output_size must be a single int");
  return tl::adaptive_avg_pool2d(self.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
}

}  // namespace tl::native
