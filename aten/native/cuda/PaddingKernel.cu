// CUDA loops of the plane gathers (Padding.h): reflection / replication padding and nearest
// upsampling, forward and backward. A thread per output element; the per-axis source index
// tables are copied to the device. The backward adds with atomics (several outputs can read
// one input), so float sums may differ in the last bits between runs.
#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/Padding.h"
#include "aten/native/cuda/GridStride.cuh"
#include "generated/ops/to.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {

using grid_stride::grid_for;
using grid_stride::kThreads;

// id, ih and iw one after another, on `device`.
Tensor index_tables(const PlaneGather& g, Device device) {
  const std::vector<int64_t> shape{g.OD + g.OH + g.OW};
  Tensor host = empty_tensor(shape, TensorOptions(ScalarType::Long, Device(DeviceType::CPU)));
  int64_t* p = static_cast<int64_t*>(host.data_ptr());
  std::memcpy(p, g.id.data(), sizeof(int64_t) * static_cast<size_t>(g.OD));
  std::memcpy(p + g.OD, g.ih.data(), sizeof(int64_t) * static_cast<size_t>(g.OH));
  std::memcpy(p + g.OD + g.OH, g.iw.data(), sizeof(int64_t) * static_cast<size_t>(g.OW));
  return host.to(device);
}

struct PlaneShape {
  int64_t H, W, OD, OH, OW, in_plane, out_plane;
  explicit PlaneShape(const PlaneGather& g)
      : H(g.H), W(g.W), OD(g.OD), OH(g.OH), OW(g.OW), in_plane(g.D * g.H * g.W), out_plane(g.OD * g.OH * g.OW) {}
  // The input offset output element i reads.
  __device__ int64_t source(int64_t i, const int64_t* tables) const {
    const int64_t ow = i % OW, oh = (i / OW) % OH, od = (i / (OW * OH)) % OD, p = i / out_plane;
    return p * in_plane + (tables[od] * H + tables[OD + oh]) * W + tables[OD + OH + ow];
  }
};

// T: an unsigned integer of the element size (values are only moved).
template <typename T>
__global__ void plane_gather_kernel(PlaneShape s, int64_t n, const int64_t* tables, const T* x, T* out) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    out[i] = x[s.source(i, tables)];
}

template <typename T>
__global__ void plane_scatter_kernel(PlaneShape s, int64_t n, const int64_t* tables, const T* gy, T* gx) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    atomicAdd(gx + s.source(i, tables), gy[i]);
}

void plane_gather_cuda(const PlaneGather& g, const Tensor& x, const Tensor& out) {
  const Tensor tables = index_tables(g, x.device());
  const int64_t n = out.numel();
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const PlaneShape s(g);
  const int64_t* t = static_cast<const int64_t*>(tables.data_ptr());
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    plane_gather_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(s, n, t, static_cast<const T*>(x.data_ptr()),
                                                                 static_cast<T*>(out.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  };
  dispatch_by_element_size(x.element_size(), launch);
}

void plane_scatter_cuda(const PlaneGather& g, const Tensor& gy, const Tensor& gx) {
  const Tensor tables = index_tables(g, gy.device());
  gx.zero_();
  const int64_t n = gy.numel();
  const int device = gy.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const PlaneShape s(g);
  const int64_t* t = static_cast<const int64_t*>(tables.data_ptr());
  dispatch_float_double(gy.dtype(), "plane_scatter (padding / upsampling backward)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    plane_scatter_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(s, n, t, static_cast<const T*>(gy.data_ptr()),
                                                                  static_cast<T*>(gx.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

TL_REGISTER_STUB(plane_gather_stub, CUDA, &plane_gather_cuda);
TL_REGISTER_STUB(plane_scatter_stub, CUDA, &plane_scatter_cuda);

}  // namespace tl::native
