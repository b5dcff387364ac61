// CPU kernels of the multi-tensor optimizer ops (Note [Fused optimizer kernels] in
// native_functions.yaml): the _fused_* optimizers (their device-independent part is
// FusedOptimizers.h) and the _foreach_ helpers the optimizers use (_foreach_add_, _foreach_mul_,
// _foreach_zero_, _foreach_norm).
//
// Every parameter and its state are read and written once per step: the element math of
// FusedOptimizerMath.h runs over contiguous chunks. All parameters of one call are cut into
// chunks of about kGrain elements and the chunks run in one OpenMP loop, so a call with many
// small parameters and a call with one big one both use every thread.
//
// Operands must be defined, have their parameter's shape and dtype, and live on its device.
// A non-contiguous operand is computed on a contiguous copy, copied back afterwards.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/FusedOptimizers.h"
#include "aten/native/Parallel.h"
#include "generated/ops/_foreach_add_native.h"
#include "generated/ops/_foreach_mul_native.h"
#include "generated/ops/_foreach_norm_native.h"
#include "generated/ops/_foreach_zero_native.h"
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
#include "generated/ops/add.h"
#include "generated/ops/add_native.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/fill.h"
#include "generated/ops/mul.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {

constexpr int64_t kGrain = 32768;

// The CPU's Loop (FusedOptimizers.h).
struct CpuLoop {
  struct Chunk {
    int64_t index, begin, end;
  };

  // Runs fn(parameter index, begin, end) over chunks covering every element of every parameter.
  template <typename Fn>
  static void for_each_chunk(const fused_optim::Operands& ops, const Fn& fn) {
    ops.check_no_overlap();
    std::vector<Chunk> chunks;
    int64_t total = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      int64_t n = ops.param(i).numel();
      total += n;
      for (int64_t b = 0; b < n; b += kGrain) chunks.push_back({static_cast<int64_t>(i), b, std::min(n, b + kGrain)});
    }
    const int64_t nchunks = static_cast<int64_t>(chunks.size());
    const bool parallel = worth_parallel(nchunks, total, kGrain);
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t c = 0; c < nchunks; ++c) fn(chunks[c].index, chunks[c].begin, chunks[c].end);
  }

  // The element loop of every optimizer (fused_optim::update_element).
  template <bool kUnscale, bool kUse0, bool kUse1, bool kUse2, typename scalar_t, typename T, typename Fn>
  static void update_loop(const Fn& fn, int64_t begin, int64_t end, T scale, scalar_t* __restrict__ p,
                          scalar_t* __restrict__ g, scalar_t* __restrict__ s0, scalar_t* __restrict__ s1,
                          scalar_t* __restrict__ s2) {
    for (int64_t j = begin; j < end; ++j)
      fused_optim::update_element<kUnscale, kUse0, kUse1, kUse2>(fn, j, scale, p, g, s0, s1, s2);
  }
};

}  // namespace

TL_DEFINE_FUSED_OPTIMIZER_KERNELS(cpu, CpuLoop)

// ---- _foreach helpers ---------------------------------------------------------------------------

namespace {

// t = f(t) elementwise for a contiguous floating or int64 tensor; false when t needs the general op.
template <typename F>
bool foreach_fast(const Tensor& t, const F& f) {
  if (!t.is_contiguous() || !t.is_cpu()) return false;
  const ScalarType st = t.dtype();
  if (st != ScalarType::Float && st != ScalarType::Double && st != ScalarType::Long) return false;
  const int64_t n = t.numel();
  if (n > kGrain) return false;  // big tensors: the TensorIterator ops run them in parallel
  auto run = [&](auto* p) {
    for (int64_t j = 0; j < n; ++j) p[j] = f(p[j]);
  };
  if (st == ScalarType::Float) run(static_cast<float*>(t.data_ptr()));
  else if (st == ScalarType::Double) run(static_cast<double*>(t.data_ptr()));
  else run(static_cast<int64_t*>(t.data_ptr()));
  return true;
}

}  // namespace

void _foreach_add_scalar_kernel_cpu_(TensorList self, const Scalar& scalar) {
  for (const Tensor& t : self) {
    TL_CHECK(t.defined(), "_foreach_add_: undefined tensor in the list");
    const bool fast = !(scalar.is_floating_point() && t.dtype() == ScalarType::Long) &&
                      foreach_fast(t, [&](auto v) {
                        using V = decltype(v);
                        if constexpr (std::is_integral_v<V>) return static_cast<V>(v + scalar.to_long());
                        else return static_cast<V>(v + static_cast<V>(scalar.to_double()));
                      });
    if (!fast) ops::add__Scalar::redispatch(t, scalar, Scalar(int64_t(1)));
  }
}

void _foreach_mul_scalar_kernel_cpu_(TensorList self, const Scalar& scalar) {
  for (const Tensor& t : self) {
    TL_CHECK(t.defined(), "_foreach_mul_: undefined tensor in the list");
    const bool fast = !(scalar.is_floating_point() && t.dtype() == ScalarType::Long) &&
                      foreach_fast(t, [&](auto v) {
                        using V = decltype(v);
                        if constexpr (std::is_integral_v<V>) return static_cast<V>(v * scalar.to_long());
                        else return static_cast<V>(v * static_cast<V>(scalar.to_double()));
                      });
    if (!fast) ops::mul__Scalar::redispatch(t, scalar);
  }
}

void _foreach_zero_kernel_cpu_(TensorList self) {
  for (const Tensor& t : self) {
    TL_CHECK(t.defined(), "_foreach_zero_: undefined tensor in the list");
    ops::zero_::redispatch(t);
  }
}

std::vector<Tensor> _foreach_norm_kernel_cpu(TensorList self, const Scalar& ord, std::optional<ScalarType> dtype) {
  const double p = ord.to_double();
  TL_CHECK(p > 0.0 || std::isinf(p), "_foreach_norm: only ord > 0 or inf/-inf is supported, got ", ord);
  std::vector<Tensor> out;
  out.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor& t0 = self[i];
    TL_CHECK(t0.defined(), "_foreach_norm: self[", i, "] is an undefined tensor");
    TL_CHECK_TYPE(is_floating_point(t0.dtype()), "_foreach_norm: expected floating point tensors, but self[", i,
                  "] has dtype ", t0.dtype());
    const ScalarType out_type = dtype.value_or(t0.dtype());
    TL_CHECK_TYPE(is_floating_point(out_type), "_foreach_norm: dtype must be floating point, got ", out_type);
    Tensor t = t0;
    if (!t.is_contiguous()) {
      t = tl::empty(t0.sizes(), t0.dtype(), std::nullopt, t0.device());
      ops::copy_::redispatch(t, t0, false);
    }
    const int64_t n = t.numel();
    double result = dispatch_floating_types(t.dtype(), "_foreach_norm", [&](auto tag) {
      using scalar_t = typename decltype(tag)::type;
      const scalar_t* x = static_cast<const scalar_t*>(t.data_ptr());
      double acc = std::isinf(p) && p < 0 ? std::numeric_limits<double>::infinity() : 0.0;
      if (p == 2.0) {
#pragma omp parallel for reduction(+ : acc) if (worth_parallel(n, n, 4 * kGrain))
        for (int64_t j = 0; j < n; ++j) {
          const double v = static_cast<double>(x[j]);
          acc += v * v;
        }
        return std::sqrt(acc);
      }
      if (p == 1.0) {
        for (int64_t j = 0; j < n; ++j) acc += std::abs(static_cast<double>(x[j]));
        return acc;
      }
      if (std::isinf(p)) {
        for (int64_t j = 0; j < n; ++j) {
          double v = std::abs(static_cast<double>(x[j]));
          if (std::isnan(v)) return v;  // max/min would drop a NaN; the norm is NaN
          acc = p > 0 ? std::max(acc, v) : std::min(acc, v);
        }
        return n == 0 && p < 0 ? 0.0 : acc;
      }
      for (int64_t j = 0; j < n; ++j) acc += std::pow(std::abs(static_cast<double>(x[j])), p);
      return std::pow(acc, 1.0 / p);
    });
    Tensor r = tl::empty({}, out_type, std::nullopt, t0.device());
    ops::fill__Scalar::redispatch(r, Scalar(result));
    out.push_back(r);
  }
  return out;
}

}  // namespace tl::native
