#pragma once
// Reflection and replication padding (argument checks in Padding.cpp, loops in
// cpu/PaddingKernel.cpp and cuda/PaddingKernel.cu) and nearest upsampling (Upsample.cpp) are plane gathers: the input is
// `planes` contiguous D x H x W volumes (batch and channels flattened; 1-d and 2-d ops run with
// D = H = 1 or D = 1), the output OD x OH x OW volumes, and output slice od reads input slice
// id[od], output row oh input row ih[oh] (likewise for columns). A padding mode or a nearest
// scale is just a map from output to input indices, made once per axis.
#include <cstdint>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

enum class PadMode { Reflect, Replicate };

// The input index each output index of one axis reads: `before` elements are added in front
// (negative: cropped), the output has `out` elements, the input `in`.
std::vector<int64_t> pad_source_indices(PadMode mode, int64_t in, int64_t before, int64_t out);

struct PlaneGather {
  int64_t planes = 0, D = 1, H = 1, W = 1, OD = 1, OH = 1, OW = 1;
  std::vector<int64_t> id{0}, ih, iw;  // source slice / row / column of each output one
};

// Per-device loops (Note [Stubs]): x, gy contiguous; out, gx fresh contiguous tensors.
// out[p, od, oh, ow] = x[p, id[od], ih[oh], iw[ow]]; any dtype (values are moved, not combined).
extern DispatchStub<void(const PlaneGather& g, const Tensor& x, const Tensor& out)> plane_gather_stub;
// The adjoint: gx (zeroed here) [p, id[od], ih[oh], iw[ow]] += gy[p, od, oh, ow]; float and double.
extern DispatchStub<void(const PlaneGather& g, const Tensor& gy, const Tensor& gx)> plane_scatter_stub;

}  // namespace tl::native
