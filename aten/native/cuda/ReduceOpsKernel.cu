// CUDA kernels of sum/mean/amax/amin: the CPU kernels' checks, dtypes and finish_reduce
// (aten/native/ReduceOps.h) with gpu_reduce_inner (Note [CUDA reductions]): reduced dims
// are moved last and made contiguous, rows are written densely into the keepdim-shaped
// contiguous result, whose memory order is that of the kept dims.
#include <limits>
#include <vector>

#include "aten/native/ReduceOps.h"
#include "aten/native/cuda/Reduce.cuh"
#include "generated/NativeFunctions.h"

namespace tl::native {

namespace {

// Accumulators as on the CPU (cpu/ReduceEngine.h): float sums in double, half types in float.
template <typename T> struct CudaSumAcc { using type = opmath_t<T>; };
template <> struct CudaSumAcc<float> { using type = double; };

template <typename T>
struct CudaSumOps {
  using acc_t = typename CudaSumAcc<T>::type;
  using out_t = T;
  acc_t scale;  // mean: 1/N applied once, in acc_t
  TL_HOST_DEVICE acc_t identity() const { return acc_t(0); }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x) const { return a + static_cast<acc_t>(x); }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return a + b; }
  TL_HOST_DEVICE out_t project(acc_t a) const {
    if constexpr (std::is_same_v<T, bool>) return a != acc_t(0);
    else return static_cast<T>(a * scale);
  }
};

// NaN propagates, as torch.amax/amin.
template <typename T, bool IsMax>
struct CudaMinMaxOps {
  using acc_t = opmath_t<T>;
  using out_t = T;
  acc_t init;  // -inf / lowest for max, +inf / max for min (computed on the host)
  TL_HOST_DEVICE acc_t identity() const { return init; }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T xv) const {
    acc_t x = static_cast<acc_t>(xv);
    return ((IsMax ? (x > a) : (x < a)) || (x != x)) ? x : a;
  }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (a != a) return a;
    if (IsMax) return (b > a || b != b) ? b : a;
    return (b < a || b != b) ? b : a;
  }
  TL_HOST_DEVICE out_t project(acc_t a) const { return static_cast<T>(a); }
};

// `self` with the masked dims last, contiguous; `inner` = the product of their sizes.
Tensor reduced_dims_last(const Tensor& self, const std::vector<bool>& mask, int64_t& inner) {
  std::vector<int64_t> perm;
  inner = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (!mask[d]) perm.push_back(d);
  for (int64_t d = 0; d < self.dim(); ++d)
    if (mask[d]) {
      perm.push_back(d);
      inner *= self.size(d);
    }
  return self.permute(perm).contiguous();
}

Tensor cuda_cast_to(const Tensor& t, ScalarType dt) { return t.dtype() == dt ? t : t.to(dt); }

Tensor sum_like_cuda(const char* name, const Tensor& self, const std::vector<bool>& mask, ScalarType rt,
                     double scale) {
  int64_t inner = 0;
  Tensor x = reduced_dims_last(cuda_cast_to(self, rt), mask, inner);
  Tensor res = empty_reduce_result(self, mask, rt);
  dispatch_all_types(rt, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    CudaSumOps<T> ops;
    ops.scale = static_cast<typename CudaSumOps<T>::acc_t>(scale);
    gpu_reduce_inner<T>(x, res, inner, ops);
  });
  return res;
}

template <bool IsMax>
Tensor minmax_values_cuda(const char* name, const Tensor& self, const std::vector<bool>& mask) {
  int64_t inner = 0;
  Tensor x = reduced_dims_last(self, mask, inner);
  Tensor res = empty_reduce_result(self, mask, self.dtype());
  dispatch_all_types(self.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using acc_t = opmath_t<T>;
    CudaMinMaxOps<T, IsMax> ops;
    if constexpr (std::numeric_limits<acc_t>::has_infinity)
      ops.init = IsMax ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else
      ops.init = IsMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
    gpu_reduce_inner<T>(x, res, inner, ops);
  });
  return res;
}

}  // namespace

Tensor sum_out_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                    const Tensor& out) {
  ScalarType rt = sum_result_dtype(self, dtype, out);
  check_out_dtype(out, rt, "sum");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  return finish_reduce(sum_like_cuda("sum", self, mask, rt, 1.0), mask, keepdim, out);
}

Tensor mean_out_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                     const Tensor& out) {
  ScalarType rt = dtype ? *dtype : (out.defined() ? out.dtype() : self.dtype());
  TL_CHECK(is_floating_point(rt),
           "mean(): could not infer output dtype. ", dtype ? "Optional" : "Input",
           " dtype must be either a floating point or complex dtype. Got: ", dtype_name(rt));
  check_out_dtype(out, rt, "mean");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  int64_t n = 1;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) n *= self.sizes()[d];
  double scale = n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
  return finish_reduce(sum_like_cuda("mean", self, mask, rt, scale), mask, keepdim, out);
}

Tensor amax_out_cuda(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  std::vector<bool> mask = make_dim_mask(std::optional<IntArrayRef>(dim), self.dim());
  check_nonempty_reduction(self, mask, !dim.empty(), "amax");
  TL_CHECK(!out.defined() || out.dtype() == self.dtype(), "Expected the dtype for input and out to match, but got ",
           dtype_name(self.dtype()), " for input's dtype and ", dtype_name(out.dtype()), " for out's dtype.");
  return finish_reduce(minmax_values_cuda<true>("amax", self, mask), mask, keepdim, out);
}

Tensor amin_out_cuda(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  std::vector<bool> mask = make_dim_mask(std::optional<IntArrayRef>(dim), self.dim());
  check_nonempty_reduction(self, mask, !dim.empty(), "amin");
  TL_CHECK(!out.defined() || out.dtype() == self.dtype(), "Expected the dtype for input and out to match, but got ",
           dtype_name(self.dtype()), " for input's dtype and ", dtype_name(out.dtype()), " for out's dtype.");
  return finish_reduce(minmax_values_cuda<false>("amin", self, mask), mask, keepdim, out);
}

}  // namespace tl::native
