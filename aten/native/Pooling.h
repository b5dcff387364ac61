#pragma once
// Pooling geometry shared by the argument checks (Pooling.cpp) and the CPU loops
// (cpu/PoolingKernel.cpp, cuda/PoolingKernel.cu). Every kernel sees its input as `planes` contiguous D x H x W volumes
// (batch and channels flattened; 1-d and 2-d pooling run with leading sizes of 1) and writes
// OD x OH x OW volumes. Max pooling records, per output, the flat index ((d * H + h) * W + w)
// of the chosen input element in its volume, as PyTorch does; _max_pool_gather/
// _max_pool_scatter move values along those indices (the gradient of max pooling and its
// double backward).
#include <cstdint>
#include <optional>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

// Spatial arrays are indexed (depth, height, width).
struct PoolGeom {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};

  int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  int64_t out_numel() const { return out[0] * out[1] * out[2]; }
  int64_t k_numel() const { return k[0] * k[1] * k[2]; }
};

// Per-device loops (Note [Stubs]): inputs contiguous, outputs fresh contiguous tensors.
extern DispatchStub<void(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices)> max_pool_stub;
extern DispatchStub<void(const PoolGeom& g, const Tensor& x, const Tensor& out, bool count_include_pad,
                         std::optional<int64_t> divisor_override)>
    avg_pool_stub;
// gx (zeroed here) = the adjoint of avg pooling applied to gy.
extern DispatchStub<void(const PoolGeom& g, const Tensor& gy, const Tensor& gx, bool count_include_pad,
                         std::optional<int64_t> divisor_override)>
    avg_pool_backward_stub;
// Adaptive pooling: output cell o covers input [floor(o*H/OH), ceil((o+1)*H/OH)) along each
// dimension.
extern DispatchStub<void(const PoolGeom& g, const Tensor& x, const Tensor& out)> adaptive_avg_pool_stub;
extern DispatchStub<void(const PoolGeom& g, const Tensor& gy, const Tensor& gx)> adaptive_avg_pool_backward_stub;
extern DispatchStub<void(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices)>
    adaptive_max_pool_stub;
// gx (planes x in_len, zeroed here) += gy (planes x out_len) at indices (checked here).
extern DispatchStub<void(int64_t planes, int64_t in_len, int64_t out_len, const Tensor& gy, const Tensor& indices,
                         const Tensor& gx)>
    pool_scatter_stub;

// Each device registers all of the stubs above: `DEVICE` is CPU or CUDA, its kernels are named
// <stub name less _stub>_<suffix> (max_pool_kernel on the CPU, max_pool_cuda on CUDA).
#define TL_REGISTER_POOLING_STUBS(DEVICE, suffix)                                          \
  TL_REGISTER_STUB(max_pool_stub, DEVICE, &max_pool_##suffix);                             \
  TL_REGISTER_STUB(avg_pool_stub, DEVICE, &avg_pool_##suffix);                             \
  TL_REGISTER_STUB(avg_pool_backward_stub, DEVICE, &avg_pool_backward_##suffix);           \
  TL_REGISTER_STUB(adaptive_avg_pool_stub, DEVICE, &adaptive_avg_pool_##suffix);           \
  TL_REGISTER_STUB(adaptive_avg_pool_backward_stub, DEVICE, &adaptive_avg_pool_backward_##suffix); \
  TL_REGISTER_STUB(adaptive_max_pool_stub, DEVICE, &adaptive_max_pool_##suffix);           \
  TL_REGISTER_STUB(pool_scatter_stub, DEVICE, &pool_scatter_##suffix)

}  // namespace tl::native
