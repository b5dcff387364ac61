// softmax and log_softmax (forward and backward) along one dimension. A tensor is viewed as
// (outer, D, inner) rows of D elements `inner` apart; rows are independent, and OpenMP splits them
// when the work is large enough. exp is the vectorisable one (Note [Vectorisable exp]); float
// rows that are contiguous go to the vector math layer's fused row kernel.
// Half/BFloat16 run in float.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "aten/core/Tensor.h"
#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/Parallel.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cpu/VecMath.h"
#include "generated/ops/_log_softmax.h"
#include "generated/ops/_log_softmax_backward_data_native.h"
#include "generated/ops/_log_softmax_native.h"
#include "generated/ops/_softmax.h"
#include "generated/ops/_softmax_backward_data_native.h"
#include "generated/ops/_softmax_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/log_softmax.h"
#include "generated/ops/log_softmax_native.h"
#include "generated/ops/softmax.h"
#include "generated/ops/softmax_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

struct Rows {
  int64_t outer = 1, D = 1, inner = 1;
};

Rows rows_of(IntArrayRef sizes, int64_t dim) {
  Rows r;
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    if (i < dim) r.outer *= sizes[i];
    else if (i == dim) r.D = sizes[i];
    else r.inner *= sizes[i];
  }
  return r;
}

// Rows of the (outer, D, inner) view go to threads as blocks: with inner == 1 a block is a run of
// contiguous rows; otherwise it is up to kBlock neighbouring columns of one outer index, which the
// loops walk together so that the innermost loop is contiguous (and vectorises).
constexpr int64_t kBlock = 256;

// f(first element, number of columns n, column stride) for every block; a column is one row of D
// elements, `stride` apart (inner), the n columns of a block being adjacent.
template <typename F>
void for_each_block(const Rows& r, F&& f) {
  const int64_t blocks_per_outer = (r.inner + kBlock - 1) / kBlock, blocks = r.outer * blocks_per_outer;
  const bool par = worth_parallel(blocks, r.outer * r.inner * r.D);
  if (r.inner == 1) {
#pragma omp parallel for schedule(static) if (par)
    for (int64_t k = 0; k < r.outer; ++k) f(k * r.D, int64_t(1), int64_t(1));
    return;
  }
#pragma omp parallel for schedule(static) if (par)
  for (int64_t k = 0; k < blocks; ++k) {
    const int64_t o = k / blocks_per_outer, i0 = (k % blocks_per_outer) * kBlock;
    f(o * r.D * r.inner + i0, std::min(kBlock, r.inner - i0), r.inner);
  }
}

void check_float(const Tensor& t, const char* op) {
  if (!t.is_floating_point()) dtype_not_implemented(op, t.dtype());
}

// Numerically stable: the row's maximum is subtracted before exp (a row of -inf gives NaN, as in
// PyTorch).
template <bool Log>
Tensor softmax_impl(const Tensor& self, int64_t dim, bool half_to_float, const char* op) {
  check_float(self, op);
  TL_CHECK(!half_to_float || self.dtype() == ScalarType::Half, op,
           ": conversion is supported for Half type only");
  dim = wrap_dim(dim, self.dim());
  if (low_precision(self.dtype())) {
    Tensor out = softmax_impl<Log>(self.to(ScalarType::Float), dim, false, op);
    return half_to_float ? out : out.to(self.dtype());
  }
  Tensor x = self.contiguous();
  Tensor out = empty_tensor(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  const Rows r = rows_of(self.sizes(), dim);
  dispatch_floating_types(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* xp = x.data_ptr<T>();
      T* yp = out.data_ptr<T>();
      const int64_t D = r.D;
      for_each_block(r, [&](int64_t base, int64_t n, int64_t stride) {
        const T* x = xp + base;
        T* y = yp + base;
        if constexpr (std::is_same_v<T, float>) {
          if (stride == 1) return vecmath::softmax_row(x, y, D, Log);
        }
        // Per column: m = max, then sum of exp(x - m), then log(sum) or 1 / sum.
        T m[kBlock], sum[kBlock];
        for (int64_t i = 0; i < n; ++i) m[i] = -std::numeric_limits<T>::infinity(), sum[i] = 0;
        if (stride == 1) {  // one contiguous row (n == 1): vectorise along it
          T mx = m[0], acc = 0;
#pragma omp simd reduction(max : mx)
          for (int64_t d = 0; d < D; ++d) mx = x[d] > mx ? x[d] : mx;
#pragma omp simd reduction(+ : acc)
          for (int64_t d = 0; d < D; ++d) {
            const T e = ew::exp(x[d] - mx);
            if constexpr (!Log) y[d] = e;
            acc += e;
          }
          m[0] = mx;
          sum[0] = acc;
        } else {
          for (int64_t d = 0; d < D; ++d)
            for (int64_t i = 0; i < n; ++i) m[i] = x[d * stride + i] > m[i] ? x[d * stride + i] : m[i];
          for (int64_t d = 0; d < D; ++d)
            for (int64_t i = 0; i < n; ++i) {
              const T e = ew::exp(x[d * stride + i] - m[i]);
              if constexpr (!Log) y[d * stride + i] = e;
              sum[i] += e;
            }
        }
        // A row of -inf has m = -inf and gives NaN, as in PyTorch. log_softmax is (x - m) - log(sum):
        // x - (m + log(sum)) would cancel near the maximum.
        for (int64_t i = 0; i < n; ++i) sum[i] = Log ? std::log(sum[i]) : T(1) / sum[i];
        for (int64_t d = 0; d < D; ++d) {
          const T* xr = x + d * stride;
          T* yr = y + d * stride;
          if constexpr (Log) {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - m[i]) - sum[i];
          } else {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) yr[i] *= sum[i];
          }
        }
      });
    }
  });
  return out;
}

// softmax: gi = y * (go - sum(go * y));  log_softmax: gi = go - exp(y) * sum(go). The sums
// accumulate in double: a float32 sum over a long row loses digits that exp(y) then magnifies.
// The result has grad_output's dtype; PyTorch's CPU kernel also ignores `input_dtype` (it only
// matters to CUDA's half-to-float softmax, which torchlite's autograd never asks for).
template <bool Log>
Tensor softmax_backward_impl(const Tensor& grad_output, const Tensor& output, int64_t dim, const char* op) {
  TL_CHECK(grad_output.sizes().equals(output.sizes()), op, ": grad_output and output must have the same size");
  check_float(output, op);
  dim = wrap_dim(dim, output.dim());
  if (low_precision(grad_output.dtype()) || low_precision(output.dtype())) {
    return softmax_backward_impl<Log>(grad_output.to(ScalarType::Float), output.to(ScalarType::Float), dim, op)
        .to(grad_output.dtype());
  }
  Tensor go = grad_output.to(output.dtype()).contiguous(), y = output.contiguous();
  Tensor gi = empty_tensor(output.sizes(), output.options());
  if (gi.numel() > 0) {
    const Rows r = rows_of(output.sizes(), dim);
    dispatch_floating_types(y.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        const T* gp = go.data_ptr<T>();
        const T* yp = y.data_ptr<T>();
        T* ip = gi.data_ptr<T>();
        const int64_t D = r.D;
        for_each_block(r, [&](int64_t base, int64_t n, int64_t stride) {
          const T *g = gp + base, *y = yp + base;
          T* o = ip + base;
          double sum[kBlock];
          for (int64_t i = 0; i < n; ++i) sum[i] = 0;
          if (stride == 1) {
            double acc = 0;
#pragma omp simd reduction(+ : acc)
            for (int64_t d = 0; d < D; ++d) acc += Log ? double(g[d]) : double(g[d]) * y[d];
            if constexpr (Log && std::is_same_v<T, float>) {
              // exp(y) with the vector math layer's exp, built for this CPU's full vector width
              // (this file's loops are not; 512x1000: 400 -> 325 us on one core), then go - e * sum.
              vecmath::unary(vecmath::Unary::Exp, y, o, D);
              const float s = static_cast<float>(acc);
#pragma omp simd
              for (int64_t d = 0; d < D; ++d) o[d] = g[d] - o[d] * s;
              return;
            }
            sum[0] = acc;
          } else {
            for (int64_t d = 0; d < D; ++d)
              for (int64_t i = 0; i < n; ++i)
                sum[i] += Log ? double(g[d * stride + i]) : double(g[d * stride + i]) * y[d * stride + i];
          }
          for (int64_t d = 0; d < D; ++d) {
            const T *gr = g + d * stride, *yr = y + d * stride;
            T* orow = o + d * stride;
#pragma omp simd
            for (int64_t i = 0; i < n; ++i)
              orow[i] = Log ? gr[i] - ew::exp(yr[i]) * T(sum[i]) : yr[i] * (gr[i] - T(sum[i]));
          }
        });
      }
    });
  }
  return gi.dtype() == grad_output.dtype() ? gi : gi.to(grad_output.dtype());
}

Tensor converted(const Tensor& self, std::optional<ScalarType> dtype) {
  return dtype && *dtype != self.dtype() ? self.to(*dtype) : self;
}

}  // namespace

Tensor softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_impl<false>(self, dim, half_to_float, "softmax");
}

Tensor log_softmax_cpu(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_impl<true>(self, dim, half_to_float, "log_softmax");
}

Tensor softmax_backward_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType /*input_dtype*/) {
  return softmax_backward_impl<false>(grad_output, output, dim, "softmax_backward");
}

Tensor log_softmax_backward_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                ScalarType /*input_dtype*/) {
  return softmax_backward_impl<true>(grad_output, output, dim, "log_softmax_backward");
}

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tl::_softmax(converted(self, dtype), dim, false);
}

Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tl::_log_softmax(converted(self, dtype), dim, false);
}

}  // namespace tl::native
