// CUDA loops of bilinear upsampling (geometry and taps: Upsample.h, the taps computed on the
// host as for the CPU loops and copied to the device). A thread per output element; the
// backward spreads each gradient over its four taps with atomics, so float sums may differ in
// the last bits between runs.
#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/Upsample.h"
#include "aten/native/cuda/GridStride.cuh"
#include "generated/ops/to.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {

using grid_stride::grid_for;
using grid_stride::kThreads;

// The taps of both axes on the device: indices (i0 rows, i1 rows, i0 cols, i1 cols) and weights
// (l0 rows, l1 rows, l0 cols, l1 cols).
template <typename T>
struct DeviceTaps {
  Tensor index, weight;
  DeviceTaps(const BilinearGeom& g, Device device) {
    const Taps<T> th = linear_taps<T>(g.H, g.OH, g.align_corners, g.scales_h);
    const Taps<T> tw = linear_taps<T>(g.W, g.OW, g.align_corners, g.scales_w);
    const std::vector<int64_t> shape{2 * (g.OH + g.OW)};
    Tensor hi = empty_tensor(shape, TensorOptions(ScalarType::Long, Device(DeviceType::CPU)));
    Tensor hw = empty_tensor(shape, TensorOptions(CppToScalarType<T>::value, Device(DeviceType::CPU)));
    int64_t* ip = static_cast<int64_t*>(hi.data_ptr());
    T* wp = static_cast<T*>(hw.data_ptr());
    const int64_t OH = g.OH, OW = g.OW;
    std::memcpy(ip, th.i0.data(), sizeof(int64_t) * OH);
    std::memcpy(ip + OH, th.i1.data(), sizeof(int64_t) * OH);
    std::memcpy(ip + 2 * OH, tw.i0.data(), sizeof(int64_t) * OW);
    std::memcpy(ip + 2 * OH + OW, tw.i1.data(), sizeof(int64_t) * OW);
    std::memcpy(wp, th.l0.data(), sizeof(T) * OH);
    std::memcpy(wp + OH, th.l1.data(), sizeof(T) * OH);
    std::memcpy(wp + 2 * OH, tw.l0.data(), sizeof(T) * OW);
    std::memcpy(wp + 2 * OH + OW, tw.l1.data(), sizeof(T) * OW);
    index = hi.to(device);
    weight = hw.to(device);
  }
};

struct Plane {
  int64_t H, W, OH, OW;
};

// Output element i's four taps: input offsets a00, a01, a10, a11 and weights h0, h1, w0, w1.
template <typename T>
struct Tap4 {
  int64_t a00, a01, a10, a11;
  T h0, h1, w0, w1;
  __device__ Tap4(const Plane& s, int64_t i, const int64_t* idx, const T* wt) {
    const int64_t ow = i % s.OW, oh = (i / s.OW) % s.OH, p = i / (s.OW * s.OH);
    const int64_t base = p * s.H * s.W;
    const int64_t r0 = base + idx[oh] * s.W, r1 = base + idx[s.OH + oh] * s.W;
    const int64_t c0 = idx[2 * s.OH + ow], c1 = idx[2 * s.OH + s.OW + ow];
    a00 = r0 + c0;
    a01 = r0 + c1;
    a10 = r1 + c0;
    a11 = r1 + c1;
    h0 = wt[oh];
    h1 = wt[s.OH + oh];
    w0 = wt[2 * s.OH + ow];
    w1 = wt[2 * s.OH + s.OW + ow];
  }
};

template <typename T>
__global__ void bilinear_kernel(Plane s, int64_t n, const int64_t* idx, const T* wt, const T* x, T* out) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const Tap4<T> t(s, i, idx, wt);
    out[i] = t.h0 * (t.w0 * x[t.a00] + t.w1 * x[t.a01]) + t.h1 * (t.w0 * x[t.a10] + t.w1 * x[t.a11]);
  }
}

template <typename T>
__global__ void bilinear_backward_kernel(Plane s, int64_t n, const int64_t* idx, const T* wt, const T* gy, T* gx) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const Tap4<T> t(s, i, idx, wt);
    const T y = gy[i];
    atomicAdd(gx + t.a00, t.h0 * t.w0 * y);
    atomicAdd(gx + t.a01, t.h0 * t.w1 * y);
    atomicAdd(gx + t.a10, t.h1 * t.w0 * y);
    atomicAdd(gx + t.a11, t.h1 * t.w1 * y);
  }
}

void upsample_bilinear2d_cuda(const BilinearGeom& g, const Tensor& x, const Tensor& out) {
  const int64_t n = out.numel();
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_float_double(x.dtype(), "upsample_bilinear2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const DeviceTaps<T> taps(g, x.device());
    bilinear_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        Plane{g.H, g.W, g.OH, g.OW}, n, static_cast<const int64_t*>(taps.index.data_ptr()),
        static_cast<const T*>(taps.weight.data_ptr()), static_cast<const T*>(x.data_ptr()),
        static_cast<T*>(out.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void upsample_bilinear2d_backward_cuda(const BilinearGeom& g, const Tensor& gy, const Tensor& gx) {
  gx.zero_();
  const int64_t n = gy.numel();
  const int device = gy.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_float_double(gy.dtype(), "upsample_bilinear2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const DeviceTaps<T> taps(g, gy.device());
    bilinear_backward_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        Plane{g.H, g.W, g.OH, g.OW}, n, static_cast<const int64_t*>(taps.index.data_ptr()),
        static_cast<const T*>(taps.weight.data_ptr()), static_cast<const T*>(gy.data_ptr()),
        static_cast<T*>(gx.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

TL_REGISTER_STUB(upsample_bilinear2d_stub, CUDA, &upsample_bilinear2d_cuda);
TL_REGISTER_STUB(upsample_bilinear2d_backward_stub, CUDA, &upsample_bilinear2d_backward_cuda);

}  // namespace tl::native
