// Convolution: argument checks and geometry for convolution (forward and transposed) and its
// two backward operators (Note [Convolution as three bilinear maps] in Convolution.h), for every
// device, plus the conv1d/2d/3d, conv_transpose1d/2d/3d and conv_tbc composites. Loops (the
// stubs): cpu/ConvolutionKernel.cpp, cuda/ConvolutionKernel.cu.
#include "aten/native/Convolution.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "aten/core/CheckedArith.h"
#include "aten/core/Tensor.h"
#include "aten/native/SpatialInput.h"
#include "generated/ops/add.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/conv1d.h"
#include "generated/ops/conv1d_native.h"
#include "generated/ops/conv2d.h"
#include "generated/ops/conv2d_native.h"
#include "generated/ops/conv3d.h"
#include "generated/ops/conv3d_native.h"
#include "generated/ops/conv_tbc_native.h"
#include "generated/ops/conv_transpose1d.h"
#include "generated/ops/conv_transpose1d_native.h"
#include "generated/ops/conv_transpose2d.h"
#include "generated/ops/conv_transpose2d_native.h"
#include "generated/ops/conv_transpose3d.h"
#include "generated/ops/conv_transpose3d_native.h"
#include "generated/ops/convolution.h"
#include "generated/ops/convolution_backward_input_native.h"
#include "generated/ops/convolution_backward_weight_native.h"
#include "generated/ops/convolution_native.h"
#include "generated/ops/matmul.h"
#include "generated/ops/pad.h"
#include "generated/ops/pad_native.h"
#include "generated/ops/permute.h"
#include "generated/ops/select.h"
#include "generated/ops/slice.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/zeros.h"
#include "generated/ops/zeros_native.h"

namespace tl::native {

namespace {

IntArrayRef spatial(IntArrayRef s) { return IntArrayRef(s.data() + 2, s.size() - 2); }

// A per-dimension parameter given as one value or one per spatial dimension.
std::vector<int64_t> expand_param(IntArrayRef p, int64_t nd, const char* name) {
  TL_CHECK(static_cast<int64_t>(p.size()) == nd || p.size() == 1, "expected ", name,
           " to be a single integer value or a list of ", nd, " values to match the convolution dimensions, but got ",
           name, "=", p);
  return p.size() == 1 ? std::vector<int64_t>(static_cast<size_t>(nd), p[0]) : p.vec();
}

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation, output_padding;
};

ConvParams check_params(int64_t nd, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                        IntArrayRef output_padding, int64_t groups) {
  TL_CHECK(nd >= 1 && nd <= 3, "convolution: only 1-d, 2-d and 3-d convolutions are supported, got ", nd,
           " spatial dimensions");
  ConvParams p{expand_param(stride, nd, "stride"), expand_param(padding, nd, "padding"),
               expand_param(dilation, nd, "dilation"), expand_param(output_padding, nd, "output_padding")};
  for (int64_t v : p.stride) TL_CHECK(v > 0, "non-positive stride is not supported");
  for (int64_t v : p.padding) TL_CHECK(v >= 0, "negative padding is not supported");
  for (int64_t v : p.dilation) TL_CHECK(v > 0, "non-positive dilation is not supported");
  for (int64_t v : p.output_padding) TL_CHECK(v >= 0, "negative output_padding is not supported");
  TL_CHECK(groups > 0, "non-positive groups is not supported");
  return p;
}

// PyTorch names the C types in these messages.
const char* c_type_name(ScalarType t) {
  return t == ScalarType::Float ? "float" : t == ScalarType::Double ? "double" : dtype_name(t);
}

void check_same_dtype(const Tensor& a, const char* what_a, const Tensor& b, const char* what_b) {
  TL_CHECK(a.dtype() == b.dtype(), what_a, " type (", c_type_name(a.dtype()), ") and ", what_b, " type (",
           c_type_name(b.dtype()), ") should be the same");
}

void check_dtype(const Tensor& t) {
  TL_CHECK(t.dtype() != ScalarType::Bool, "\"convolution\" not implemented for 'Bool'");
}

// Fills the geometry, right-aligning the nd spatial dimensions into the loops' three (the
// leading ones keep a size of 1); `xs`/`ys` are the spatial sizes of the x and y sides, `ks` the
// kernel.
ConvGeom make_geom(int64_t N, int64_t C, IntArrayRef xs, int64_t O, IntArrayRef ys, IntArrayRef ks,
                   const ConvParams& p, int64_t groups) {
  ConvGeom g;
  g.N = N;
  g.C = C;
  g.O = O;
  g.groups = groups;
  const size_t nd = xs.size(), lead = 3 - nd;
  for (size_t d = 0; d < nd; ++d) {
    g.in[lead + d] = xs[d];
    g.out[lead + d] = ys[d];
    g.k[lead + d] = ks[d];
    g.stride[lead + d] = p.stride[d];
    g.pad[lead + d] = p.padding[d];
    g.dil[lead + d] = p.dilation[d];
  }
  return g;
}

// Every coordinate the loops compute (o*stride - padding + k*dilation for o < y, k < kernel,
// and x + 2*padding) must fit in int64; `xs` is the input side, `ys` the output side.
// The geometry arithmetic, raising instead of wrapping (aten/core/CheckedArith.h).
int64_t checked_add_conv(int64_t a, int64_t b) { return checked_add(a, b, "convolution"); }
int64_t checked_sub_conv(int64_t a, int64_t b) { return checked_sub(a, b, "convolution"); }
int64_t checked_mul_conv(int64_t a, int64_t b) { return checked_mul(a, b, "convolution"); }

void check_geometry_fits(IntArrayRef xs, IntArrayRef ks, IntArrayRef ys, const ConvParams& p) {
  for (size_t d = 0; d < xs.size(); ++d) {
    const int64_t span = checked_add_conv(checked_mul_conv(p.dilation[d], std::max<int64_t>(ks[d] - 1, 0)), 1);
    checked_add_conv(xs[d], checked_mul_conv(2, p.padding[d]));
    checked_add_conv(checked_mul_conv(std::max<int64_t>(ys[d] - 1, 0), p.stride[d]), span);
  }
}

Tensor to_float(const Tensor& t) { return t.defined() ? t.to(ScalarType::Float) : t; }

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias_opt,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                       IntArrayRef output_padding, int64_t groups) {
  const Tensor bias = bias_opt.has_value() ? *bias_opt : Tensor();
  TL_CHECK(weight.dim() >= 3, "weight should have at least three dimensions");
  TL_CHECK(input.dim() == weight.dim(), "Expected ", weight.dim(), "-dimensional input for ", weight.dim(),
           "-dimensional weight ", weight.sizes(), ", but got ", input.dim(), "-dimensional input of size ",
           input.sizes(), " instead");
  const int64_t nd = input.dim() - 2;
  const ConvParams p = check_params(nd, stride, padding, dilation, output_padding, groups);
  check_same_dtype(input, "Input", weight, "weight");
  check_dtype(input);
  const IntArrayRef ws = weight.sizes();
  const int64_t N = input.sizes()[0], Cin = input.sizes()[1];
  int64_t Cout;
  if (!transposed) {
    TL_CHECK(ws[0] % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
             " at dimension 0, but got weight of size [", ws, "] instead");
    TL_CHECK(Cin == ws[1] * groups, "Given groups=", groups, ", weight of size ", ws, ", expected input",
             input.sizes(), " to have ", ws[1] * groups, " channels, but got ", Cin, " channels instead");
    Cout = ws[0];
  } else {
    TL_CHECK(Cin == ws[0], "Given transposed=1, weight of size ", ws, ", expected input",
             input.sizes(), " to have ", ws[0], " channels, but got ", Cin, " channels instead");
    TL_CHECK(ws[0] % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
             " at dimension 0, but got weight of size [", ws, "] instead");
    Cout = ws[1] * groups;
  }
  if (bias.defined()) {
    TL_CHECK(bias.dim() == 1 && bias.sizes()[0] == Cout, "Given weight of size ", ws,
             ", expected bias to be 1-dimensional with ", Cout, " elements, but got bias of size ",
             bias.sizes(), " instead");
    check_same_dtype(input, "Input", bias, "bias");
  }
  const IntArrayRef in_sp = spatial(input.sizes()), k_sp = spatial(ws);
  std::vector<int64_t> out_sp(static_cast<size_t>(nd));
  if (!transposed) {
    bool fits = true;
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t span = checked_add_conv(checked_mul_conv(p.dilation[d], k_sp[d] - 1), 1);
      const int64_t padded = checked_add_conv(in_sp[d], checked_mul_conv(2, p.padding[d]));
      fits = fits && padded >= span;
      out_sp[d] = fits ? (padded - span) / p.stride[d] + 1 : 0;
    }
    if (!fits) {
      std::ostringstream a, b;
      for (int64_t d = 0; d < nd; ++d) {
        a << (d ? " x " : "") << in_sp[d] + 2 * p.padding[d];
        b << (d ? " x " : "") << p.dilation[d] * (k_sp[d] - 1) + 1;
      }
      TL_ERROR("Calculated padded input size per channel: (", a.str(), "). Kernel size: (", b.str(),
               "). Kernel size can't be greater than actual input size");
    }
  } else {
    for (int64_t d = 0; d < nd; ++d) {
      if (p.output_padding[d] >= p.stride[d] && p.output_padding[d] >= p.dilation[d]) {
        const char* names[3][3] = {{"output_padding_width", "stride_width", "dilation_width"},
                                   {"output_padding_height", "stride_height", "dilation_height"},
                                   {"output_padding_depth", "stride_depth", "dilation_depth"}};
        std::ostringstream os;
        for (int64_t e = 0; e < nd; ++e) os << names[nd - 1 - e][0] << ": " << p.output_padding[e] << " ";
        for (int64_t e = 0; e < nd; ++e) os << names[nd - 1 - e][1] << ": " << p.stride[e] << " ";
        for (int64_t e = 0; e < nd; ++e) os << names[nd - 1 - e][2] << ": " << p.dilation[e] << (e + 1 < nd ? " " : "");
        TL_ERROR("output padding must be smaller than either stride or dilation, but got ", os.str());
      }
      const int64_t strided = checked_sub_conv(checked_mul_conv(in_sp[d] - 1, p.stride[d]), checked_mul_conv(2, p.padding[d]));
      out_sp[d] = checked_add_conv(checked_add_conv(strided, checked_mul_conv(p.dilation[d], k_sp[d] - 1)),
                                   checked_add_conv(p.output_padding[d], 1));
      TL_CHECK(out_sp[d] > 0, "Given input size per channel: ", in_sp,
               ". Calculated output size per channel: ", IntArrayRef(out_sp), ". Output size is too small");
    }
  }
  if (low_precision(input.dtype()))
    return native::convolution(to_float(input), to_float(weight),
                               bias.defined() ? std::optional<Tensor>(to_float(bias)) : std::nullopt, stride, padding,
                               dilation, transposed, output_padding, groups)
        .to(input.dtype());
  if (transposed) {
    check_geometry_fits(out_sp, k_sp, in_sp, p);
  } else {
    check_geometry_fits(in_sp, k_sp, out_sp, p);
  }
  std::vector<int64_t> out_shape{N, Cout};
  out_shape.insert(out_shape.end(), out_sp.begin(), out_sp.end());
  Tensor out = empty_tensor(out_shape, input.options());
  const Tensor x = input.contiguous(), w = weight.contiguous(), b = bias.defined() ? bias.contiguous() : bias;
  if (!transposed) {
    conv_forward_stub(input.device().type, make_geom(N, Cin, in_sp, Cout, out_sp, k_sp, p, groups), x, w, b, out);
  } else {  // the x side of the geometry is this op's output
    conv_backward_input_stub(input.device().type, make_geom(N, Cout, out_sp, Cin, in_sp, k_sp, p, groups), x, w, b,
                             out);
  }
  return out;
}

namespace {

// The checks convolution_backward_input and convolution_backward_weight share. Each takes
// grad_output, one tensor `t` (the weight, or the input) and the size of its result (the
// input's, or the weight's); x and w are the input's and the weight's sizes among these.
ConvParams check_backward_args(const char* op, const Tensor& grad_output, const Tensor& t, const char* t_name,
                               IntArrayRef size, const char* size_name, IntArrayRef x, IntArrayRef w,
                               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  TL_CHECK(t.dim() >= 3 && grad_output.dim() == t.dim() && static_cast<int64_t>(size.size()) == t.dim(), op,
           ": expected grad_output ", grad_output.sizes(), ", ", t_name, " ", t.sizes(), " and ", size_name, " ", size,
           " to have the same number (at least 3) of dimensions");
  const ConvParams p = check_params(t.dim() - 2, stride, padding, dilation, IntArrayRef({0}), groups);
  check_same_dtype(grad_output, "grad_output", t, t_name);
  check_dtype(t);
  const IntArrayRef g = grad_output.sizes();
  TL_CHECK(w[0] % groups == 0 && g[1] == w[0] && x[1] == w[1] * groups && g[0] == x[0], op, ": grad_output ", g,
           ", ", t_name, " ", t.sizes(), " and ", size_name, " ", size, " do not match for groups=", groups);
  for (int64_t v : size) TL_CHECK(v >= 0, op, ": negative ", size_name, " ", size);
  return p;
}

}  // namespace

Tensor convolution_backward_input(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_size,
                                  IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const IntArrayRef ws = weight.sizes(), gs = grad_output.sizes();
  const ConvParams p = check_backward_args("convolution_backward_input", grad_output, weight, "weight", input_size,
                                           "input_size", input_size, ws, stride, padding, dilation, groups);
  if (low_precision(weight.dtype()))
    return native::convolution_backward_input(to_float(grad_output), to_float(weight), input_size, stride, padding,
                                              dilation, groups)
        .to(weight.dtype());
  check_geometry_fits(spatial(input_size), spatial(ws), spatial(gs), p);
  Tensor gx = empty_tensor(input_size, weight.options());
  conv_backward_input_stub(
      weight.device().type,
      make_geom(input_size[0], input_size[1], spatial(input_size), ws[0], spatial(gs), spatial(ws), p, groups),
      grad_output.contiguous(), weight.contiguous(), Tensor(), gx);
  return gx;
}

Tensor convolution_backward_weight(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_size,
                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const IntArrayRef is = input.sizes(), gs = grad_output.sizes();
  const ConvParams p = check_backward_args("convolution_backward_weight", grad_output, input, "input", weight_size,
                                           "weight_size", is, weight_size, stride, padding, dilation, groups);
  if (low_precision(input.dtype()))
    return native::convolution_backward_weight(to_float(grad_output), to_float(input), weight_size, stride, padding,
                                               dilation, groups)
        .to(input.dtype());
  check_geometry_fits(spatial(is), spatial(weight_size), spatial(gs), p);
  Tensor gw = empty_tensor(weight_size, input.options());
  conv_backward_weight_stub(
      input.device().type,
      make_geom(is[0], is[1], spatial(is), weight_size[0], spatial(gs), spatial(weight_size), p, groups),
      input.contiguous(), grad_output.contiguous(), gw);
  return gw;
}

DispatchStub<void(const ConvGeom&, const Tensor&, const Tensor&, const Tensor&, const Tensor&)> conv_forward_stub(
    "convolution");
DispatchStub<void(const ConvGeom&, const Tensor&, const Tensor&, const Tensor&, const Tensor&)>
    conv_backward_input_stub("convolution_backward_input");
DispatchStub<void(const ConvGeom&, const Tensor&, const Tensor&, const Tensor&)> conv_backward_weight_stub(
    "convolution_backward_weight");

// ---- composites ------------------------------------------------------------------------------

namespace {

void check_weight_dim(const char* name, int64_t nd, const Tensor& weight) {
  TL_CHECK(weight.dim() == nd + 2, name, ": expected weight to be ", nd + 2, "-dimensional, but got weight of size ",
           weight.sizes());
}

// Unbatched inputs (C, *spatial) get a batch dimension of 1 for the call and lose it after.
Tensor conv_nd(const char* name, int64_t nd, const Tensor& input, const Tensor& weight,
               const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
               bool transposed, IntArrayRef output_padding, int64_t groups) {
  TL_CHECK(is_spatial_input(input, nd, false), "Expected ", nd + 1, "D (unbatched) or ", nd + 2,
           "D (batched) input to ", name, ", but got input of size: ", input.sizes());
  check_weight_dim(name, nd, weight);
  const bool batched = input.dim() == nd + 2;
  Tensor y = tl::convolution(batched ? input : input.unsqueeze(0), weight, bias, stride, padding, dilation,
                             transposed, output_padding, groups);
  return batched ? y : y.squeeze(0);
}

// padding="same" / "valid" for stride-1 convolutions. An odd total padding d*(k-1) along a
// dimension is split as PyTorch does (the extra element at the end): pad one more on both sides
// and drop the first output position.
Tensor conv_padding_str(const char* name, int64_t nd, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride, const std::string& padding,
                        IntArrayRef dilation, int64_t groups) {
  std::vector<int64_t> zeros(static_cast<size_t>(nd), 0);
  if (padding == "valid") return conv_nd(name, nd, input, weight, bias, stride, zeros, dilation, false, zeros, groups);
  TL_CHECK(padding == "same", "Invalid padding string: '", padding, "'");
  for (int64_t s : stride) TL_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
  check_weight_dim(name, nd, weight);
  const std::vector<int64_t> dil = expand_param(dilation, nd, "dilation");
  std::vector<int64_t> pad(static_cast<size_t>(nd));
  std::vector<bool> odd(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t total = dil[d] * (weight.sizes()[d + 2] - 1);
    odd[d] = total % 2 != 0;
    pad[d] = (total + 1) / 2;
  }
  Tensor y = conv_nd(name, nd, input, weight, bias, stride, pad, dilation, false, zeros, groups);
  for (int64_t d = 0; d < nd; ++d)
    if (odd[d]) y = y.slice(y.dim() - nd + d, 1, std::nullopt, 1);
  return y;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, false, IntArrayRef({0}), groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, false, IntArrayRef({0, 0}), groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, false, IntArrayRef({0, 0, 0}), groups);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_str("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_str("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups) {
  return conv_padding_str("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

// conv1d on the (B, C_in, T) view of the input; a negative pad crops the time dimension instead.
Tensor conv_tbc(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad) {
  TL_CHECK(self.dim() == 3, "Input must have 3 dims: time, batch, in_channel");
  TL_CHECK(weight.dim() == 3, "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.");
  TL_CHECK(bias.dim() == 1, "Bias must be 1-D");
  TL_CHECK(self.sizes()[2] == weight.sizes()[1], "Input dim 2 (input channels) is not == dim 1 in the weight tensor");
  TL_CHECK(bias.sizes()[0] == weight.sizes()[2], "Bias size must equal dim 2 in the weight tensor (output channels).");
  const int64_t T = self.sizes()[0], B = self.sizes()[1], K = weight.sizes()[0], C_out = weight.sizes()[2];
  const int64_t out_len = T + 2 * pad - K + 1;
  TL_CHECK(out_len >= 0, "Trying to create tensor with negative dimension ", out_len, ": [", out_len, ", ", B, ", ",
           C_out, "]");
  // conv1d refuses an empty output; this empty product still reaches every input's gradient.
  if (out_len == 0) return self.slice(0, 0, 0, 1).matmul(weight.select(0, 0)).add(bias);
  Tensor x = pad < 0 ? self.slice(0, -pad, T + pad, 1) : self;
  Tensor out = tl::conv1d(x.permute({1, 2, 0}), weight.permute({2, 1, 0}), bias, IntArrayRef({1}),
                          IntArrayRef({std::max<int64_t>(pad, 0)}), IntArrayRef({1}), 1);
  return out.permute({2, 0, 1});
}

}  // namespace tl::native
