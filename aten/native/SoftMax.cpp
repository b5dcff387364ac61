// softmax and log_softmax (forward and backward) along one dimension. A tensor is viewed as
// (outer, D, inner) rows of D elements `inner` apart; rows are independent, and OpenMP splits them
// when the work is large enough. Half/BFloat16 run in float.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "generated/Functions.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

namespace {

constexpr int64_t kGrain = 1 << 15;  // elements below which one thread does all the rows

bool low_precision(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

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

// f(offset of the row's first element) for every row.
template <typename F>
void for_each_row(const Rows& r, F&& f) {
  const int64_t rows = r.outer * r.inner;
#pragma omp parallel for schedule(static) if (rows > 1 && rows * r.D >= kGrain && omp_get_max_threads() > 1)
  for (int64_t k = 0; k < rows; ++k) f((k / r.inner) * r.D * r.inner + k % r.inner);
}

void check_float(const Tensor& t, const char* op) {
  TL_CHECK(t.is_floating_point(), "\"", op, "\" not implemented for '", dtype_name(t.dtype()), "'");
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
      const int64_t D = r.D, s = r.inner;
      for_each_row(r, [&](int64_t base) {
        const T* xr = xp + base;
        T* yr = yp + base;
        T m = -std::numeric_limits<T>::infinity();
        for (int64_t d = 0; d < D; ++d) m = std::max(m, xr[d * s]);
        T sum = 0;
        for (int64_t d = 0; d < D; ++d) {
          const T e = std::exp(xr[d * s] - m);
          if constexpr (!Log) yr[d * s] = e;
          sum += e;
        }
        if constexpr (Log) {
          const T shift = m + std::log(sum);
          for (int64_t d = 0; d < D; ++d) yr[d * s] = xr[d * s] - shift;
        } else {
          const T inv = T(1) / sum;
          for (int64_t d = 0; d < D; ++d) yr[d * s] *= inv;
        }
      });
    }
  });
  return out;
}

// softmax: gi = y * (go - sum(go * y));  log_softmax: gi = go - exp(y) * sum(go).
template <bool Log>
Tensor softmax_backward_impl(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                             const char* op) {
  TL_CHECK(grad_output.sizes().equals(output.sizes()), op, ": grad_output and output must have the same size");
  check_float(output, op);
  dim = wrap_dim(dim, output.dim());
  if (low_precision(grad_output.dtype()) || low_precision(output.dtype())) {
    return softmax_backward_impl<Log>(grad_output.to(ScalarType::Float), output.to(ScalarType::Float), dim,
                                      ScalarType::Float, op)
        .to(input_dtype);
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
        const int64_t D = r.D, s = r.inner;
        for_each_row(r, [&](int64_t base) {
          const T *g = gp + base, *yr = yp + base;
          T* o = ip + base;
          T sum = 0;
          for (int64_t d = 0; d < D; ++d) sum += Log ? g[d * s] : g[d * s] * yr[d * s];
          for (int64_t d = 0; d < D; ++d)
            o[d * s] = Log ? g[d * s] - std::exp(yr[d * s]) * sum : yr[d * s] * (g[d * s] - sum);
        });
      }
    });
  }
  return gi.dtype() == input_dtype ? gi : gi.to(input_dtype);
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

Tensor softmax_backward_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  return softmax_backward_impl<false>(grad_output, output, dim, input_dtype, "softmax_backward");
}

Tensor log_softmax_backward_cpu(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                ScalarType input_dtype) {
  return softmax_backward_impl<true>(grad_output, output, dim, input_dtype, "log_softmax_backward");
}

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tl::_softmax(converted(self, dtype), dim, false);
}

Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return tl::_log_softmax(converted(self, dtype), dim, false);
}

}  // namespace tl::native
