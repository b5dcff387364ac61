#pragma once
// Winograd F(4x4, 3x3) convolution for 2-d 3x3 kernels with stride and dilation 1 (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks"). Note [Winograd convolution]:
// the output is cut into 4x4 tiles; each reads a 6x6 input patch d. With the fixed matrices
// B (6x6), G (6x3) and A (6x4),
//   y_tile = A^T [ sum_c (G w_oc G^T) .* (B^T d_c B) ] A,
// so the 36 entries xi of the 6x6 transformed domain each need one GEMM
//   M_xi (O x tiles) = U_xi (O x C) @ V_xi (C x tiles),
// 36 * C * O multiply-adds per 16 outputs instead of 9 * 16 * C * O: 4x fewer, paid for by the
// transforms (linear in C + O per tile) and the weight transform (C * O * 36 values).
// The transforms' constants (1/6, 1/24, 8...) cost float32 a few ulps more than the direct sum.
#include <cstdint>

#include "aten/native/Convolution.h"

namespace tl::native {

// Whether the forward map of g, and its weight gradient, run as Winograd: 2-d 3x3, stride and
// dilation 1, one group, padding at most 2 and enough channels and tiles to amortise the
// transforms: at least 16 channels on both sides and 32 output tiles in the batch. With fewer
// tiles the 36 GEMMs, each with a column per tile, are bound by reading the transformed weight,
// 4x the weight's size: at 8 tiles of 512 channels Winograd measured twice the time of im2col +
// GEMM; at 32 tiles, 0.7x (forward) and 1x (weight gradient), and 0.3-0.6x at 16-128 channels.
bool winograd_suits(const ConvGeom& g);

// y (N, O, *out) = F(x (N, C, *in), w) + bias (may be null) for a geometry winograd_suits
// accepts. The weight is read as w[o * ws[0] + c * ws[1] + kh * ws[2] + kw * ws[3]] (strides may
// be negative), so that the input gradient can pass the transposed, flipped weight.
template <typename T>
void winograd_conv3x3(const ConvGeom& g, const T* x, const T* w, const int64_t ws[4], const T* bias, T* y);

// gw (O, C, 3, 3) = Bw(x, gy) for the same geometries, overwritten: the adjoint of the forward
// map in w, y_tile = A^T [U .* V] A with U = G w G^T, gives dL/dU = (A gy_tile A^T) .* V summed
// over the tiles (36 GEMMs over the tiles), then dL/dw = G^T (dL/dU) G.
template <typename T>
void winograd_conv3x3_backward_weight(const ConvGeom& g, const T* x, const T* gy, T* gw);

}  // namespace tl::native
