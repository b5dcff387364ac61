#pragma once
// The device-independent part of the multi-tensor optimizer kernels (Note [Fused optimizer
// kernels] in native_functions.yaml): argument checks, the contiguous working copies, AMP
// unscaling and skipping, and the per-parameter hyperparameters, for each optimizer. Each
// device supplies a Loop: `Loop::for_each_chunk(ops, fn)` calls fn(parameter, begin, end) over
// ranges covering every element, and `Loop::update_loop<kUnscale, kUse0, kUse1, kUse2>(fn, begin,
// end, scale, param, grad, state0, state1, state2)` runs the element update `fn` (the functors
// of FusedOptimizerMath.h) over a range. cpu/FusedOptimizerKernels.cpp and
// cuda/FusedOptimizerKernels.cu instantiate these for their device.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/FusedOptimizerMath.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/mul.h"

namespace tl::native::fused_optim {

// The operands of one call: per list, one tensor per parameter, made contiguous.
class Operands {
 public:
  Operands(const char* op, TensorList self) : op_(op), n_(self.size()) {
    for (size_t i = 0; i < n_; ++i) {
      const Tensor& p = self[i];
      TL_CHECK(p.defined(), op_, ": self[", i, "] is an undefined tensor");
      TL_CHECK_TYPE(is_floating_point(p.dtype()), op_, ": expected floating point parameters, but self[", i,
                    "] has dtype ", p.dtype());
    }
    add("self", self, true);
  }

  // Adds a list that must hold one tensor per parameter. Returns its index.
  int add(const char* name, TensorList list, bool written) {
    TL_CHECK(list.size() == n_, op_, ": expected ", name, " to have ", n_, " tensors (one per parameter), but got ",
             list.size());
    std::vector<Tensor> work;
    work.reserve(n_);
    for (size_t i = 0; i < n_; ++i) {
      const Tensor& t = list[i];
      const Tensor& p = originals_.empty() ? t : originals_[0][i];
      TL_CHECK(t.defined(), op_, ": ", name, "[", i, "] is an undefined tensor");
      TL_CHECK_TYPE(t.dtype() == p.dtype(), op_, ": ", name, "[", i, "] has dtype ", t.dtype(),
                    " but its parameter self[", i, "] has dtype ", p.dtype());
      TL_CHECK(t.sizes().equals(p.sizes()), op_, ": ", name, "[", i, "] has shape ", t.sizes(),
               " but its parameter self[", i, "] has shape ", p.sizes());
      TL_CHECK(t.device() == p.device(), op_, ": ", name, "[", i, "] is on ", t.device(),
               " but its parameter self[", i, "] is on ", p.device());
      if (t.is_contiguous()) {
        work.push_back(t);
      } else {
        Tensor c = tl::empty(t.sizes(), t.dtype(), std::nullopt, t.device());
        ops::copy_::redispatch(c, t, false);
        work.push_back(c);
      }
    }
    originals_.emplace_back(list.begin(), list.end());
    work_.push_back(std::move(work));
    written_.push_back(written);
    names_.push_back(name);
    return static_cast<int>(work_.size()) - 1;
  }

  // No written operand may share memory with any other operand: the element loops take them as
  // restrict pointers, and two parameters sharing memory would race between threads.
  void check_no_overlap() const {
    struct Range {
      uintptr_t begin, end;
      size_t list, index;
    };
    std::vector<Range> ranges;
    for (size_t k = 0; k < work_.size(); ++k)
      for (size_t i = 0; i < n_; ++i) {
        const Tensor& t = work_[k][i];
        if (t.numel() == 0) continue;
        auto b = reinterpret_cast<uintptr_t>(t.data_ptr());
        ranges.push_back({b, b + static_cast<uintptr_t>(t.numel()) * t.element_size(), k, i});
      }
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    const Range* reach_all = nullptr;      // the range reaching furthest so far
    const Range* reach_written = nullptr;  // the written one reaching furthest so far
    for (const Range& r : ranges) {
      const Range* hit = written_[r.list] ? reach_all : reach_written;
      if (hit != nullptr && r.begin < hit->end)
        TL_ERROR(op_, ": ", names_[r.list], "[", r.index, "] and ", names_[hit->list], "[", hit->index,
                 "] share memory; each parameter and state tensor needs memory of its own");
      if (reach_all == nullptr || r.end > reach_all->end) reach_all = &r;
      if (written_[r.list] && (reach_written == nullptr || r.end > reach_written->end)) reach_written = &r;
    }
  }

  size_t size() const { return n_; }
  const Tensor& param(size_t i) const { return work_[0][i]; }
  template <typename T>
  T* data(int list, size_t i) const {
    return list < 0 ? nullptr : static_cast<T*>(work_[list][i].data_ptr());
  }

  // Copies the results computed on contiguous copies back into the written operands.
  void finish() {
    for (size_t k = 0; k < work_.size(); ++k) {
      if (!written_[k]) continue;
      for (size_t i = 0; i < n_; ++i)
        if (!work_[k][i].is_same(originals_[k][i])) ops::copy_::redispatch(originals_[k][i], work_[k][i], false);
    }
  }

 private:
  const char* op_;
  size_t n_;
  std::vector<std::vector<Tensor>> originals_;
  std::vector<std::vector<Tensor>> work_;
  std::vector<bool> written_;
  std::vector<const char*> names_;
};


// grad_scale / found_inf, as PyTorch's fused kernels take them from a GradScaler: skip the step
// when found_inf is nonzero, else unscale the gradients (written back) before the update.
struct AmpArgs {
  bool skip = false;
  bool unscale = false;
  double scale = 1.0;
};

inline AmpArgs amp_args(const char* op, const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  AmpArgs a;
  if (found_inf && found_inf->defined()) {
    TL_CHECK(found_inf->numel() == 1, op, ": found_inf must have one element, got shape ", found_inf->sizes());
    a.skip = found_inf->item().to_double() != 0.0;
  }
  if (grad_scale && grad_scale->defined()) {
    TL_CHECK(grad_scale->numel() == 1, op, ": grad_scale must have one element, got shape ", grad_scale->sizes());
    a.unscale = true;
    a.scale = grad_scale->item().to_double();
  }
  return a;
}

inline double step_value(const char* op, TensorList steps, size_t i) {
  const Tensor& s = steps[i];
  TL_CHECK(s.defined() && s.numel() == 1, op, ": state_steps[", i, "] must be a tensor with one element");
  return s.item().to_double();
}

inline void check_count(const char* op, const char* name, TensorList list, size_t n) {
  TL_CHECK(list.size() == n, op, ": expected ", name, " to have ", n, " tensors (one per parameter), but got ",
           list.size());
}

// One element of an optimizer's update, the same on every device: param, grad and up to three
// state operands (kUse<k> says which the update reads and writes; an unused one may be null).
// Under AMP (kUnscale) the gradient is divided by the scale and written back, as PyTorch's fused
// kernels do. No operand aliases another (Operands::check_no_overlap): restrict lets the CPU loop
// vectorise without run-time overlap checks.
template <bool kUnscale, bool kUse0, bool kUse1, bool kUse2, typename scalar_t, typename T, typename Fn>
TL_HOST_DEVICE inline void update_element(const Fn& fn, int64_t j, T scale, scalar_t* __restrict__ p,
                                          scalar_t* __restrict__ g, scalar_t* __restrict__ s0,
                                          scalar_t* __restrict__ s1, scalar_t* __restrict__ s2) {
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

// Calls f(std::bool_constant<b>...) for the runtime flags b... (Note [Fused optimizer flags]).
template <typename F>
void with_flags(F&& f) {
  f();
}
template <typename F, typename... Rest>
void with_flags(F&& f, bool first, Rest... rest) {
  if (first) {
    with_flags([&](auto... tail) { f(std::true_type{}, tail...); }, rest...);
  } else {
    with_flags([&](auto... tail) { f(std::false_type{}, tail...); }, rest...);
  }
}

// An update rule that takes fewer state operands (kStates) than the element loops pass (three).
template <typename M, int kStates>
struct FirstStates {
  M m;
  template <typename T>
  TL_HOST_DEVICE TL_OPTIM_INLINE void operator()(T& param, T grad, T& s0, T& s1, T& s2) const {
    if constexpr (kStates == 1) m(param, grad, s0);
    else m(param, grad, s0, s1);
  }
};

inline double lr_value(const char* op, const Tensor& lr) {
  TL_CHECK(lr.defined() && lr.numel() == 1, op, ": lr must be a tensor with one element, got shape ",
           lr.defined() ? lr.sizes() : IntArrayRef());
  return lr.item().to_double();
}


// ---- SGD ----------------------------------------------------------------------------------------

template <class Loop>
void fused_sgd(TensorList self, TensorList grads, TensorList momentum_buffer_list, double weight_decay,
                            double momentum, double lr, double dampening, bool nesterov, bool maximize,
                            bool is_first_step, const std::optional<Tensor>& grad_scale,
                            const std::optional<Tensor>& found_inf) {
  const char* op = "_fused_sgd_";
  AmpArgs amp = amp_args(op, grad_scale, found_inf);
  Operands ops(op, self);
  const int g = ops.add("grads", grads, amp.unscale);
  const bool has_momentum = momentum != 0.0;
  TL_CHECK(has_momentum || momentum_buffer_list.empty() || momentum_buffer_list.size() == self.size(), op,
           ": expected momentum_buffer_list to be empty or have ", self.size(), " tensors");
  const int b = has_momentum ? ops.add("momentum_buffer_list", momentum_buffer_list, true) : -1;
  if (amp.skip) return;
  Loop::for_each_chunk(ops, [&](int64_t i, int64_t begin, int64_t end) {
    dispatch_floating_types(ops.param(i).dtype(), op, [&](auto tag) {
      using scalar_t = typename decltype(tag)::type;
      using T = opmath_t<scalar_t>;
      with_flags(
          [&](auto unscale, auto wd, auto mom, auto nest, auto first) {
            const FusedSgdMath<T, wd, mom, nest, first> m{T(maximize ? -1 : 1), T(weight_decay), T(momentum), T(lr),
                                                          T(1.0 - dampening)};
            Loop::template update_loop<unscale, mom, false, false>(
                FirstStates<std::decay_t<decltype(m)>, 1>{m}, begin, end, T(amp.scale),
                ops.data<scalar_t>(0, i), ops.data<scalar_t>(g, i), ops.data<scalar_t>(b, i),
                static_cast<scalar_t*>(nullptr), static_cast<scalar_t*>(nullptr));
          },
          amp.unscale, weight_decay != 0.0, has_momentum, has_momentum && nesterov, has_momentum && is_first_step);
    });
  });
  ops.finish();
}

// ---- Adam / AdamW -------------------------------------------------------------------------------

template <class Loop>
void fused_adam_impl(const char* op, bool decoupled, TensorList self, TensorList grads, TensorList exp_avgs,
                     TensorList exp_avg_sqs, TensorList max_exp_avg_sqs, TensorList state_steps, double lr,
                     double beta1, double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                     const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  AmpArgs amp = amp_args(op, grad_scale, found_inf);
  Operands ops(op, self);
  const int g = ops.add("grads", grads, amp.unscale);
  const int m1 = ops.add("exp_avgs", exp_avgs, true);
  const int m2 = ops.add("exp_avg_sqs", exp_avg_sqs, true);
  const int mx = amsgrad ? ops.add("max_exp_avg_sqs", max_exp_avg_sqs, true) : -1;
  check_count(op, "state_steps", state_steps, self.size());
  if (amp.skip) return;
  // Step-dependent factors, in double as PyTorch computes them in Python.
  std::vector<double> step_size(self.size()), bc2_sqrt(self.size());
  double last_step = -1.0;  // parameters usually share their step: compute the powers once
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = step_value(op, state_steps, i);
    if (i > 0 && step == last_step) {
      step_size[i] = step_size[i - 1];
      bc2_sqrt[i] = bc2_sqrt[i - 1];
      continue;
    }
    last_step = step;
    step_size[i] = lr / (1.0 - std::pow(beta1, step));
    bc2_sqrt[i] = std::sqrt(1.0 - std::pow(beta2, step));
  }
  const bool l2 = weight_decay != 0.0 && !decoupled;
  const double decay_factor = decoupled ? 1.0 - lr * weight_decay : 1.0;
  Loop::for_each_chunk(ops, [&](int64_t i, int64_t begin, int64_t end) {
    dispatch_floating_types(ops.param(i).dtype(), op, [&](auto tag) {
      using scalar_t = typename decltype(tag)::type;
      using T = opmath_t<scalar_t>;
      with_flags(
          [&](auto unscale, auto wd, auto ams) {
            const FusedAdamMath<T, wd, ams> m{T(maximize ? -1 : 1), T(1.0 - beta1),  T(beta2),
                                              T(1.0 - beta2),       T(weight_decay), T(eps),
                                              T(step_size[i]),      T(bc2_sqrt[i]),  T(decay_factor)};
            Loop::template update_loop<unscale, true, true, ams>(m, begin, end, T(amp.scale), ops.data<scalar_t>(0, i),
                                                  ops.data<scalar_t>(g, i), ops.data<scalar_t>(m1, i),
                                                  ops.data<scalar_t>(m2, i), ops.data<scalar_t>(mx, i));
          },
          amp.unscale, l2, amsgrad);
    });
  });
  ops.finish();
}


// ---- Adagrad ------------------------------------------------------------------------------------

template <class Loop>
void fused_adagrad(TensorList self, TensorList grads, TensorList state_sums, TensorList state_steps,
                                double lr, double lr_decay, double weight_decay, double eps, bool maximize,
                                const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  const char* op = "_fused_adagrad_";
  AmpArgs amp = amp_args(op, grad_scale, found_inf);
  Operands ops(op, self);
  const int g = ops.add("grads", grads, amp.unscale);
  const int ss = ops.add("state_sums", state_sums, true);
  check_count(op, "state_steps", state_steps, self.size());
  if (amp.skip) return;
  std::vector<double> clr(self.size());
  for (size_t i = 0; i < self.size(); ++i) clr[i] = lr / (1.0 + (step_value(op, state_steps, i) - 1.0) * lr_decay);
  Loop::for_each_chunk(ops, [&](int64_t i, int64_t begin, int64_t end) {
    dispatch_floating_types(ops.param(i).dtype(), op, [&](auto tag) {
      using scalar_t = typename decltype(tag)::type;
      using T = opmath_t<scalar_t>;
      with_flags(
          [&](auto unscale, auto wd) {
            const FusedAdagradMath<T, wd> m{T(maximize ? -1 : 1), T(clr[i]), T(weight_decay), T(eps)};
            Loop::template update_loop<unscale, true, false, false>(
                FirstStates<std::decay_t<decltype(m)>, 1>{m}, begin, end, T(amp.scale),
                ops.data<scalar_t>(0, i), ops.data<scalar_t>(g, i), ops.data<scalar_t>(ss, i),
                static_cast<scalar_t*>(nullptr), static_cast<scalar_t*>(nullptr));
          },
          amp.unscale, weight_decay != 0.0);
    });
  });
  ops.finish();
}

// ---- RMSprop ------------------------------------------------------------------------------------

template <class Loop>
void fused_rmsprop(TensorList self, TensorList grads, TensorList square_avgs, TensorList grad_avgs,
                                TensorList momentum_buffer_list, double lr, double alpha, double eps,
                                double weight_decay, double momentum, bool centered, bool maximize,
                                const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  const char* op = "_fused_rmsprop_";
  AmpArgs amp = amp_args(op, grad_scale, found_inf);
  Operands ops(op, self);
  const int g = ops.add("grads", grads, amp.unscale);
  const int sq = ops.add("square_avgs", square_avgs, true);
  const int ga = centered ? ops.add("grad_avgs", grad_avgs, true) : -1;
  const bool has_momentum = momentum > 0.0;
  const int bf = has_momentum ? ops.add("momentum_buffer_list", momentum_buffer_list, true) : -1;
  if (amp.skip) return;
  Loop::for_each_chunk(ops, [&](int64_t i, int64_t begin, int64_t end) {
    dispatch_floating_types(ops.param(i).dtype(), op, [&](auto tag) {
      using scalar_t = typename decltype(tag)::type;
      using T = opmath_t<scalar_t>;
      with_flags(
          [&](auto unscale, auto wd, auto cen, auto mom) {
            const FusedRmspropMath<T, wd, cen, mom> m{T(maximize ? -1 : 1), T(lr),  T(alpha),       T(1.0 - alpha),
                                                      T(eps),               T(weight_decay), T(momentum)};
            Loop::template update_loop<unscale, true, cen, mom>(m, begin, end, T(amp.scale), ops.data<scalar_t>(0, i),
                                                 ops.data<scalar_t>(g, i), ops.data<scalar_t>(sq, i),
                                                 ops.data<scalar_t>(ga, i), ops.data<scalar_t>(bf, i));
          },
          amp.unscale, weight_decay != 0.0, centered, has_momentum);
    });
  });
  ops.finish();
}

// ---- Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop (foreach=True) ---------------------------------

// Runs the two-state update `make(i, T{})` builds for parameter i over every chunk.
template <class Loop, typename Make>
void two_state_update(const char* op, Operands& ops, int g, int s0, int s1, const Make& make) {
  Loop::for_each_chunk(ops, [&](int64_t i, int64_t begin, int64_t end) {
    dispatch_floating_types(ops.param(i).dtype(), op, [&](auto tag) {
      using scalar_t = typename decltype(tag)::type;
      using T = opmath_t<scalar_t>;
      make(i, T{}, [&](const auto& m) {
        Loop::template update_loop<false, true, true, false>(FirstStates<std::decay_t<decltype(m)>, 2>{m}, begin, end,
                                              T(1), ops.data<scalar_t>(0, i), ops.data<scalar_t>(g, i),
                                              ops.data<scalar_t>(s0, i), ops.data<scalar_t>(s1, i),
                                              static_cast<scalar_t*>(nullptr));
      });
    });
  });
  ops.finish();
}


template <class Loop>
void fused_adadelta(TensorList self, TensorList grads, TensorList square_avgs, TensorList acc_deltas,
                                 double lr, double rho, double eps, double weight_decay, bool maximize) {
  const char* op = "_fused_adadelta_";
  Operands ops(op, self);
  const int g = ops.add("grads", grads, false);
  const int sq = ops.add("square_avgs", square_avgs, true);
  const int ad = ops.add("acc_deltas", acc_deltas, true);
  two_state_update<Loop>(op, ops, g, sq, ad, [&](int64_t, auto zero, const auto& run) {
    using T = decltype(zero);
    with_flags(
        [&](auto wd) {
          run(FusedAdadeltaMath<T, wd>{T(maximize ? -1 : 1), T(lr), T(rho), T(1.0 - rho), T(eps), T(weight_decay)});
        },
        weight_decay != 0.0);
  });
}

template <class Loop>
void fused_adamax(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_infs,
                               TensorList state_steps, double lr, double beta1, double beta2, double eps,
                               double weight_decay, bool maximize) {
  const char* op = "_fused_adamax_";
  Operands ops(op, self);
  const int g = ops.add("grads", grads, false);
  const int m1 = ops.add("exp_avgs", exp_avgs, true);
  const int mi = ops.add("exp_infs", exp_infs, true);
  check_count(op, "state_steps", state_steps, self.size());
  std::vector<double> clr(self.size());
  for (size_t i = 0; i < self.size(); ++i) clr[i] = lr / (1.0 - std::pow(beta1, step_value(op, state_steps, i)));
  two_state_update<Loop>(op, ops, g, m1, mi, [&](int64_t i, auto zero, const auto& run) {
    using T = decltype(zero);
    with_flags(
        [&](auto wd) {
          run(FusedAdamaxMath<T, wd>{T(maximize ? -1 : 1), T(1.0 - beta1), T(beta2), T(eps), T(weight_decay),
                                     T(clr[i])});
        },
        weight_decay != 0.0);
  });
}

template <class Loop>
void fused_nadam(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                              TensorList mu_products, TensorList state_steps, double lr, double beta1, double beta2,
                              double eps, double weight_decay, double momentum_decay, bool decoupled_weight_decay,
                              bool maximize) {
  const char* op = "_fused_nadam_";
  Operands ops(op, self);
  const int g = ops.add("grads", grads, false);
  const int m1 = ops.add("exp_avgs", exp_avgs, true);
  const int m2 = ops.add("exp_avg_sqs", exp_avg_sqs, true);
  check_count(op, "state_steps", state_steps, self.size());
  check_count(op, "mu_products", mu_products, self.size());
  // Momentum schedule, in double as PyTorch computes it in Python; the running product is kept in
  // the mu_products tensors (their dtype's rounding, as PyTorch's `mu_product *= mu`).
  std::vector<double> bc2(self.size()), grad_coef(self.size()), avg_coef(self.size());
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = step_value(op, state_steps, i);
    const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, step * momentum_decay));
    const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (step + 1.0) * momentum_decay));
    const Tensor& prod = mu_products[i];
    TL_CHECK(prod.defined() && prod.numel() == 1, op, ": mu_products[", i, "] must be a tensor with one element");
    ops::mul__Scalar::redispatch(prod, Scalar(mu));
    const double mu_product = prod.item().to_double();
    bc2[i] = 1.0 - std::pow(beta2, step);
    grad_coef[i] = -lr * (1.0 - mu) / (1.0 - mu_product);
    avg_coef[i] = (-lr * mu_next) / (1.0 - mu_product * mu_next);
  }
  const bool l2 = weight_decay != 0.0 && !decoupled_weight_decay;
  const double decay_factor = decoupled_weight_decay ? 1.0 - lr * weight_decay : 1.0;
  two_state_update<Loop>(op, ops, g, m1, m2, [&](int64_t i, auto zero, const auto& run) {
    using T = decltype(zero);
    with_flags(
        [&](auto wd) {
          run(FusedNadamMath<T, wd>{T(maximize ? -1 : 1), T(1.0 - beta1), T(beta2), T(1.0 - beta2), T(weight_decay),
                                    T(eps), T(decay_factor), T(bc2[i]), T(grad_coef[i]), T(avg_coef[i])});
        },
        l2);
  });
}

template <class Loop>
void fused_radam(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                              TensorList state_steps, double lr, double beta1, double beta2, double eps,
                              double weight_decay, bool decoupled_weight_decay, bool maximize) {
  const char* op = "_fused_radam_";
  Operands ops(op, self);
  const int g = ops.add("grads", grads, false);
  const int m1 = ops.add("exp_avgs", exp_avgs, true);
  const int m2 = ops.add("exp_avg_sqs", exp_avg_sqs, true);
  check_count(op, "state_steps", state_steps, self.size());
  std::vector<double> bc1(self.size()), bc2_sqrt(self.size()), rect(self.size());
  const double rho_inf = 2.0 / (1.0 - beta2) - 1.0;
  for (size_t i = 0; i < self.size(); ++i) {
    const double step = step_value(op, state_steps, i);
    const double bc2 = 1.0 - std::pow(beta2, step);
    const double rho_t = rho_inf - 2.0 * step * std::pow(beta2, step) / bc2;
    bc1[i] = 1.0 - std::pow(beta1, step);
    bc2_sqrt[i] = std::sqrt(bc2);
    // rect <= 0 marks a step without the adaptive term (rho_t <= 5).
    rect[i] = rho_t > 5.0 ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                          : 0.0;
  }
  const bool l2 = weight_decay != 0.0 && !decoupled_weight_decay;
  const double decay_factor = decoupled_weight_decay ? 1.0 - lr * weight_decay : 1.0;
  two_state_update<Loop>(op, ops, g, m1, m2, [&](int64_t i, auto zero, const auto& run) {
    using T = decltype(zero);
    with_flags(
        [&](auto wd, auto rectify) {
          run(FusedRadamMath<T, wd, rectify>{T(maximize ? -1 : 1), T(1.0 - beta1), T(beta2), T(1.0 - beta2),
                                             T(weight_decay), T(eps), T(decay_factor), T(lr), T(bc1[i]),
                                             T(bc2_sqrt[i]), T(rect[i])});
        },
        l2, rect[i] > 0.0);
  });
}

template <class Loop>
void fused_asgd(TensorList self, TensorList grads, TensorList axs, TensorList mus, TensorList etas,
                             double lambd, double weight_decay, bool maximize) {
  const char* op = "_fused_asgd_";
  Operands ops(op, self);
  const int g = ops.add("grads", grads, false);
  const int ax = ops.add("axs", axs, true);
  check_count(op, "mus", mus, self.size());
  check_count(op, "etas", etas, self.size());
  std::vector<double> eta(self.size()), mu(self.size());
  for (size_t i = 0; i < self.size(); ++i) {
    TL_CHECK(mus[i].defined() && mus[i].numel() == 1 && etas[i].defined() && etas[i].numel() == 1, op,
             ": mus[", i, "] and etas[", i, "] must be tensors with one element");
    eta[i] = etas[i].item().to_double();
    mu[i] = mus[i].item().to_double();
  }
  Loop::for_each_chunk(ops, [&](int64_t i, int64_t begin, int64_t end) {
    dispatch_floating_types(ops.param(i).dtype(), op, [&](auto tag) {
      using scalar_t = typename decltype(tag)::type;
      using T = opmath_t<scalar_t>;
      with_flags(
          [&](auto wd, auto average) {
            const FusedAsgdMath<T, wd, average> m{T(maximize ? -1 : 1), T(weight_decay), T(1.0 - lambd * eta[i]),
                                                  T(eta[i]), T(mu[i])};
            Loop::template update_loop<false, true, false, false>(
                FirstStates<std::decay_t<decltype(m)>, 1>{m}, begin, end, T(1), ops.data<scalar_t>(0, i),
                ops.data<scalar_t>(g, i), ops.data<scalar_t>(ax, i), static_cast<scalar_t*>(nullptr),
                static_cast<scalar_t*>(nullptr));
          },
          weight_decay != 0.0, mu[i] != 1.0);
    });
  });
  ops.finish();
}

template <class Loop>
void fused_rprop(TensorList self, TensorList grads, TensorList prevs, TensorList step_sizes,
                              double etaminus, double etaplus, double step_size_min, double step_size_max,
                              bool maximize) {
  const char* op = "_fused_rprop_";
  Operands ops(op, self);
  const int g = ops.add("grads", grads, false);
  const int pv = ops.add("prevs", prevs, true);
  const int ss = ops.add("step_sizes", step_sizes, true);
  two_state_update<Loop>(op, ops, g, pv, ss, [&](int64_t, auto zero, const auto& run) {
    using T = decltype(zero);
    run(FusedRpropMath<T>{T(maximize ? -1 : 1), T(etaminus), T(etaplus), T(step_size_min), T(step_size_max)});
  });
}

}  // namespace tl::native::fused_optim

// The entry points of the fused optimizer ops for one device: `device` is the suffix of their
// names in native_functions.yaml (cpu, cuda) and Loop that device's loop (the Loop concept above).
// The tensor_lr overloads read lr once from its 1-element tensor.
#define TL_DEFINE_FUSED_OPTIMIZER_KERNELS(device, Loop)\
void _fused_sgd_kernel_##device##_(TensorList self, TensorList grads, TensorList momentum_buffer_list, double weight_decay,                     \
                            double momentum, double lr, double dampening, bool nesterov, bool maximize,                                         \
                            bool is_first_step, const std::optional<Tensor>& grad_scale,                                                        \
                            const std::optional<Tensor>& found_inf) {                                                                           \
  fused_optim::fused_sgd<Loop>(self, grads, momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov, maximize,                    \
                           is_first_step, grad_scale, found_inf);                                                                               \
}                                                                                                                                               \
void _fused_adam_kernel_##device##_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,                             \
                             TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,                                       \
                             double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,                                        \
                             const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                                 \
  fused_optim::fused_adam_impl<Loop>("_fused_adam_", false, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,                                \
                                 state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale,                               \
                                 found_inf);                                                                                                    \
}                                                                                                                                               \
void _fused_adamw_kernel_##device##_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,                            \
                              TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,                                      \
                              double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,                                       \
                              const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                                \
  fused_optim::fused_adam_impl<Loop>("_fused_adamw_", true, self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,                                \
                                 state_steps, lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale,                               \
                                 found_inf);                                                                                                    \
}                                                                                                                                               \
void _fused_adagrad_kernel_##device##_(TensorList self, TensorList grads, TensorList state_sums, TensorList state_steps,                        \
                                double lr, double lr_decay, double weight_decay, double eps, bool maximize,                                     \
                                const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                              \
  fused_optim::fused_adagrad<Loop>(self, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps, maximize,                             \
                               grad_scale, found_inf);                                                                                          \
}                                                                                                                                               \
void _fused_rmsprop_kernel_##device##_(TensorList self, TensorList grads, TensorList square_avgs, TensorList grad_avgs,                         \
                                TensorList momentum_buffer_list, double lr, double alpha, double eps,                                           \
                                double weight_decay, double momentum, bool centered, bool maximize,                                             \
                                const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                              \
  fused_optim::fused_rmsprop<Loop>(self, grads, square_avgs, grad_avgs, momentum_buffer_list, lr, alpha, eps, weight_decay,                     \
                               momentum, centered, maximize, grad_scale, found_inf);                                                            \
}                                                                                                                                               \
void _fused_adadelta_kernel_##device##_(TensorList self, TensorList grads, TensorList square_avgs, TensorList acc_deltas,                       \
                                 double lr, double rho, double eps, double weight_decay, bool maximize) {                                       \
  fused_optim::fused_adadelta<Loop>(self, grads, square_avgs, acc_deltas, lr, rho, eps, weight_decay, maximize);                                \
}                                                                                                                                               \
void _fused_adamax_kernel_##device##_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_infs,                              \
                               TensorList state_steps, double lr, double beta1, double beta2, double eps,                                       \
                               double weight_decay, bool maximize) {                                                                            \
  fused_optim::fused_adamax<Loop>(self, grads, exp_avgs, exp_infs, state_steps, lr, beta1, beta2, eps, weight_decay, maximize);                 \
}                                                                                                                                               \
void _fused_nadam_kernel_##device##_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,                            \
                              TensorList mu_products, TensorList state_steps, double lr, double beta1, double beta2,                            \
                              double eps, double weight_decay, double momentum_decay, bool decoupled_weight_decay,                              \
                              bool maximize) {                                                                                                  \
  fused_optim::fused_nadam<Loop>(self, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, lr, beta1, beta2, eps,                           \
                             weight_decay, momentum_decay, decoupled_weight_decay, maximize);                                                   \
}                                                                                                                                               \
void _fused_radam_kernel_##device##_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,                            \
                              TensorList state_steps, double lr, double beta1, double beta2, double eps,                                        \
                              double weight_decay, bool decoupled_weight_decay, bool maximize) {                                                \
  fused_optim::fused_radam<Loop>(self, grads, exp_avgs, exp_avg_sqs, state_steps, lr, beta1, beta2, eps, weight_decay,                          \
                             decoupled_weight_decay, maximize);                                                                                 \
}                                                                                                                                               \
void _fused_asgd_kernel_##device##_(TensorList self, TensorList grads, TensorList axs, TensorList mus, TensorList etas,                         \
                             double lambd, double weight_decay, bool maximize) {                                                                \
  fused_optim::fused_asgd<Loop>(self, grads, axs, mus, etas, lambd, weight_decay, maximize);                                                    \
}                                                                                                                                               \
void _fused_rprop_kernel_##device##_(TensorList self, TensorList grads, TensorList prevs, TensorList step_sizes,                                \
                              double etaminus, double etaplus, double step_size_min, double step_size_max,                                      \
                              bool maximize) {                                                                                                  \
  fused_optim::fused_rprop<Loop>(self, grads, prevs, step_sizes, etaminus, etaplus, step_size_min, step_size_max, maximize);                    \
}                                                                                                                                               \
void _fused_sgd_kernel_##device##_(TensorList self, TensorList grads, TensorList momentum_buffer_list, double weight_decay,                     \
                            double momentum, const Tensor& lr, double dampening, bool nesterov, bool maximize,                                  \
                            bool is_first_step, const std::optional<Tensor>& grad_scale,                                                        \
                            const std::optional<Tensor>& found_inf) {                                                                           \
  _fused_sgd_kernel_##device##_(self, grads, momentum_buffer_list, weight_decay, momentum, fused_optim::lr_value("_fused_sgd_", lr),            \
                         dampening, nesterov, maximize, is_first_step, grad_scale, found_inf);                                                  \
}                                                                                                                                               \
void _fused_adam_kernel_##device##_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,                             \
                             TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, double beta1,                                \
                             double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,                                        \
                             const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                                 \
  _fused_adam_kernel_##device##_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, fused_optim::lr_value("_fused_adam_", lr),   \
                          beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);                                           \
}                                                                                                                                               \
void _fused_adamw_kernel_##device##_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,                            \
                              TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, double beta1,                               \
                              double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,                                       \
                              const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                                \
  _fused_adamw_kernel_##device##_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, fused_optim::lr_value("_fused_adamw_", lr), \
                          beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf);                                           \
}                                                                                                                                               \
void _fused_adagrad_kernel_##device##_(TensorList self, TensorList grads, TensorList state_sums, TensorList state_steps,                        \
                                const Tensor& lr, double lr_decay, double weight_decay, double eps, bool maximize,                              \
                                const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                              \
  _fused_adagrad_kernel_##device##_(self, grads, state_sums, state_steps, fused_optim::lr_value("_fused_adagrad_", lr), lr_decay,               \
                             weight_decay, eps, maximize, grad_scale, found_inf);                                                               \
}
