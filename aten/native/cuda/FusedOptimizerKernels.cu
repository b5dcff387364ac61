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

// The element update of CpuLoop::update_loop (cpu/FusedOptimizerKernels.cpp), one element per
// thread.
template <bool kUnscale, bool kUse0, bool kUse1, bool kUse2, typename scalar_t, typename T, typename Fn>
__global__ void __launch_bounds__(kThreads)
    update_kernel(Fn fn, int64_t n, T scale, scalar_t* p, scalar_t* g, scalar_t* s0, scalar_t* s1, scalar_t* s2) {
  for (int64_t j = blockIdx.x * int64_t(kThreads) + threadIdx.x; j < n; j += int64_t(gridDim.x) * kThreads) {
    T gv = static_cast<T>(g[j]);
    if constexpr (kUnscale) {
      gv = gv / scale;
      g[j] = static_cast<scalar_t>(gv);
    }
    T pv = static_cast<T>(p[j]);
    T v0 = T(0), v1 = T(0), v2 = T(0);
    if constexpr (kUse0) v0 = static_cast<T>(s0[j]);
    if constexpr (kUse1) v1 = static_cast<T>(s1[j]);
    if constexpr (kUse2) v2 = static_cast<T>(s2[j]);
    fn(pv, gv, v0, v1, v2);
    p[j] = static_cast<scalar_t>(pv);
    if constexpr (kUse0) s0[j] = static_cast<scalar_t>(v0);
    if constexpr (kUse1) s1[j] = static_cast<scalar_t>(v1);
    if constexpr (kUse2) s2[j] = static_cast<scalar_t>(v2);
  }
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

void _fused_sgd_kernel_cuda_(TensorList self, TensorList grads, TensorList momentum_buffer_list, double weight_decay,
                             double momentum, double lr, double dampening, bool nesterov, bool maximize,
                             bool is_first_step, const std::optional<Tensor>& grad_scale,
                             const std::optional<Tensor>& found_inf) {
  fused_optim::fused_sgd<CudaLoop>(self, grads, momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov, maximize,
                           is_first_step, grad_scale, found_inf);
}

void _fused_adam_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                              TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                              double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                              const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  fused_optim::fused_adam_impl<CudaLoop>("_fused_adam_", false, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                 state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale,
                                 found_inf);
}

void _fused_adamw_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                               TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                               double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  fused_optim::fused_adam_impl<CudaLoop>("_fused_adamw_", true, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                 state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale,
                                 found_inf);
}

void _fused_adagrad_kernel_cuda_(TensorList self, TensorList grads, TensorList state_sums, TensorList state_steps,
                                 double lr, double lr_decay, double weight_decay, double eps, bool maximize,
                                 const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  fused_optim::fused_adagrad<CudaLoop>(self, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps, maximize,
                               grad_scale, found_inf);
}

void _fused_rmsprop_kernel_cuda_(TensorList self, TensorList grads, TensorList square_avgs, TensorList grad_avgs,
                                 TensorList momentum_buffer_list, double lr, double alpha, double eps,
                                 double weight_decay, double momentum, bool centered, bool maximize,
                                 const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  fused_optim::fused_rmsprop<CudaLoop>(self, grads, square_avgs, grad_avgs, momentum_buffer_list, lr, alpha, eps, weight_decay,
                               momentum, centered, maximize, grad_scale, found_inf);
}

void _fused_adadelta_kernel_cuda_(TensorList self, TensorList grads, TensorList square_avgs, TensorList acc_deltas,
                                  double lr, double rho, double eps, double weight_decay, bool maximize) {
  fused_optim::fused_adadelta<CudaLoop>(self, grads, square_avgs, acc_deltas, lr, rho, eps, weight_decay, maximize);
}

void _fused_adamax_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_infs,
                                TensorList state_steps, double lr, double beta1, double beta2, double eps,
                                double weight_decay, bool maximize) {
  fused_optim::fused_adamax<CudaLoop>(self, grads, exp_avgs, exp_infs, state_steps, lr, beta1, beta2, eps, weight_decay, maximize);
}

void _fused_nadam_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                               TensorList mu_products, TensorList state_steps, double lr, double beta1, double beta2,
                               double eps, double weight_decay, double momentum_decay, bool decoupled_weight_decay,
                               bool maximize) {
  fused_optim::fused_nadam<CudaLoop>(self, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, lr, beta1, beta2, eps,
                             weight_decay, momentum_decay, decoupled_weight_decay, maximize);
}

void _fused_radam_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                               TensorList state_steps, double lr, double beta1, double beta2, double eps,
                               double weight_decay, bool decoupled_weight_decay, bool maximize) {
  fused_optim::fused_radam<CudaLoop>(self, grads, exp_avgs, exp_avg_sqs, state_steps, lr, beta1, beta2, eps, weight_decay,
                             decoupled_weight_decay, maximize);
}

void _fused_asgd_kernel_cuda_(TensorList self, TensorList grads, TensorList axs, TensorList mus, TensorList etas,
                              double lambd, double weight_decay, bool maximize) {
  fused_optim::fused_asgd<CudaLoop>(self, grads, axs, mus, etas, lambd, weight_decay, maximize);
}

void _fused_rprop_kernel_cuda_(TensorList self, TensorList grads, TensorList prevs, TensorList step_sizes,
                               double etaminus, double etaplus, double step_size_min, double step_size_max,
                               bool maximize) {
  fused_optim::fused_rprop<CudaLoop>(self, grads, prevs, step_sizes, etaminus, etaplus, step_size_min, step_size_max, maximize);
}

// tensor_lr overloads: lr read once from its 1-element tensor.

void _fused_sgd_kernel_cuda_(TensorList self, TensorList grads, TensorList momentum_buffer_list, double weight_decay,
                             double momentum, const Tensor& lr, double dampening, bool nesterov, bool maximize,
                             bool is_first_step, const std::optional<Tensor>& grad_scale,
                             const std::optional<Tensor>& found_inf) {
  _fused_sgd_kernel_cuda_(self, grads, momentum_buffer_list, weight_decay, momentum, fused_optim::lr_value("_fused_sgd_", lr),
                         dampening, nesterov, maximize, is_first_step, grad_scale, found_inf);
}

void _fused_adam_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                              TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, double beta1,
                              double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                              const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  _fused_adam_kernel_cuda_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, fused_optim::lr_value("_fused_adam_", lr),
                          beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);
}

void _fused_adamw_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                               TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, double beta1,
                               double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  _fused_adamw_kernel_cuda_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, fused_optim::lr_value("_fused_adamw_", lr),
                          beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);
}

void _fused_adagrad_kernel_cuda_(TensorList self, TensorList grads, TensorList state_sums, TensorList state_steps,
                                 const Tensor& lr, double lr_decay, double weight_decay, double eps, bool maximize,
                                 const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  _fused_adagrad_kernel_cuda_(self, grads, state_sums, state_steps, fused_optim::lr_value("_fused_adagrad_", lr), lr_decay,
                             weight_decay, eps, maximize, grad_scale, found_inf);
}

}  // namespace tl::native
