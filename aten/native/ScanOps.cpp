// Cumulative sum, product, logsumexp, max and min along a dim. The input is viewed as [outer, n, inner] (contiguous):
// for inner == 1 each row is one running accumulator; otherwise step i adds row i to row i-1
// over the whole inner run, a contiguous loop the compiler vectorises. OpenMP splits outer.
#include <cmath>
#include <tuple>

#include "aten/native/ShapeUtils.h"
#include "aten/native/Parallel.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/cummax.h"
#include "generated/ops/cummax_native.h"
#include "generated/ops/cummin.h"
#include "generated/ops/cummin_native.h"
#include "generated/ops/cumprod_native.h"
#include "generated/ops/cumsum_native.h"
#include "generated/ops/logcumsumexp.h"
#include "generated/ops/logcumsumexp_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {


// PyTorch's rule: an explicit dtype wins, then out's dtype, then integral inputs scan in Long.
ScalarType scan_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (dtype) return *dtype;
  if (out.defined()) return out.dtype();
  // Complex keeps its dtype (and meets the kernel's dtype error) rather than becoming Long.
  return is_floating_point(self.dtype()) || is_complex(self.dtype()) ? self.dtype() : ScalarType::Long;
}

template <typename T, typename Op>
void scan_kernel(const T* src, T* dst, int64_t outer, int64_t n, int64_t inner, Op op) {
  using acc_t = opmath_t<T>;
#pragma omp parallel for schedule(static) if (worth_parallel(outer, outer * n * inner))
  for (int64_t o = 0; o < outer; ++o) {
    const T* s = src + o * n * inner;
    T* d = dst + o * n * inner;
    if (inner == 1) {
      acc_t acc = n > 0 ? static_cast<acc_t>(s[0]) : acc_t();
      if (n > 0) d[0] = static_cast<T>(acc);
      for (int64_t i = 1; i < n; ++i) {
        acc = op(acc, static_cast<acc_t>(s[i]));
        d[i] = static_cast<T>(acc);
      }
      continue;
    }
    if (n > 0 && d != s) std::copy(s, s + inner, d);
    for (int64_t i = 1; i < n; ++i) {
      const T* si = s + i * inner;
      const T* prev = d + (i - 1) * inner;
      T* di = d + i * inner;
      for (int64_t j = 0; j < inner; ++j) {
        di[j] = static_cast<T>(op(static_cast<acc_t>(prev[j]), static_cast<acc_t>(si[j])));
      }
    }
  }
}

template <typename Op>
Tensor scan_out(const char* what, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out,
                Op op) {
  const ScalarType dt = scan_dtype(self, dtype, out);
  const int64_t d = wrap_dim(dim, self.dim());
  // Scanning in place (x aliases the result) is safe: step i reads element i before writing it.
  Tensor x = self.to(dt).contiguous();
  const bool direct = out.defined() && out.dtype() == dt && out.sizes().equals(self.sizes()) && out.is_contiguous();
  Tensor res = direct ? out : empty_tensor(self.sizes(), TensorOptions(dt, self.device()));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= self.sizes()[i];
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  dispatch_numeric_types(dt, what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    scan_kernel(x.data_ptr<T>(), res.data_ptr<T>(), outer, n, inner, op);
  });
  if (!out.defined() || direct) return direct ? out : res;
  TL_CHECK(out.dtype() == dt, "Expected out tensor to have dtype ", dtype_name(dt), ", but got ",
           dtype_name(out.dtype()), " instead");
  resize_out(out, res.sizes());
  out.copy_(res);
  return out;
}

// [outer, n, inner] like scan_kernel, keeping the index of the running extreme: a tie moves it
// forward and a NaN, once seen, stays the extreme (x >= best, as PyTorch's cummax).
template <typename T, bool IsMax>
void cum_extreme_kernel(const T* src, T* vals, int64_t* idx, int64_t outer, int64_t n, int64_t inner) {
#pragma omp parallel for schedule(static) if (worth_parallel(outer, outer * n * inner))
  for (int64_t o = 0; o < outer; ++o) {
    const T* s = src + o * n * inner;
    T* v = vals + o * n * inner;
    int64_t* ix = idx + o * n * inner;
    for (int64_t j = 0; j < inner && n > 0; ++j) {
      v[j] = s[j];
      ix[j] = 0;
    }
    for (int64_t i = 1; i < n; ++i) {
      for (int64_t j = 0; j < inner; ++j) {
        const auto x = static_cast<opmath_t<T>>(s[i * inner + j]);
        const auto best = static_cast<opmath_t<T>>(v[(i - 1) * inner + j]);
        const bool take = x != x || (best == best && (IsMax ? x >= best : x <= best));
        v[i * inner + j] = take ? s[i * inner + j] : v[(i - 1) * inner + j];
        ix[i * inner + j] = take ? i : ix[(i - 1) * inner + j];
      }
    }
  }
}

template <bool IsMax>
std::tuple<Tensor, Tensor> cum_extreme(const char* what, const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor x = self.contiguous();
  Tensor values = empty_tensor(self.sizes(), self.options());
  Tensor indices = empty_tensor(self.sizes(), TensorOptions(ScalarType::Long, self.device()));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= self.sizes()[i];
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  dispatch_all_types(self.dtype(), what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cum_extreme_kernel<T, IsMax>(x.data_ptr<T>(), values.data_ptr<T>(), indices.data_ptr<int64_t>(), outer, n, inner);
  });
  return {values, indices};
}

}  // namespace

Tensor cumsum_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  return scan_out("cumsum", self, dim, dtype, out, [](auto a, auto b) { return a + b; });
}

Tensor cumprod_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  return scan_out("cumprod", self, dim, dtype, out, [](auto a, auto b) { return a * b; });
}

Tensor logcumsumexp_cpu(const Tensor& self, int64_t dim) {
  TL_CHECK(is_floating_point(self.dtype()), "\"logcumsumexp_out_cpu\" not implemented for '",
           scalar_type_cpp_name(self.dtype()), "'");
  return scan_out("logcumsumexp", self, dim, std::nullopt, Tensor(), [](auto a, auto b) -> decltype(a) {
    // log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities would give inf - inf.
    if (a == b && std::isinf(a)) return a;
    return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
  });
}

std::tuple<Tensor, Tensor> cummax_cpu(const Tensor& self, int64_t dim) { return cum_extreme<true>("cummax", self, dim); }
std::tuple<Tensor, Tensor> cummin_cpu(const Tensor& self, int64_t dim) { return cum_extreme<false>("cummin", self, dim); }

}  // namespace tl::native
