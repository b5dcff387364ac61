// Statistics composed of other operators, so their gradients come from the parts: nanmean
// (nansum is a reduction of its own, in ReduceOps.cpp), count_nonzero, aminmax, quantiles,
// diff, the trapezoid rule, cov/corrcoef and the closeness tests. histc and bincount count into
// bins with a loop of their own.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "aten/native/ShapeUtils.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/all.h"
#include "generated/ops/allclose.h"
#include "generated/ops/allclose_native.h"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/aminmax.h"
#include "generated/ops/aminmax_native.h"
#include "generated/ops/any.h"
#include "generated/ops/bincount_native.h"
#include "generated/ops/cat.h"
#include "generated/ops/ceil.h"
#include "generated/ops/clamp.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/corrcoef.h"
#include "generated/ops/corrcoef_native.h"
#include "generated/ops/count_nonzero.h"
#include "generated/ops/count_nonzero_native.h"
#include "generated/ops/cov.h"
#include "generated/ops/cov_native.h"
#include "generated/ops/cumsum.h"
#include "generated/ops/cumulative_trapezoid.h"
#include "generated/ops/cumulative_trapezoid_native.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/diff.h"
#include "generated/ops/diff_native.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/equal.h"
#include "generated/ops/equal_native.h"
#include "generated/ops/expand.h"
#include "generated/ops/floor.h"
#include "generated/ops/full.h"
#include "generated/ops/full_like.h"
#include "generated/ops/gather.h"
#include "generated/ops/ge.h"
#include "generated/ops/gt.h"
#include "generated/ops/histc.h"
#include "generated/ops/histc_native.h"
#include "generated/ops/index_add.h"
#include "generated/ops/isclose.h"
#include "generated/ops/isclose_native.h"
#include "generated/ops/isfinite.h"
#include "generated/ops/isnan.h"
#include "generated/ops/le.h"
#include "generated/ops/lerp.h"
#include "generated/ops/logical_and.h"
#include "generated/ops/logical_not.h"
#include "generated/ops/logical_or.h"
#include "generated/ops/logical_xor.h"
#include "generated/ops/lt.h"
#include "generated/ops/mean.h"
#include "generated/ops/mm.h"
#include "generated/ops/movedim.h"
#include "generated/ops/mul.h"
#include "generated/ops/nanmean.h"
#include "generated/ops/nanmean_native.h"
#include "generated/ops/nanquantile.h"
#include "generated/ops/nanquantile_native.h"
#include "generated/ops/nansum.h"
#include "generated/ops/narrow.h"
#include "generated/ops/ne.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/quantile.h"
#include "generated/ops/quantile_native.h"
#include "generated/ops/reshape.h"
#include "generated/ops/round.h"
#include "generated/ops/sort.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/to.h"
#include "generated/ops/trapezoid.h"
#include "generated/ops/trapezoid_native.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::native {

// ---- NaN-ignoring reductions ------------------------------------------------------------

Tensor nanmean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  TL_CHECK(is_floating_point(self.dtype()),
           "nanmean(): expected input to have floating point or complex dtype but got ", scalar_type_cpp_name(self.dtype()));
  Tensor count = self.isnan().logical_not().sum(dim, keepdim);
  return tl::nansum(self, dim, keepdim, dtype).div(count);
}

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  return self.ne(Scalar(0)).sum(std::optional<IntArrayRef>(dim), false, ScalarType::Long);
}

Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (!dim) return tl::count_nonzero(self, IntArrayRef());
  const int64_t d = *dim;
  return tl::count_nonzero(self, IntArrayRef(d));
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  TL_CHECK(dim.has_value() || self.numel() > 0,
           "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  const int64_t d = dim.value_or(0);
  const IntArrayRef dims = dim ? IntArrayRef(d) : IntArrayRef();
  return {self.amin(dims, keepdim), self.amax(dims, keepdim)};
}

// ---- quantiles ----------------------------------------------------------------------------

namespace {

// PyTorch's algorithm: sort the values along dim (NaNs last), find each quantile's fractional
// rank, gather the neighbours and interpolate. With a NaN in a row, quantile's rank points at
// the last (NaN) value; nanquantile ranks among the non-NaN values only.
Tensor quantile_impl(const char* name, const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     const std::string& interpolation, bool ignore_nan) {
  TL_CHECK(self.numel() > 0, name, "() input tensor must be non-empty");
  TL_CHECK(q.dim() <= 1, name, "() q must be a scalar or 1D tensor");
  TL_CHECK(self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double, name,
           "() input tensor must be either float or double dtype");
  TL_CHECK(q.dtype() == self.dtype(), name, "() q tensor must be same dtype as the input tensor");
  TL_CHECK(q.device() == self.device(), name, "() q tensor must be on the same device as the input tensor");
  const bool linear = interpolation == "linear", midpoint = interpolation == "midpoint";
  TL_CHECK(linear || midpoint || interpolation == "lower" || interpolation == "higher" || interpolation == "nearest",
           name, "() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ", interpolation);
  TL_CHECK(q.numel() == 0 || !q.lt(Scalar(0)).logical_or(q.gt(Scalar(1))).any().item().to_double(), name,
           "() q values must be in the range [0, 1]");

  const int64_t d = dim ? wrap_dim(*dim, self.dim()) : 0;
  Tensor rows = !dim ? self.reshape({-1}) : self.dim() == 0 ? self.reshape({1}) : self.movedim(d, -1);
  Tensor sorted = std::get<0>(tl::sort(rows, -1, false));
  const int64_t n = sorted.sizes().back();
  Tensor qv = q.reshape({-1});
  Tensor ranks;
  if (ignore_nan) {
    Tensor valid = sorted.isnan().logical_not().sum(IntArrayRef(-1), true);
    ranks = valid.sub(Scalar(1)).mul(qv).clamp_min(Scalar(0.0));
  } else {
    Tensor has_nan = sorted.isnan().any(-1, true);
    ranks = tl::where(has_nan, Scalar(static_cast<double>(n - 1)), qv.mul(Scalar(static_cast<double>(n - 1))));
  }
  // Every row gets the same number of ranks, so gather's index broadcasts over the rows.
  std::vector<int64_t> rank_shape(sorted.sizes().begin(), sorted.sizes().end());
  rank_shape.back() = qv.numel();
  ranks = ranks.expand(rank_shape).contiguous();
  Tensor result;
  if (linear || midpoint) {
    Tensor below = ranks.floor();
    Tensor lo = sorted.gather(-1, below.to(ScalarType::Long));
    Tensor hi = sorted.gather(-1, ranks.ceil().to(ScalarType::Long));
    Tensor weights = midpoint ? tl::full_like(ranks, Scalar(0.5)) : ranks.sub(below);
    result = tl::lerp(lo, hi, weights);  // PyTorch's two-sided formula: right at infinite neighbours
  } else {
    Tensor pick = interpolation == "lower" ? ranks.floor() : interpolation == "higher" ? ranks.ceil() : ranks.round();
    result = sorted.gather(-1, pick.to(ScalarType::Long));
  }
  // [..., nq] -> q's dims first, then the kept dims of self.
  result = q.dim() == 0 ? result.squeeze(-1) : result.movedim(-1, 0);
  if (!keepdim) return result;
  if (!dim) {
    std::vector<int64_t> shape(q.sizes().begin(), q.sizes().end());
    shape.insert(shape.end(), static_cast<size_t>(self.dim()), 1);
    return result.reshape(shape);
  }
  return self.dim() == 0 ? result : result.unsqueeze(d + q.dim());
}

Tensor scalar_q(const Tensor& self, double q) { return tl::full({}, Scalar(q), self.dtype(), std::nullopt, self.device()); }

}  // namespace

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl("quantile", self, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl("quantile", self, scalar_q(self, q), dim, keepdim, interpolation, false);
}

Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl("nanquantile", self, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl("nanquantile", self, scalar_q(self, q), dim, keepdim, interpolation, true);
}

// ---- differences and the trapezoid rule -------------------------------------------------

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  TL_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  TL_CHECK(n >= 0, "order must be non-negative but got ", n);
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> parts;
  if (prepend) parts.push_back(*prepend);
  parts.push_back(self);
  if (append) parts.push_back(*append);
  Tensor x = parts.size() == 1 ? self : tl::cat(parts, d);
  for (int64_t i = 0; i < n && x.sizes()[d] > 0; ++i) {
    const int64_t len = x.sizes()[d] - 1;
    Tensor right = x.narrow(d, 1, len), left = x.narrow(d, 0, len);
    x = x.dtype() == ScalarType::Bool ? right.logical_xor(left) : right.sub(left);
  }
  return x;
}

namespace {

// The spacings of x along dim d of y: a 1-D x is laid along d; otherwise x broadcasts with y.
Tensor trapezoid_dx(const Tensor& y, const Tensor& x, int64_t d, const char* name) {
  if (x.dim() == 1) {
    TL_CHECK(x.sizes()[0] == y.sizes()[d], name, ": There must be one `x` value for each sample point");
    std::vector<int64_t> shape(static_cast<size_t>(y.dim()), 1);
    shape[d] = x.sizes()[0] - 1;
    return tl::diff(x, 1, 0, std::nullopt, std::nullopt).view(shape);
  }
  return tl::diff(x, 1, d - y.dim(), std::nullopt, std::nullopt);
}

// (y[1:] + y[:-1]) along d, times dx, halved: the area of each interval.
Tensor interval_areas(const Tensor& y, int64_t d, const Tensor& dx) {
  const int64_t len = y.sizes()[d] - 1;
  return y.narrow(d, 1, len).add(y.narrow(d, 0, len)).mul(dx).div(Scalar(2.0));
}

Tensor interval_areas(const Tensor& y, int64_t d, const Scalar& dx) {
  const int64_t len = y.sizes()[d] - 1;
  return y.narrow(d, 1, len).add(y.narrow(d, 0, len)).mul(dx).div(Scalar(2.0));
}

// A y with no sample points along d: zero area, a constant (as PyTorch), or no intervals.
Tensor empty_areas(const Tensor& y, int64_t d, bool cumulative) {
  if (cumulative) return y.narrow(d, 0, 0).div(Scalar(2.0));
  std::vector<int64_t> shape(y.sizes().begin(), y.sizes().end());
  shape.erase(shape.begin() + d);
  return tl::full(shape, Scalar(0), y.dtype(), std::nullopt, y.device());
}

// The dim of y the samples lie along; a 0-d y has none (wrap_dim would take it for 1-d).
int64_t sample_dim(const Tensor& y, int64_t dim, bool cumulative) {
  if (cumulative) {
    TL_CHECK_INDEX(y.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  } else {
    TL_CHECK_INDEX(y.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  }
  return wrap_dim(dim, y.dim());
}

}  // namespace

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = sample_dim(y, dim, false);
  if (y.sizes()[d] == 0) return empty_areas(y, d, false);
  return interval_areas(y, d, trapezoid_dx(y, x, d, "trapezoid")).sum(IntArrayRef(d));
}

Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = sample_dim(y, dim, false);
  if (y.sizes()[d] == 0) return empty_areas(y, d, false);
  return interval_areas(y, d, dx).sum(IntArrayRef(d));
}

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = sample_dim(y, dim, true);
  if (y.sizes()[d] == 0) return empty_areas(y, d, true);
  return interval_areas(y, d, trapezoid_dx(y, x, d, "cumulative_trapezoid")).cumsum(d);
}

Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = sample_dim(y, dim, true);
  if (y.sizes()[d] == 0) return empty_areas(y, d, true);
  return interval_areas(y, d, dx).cumsum(d);
}

// ---- covariance and correlation ----------------------------------------------------------

Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  TL_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ",
           self.dim(), " dimensions");
  Tensor x = self.dim() < 2 ? self.reshape({1, -1}) : self;
  if (!is_floating_point(x.dtype())) x = x.to(default_dtype());
  const int64_t n = x.sizes()[1];
  auto check_weights = [&](const Tensor& w, const char* what, bool integral) {
    TL_CHECK(w.dim() <= 1, "cov(): expected ", what, " to have one or fewer dimensions but got ", what, " with ",
             w.dim(), " dimensions");
    TL_CHECK(integral ? is_integral(w.dtype(), false) : is_floating_point(w.dtype()), "cov(): expected ", what,
             " to have ", integral ? "integral" : "floating point", " dtype but got ", what, " with ",
             scalar_type_cpp_name(w.dtype()), " dtype");
    TL_CHECK(w.numel() == n, "cov(): expected ", what,
             " to have the same numel as there are observations in the input but got ", w.numel(), " != ", n);
    TL_CHECK(w.numel() == 0 || !w.lt(Scalar(0)).any().item().to_double(), "cov(): ", what, " cannot be negative");
  };
  Tensor w;
  if (fweights) {
    check_weights(*fweights, "fweights", true);
    w = *fweights;
  }
  if (aweights) {
    check_weights(*aweights, "aweights", false);
    w = w.defined() ? w.mul(*aweights) : *aweights;
  }
  Tensor norm;  // the divisor: observations (or the weight total) less the correction, at least 0
  Tensor weighted;  // x times the weights, after centring
  if (w.defined()) {
    Tensor w_sum = w.sum();
    x = x.sub(x.mul(w).sum(IntArrayRef(1), true).div(w_sum));
    weighted = x.mul(w);
    if (correction == 0) norm = w_sum;
    else if (!aweights) norm = w_sum.sub(Scalar(correction));
    else norm = w_sum.sub(w.mul(*aweights).sum().mul(Scalar(correction)).div(w_sum));
    norm = norm.clamp_min(Scalar(0));
  } else {
    x = x.sub(x.mean(IntArrayRef(1), true));
    weighted = x;
    norm = tl::full({}, Scalar(static_cast<double>(std::max<int64_t>(n - correction, 0))), x.dtype(), std::nullopt,
                    x.device());
  }
  return tl::mm(x, weighted.t()).div(norm).squeeze();
}

Tensor corrcoef(const Tensor& self) {
  Tensor c = tl::cov(self, 1, std::nullopt, std::nullopt);
  if (c.dim() == 0) return c.div(c);  // one variable: 1, or NaN where its variance is 0 or NaN
  Tensor stddev = c.diagonal().sqrt();
  return c.div(stddev.unsqueeze(1)).div(stddev.unsqueeze(0)).clamp(Scalar(-1.0), Scalar(1.0));
}

// ---- closeness ----------------------------------------------------------------------------

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  TL_CHECK(self.dtype() == other.dtype(), "isclose(): expected self and other to have the same dtype, but got ",
           "self.dtype = ", scalar_type_cpp_name(self.dtype()), " and other.dtype = ",
           scalar_type_cpp_name(other.dtype()));
  TL_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  TL_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = self.eq(other);
  if (equal_nan && is_floating_point(self.dtype())) close = close.logical_or(self.isnan().logical_and(other.isnan()));
  if (rtol == 0 && atol == 0) return close;
  // Bool has no subtraction: compare as the default float dtype.
  Tensor a = self.dtype() == ScalarType::Bool ? self.to(default_dtype()) : self;
  Tensor b = other.dtype() == ScalarType::Bool ? other.to(default_dtype()) : other;
  Tensor allowed = b.mul(Scalar(rtol)).abs().add(Scalar(atol));
  Tensor actual = a.sub(b).abs();
  return close.logical_or(actual.isfinite().logical_and(actual.le(allowed)));
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return tl::isclose(self, other, rtol, atol, equal_nan).all().item().to_double() != 0;
}

bool equal(const Tensor& self, const Tensor& other) {
  if (!self.sizes().equals(other.sizes())) return false;
  return self.numel() == 0 || self.eq(other).all().item().to_double() != 0;
}

// ---- counting into bins -------------------------------------------------------------------

namespace {

// histc's checks, and the range [lo, hi] its bins cover.
std::pair<double, double> histc_range(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  TL_CHECK(bins > 0, "torch.histc: bins must be > 0, but got ", bins, " for bins");
  TL_CHECK(is_floating_point(self.dtype()), "\"histogram_cpu\" not implemented for '",
           scalar_type_cpp_name(self.dtype()), "'");
  double lo = min.to_double(), hi = max.to_double();
  TL_CHECK(lo <= hi, "torch.histc: max must be larger than min");
  if (lo == hi && self.numel() > 0) {  // no range given: the data's own
    auto [mn, mx] = tl::aminmax(self, std::nullopt, false);
    lo = mn.item().to_double();
    hi = mx.item().to_double();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TL_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  return {lo, hi};
}

// bincount's checks (the index values read from `host`, int64 on the CPU) and the result length.
int64_t bincount_length(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength,
                        const Tensor& host) {
  TL_CHECK(minlength >= 0, "minlength should be >= 0");
  TL_CHECK(self.dim() == 1 && is_integral(self.dtype(), false),
           "bincount only supports 1-d non-negative integral inputs.");
  TL_CHECK(!(weights.has_value() && weights->defined()) || (weights->dim() == 1 && weights->numel() == self.numel()),
           "weights should be 1-d and have the same length as input");
  const int64_t* ip = host.data_ptr<int64_t>();
  int64_t length = minlength;
  for (int64_t i = 0; i < host.numel(); ++i) {
    TL_CHECK(ip[i] >= 0, "bincount only supports 1-d non-negative integral inputs.");
    length = std::max(length, ip[i] + 1);
  }
  return length;
}

// PyTorch's bincount dtypes: counts are int64; float weights sum in float, others in double.
ScalarType bincount_dtype(const std::optional<Tensor>& weights) {
  if (!(weights.has_value() && weights->defined())) return ScalarType::Long;
  return weights->dtype() == ScalarType::Float ? ScalarType::Float : ScalarType::Double;
}

}  // namespace

Tensor histc_cpu(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  const auto [lo, hi] = histc_range(self, bins, min, max);
  std::vector<int64_t> counts(static_cast<size_t>(bins), 0);
  Tensor x = self.contiguous();
  dispatch_floating_types(self.dtype(), "histc", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data_ptr<T>();
    const double scale = static_cast<double>(bins) / (hi - lo);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double v = static_cast<double>(p[i]);
      if (!(v >= lo && v <= hi)) continue;  // outside the range, or NaN
      // The top edge belongs to the last bin.
      counts[static_cast<size_t>(std::min(static_cast<int64_t>((v - lo) * scale), bins - 1))] += 1;
    }
  });
  Tensor result = empty_tensor({bins}, self.options());
  dispatch_floating_types(self.dtype(), "histc", [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::copy(counts.begin(), counts.end(), result.data_ptr<T>());
  });
  return result;
}

Tensor bincount_cpu(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  const bool weighted = weights.has_value() && weights->defined();
  Tensor idx = self.to(ScalarType::Long).contiguous();
  const int64_t length = bincount_length(self, weights, minlength, idx);
  const int64_t* ip = idx.data_ptr<int64_t>();
  const ScalarType rt = bincount_dtype(weights);
  Tensor result = tl::full({length}, Scalar(0), rt, std::nullopt, self.device());
  if (!weighted) {
    int64_t* r = result.data_ptr<int64_t>();
    for (int64_t i = 0; i < idx.numel(); ++i) r[ip[i]] += 1;
    return result;
  }
  Tensor w = weights->to(rt).contiguous();
  auto accumulate = [&](auto* r) {
    const auto* wp = w.data_ptr<std::remove_pointer_t<decltype(r)>>();
    for (int64_t i = 0; i < idx.numel(); ++i) r[ip[i]] += wp[i];
  };
  if (rt == ScalarType::Float) accumulate(result.data_ptr<float>());
  else accumulate(result.data_ptr<double>());
  return result;
}

// ---- the CUDA path of histc and bincount: index_add of ones (or weights) into the bins ----------

Tensor histc_composite(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  const auto [lo, hi] = histc_range(self, bins, min, max);
  const std::vector<int64_t> flat{-1}, shape{bins};
  Tensor v = self.to(ScalarType::Double).reshape(flat);
  Tensor in_range = v.ge(lo).logical_and(v.le(hi));  // NaN: false
  // The top edge belongs to the last bin; values out of range add 0 to bin 0.
  Tensor bin = v.sub(lo).mul(static_cast<double>(bins) / (hi - lo)).clamp(0.0, double(bins - 1)).to(ScalarType::Long);
  bin = tl::where(in_range, bin, Scalar(int64_t(0)));
  return tl::zeros(shape, ScalarType::Double, std::nullopt, self.device())
      .index_add(0, bin, in_range.to(ScalarType::Double))
      .to(self.dtype());
}

Tensor bincount_composite(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  Tensor idx = self.to(ScalarType::Long).contiguous();
  const int64_t length = bincount_length(self, weights, minlength, idx.to(Device(DeviceType::CPU)));
  const ScalarType rt = bincount_dtype(weights);
  const std::vector<int64_t> shape{length};
  Tensor w = weights.has_value() && weights->defined() ? weights->to(rt) : tl::ones_like(idx);
  return tl::zeros(shape, rt, std::nullopt, self.device()).index_add(0, idx, w);
}

}  // namespace tl::native
