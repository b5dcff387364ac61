// CUDA kernels of the multi-tensor optimizer ops (Note [Fused optimizer kernels] in
// native_functions.yaml): the device-independent part is FusedOptimizers.h and the element
// math FusedOptimizerMath.h, as on the CPU; this file is the CUDA Loop. Each parameter's update
// is one grid-stride kernel on the current stream of its device.
#include <algorithm>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/FusedOptimizers.h"
#include "generated/ops/_fused_adadelta_native.h"
#include "generated/ops/_fused_adagrad_native.h"
#include "generated/ops/_fused_adam_native.h"
#include "generated/ops/_fused_adamax_native.h"
#include "generated/ops/_fused_adamw_native.h"
#include "generated/ops/_fused_asgd_native.h"
#include "generated/ops/_fused_nadam_native.h"
#include "generated/ops/_fused_radam_native.h"
#include "generated/ops/_fused_rmsprop_native.h"
#include "generated/ops/_fused_rprop_native.h"
#include "generated/ops/_fused_sgd_native.h"

namespace tl::native {

namespace {

constexpr int kThreads = 256;

// One thread per element (fused_optim::update_element), grid-stride.
template <bool kUnscale, bool kUse0, bool kUse1, bool kUse2, typename scalar_t, typename T, typename Fn>
__global__ void __launch_bounds__(kThreads)
    update_kernel(Fn fn, int64_t n, T scale, scalar_t* p, scalar_t* g, scalar_t* s0, scalar_t* s1, scalar_t* s2) {
  for (int64_t j = blockIdx.x * int64_t(kThreads) + threadIdx.x; j < n; j += int64_t(gridDim.x) * kThreads)
    fused_optim::update_element<kUnscale, kUse0, kUse1, kUse2>(fn, j, scale, p, g, s0, s1, s2);
}

// The CUDA Loop (FusedOptimizers.h): one range per parameter, its device made current.
struct CudaLoop {
  template <typename Fn>
  static void for_each_chunk(const fused_optim::Operands& ops, const Fn& fn) {
    ops.check_no_overlap();
    for (size_t i = 0; i < ops.size(); ++i) {
      const int64_t n = ops.param(i).numel();
      if (n == 0) continue;
      cuda::CUDAGuard guard(ops.param(i).device().index);
      fn(static_cast<int64_t>(i), int64_t(0), n);
    }
  }

  template <bool kUnscale, bool kUse0, bool kUse1, bool kUse2, typename scalar_t, typename T, typename Fn>
  static void update_loop(const Fn& fn, int64_t begin, int64_t end, T scale, scalar_t* p, scalar_t* g, scalar_t* s0,
                          scalar_t* s1, scalar_t* s2) {
    int device = 0;
    TL_CUDA_CHECK(cudaGetDevice(&device));
    const int64_t n = end - begin;
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535));
    auto at = [begin](scalar_t* q) { return q ? q + begin : q; };
    cudaStream_t stream = cuda::current_cuda_stream(device);
    update_kernel<kUnscale, kUse0, kUse1, kUse2, scalar_t, T, Fn>
        <<<grid, kThreads, 0, stream>>>(fn, n, scale, at(p), at(g), at(s0), at(s1), at(s2));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  }
};

}  // namespace

TL_DEFINE_FUSED_OPTIMIZER_KERNELS(cuda, CudaLoop)

}  // namespace tl::native
