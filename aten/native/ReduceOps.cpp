// Device-generic reduction code: shape/dtype logic shared by every device's kernels, the
// whole-tensor composites (sum(), max(), all(), ...) written over the dim overloads, and the
// reductions composed of other operators (var/std, logsumexp, linalg_vector_norm).
#include "aten/native/ReduceOps.h"

#include <cmath>
#include <limits>

#include "aten/native/ShapeUtils.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/all.h"
#include "generated/ops/all_native.h"
#include "generated/ops/amax.h"
#include "generated/ops/amax_native.h"
#include "generated/ops/amin.h"
#include "generated/ops/amin_native.h"
#include "generated/ops/any.h"
#include "generated/ops/any_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/detach.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/eq.h"
#include "generated/ops/exp.h"
#include "generated/ops/isnan.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/linalg_vector_norm_native.h"
#include "generated/ops/log.h"
#include "generated/ops/logsumexp.h"
#include "generated/ops/logsumexp_native.h"
#include "generated/ops/max.h"
#include "generated/ops/max_native.h"
#include "generated/ops/maximum.h"
#include "generated/ops/mean.h"
#include "generated/ops/mean_native.h"
#include "generated/ops/min.h"
#include "generated/ops/min_native.h"
#include "generated/ops/minimum.h"
#include "generated/ops/mul.h"
#include "generated/ops/nansum_native.h"
#include "generated/ops/ne.h"
#include "generated/ops/pow.h"
#include "generated/ops/prod.h"
#include "generated/ops/prod_native.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/std.h"
#include "generated/ops/std_mean.h"
#include "generated/ops/std_mean_native.h"
#include "generated/ops/std_native.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/sum_native.h"
#include "generated/ops/to.h"
#include "generated/ops/var.h"
#include "generated/ops/var_mean.h"
#include "generated/ops/var_mean_native.h"
#include "generated/ops/var_native.h"
#include "generated/ops/view.h"
#include "generated/ops/where.h"

namespace tl::native {

std::vector<bool> make_dim_mask(std::optional<IntArrayRef> dims, int64_t ndim, bool empty_means_all) {
  if (!dims.has_value() || (dims->empty() && empty_means_all)) return std::vector<bool>(static_cast<size_t>(ndim), true);
  return dim_mask(*dims, ndim);
}

std::vector<bool> make_dim_mask(int64_t dim, int64_t ndim) {
  IntArrayRef d(dim);
  return make_dim_mask(std::optional<IntArrayRef>(d), ndim);
}

std::vector<int64_t> reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d]) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

Tensor empty_reduce_result(const Tensor& self, const std::vector<bool>& mask, ScalarType dtype) {
  return empty_tensor(reduced_shape(self.sizes(), mask, true), TensorOptions(dtype, self.device()));
}

Tensor finish_reduce(const Tensor& result, const std::vector<bool>& mask, bool keepdim, const Tensor& out) {
  std::vector<int64_t> shape = reduced_shape(result.sizes(), mask, keepdim);
  Tensor r = keepdim ? result : result.view(shape);
  if (!out.defined()) return r;
  if (!out.sizes().equals(shape)) out.impl()->set_sizes_contiguous(shape);
  out.copy_(r);
  return out;
}

void check_out_dtype(const Tensor& out, ScalarType expected, const char* name) {
  TL_CHECK(!out.defined() || out.dtype() == expected, name, ": Expected out tensor to have dtype ", expected,
           ", but got ", out.dtype(), " instead");
}

void check_nonempty_reduction(const Tensor& self, const std::vector<bool>& mask, bool dims_given, const char* name) {
  if (self.numel() != 0) return;
  TL_CHECK(dims_given, name,
           "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
           "with the 'dim' argument.");
  for (size_t d = 0; d < mask.size(); ++d) {
    TL_CHECK_INDEX(!(mask[d] && self.sizes()[d] == 0), name, "(): Expected reduction dim ", d,
             " to have non-zero size.");
  }
}

ScalarType sum_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (dtype) return *dtype;
  if (out.defined()) return out.dtype();
  return is_integral(self.dtype(), true) ? ScalarType::Long : self.dtype();
}

// ---- sum, mean, amax, amin: checks and shapes here, values behind the stubs ----------------

DispatchStub<void(const Tensor&, const Tensor&, const std::vector<bool>&, double)> sum_stub("sum");
ReduceStub nansum_stub("nansum");
ReduceStub amax_stub("amax");
ReduceStub amin_stub("amin");

namespace {

// The keepdim-shaped sum of self over mask, in dtype rt, times scale.
Tensor sum_values(const Tensor& self, const std::vector<bool>& mask, ScalarType rt, double scale) {
  Tensor result = empty_reduce_result(self, mask, rt);
  sum_stub(self.device().type, self.dtype() == rt ? self : self.to(rt), result, mask, scale);
  return result;
}

Tensor minmax_values(const ReduceStub& stub, const char* name, const Tensor& self, IntArrayRef dim, bool keepdim,
                     const Tensor& out) {
  std::vector<bool> mask = make_dim_mask(std::optional<IntArrayRef>(dim), self.dim());
  check_nonempty_reduction(self, mask, !dim.empty(), name);
  TL_CHECK(!out.defined() || out.dtype() == self.dtype(), "Expected the dtype for input and out to match, but got ",
           dtype_name(self.dtype()), " for input's dtype and ", dtype_name(out.dtype()), " for out's dtype.");
  Tensor result = empty_reduce_result(self, mask, self.dtype());
  stub(self.device().type, self, result, mask);
  return finish_reduce(result, mask, keepdim, out);
}

}  // namespace

Tensor sum_IntList_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                       std::optional<ScalarType> dtype, const Tensor& out) {
  ScalarType rt = sum_result_dtype(self, dtype, out);
  check_out_dtype(out, rt, "sum");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  return finish_reduce(sum_values(self, mask, rt, 1.0), mask, keepdim, out);
}

// One pass that skips NaNs. Integer inputs (no NaN) and integer result dtypes sum like sum, of
// the input with NaNs zeroed first, as PyTorch casts after dropping them.
Tensor nansum_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                  const Tensor& out) {
  ScalarType rt = sum_result_dtype(self, dtype, out);
  if (!is_floating_point(self.dtype())) return tl::sum_out(out, self, dim, keepdim, dtype);
  if (!is_floating_point(rt)) return tl::sum_out(out, tl::where(self.isnan(), Scalar(0.0), self), dim, keepdim, dtype);
  check_out_dtype(out, rt, "nansum");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  Tensor result = empty_reduce_result(self, mask, rt);
  nansum_stub(self.device().type, self.dtype() == rt ? self : self.to(rt), result, mask);
  return finish_reduce(result, mask, keepdim, out);
}

Tensor mean_out(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                const Tensor& out) {
  ScalarType rt = dtype ? *dtype : (out.defined() ? out.dtype() : self.dtype());
  TL_CHECK(is_floating_point(rt) || is_complex(rt),
           "mean(): could not infer output dtype. ", dtype ? "Optional" : "Input",
           " dtype must be either a floating point or complex dtype. Got: ", dtype_name(rt));
  check_out_dtype(out, rt, "mean");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  int64_t n = 1;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) n *= self.sizes()[d];
  double scale = n == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / static_cast<double>(n);
  return finish_reduce(sum_values(self, mask, rt, scale), mask, keepdim, out);
}

Tensor amax_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return minmax_values(amax_stub, "amax", self, dim, keepdim, out);
}

Tensor amin_out(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return minmax_values(amin_stub, "amin", self, dim, keepdim, out);
}

// ---- whole-tensor composites ------------------------------------------------------------

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return tl::sum(self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor sum_out(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  return tl::sum_out(out, self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return tl::mean(self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor mean_dtype_out(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  return tl::mean_out(out, self, std::optional<IntArrayRef>(), false, dtype);
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  ScalarType rt = sum_result_dtype(self, dtype, Tensor());
  Tensor flat = self.contiguous().view({self.numel()});
  if (flat.dtype() != rt) flat = flat.to(rt);
  return tl::prod(flat, 0, false, rt);
}

Tensor max(const Tensor& self) {
  TL_CHECK(self.numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  return tl::amax(self, IntArrayRef(), false);
}

Tensor min(const Tensor& self) {
  TL_CHECK(self.numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  return tl::amin(self, IntArrayRef(), false);
}

Tensor max(const Tensor& self, const Tensor& other) { return tl::maximum(self, other); }
Tensor min(const Tensor& self, const Tensor& other) { return tl::minimum(self, other); }
Tensor max_other_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tl::maximum_out(out, self, other);
}
Tensor min_other_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tl::minimum_out(out, self, other);
}

Tensor max_unary_out(const Tensor& self, const Tensor& out) {
  Tensor r = tl::max(self);
  check_out_dtype(out, r.dtype(), "max");
  return finish_reduce(r, {}, false, out);
}

Tensor min_unary_out(const Tensor& self, const Tensor& out) {
  Tensor r = tl::min(self);
  check_out_dtype(out, r.dtype(), "min");
  return finish_reduce(r, {}, false, out);
}

// Whole-tensor all/any: reduce the flattened tensor over dim 0.
Tensor all(const Tensor& self) { return tl::all(self.contiguous().view({self.numel()}), 0, false); }
Tensor any(const Tensor& self) { return tl::any(self.contiguous().view({self.numel()}), 0, false); }

Tensor all_all_out(const Tensor& self, const Tensor& out) {
  return tl::all_out(out, self.contiguous().view({self.numel()}), 0, false);
}
Tensor any_all_out(const Tensor& self, const Tensor& out) {
  return tl::any_out(out, self.contiguous().view({self.numel()}), 0, false);
}

// ---- composed of other operators, so their gradients come from the parts ----------------

namespace {

std::optional<IntArrayRef> no_dims() { return std::nullopt; }

// (var, mean): the mean of squared deviations from the mean, divided by max(N - correction, 0).
std::tuple<Tensor, Tensor> var_and_mean(const char* what, const Tensor& self, std::optional<IntArrayRef> dim,
                                        const std::optional<Scalar>& correction, bool keepdim) {
  TL_CHECK(is_floating_point(self.dtype()), what, ": input dtype should be either floating point or complex. Got ",
           scalar_type_cpp_name(self.dtype()), " instead.");
  const bool all = !dim.has_value() || dim->empty();
  int64_t count = 1;
  if (all) {
    count = self.numel();
  } else {
    for (int64_t d : *dim) count *= self.dim() == 0 ? 1 : self.sizes()[wrap_dim(d, self.dim())];
  }
  const double c = correction ? correction->to_double() : 1.0;
  std::optional<IntArrayRef> dims = all ? no_dims() : dim;
  Tensor mean = self.mean(dims, true);
  Tensor dev = self.sub(mean);
  Tensor var = dev.mul(dev).sum(dims, keepdim).div(std::max(static_cast<double>(count) - c, 0.0));
  return {var, keepdim ? mean : mean.sum(dims, false)};
}

std::optional<Scalar> unbiased_correction(bool unbiased) { return Scalar(unbiased ? 1.0 : 0.0); }

}  // namespace

Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim) {
  return std::get<0>(var_and_mean("var", self, dim, correction, keepdim));
}
Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return tl::var(self, dim, unbiased_correction(unbiased), keepdim);
}
Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim, const Tensor& out) {
  return write_out(tl::var(self, dim, unbiased_correction(unbiased), keepdim), out);
}
Tensor var(const Tensor& self, bool unbiased) { return tl::var(self, no_dims(), unbiased_correction(unbiased), false); }

Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim) {
  return tl::var(self, dim, correction, keepdim).sqrt();
}
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return tl::std(self, dim, unbiased_correction(unbiased), keepdim);
}
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim, const Tensor& out) {
  return write_out(tl::std(self, dim, unbiased_correction(unbiased), keepdim), out);
}
Tensor std(const Tensor& self, bool unbiased) { return tl::std(self, no_dims(), unbiased_correction(unbiased), false); }

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, std::optional<IntArrayRef> dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  return var_and_mean("var_mean", self, dim, correction, keepdim);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return tl::var_mean(self, dim, unbiased_correction(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return tl::var_mean(self, no_dims(), unbiased_correction(unbiased), false);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, std::optional<IntArrayRef> dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  auto [v, m] = var_and_mean("std_mean", self, dim, correction, keepdim);
  return {v.sqrt(), m};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return tl::std_mean(self, dim, unbiased_correction(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return tl::std_mean(self, no_dims(), unbiased_correction(unbiased), false);
}

Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  Tensor x = is_floating_point(self.dtype()) ? self : self.to(default_dtype());
  if (x.numel() == 0) return x.exp().sum(dim, keepdim).log();
  // An infinite max would give inf - inf = nan: shift by 0 there instead.
  Tensor m = x.detach().amax(dim, true);
  m = tl::where(m.abs().eq(Scalar(INFINITY)), Scalar(0.0), m);
  Tensor r = x.sub(m).exp().sum(dim, true).log().add(m);
  return keepdim ? r : r.sum(dim.empty() ? std::optional<IntArrayRef>() : std::optional<IntArrayRef>(dim), false);
}

Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  TL_CHECK(is_floating_point(self.dtype()) || is_complex(self.dtype()),
           "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
           scalar_type_cpp_name(self.dtype()));
  if (dtype) {
    TL_CHECK(is_complex(*dtype) == is_complex(self.dtype()), "linalg.vector_norm: dtype should be ",
             is_complex(self.dtype()) ? "complex for complex inputs" : "real for real inputs", ", but got ",
             scalar_type_cpp_name(*dtype));
  }
  Tensor x = dtype ? self.to(*dtype) : self;
  const double p = ord.to_double();
  Tensor a = x.abs();
  if (std::isinf(p)) {
    TL_CHECK(x.numel() > 0 || (dim.has_value() && !dim->empty()),
             "linalg.vector_norm cannot compute the ", ord.to_double() > 0 ? "inf" : "-inf",
             " norm on an empty tensor because the operation does not have an identity");
    IntArrayRef dims = dim.value_or(IntArrayRef());
    return p > 0 ? a.amax(dims, keepdim) : a.amin(dims, keepdim);
  }
  if (p == 0) return a.ne(Scalar(0)).sum(dim, keepdim, a.dtype());
  if (p == 1) return a.sum(dim, keepdim);
  if (p == 2) return a.mul(a).sum(dim, keepdim).sqrt();
  return a.pow(ord).sum(dim, keepdim).pow(Scalar(1.0 / p));
}

}  // namespace tl::native
