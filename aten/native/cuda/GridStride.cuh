#pragma once
// The launch shape of the CUDA kernels that give a thread to each element and stride over the
// rest (`for (i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads)`):
// blocks of 256 threads, as many as the elements need, at most 65,535 (at least 1).
#include <algorithm>
#include <cstdint>

namespace tl::native::grid_stride {

constexpr int kThreads = 256;

inline unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads, 65535)));
}

}  // namespace tl::native::grid_stride
