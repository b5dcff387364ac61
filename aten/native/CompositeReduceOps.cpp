// Reductions composed of other operators, so their gradients come from the parts: var/std (and
// with the mean), logsumexp, linalg_vector_norm.
#include <cmath>

#include "aten/native/ShapeUtils.h"
#include "generated/NativeFunctions.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/detach.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/eq.h"
#include "generated/ops/exp.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/log.h"
#include "generated/ops/logsumexp.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/pow.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/std.h"
#include "generated/ops/std_mean.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/var.h"
#include "generated/ops/var_mean.h"
#include "generated/ops/where.h"

namespace tl::native {

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
Tensor var(const Tensor& self, bool unbiased) { return tl::var(self, no_dims(), unbiased_correction(unbiased), false); }
Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim,
           const Tensor& out) {
  return write_out(tl::var(self, dim, correction, keepdim), out);
}

Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim) {
  return tl::var(self, dim, correction, keepdim).sqrt();
}
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return tl::std(self, dim, unbiased_correction(unbiased), keepdim);
}
Tensor std(const Tensor& self, bool unbiased) { return tl::std(self, no_dims(), unbiased_correction(unbiased), false); }
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim,
           const Tensor& out) {
  return write_out(tl::std(self, dim, correction, keepdim), out);
}

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

Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  return write_out(tl::logsumexp(self, dim, keepdim), out);
}

Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  TL_CHECK(is_floating_point(self.dtype()),
           "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
           scalar_type_cpp_name(self.dtype()));
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
  if (p == 0) return a.ne(Scalar(0)).sum(dim, keepdim, x.dtype());
  if (p == 1) return a.sum(dim, keepdim);
  if (p == 2) return a.mul(a).sum(dim, keepdim).sqrt();
  return a.pow(ord).sum(dim, keepdim).pow(Scalar(1.0 / p));
}

Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype, const Tensor& out) {
  return write_out(tl::linalg_vector_norm(self, ord, dim, keepdim, dtype), out);
}
}  // namespace tl::native
