#pragma once
// Convolution geometry shared by the argument checks (Convolution.cpp) and the CPU loops
// (cpu/ConvolutionKernel.cpp). Note [Convolution as three bilinear maps]:
// with F(x, w) the forward (cross-correlation) convolution, the other two maps are its
// adjoints, Bx(gy, w) = dF/dx^T gy (= the transposed convolution) and Bw(x, gy) = dF/dw^T gy.
// Every gradient of every one of them is again one of the three, so convolution,
// convolution_backward_input (Bx) and convolution_backward_weight (Bw) are differentiable to
// any order (derivatives.yaml). The loops are 3-d: 1-d and 2-d convolutions run with leading
// spatial sizes of 1.
#include <cstdint>
#include <vector>

#include "aten/core/Tensor.h"

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

// y (N, O, *out) = F(x (N, C, *in), w (O, C/groups, *k)) + bias; all contiguous, y allocated by
// the caller; bias may be undefined.
void conv_forward_kernel(const ConvGeom& g, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y);
// gx (N, C, *in) = Bx(gy (N, O, *out), w) + bias (per C channel: the transposed convolution's
// bias; may be undefined); gx is overwritten.
void conv_backward_input_kernel(const ConvGeom& g, const Tensor& gy, const Tensor& w, const Tensor& bias,
                                const Tensor& gx);
// gw (O, C/groups, *k) = Bw(x, gy); gw is overwritten.
void conv_backward_weight_kernel(const ConvGeom& g, const Tensor& x, const Tensor& gy, const Tensor& gw);

}  // namespace tl::native
