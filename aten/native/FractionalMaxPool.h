#pragma once
// fractional_max_pool2d/3d's device seam: FractionalMaxPool.cpp checks the arguments (the samples'
// values on a host copy) once; the loops behind the stub (CPU: FractionalMaxPool.cpp, CUDA:
// cuda/FractionalMaxPoolKernel.cu) share the window placement below.
#include <algorithm>
#include <cstdint>

#include "aten/core/Macros.h"
#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

// Sizes as (time, height, width); a 2-d input has one time step and a window of one.
struct FractionalPoolGeom {
  int64_t nd = 2, planes = 0;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1};
};

// The first input index of window i of the `out` windows of size `pool` along an axis of size
// `in`: floor((i + u) * alpha) - floor(u * alpha) with alpha = (in - pool) / (out - 1), computed in
// the input's precision as PyTorch does; the last window ends at the last element.
template <typename T>
TL_HOST_DEVICE inline int64_t fractional_window_start(T u, int64_t in, int64_t out, int64_t pool, int64_t i) {
  int64_t s = in - pool;
  if (i + 1 < out) {
    const T alpha = static_cast<T>(in - pool) / static_cast<T>(out - 1);
    s = static_cast<int64_t>((static_cast<T>(i) + u) * alpha) - static_cast<int64_t>(u * alpha);
  }
  return s < 0 ? 0 : s > in - pool ? in - pool : s;  // float rounding stays inside
}

// x (planes, *in) and samples (planes, nd) contiguous, float or double; writes out and indices
// (planes, *out; flat indices within the plane). PyTorch's sample order: 2-d (width, height),
// 3-d (time, height, width).
extern DispatchStub<void(const FractionalPoolGeom& g, const Tensor& x, const Tensor& samples, const Tensor& out,
                         const Tensor& indices)>
    fractional_max_pool_stub;

}  // namespace tl::native
