#pragma once
// Convolution geometry shared by the argument checks (Convolution.cpp) and the CPU loops
// (cpu/ConvolutionKernel.cpp). Note [Convolution as three bilinear maps]:
// with F(x, w) the forward (cross-correlation) convolution, the other two maps are its
// adjoints, Bx(gy, w) = dF/dx^T gy (= the transposed convolution) and Bw(x, gy) = dF/dw^T gy.
// Every gradient of every one of them is again one of the three, so convolution,
// convolution_backward_input (Bx) and convolution_backward_weight (Bw) are differentiable to
// any order (derivatives.yaml). 1-D convolutions run as 2-D ones with a height of 1.
#include <cstdint>

#include "aten/core/Tensor.h"

namespace tl::native {

struct ConvGeom {
  int64_t N = 0, C = 0, H = 0, W = 0;  // the x side: batch, channels, spatial size
  int64_t O = 0, OH = 0, OW = 0;       // the y side: channels, spatial size
  int64_t KH = 1, KW = 1;              // kernel
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t groups = 1;
};

// y (N, O, OH, OW) = F(x (N, C, H, W), w (O, C/groups, KH, KW)) + bias; all contiguous, y
// allocated by the caller; bias may be undefined.
void conv2d_forward_kernel(const ConvGeom& g, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y);
// gx (N, C, H, W) = Bx(gy (N, O, OH, OW), w) + bias (per C channel: the transposed
// convolution's bias; may be undefined); gx is overwritten.
void conv2d_backward_input_kernel(const ConvGeom& g, const Tensor& gy, const Tensor& w, const Tensor& bias,
                                  const Tensor& gx);
// gw (O, C/groups, KH, KW) = Bw(x, gy); gw is overwritten.
void conv2d_backward_weight_kernel(const ConvGeom& g, const Tensor& x, const Tensor& gy, const Tensor& gw);

}  // namespace tl::native
