#pragma once
// Pooling geometry shared by the argument checks (Pooling.cpp) and the CPU loops
// (cpu/PoolingKernel.cpp). Every kernel sees its input as `planes` contiguous H x W planes
// (batch and channels flattened; 1-d pooling runs with H = 1) and writes OH x OW planes.
// Max pooling records, per output, the flat index (h * W + w) of the chosen input element
// in its plane, as PyTorch does; _max_pool_gather/_max_pool_scatter move values along
// those indices (the gradient of max pooling and its double backward).
#include <cstdint>
#include <optional>

#include "aten/core/Tensor.h"

namespace tl::native {

struct PoolGeom {
  int64_t planes = 0, H = 1, W = 1, OH = 1, OW = 1;
  int64_t KH = 1, KW = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

void max_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices);
void avg_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, bool count_include_pad,
                       std::optional<int64_t> divisor_override);
// gx (zeroed here) = the adjoint of avg_pool2d applied to gy.
void avg_pool2d_backward_kernel(const PoolGeom& g, const Tensor& gy, const Tensor& gx, bool count_include_pad,
                                std::optional<int64_t> divisor_override);
// Adaptive pooling: output cell o covers input [floor(o*H/OH), ceil((o+1)*H/OH)); indices may
// be undefined for the average.
void adaptive_avg_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out);
void adaptive_avg_pool2d_backward_kernel(const PoolGeom& g, const Tensor& gy, const Tensor& gx);
void adaptive_max_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices);
// gx (planes x in_len, zeroed here) += gy (planes x out_len) at indices.
void pool_scatter_kernel(int64_t planes, int64_t in_len, int64_t out_len, const Tensor& gy, const Tensor& indices,
                         const Tensor& gx);

}  // namespace tl::native
