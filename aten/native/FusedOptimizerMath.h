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

// The update functors must inline into their element loops to vectorise; GCC otherwise keeps the
// bigger ones (Adam) out of line and calls them once per element.
#if defined(__CUDACC__) || !defined(__GNUC__)
#define TL_OPTIM_INLINE inline
#else
#define TL_OPTIM_INLINE inline __attribute__((always_inline))
#endif

namespace tl::native {

// PyTorch's lerp: a + w * (b - a) for |w| < 0.5, else b - (b - a) * (1 - w).
template <typename T>
TL_HOST_DEVICE TL_OPTIM_INLINE T optim_lerp(T a, T b, T w) {
  T diff = b - a;
  return (w < T(0.5)) ? a + w * diff : b - diff * (T(1) - w);
}

// Note [Fused optimizer flags]: options that change the shape of the update (weight decay on
// or off, amsgrad, momentum...) are template parameters, so each instantiation's loop has no
// branches and vectorises; `maximize` is a sign (g * -1 is exact). Each functor updates one
// element in place; `grad` arrives already unscaled.

// SGD with momentum, dampening, Nesterov and weight decay.
template <typename T, bool kWeightDecay, bool kMomentum, bool kNesterov, bool kFirstStep>
struct FusedSgdMath {
  T sign;  // -1 with maximize, else 1
  T weight_decay, momentum, lr;
  T one_minus_dampening;  // 1 - dampening, rounded once from double (as PyTorch's alpha=)

  // `buf` is read and written only with kMomentum.
  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& buf) const {
    grad = grad * sign;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    if constexpr (kMomentum) {
      if constexpr (kFirstStep) {
        buf = grad;
      } else {
        buf = buf * momentum;
        buf = buf + one_minus_dampening * grad;
      }
      if constexpr (kNesterov) {
        grad = grad + momentum * buf;
      } else {
        grad = buf;
      }
    }
    param = param + (-lr) * grad;
  }
};

// Adam; AdamW is Adam with decay_factor = 1 - lr * weight_decay and no L2 term (kWeightDecay
// false). Plain Adam passes decay_factor = 1, which leaves the parameter unchanged exactly.
template <typename T, bool kWeightDecay, bool kAmsgrad>
struct FusedAdamMath {
  T sign;
  T one_minus_beta1, beta2, one_minus_beta2;  // 1 - beta: rounded once from double
  T weight_decay, eps;
  T step_size;              // lr / (1 - beta1^step)
  T bias_correction2_sqrt;  // sqrt(1 - beta2^step)
  T decay_factor;           // AdamW: 1 - lr * weight_decay; Adam: 1

  // `max_exp_avg_sq` is read and written only with kAmsgrad.
  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& exp_avg, T& exp_avg_sq, T& max_exp_avg_sq) const {
    grad = grad * sign;
    param = param * decay_factor;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    exp_avg = optim_lerp(exp_avg, grad, one_minus_beta1);
    exp_avg_sq = exp_avg_sq * beta2;
    exp_avg_sq = exp_avg_sq + one_minus_beta2 * grad * grad;
    T second = exp_avg_sq;
    if constexpr (kAmsgrad) {
      // torch.maximum: a NaN on either side is kept (x != x is the NaN test that also compiles for CUDA).
      const bool keep = max_exp_avg_sq > exp_avg_sq || max_exp_avg_sq != max_exp_avg_sq;
      max_exp_avg_sq = keep ? max_exp_avg_sq : exp_avg_sq;
      second = max_exp_avg_sq;
    }
    T denom = std::sqrt(second) / bias_correction2_sqrt + eps;
    param = param + (-step_size) * (exp_avg / denom);
  }
};

// Adagrad: `clr` is lr / (1 + (step - 1) * lr_decay).
template <typename T, bool kWeightDecay>
struct FusedAdagradMath {
  T sign, clr, weight_decay, eps;

  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& state_sum) const {
    grad = grad * sign;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    state_sum = state_sum + grad * grad;
    T std_ = std::sqrt(state_sum) + eps;
    param = param + (-clr) * (grad / std_);
  }
};

// RMSprop, centered or not, with momentum.
template <typename T, bool kWeightDecay, bool kCentered, bool kMomentum>
struct FusedRmspropMath {
  T sign, lr, alpha, one_minus_alpha, eps, weight_decay, momentum;  // 1 - alpha: rounded once from double

  // `grad_avg` is used only with kCentered, `buf` only with kMomentum.
  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& square_avg, T& grad_avg, T& buf) const {
    grad = grad * sign;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    square_avg = square_avg * alpha;
    square_avg = square_avg + one_minus_alpha * grad * grad;
    T avg;
    if constexpr (kCentered) {
      grad_avg = optim_lerp(grad_avg, grad, one_minus_alpha);
      avg = square_avg + T(-1) * grad_avg * grad_avg;
      avg = std::sqrt(avg) + eps;
    } else {
      avg = std::sqrt(square_avg) + eps;
    }
    if constexpr (kMomentum) {
      buf = buf * momentum;
      buf = buf + grad / avg;
      param = param + (-lr) * buf;
    } else {
      param = param + (-lr) * (grad / avg);
    }
  }
};

// Adadelta.
template <typename T, bool kWeightDecay>
struct FusedAdadeltaMath {
  T sign, lr, rho, one_minus_rho, eps, weight_decay;  // 1 - rho: rounded once from double

  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& square_avg, T& acc_delta) const {
    grad = grad * sign;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    square_avg = square_avg * rho;
    square_avg = square_avg + one_minus_rho * grad * grad;
    T delta = std::sqrt(acc_delta + eps) / std::sqrt(square_avg + eps);
    delta = delta * grad;
    acc_delta = acc_delta * rho;
    acc_delta = acc_delta + one_minus_rho * delta * delta;
    param = param + (-lr) * delta;
  }
};

// Adamax: `clr` is lr / (1 - beta1^step).
template <typename T, bool kWeightDecay>
struct FusedAdamaxMath {
  T sign, one_minus_beta1, beta2, eps, weight_decay, clr;

  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& exp_avg, T& exp_inf) const {
    grad = grad * sign;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    exp_avg = optim_lerp(exp_avg, grad, one_minus_beta1);
    const T decayed = exp_inf * beta2;
    const T bound = std::abs(grad) + eps;
    // torch.maximum keeps a NaN from either side.
    exp_inf = (decayed > bound || decayed != decayed) ? decayed : bound;
    param = param + (-clr) * (exp_avg / exp_inf);
  }
};

// NAdam: the coefficients of the gradient and momentum terms, -lr (1 - mu_t) / (1 - prod mu) and
// -lr mu_{t+1} / (1 - prod mu * mu_{t+1}), come per parameter from the caller; decay_factor is
// 1 - lr * weight_decay with decoupled weight decay, else 1.
template <typename T, bool kWeightDecay>
struct FusedNadamMath {
  T sign, one_minus_beta1, beta2, one_minus_beta2, weight_decay, eps, decay_factor;
  T bias_correction2, grad_coef, avg_coef;

  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& exp_avg, T& exp_avg_sq) const {
    grad = grad * sign;
    param = param * decay_factor;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    exp_avg = optim_lerp(exp_avg, grad, one_minus_beta1);
    exp_avg_sq = exp_avg_sq * beta2;
    exp_avg_sq = exp_avg_sq + one_minus_beta2 * grad * grad;
    const T denom = std::sqrt(exp_avg_sq / bias_correction2) + eps;
    param = param + grad_coef * (grad / denom);
    param = param + avg_coef * (exp_avg / denom);
  }
};

// RAdam: kRectify when the variance is tractable (rho_t > 5) at this parameter's step; `rect` is
// the rectification term, computed per parameter by the caller.
template <typename T, bool kWeightDecay, bool kRectify>
struct FusedRadamMath {
  T sign, one_minus_beta1, beta2, one_minus_beta2, weight_decay, eps, decay_factor;
  T lr, bias_correction1, bias_correction2_sqrt, rect;

  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& exp_avg, T& exp_avg_sq) const {
    grad = grad * sign;
    param = param * decay_factor;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    exp_avg = optim_lerp(exp_avg, grad, one_minus_beta1);
    exp_avg_sq = exp_avg_sq * beta2;
    exp_avg_sq = exp_avg_sq + one_minus_beta2 * grad * grad;
    T update = exp_avg / bias_correction1 * lr;
    if constexpr (kRectify) update = update * (bias_correction2_sqrt / (std::sqrt(exp_avg_sq) + eps)) * rect;
    param = param - update;
  }
};

// ASGD: `decay` is 1 - lambd * eta; kAverage while mu != 1 (before that, ax follows the parameter).
template <typename T, bool kWeightDecay, bool kAverage>
struct FusedAsgdMath {
  T sign, weight_decay, decay, eta, mu;

  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& ax) const {
    grad = grad * sign;
    if constexpr (kWeightDecay) grad = grad + weight_decay * param;
    param = param * decay;
    param = param + (-eta) * grad;
    if constexpr (kAverage) {
      ax = ax + (param - ax) * mu;
    } else {
      ax = param;
    }
  }
};

// Rprop. Signs as torch.sign (a NaN counts as 0); the clamp keeps a NaN step size.
template <typename T>
struct FusedRpropMath {
  T sign, etaminus, etaplus, step_size_min, step_size_max;

  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& prev, T& step_size) const {
    grad = grad * sign;
    const T agreement = grad * prev;
    const bool flipped = agreement < T(0);
    T s = step_size * (agreement > T(0) ? etaplus : (flipped ? etaminus : T(1)));
    s = s < step_size_min ? step_size_min : (s > step_size_max ? step_size_max : s);
    step_size = s;
    if (flipped) grad = T(0);  // after a sign change the step is skipped and the gradient forgotten
    const T grad_sign = T((T(0) < grad) - (grad < T(0)));
    param = param + T(-1) * grad_sign * s;
    prev = grad;
  }
};

}  // namespace tl::native
