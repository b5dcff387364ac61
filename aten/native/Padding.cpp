// Padding: constant_pad_nd (N-d, negative pads crop), reflection / replication padding (1-d, 2-d
// and 3-d, with their backward operators; loops in cpu/PaddingKernel.cpp), circular padding (a
// composite of narrow + cat) and `pad`, the dispatcher behind F.pad.
#include "aten/native/Padding.h"

#include <algorithm>
#include <string>
#include <vector>

#include "aten/core/CheckedArith.h"
#include "aten/core/Tensor.h"
#include "aten/native/SpatialInput.h"
#include "generated/ops/_pad_circular.h"
#include "generated/ops/_pad_circular_native.h"
#include "generated/ops/cat.h"
#include "generated/ops/constant_pad_nd.h"
#include "generated/ops/constant_pad_nd_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/fill.h"
#include "generated/ops/narrow.h"
#include "generated/ops/pad.h"
#include "generated/ops/pad_native.h"
#include "generated/ops/reflection_pad1d.h"
#include "generated/ops/reflection_pad1d_backward_native.h"
#include "generated/ops/reflection_pad1d_native.h"
#include "generated/ops/reflection_pad2d.h"
#include "generated/ops/reflection_pad2d_backward_native.h"
#include "generated/ops/reflection_pad2d_native.h"
#include "generated/ops/reflection_pad3d.h"
#include "generated/ops/reflection_pad3d_backward_native.h"
#include "generated/ops/reflection_pad3d_native.h"
#include "generated/ops/replication_pad1d.h"
#include "generated/ops/replication_pad1d_backward_native.h"
#include "generated/ops/replication_pad1d_native.h"
#include "generated/ops/replication_pad2d.h"
#include "generated/ops/replication_pad2d_backward_native.h"
#include "generated/ops/replication_pad2d_native.h"
#include "generated/ops/replication_pad3d.h"
#include "generated/ops/replication_pad3d_backward_native.h"
#include "generated/ops/replication_pad3d_native.h"
#include "generated/ops/slice.h"
#include "generated/ops/to.h"

namespace tl::native {

std::vector<int64_t> pad_source_indices(PadMode mode, int64_t in, int64_t before, int64_t out) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t j = o - before;  // position in the input before folding back
    if (mode == PadMode::Replicate)
      idx[o] = std::clamp<int64_t>(j, 0, in - 1);
    else
      idx[o] = j < 0 ? -j : j >= in ? 2 * (in - 1) - j : j;
  }
  return idx;
}

namespace {

const char* mode_name(PadMode mode) { return mode == PadMode::Reflect ? "reflection" : "replication"; }

// Checks of reflection_pad{nd}d / replication_pad{nd}d (nd = 1, 2 or 3) and their geometry;
// padding is (left, right[, top, bottom[, front, back]]).
PlaneGather pad_geom(PadMode mode, int64_t nd, const Tensor& self, IntArrayRef padding) {
  TL_CHECK(static_cast<int64_t>(padding.size()) == 2 * nd, "padding size is expected to be ", 2 * nd, ", but got: ",
           padding.size());
  TL_CHECK(is_spatial_input(self, nd, true), "Expected ", nd + 1, "D or ", nd + 2,
           "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
           self.sizes());
  const int64_t dim = self.dim();
  // Per padded dimension i (0 = the last): input size, and its pads before and after.
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  for (int64_t i = 0; i < nd; ++i) {
    in[i] = self.sizes()[dim - 1 - i];
    out[i] = in[i] + padding[2 * i] + padding[2 * i + 1];
    // PyTorch numbers the arguments of its kernels: #4 = the width pads, #6 the height, #8 the depth.
    if (mode == PadMode::Reflect)
      TL_CHECK(padding[2 * i] < in[i] && padding[2 * i + 1] < in[i], "Argument #", 4 + 2 * i,
               ": Padding size should be less than the corresponding input dimension, but got: padding (",
               padding[2 * i], ", ", padding[2 * i + 1], ") at dimension ", dim - 1 - i, " of input ", self.sizes());
  }
  if (nd == 1) {
    TL_CHECK(out[0] >= 1, "input (W: ", in[0], ") is too small. Calculated output W: ", out[0]);
  } else if (nd == 2) {
    TL_CHECK(out[0] >= 1 && out[1] >= 1, "input (H: ", in[1], ", W: ", in[0], ") is too small. Calculated output H: ",
             out[1], " W: ", out[0]);
  } else {
    TL_CHECK(out[0] >= 1 && out[1] >= 1 && out[2] >= 1, "input (D: ", in[2], " H: ", in[1], " W: ", in[0],
             ") is too small. Calculated output D: ", out[2], " H: ", out[1], " W: ", out[0]);
  }
  PlaneGather g;
  g.W = in[0];
  g.H = in[1];
  g.D = in[2];
  g.OW = out[0];
  g.OH = out[1];
  g.OD = out[2];
  g.planes = self.numel() / (g.D * g.H * g.W);
  g.id = pad_source_indices(mode, g.D, nd == 3 ? padding[4] : 0, g.OD);
  g.ih = pad_source_indices(mode, g.H, nd >= 2 ? padding[2] : 0, g.OH);
  g.iw = pad_source_indices(mode, g.W, padding[0], g.OW);
  return g;
}

std::vector<int64_t> padded_shape(const Tensor& self, const PlaneGather& g, int64_t nd) {
  std::vector<int64_t> s = self.sizes().vec();
  const int64_t out[3] = {g.OW, g.OH, g.OD};
  for (int64_t i = 0; i < nd; ++i) s[s.size() - 1 - static_cast<size_t>(i)] = out[i];
  return s;
}

Tensor pad_forward(PadMode mode, int64_t nd, const Tensor& self, IntArrayRef padding) {
  const PlaneGather g = pad_geom(mode, nd, self, padding);
  TL_CHECK_KIND(ErrorKind::NotImplemented, self.dtype() != ScalarType::Bool, "\"", mode_name(mode), "_pad", nd,
                "d\" not implemented for 'Bool'");
  Tensor out = empty_tensor(padded_shape(self, g, nd), self.options());
  if (out.numel() > 0) plane_gather_stub(self.device().type, g, self.contiguous(), out);
  return out;
}

Tensor pad_backward(PadMode mode, int64_t nd, const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  const PlaneGather g = pad_geom(mode, nd, self, padding);
  const std::vector<int64_t> shape = padded_shape(self, g, nd);
  TL_CHECK(grad_output.sizes().equals(shape), mode_name(mode), "_pad", nd, "d_backward: grad_output of size ",
           grad_output.sizes(), " does not match the output size ", IntArrayRef(shape));
  if (low_precision(grad_output.dtype()))
    return pad_backward(mode, nd, grad_output.to(ScalarType::Float), self, padding).to(grad_output.dtype());
  Tensor gx = empty_tensor(self.sizes(), grad_output.options());
  if (gx.numel() > 0) plane_scatter_stub(gx.device().type, g, grad_output.contiguous(), gx);
  return gx;
}

}  // namespace

DispatchStub<void(const PlaneGather&, const Tensor&, const Tensor&)> plane_gather_stub("plane_gather");
DispatchStub<void(const PlaneGather&, const Tensor&, const Tensor&)> plane_scatter_stub("plane_scatter");

Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding) {
  return pad_forward(PadMode::Reflect, 1, self, padding);
}

Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding) {
  return pad_forward(PadMode::Reflect, 2, self, padding);
}

Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  return pad_forward(PadMode::Reflect, 3, self, padding);
}

Tensor replication_pad1d(const Tensor& self, IntArrayRef padding) {
  return pad_forward(PadMode::Replicate, 1, self, padding);
}

Tensor replication_pad2d(const Tensor& self, IntArrayRef padding) {
  return pad_forward(PadMode::Replicate, 2, self, padding);
}

Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) {
  return pad_forward(PadMode::Replicate, 3, self, padding);
}

Tensor reflection_pad1d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(PadMode::Reflect, 1, grad_output, self, padding);
}

Tensor reflection_pad2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(PadMode::Reflect, 2, grad_output, self, padding);
}

Tensor reflection_pad3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(PadMode::Reflect, 3, grad_output, self, padding);
}

Tensor replication_pad1d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(PadMode::Replicate, 1, grad_output, self, padding);
}

Tensor replication_pad2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(PadMode::Replicate, 2, grad_output, self, padding);
}

Tensor replication_pad3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(PadMode::Replicate, 3, grad_output, self, padding);
}

// ---- constant and circular padding -----------------------------------------------------------

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  TL_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  const int64_t dim = self.dim(), npad = static_cast<int64_t>(pad.size()) / 2;
  TL_CHECK(npad <= dim, "Length of pad should be no more than twice the number of dimensions of the input. Pad length is ",
           pad.size(), " while the input has ", dim, " dimensions.");
  // pad[2i], pad[2i+1] pad dimension dim-1-i. The kept input region goes to the output at the
  // positive pads' offsets; negative pads cut it.
  std::vector<int64_t> shape = self.sizes().vec();
  Tensor src = self;
  for (int64_t i = 0; i < npad; ++i) {
    const int64_t d = dim - 1 - i, before = pad[2 * i], after = pad[2 * i + 1];
    // The negative pads crop first (PyTorch narrows the input before padding it), so the kept
    // region must not be negative even where the positive pad would make up for it.
    shape[d] = checked_add(shape[d], checked_add(before, after, "constant_pad_nd"), "constant_pad_nd");
    const int64_t kept =
        checked_add(self.sizes()[d] + std::min<int64_t>(before, 0), std::min<int64_t>(after, 0), "constant_pad_nd");
    TL_CHECK(shape[d] >= 0 && kept >= 0, "The input size ", self.sizes()[d], ", plus negative padding ",
             before, " and ", after, " resulted in a negative output size, which is invalid. Check dimension ", d,
             " of your input.");
    src = src.slice(d, std::max<int64_t>(-before, 0), self.sizes()[d] - std::max<int64_t>(-after, 0));
  }
  Tensor out = empty_tensor(shape, self.options());
  if (out.numel() == 0) return out;
  out.fill_(value);
  Tensor dst = out;
  for (int64_t i = 0; i < npad; ++i) {
    const int64_t d = dim - 1 - i;
    const int64_t start = std::max<int64_t>(pad[2 * i], 0);
    dst = dst.slice(d, start, start + src.sizes()[d]);
  }
  if (src.numel() > 0) dst.copy_(src);
  return out;
}

Tensor _pad_circular(const Tensor& self, IntArrayRef pad) {
  const int64_t dim = self.dim(), npad = static_cast<int64_t>(pad.size()) / 2;
  TL_CHECK(pad.size() % 2 == 0 && (npad == dim - 1 || npad == dim - 2),
           "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to padding of ",
           "length ", 2 * (dim - 1), " or ", 2 * (dim - 2), " respectively but got ", pad.size());
  Tensor out = self;
  for (int64_t i = 0; i < npad; ++i) {
    const int64_t d = dim - 1 - i, before = pad[2 * i], after = pad[2 * i + 1], n = self.sizes()[d];
    const int64_t kept = n - std::max<int64_t>(-before, 0) - std::max<int64_t>(-after, 0);
    TL_CHECK(kept >= 0, "Negative padding value is resulting in an empty dimension");
    TL_CHECK(before <= kept && after <= kept, "Padding value causes wrapping around more than once.");
    Tensor center = out.narrow(d, std::max<int64_t>(-before, 0), kept);
    std::vector<Tensor> parts;
    // The front pad repeats the end of what is kept, the back pad its start.
    if (before > 0) parts.push_back(center.narrow(d, kept - before, before));
    parts.push_back(center);
    if (after > 0) parts.push_back(center.narrow(d, 0, after));
    out = parts.size() == 1 ? center : tl::cat(parts, d);
  }
  return out;
}

Tensor pad(const Tensor& self, IntArrayRef pad, const std::string& mode, std::optional<double> value) {
  const bool known = mode == "constant" || mode == "reflect" || mode == "replicate" || mode == "circular";
  TL_CHECK_KIND(ErrorKind::NotImplemented, known, "Unrecognised padding mode ", mode);
  TL_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  const int64_t dim = self.dim(), npad = static_cast<int64_t>(pad.size()) / 2;
  TL_CHECK(npad <= dim, "Padding length should be less than or equal to two times the input dimension but got ",
           "padding length ", pad.size(), " and input of dimension ", dim);
  if (mode == "constant") return tl::constant_pad_nd(self, pad, value.value_or(0.0));
  TL_CHECK(!value || *value == 0, "Padding mode \"", mode, "\" doesn't take in value argument");
  // Reflect / replicate / circular pad the last 1, 2 or 3 dimensions of an (un)batched input.
  TL_CHECK_KIND(ErrorKind::NotImplemented, npad >= 1 && npad <= 3 && (dim == npad + 1 || dim == npad + 2),
                "Padding size ", pad.size(), " is not supported for ", dim, "D input tensor.");
  if (mode == "circular") return tl::_pad_circular(self, pad);
  if (mode == "reflect")
    return npad == 1 ? tl::reflection_pad1d(self, pad)
           : npad == 2 ? tl::reflection_pad2d(self, pad)
                       : tl::reflection_pad3d(self, pad);
  return npad == 1 ? tl::replication_pad1d(self, pad)
         : npad == 2 ? tl::replication_pad2d(self, pad)
                     : tl::replication_pad3d(self, pad);
}

}  // namespace tl::native
