#pragma once
// Element math of the fused optimizer kernels (Note [Fused optimizer kernels] in
// native_functions.yaml). One update rule per optimizer, applied to one element of a parameter
// and its state, in the compute type T (opmath_t: float for float32/half/bfloat16, double for
// float64). The CPU kernels (cpu/FusedOptimizerKernels.cpp) run these over contiguous chunks;
// a CUDA kernel can run the same functors (TL_HOST_DEVICE, std:: math that CUDA also has).
//
// The order of operations follows PyTorch's single-tensor / foreach implementations (each step
// rounds to T as theirs do), so results agree to the last bits in float64 and to a few ulps in
// float32. Hyperparameters that depend on the step (bias corrections, Adagrad's decayed lr)
// are computed in double once per parameter, as PyTorch computes them in Python.
#include <cmath>

#include "aten/core/Macros.h"

namespace tl::native {

// PyTorch's lerp: a + w * (b - a) for |w| < 0.5, else b - (b - a) * (1 - w).
template <typename T>
TL_HOST_DEVICE inline T optim_lerp(T a, T b, T w) {
  T diff = b - a;
  return (w < T(0.5)) ? a + w * diff : b - diff * (T(1) - w);
}

// SGD with momentum, dampening, Nesterov, weight decay and maximize.
template <typename T>
struct FusedSgdMath {
  T weight_decay, momentum, lr;
  T one_minus_dampening;  // 1 - dampening, rounded once from double (as PyTorch's alpha=)
  bool nesterov, maximize, is_first_step, has_momentum;

  // `buf` is read only when has_momentum; it is written then.
  TL_HOST_DEVICE inline void operator()(T& param, T grad, T& buf) const {
    if (maximize) grad = -grad;
    if (weight_decay != T(0)) grad = grad + weight_decay * param;
    if (has_momentum) {
      if (is_first_step) {
        buf = grad;
      } else {
        buf = buf * momentum;
        buf = buf + one_minus_dampening * grad;
      }
      grad = nesterov ? grad + momentum * buf : buf;
    }
    param = param + (-lr) * grad;
  }
};

// Adam (decoupled = false) and AdamW (decoupled = true), with amsgrad.
template <typename T>
struct FusedAdamMath {
  T one_minus_beta1, beta2, one_minus_beta2, weight_decay, eps;  // 1 - beta: rounded once from double
  T step_size;              // lr / (1 - beta1^step)
  T bias_correction2_sqrt;  // sqrt(1 - beta2^step)
  T decay_factor;           // AdamW: 1 - lr * weight_decay
  bool decoupled, amsgrad, maximize;

  TL_HOST_DEVICE inline void operator()(T& param, T grad, T& exp_avg, T& exp_avg_sq, T& max_exp_avg_sq) const {
    if (maximize) grad = -grad;
    if (weight_decay != T(0)) {
      if (decoupled) {
        param = param * decay_factor;
      } else {
        grad = grad + weight_decay * param;
      }
    }
    exp_avg = optim_lerp(exp_avg, grad, one_minus_beta1);
    exp_avg_sq = exp_avg_sq * beta2;
    exp_avg_sq = exp_avg_sq + one_minus_beta2 * grad * grad;
    T second;
    if (amsgrad) {
      max_exp_avg_sq = max_exp_avg_sq > exp_avg_sq ? max_exp_avg_sq : exp_avg_sq;
      second = max_exp_avg_sq;
    } else {
      second = exp_avg_sq;
    }
    T denom = std::sqrt(second) / bias_correction2_sqrt + eps;
    param = param + (-step_size) * (exp_avg / denom);
  }
};

// Adagrad: `clr` is lr / (1 + (step - 1) * lr_decay).
template <typename T>
struct FusedAdagradMath {
  T clr, weight_decay, eps;
  bool maximize;

  TL_HOST_DEVICE inline void operator()(T& param, T grad, T& state_sum) const {
    if (maximize) grad = -grad;
    if (weight_decay != T(0)) grad = grad + weight_decay * param;
    state_sum = state_sum + grad * grad;
    T std_ = std::sqrt(state_sum) + eps;
    param = param + (-clr) * (grad / std_);
  }
};

// RMSprop, centered or not, with momentum.
template <typename T>
struct FusedRmspropMath {
  T lr, alpha, one_minus_alpha, eps, weight_decay, momentum;  // 1 - alpha: rounded once from double
  bool centered, maximize, has_momentum;

  TL_HOST_DEVICE inline void operator()(T& param, T grad, T& square_avg, T& grad_avg, T& buf) const {
    if (maximize) grad = -grad;
    if (weight_decay != T(0)) grad = grad + weight_decay * param;
    square_avg = square_avg * alpha;
    square_avg = square_avg + one_minus_alpha * grad * grad;
    T avg;
    if (centered) {
      grad_avg = optim_lerp(grad_avg, grad, one_minus_alpha);
      avg = square_avg + T(-1) * grad_avg * grad_avg;
      avg = std::sqrt(avg) + eps;
    } else {
      avg = std::sqrt(square_avg) + eps;
    }
    if (has_momentum) {
      buf = buf * momentum;
      buf = buf + grad / avg;
      param = param + (-lr) * buf;
    } else {
      param = param + (-lr) * (grad / avg);
    }
  }
};

}  // namespace tl::native
