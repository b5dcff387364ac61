#pragma once
// Convolution geometry shared by the argument checks (Convolution.cpp) and the loops
// (cpu/ConvolutionKernel.cpp, cuda/ConvolutionKernel.cu). Note [Convolution as three bilinear maps]:
// with F(x, w) the forward (cross-correlation) convolution, the other two maps are its
// adjoints, Bx(gy, w) = dF/dx^T gy (= the transposed convolution) and Bw(x, gy) = dF/dw^T gy.
// Every gradient of every one of them is again one of the three, so convolution,
// convolution_backward_input (Bx) and convolution_backward_weight (Bw) are differentiable to
// any order (derivatives.yaml). The loops are 3-d: 1-d and 2-d convolutions run with leading
// spatial sizes of 1.
#include <cstdint>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

// Spatial arrays are indexed (depth, height, width).
struct ConvGeom {
  int64_t N = 0, C = 0, O = 0;  // batch; channels of the x side and of the y side
  int64_t in[3] = {1, 1, 1};    // x side spatial size
  int64_t out[3] = {1, 1, 1};   // y side spatial size
  int64_t k[3] = {1, 1, 1};     // kernel
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  int64_t groups = 1;

  int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  int64_t out_numel() const { return out[0] * out[1] * out[2]; }
  int64_t k_numel() const { return k[0] * k[1] * k[2]; }
};

// The CPU loops' scratch buffers (thread_local vectors reused across calls): at least n elements.
template <typename T>
T* scratch(std::vector<T>& buf, int64_t n) {
  if (buf.size() < static_cast<size_t>(n)) buf.resize(static_cast<size_t>(n));
  return buf.data();
}

// Per-device loops (Note [Stubs]): the checks, shapes and the low-precision round trip through
// float are Convolution.cpp's, for every device; a loop sees contiguous float or double tensors.
// y (N, O, *out) = F(x (N, C, *in), w (O, C/groups, *k)) + bias; y allocated by the caller;
// bias may be undefined.
extern DispatchStub<void(const ConvGeom& g, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y)>
    conv_forward_stub;
// gx (N, C, *in) = Bx(gy (N, O, *out), w) + bias (per C channel: the transposed convolution's
// bias; may be undefined); gx is overwritten.
extern DispatchStub<void(const ConvGeom& g, const Tensor& gy, const Tensor& w, const Tensor& bias, const Tensor& gx)>
    conv_backward_input_stub;
// gw (O, C/groups, *k) = Bw(x, gy); gw is overwritten.
extern DispatchStub<void(const ConvGeom& g, const Tensor& x, const Tensor& gy, const Tensor& gw)>
    conv_backward_weight_stub;

// Each device registers the three: its kernels are named conv_forward_<suffix>,
// conv_backward_input_<suffix> and conv_backward_weight_<suffix>.
#define TL_REGISTER_CONVOLUTION_STUBS(DEVICE, suffix)                                 \
  TL_REGISTER_STUB(conv_forward_stub, DEVICE, &conv_forward_##suffix);                \
  TL_REGISTER_STUB(conv_backward_input_stub, DEVICE, &conv_backward_input_##suffix); \
  TL_REGISTER_STUB(conv_backward_weight_stub, DEVICE, &conv_backward_weight_##suffix)

}  // namespace tl::native
