// Samplers behind torch.distributions: _standard_gamma and its reparameterisation
// gradient _standard_gamma_grad, _sample_dirichlet and _dirichlet_grad, and binomial.
//
// As in Note [Random on every device] (Random.cpp), values are drawn from the seeded generator
// in the logical row-major order of the result, so manual_seed makes them reproducible. All of
// them compute in double on contiguous copies and round to the input's dtype (float32/float64).
//
// Note [Implicit reparameterisation]: a Gamma(a) (or Beta(a, b)) sample x = F^-1(u; a) moves with
// a at fixed u by dx/da = -(dF/da) / (dF/dx). The ratio is summed exactly from the series of the
// regularised incomplete gamma (beta) function, whose terms divided by the density follow a
// simple recurrence (no exp/lgamma per term); PyTorch uses fitted approximations instead, which
// agree to about 1e-3.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/DistributionGradients.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/SpecialFunctions.h"
#include "aten/native/TensorIterator.h"
#include "generated/ops/_dirichlet_grad_native.h"
#include "generated/ops/_sample_dirichlet_native.h"
#include "generated/ops/_standard_gamma_grad_native.h"
#include "generated/ops/_standard_gamma_native.h"
#include "generated/ops/binomial_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/expand.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Uniform in the open interval (0, 1): its log and its reciprocal are finite.
double uniform_open(std::mt19937_64& e) { return (static_cast<double>(e() >> 11) + 0.5) * 0x1.0p-53; }

double standard_normal(std::mt19937_64& e) {  // Box-Muller
  const double r = std::sqrt(-2.0 * std::log(uniform_open(e)));
  return r * std::cos(2.0 * kPi * uniform_open(e));
}

// Marsaglia and Tsang's squeeze-and-reject method; a < 1 draws Gamma(a + 1) * U^(1/a).
double sample_gamma(double alpha, std::mt19937_64& e) {
  if (!(alpha > 0.0)) return 0.0;  // rounded up to the smallest normal number, as PyTorch
  if (std::isinf(alpha)) return alpha;
  double log_boost = 0.0;
  if (alpha < 1.0) {
    log_boost = std::log(uniform_open(e)) / alpha;
    alpha += 1.0;
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = standard_normal(e);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform_open(e), x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) {
      return d * v * std::exp(log_boost);
    }
  }
}

// Binomial(n, p) for n p < 10: count the geometric waiting times between successes that fit
// in n trials.
double binomial_inversion(double n, double p, std::mt19937_64& e) {
  const double log_q = std::log1p(-p);
  double trials = 0.0, successes = 0.0;
  for (;;) {
    trials += std::ceil(std::log(uniform_open(e)) / log_q);
    if (trials > n) return successes;
    successes += 1.0;
  }
}

// Binomial(n, p) for n p >= 10, p <= 1/2: Hormann's BTRS (transformed rejection with squeeze),
// "The generation of binomial random variates", J. Stat. Comput. Simul. 46 (1993).
double binomial_btrs(double n, double p, std::mt19937_64& e) {
  const double q = 1.0 - p, spq = std::sqrt(n * p * q);
  const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = n * p + 0.5;
  const double v_r = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq, log_odds = std::log(p / q);
  const double m = std::floor((n + 1.0) * p);
  const double h = std::lgamma(m + 1.0) + std::lgamma(n - m + 1.0);
  for (;;) {
    const double u = uniform_open(e) - 0.5, v = uniform_open(e), us = 0.5 - std::abs(u);
    const double k = std::floor((2.0 * a / us + b) * u + c);
    if (k < 0.0 || k > n) continue;
    if (us >= 0.07 && v <= v_r) return k;
    const double log_v = std::log(v * alpha / (a / (us * us) + b));
    if (log_v <= h - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + (k - m) * log_odds) return k;
  }
}

double sample_binomial(double n, double p, std::mt19937_64& e) {
  if (std::isnan(n) || std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
  if (n <= 0.0 || p <= 0.0) return 0.0;
  if (p >= 1.0) return n;
  const bool flip = p > 0.5;  // draw the failures of the likelier outcome instead
  const double pp = flip ? 1.0 - p : p;
  const double k = n * pp >= 10.0 ? binomial_btrs(n, pp, e) : binomial_inversion(n, pp, e);
  return flip ? n - k : k;
}

void check_float_or_double(const Tensor& t, const char* what) {
  if (t.dtype() != ScalarType::Float && t.dtype() != ScalarType::Double) dtype_not_implemented(what, t.dtype());
}

void check_same_dtype(const Tensor& expected, const Tensor& other) {
  TL_CHECK(other.dtype() == expected.dtype(), "Found dtype ", scalar_type_cpp_name(other.dtype()), " but expected ",
           scalar_type_cpp_name(expected.dtype()));
}

// Each tensor broadcast to their common shape, as contiguous double.
std::vector<Tensor> broadcast_to_double(std::vector<Tensor> ts, std::vector<int64_t>& shape) {
  shape = ts[0].sizes().vec();
  for (size_t i = 1; i < ts.size(); ++i) shape = broadcast_shapes(shape, ts[i].sizes());
  for (Tensor& t : ts) t = t.expand(shape).to(ScalarType::Double).contiguous();
  return ts;
}

// result[i] = f(i) computed in double, rounded to dtype and kept at or above its smallest
// normal number when `floor_at_tiny` (a Gamma sample is positive, as in PyTorch).
template <typename F>
Tensor fill_double(IntArrayRef shape, ScalarType dtype, bool floor_at_tiny, F&& f) {
  Tensor result = empty_tensor(shape, TensorOptions(ScalarType::Double, Device(DeviceType::CPU)));
  double* out = result.data_ptr<double>();
  const int64_t n = result.numel();
  for (int64_t i = 0; i < n; ++i) out[i] = f(i);
  if (dtype == ScalarType::Double) {
    if (floor_at_tiny) std::for_each(out, out + n, [](double& v) { v = std::max(v, std::numeric_limits<double>::min()); });
    return result;
  }
  Tensor rounded = result.to(dtype);
  if (floor_at_tiny) {
    float* r = rounded.data_ptr<float>();
    std::for_each(r, r + n, [](float& v) { v = std::max(v, std::numeric_limits<float>::min()); });
  }
  return rounded;
}

}  // namespace

Tensor _standard_gamma_cpu(const Tensor& self, std::optional<GeneratorPtr> generator) {
  check_float_or_double(self, "gamma_cpu");
  const Tensor alpha = self.to(ScalarType::Double).contiguous();
  const double* a = alpha.data_ptr<double>();
  Generator& gen = generator_or_default(generator);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return fill_double(self.sizes(), self.dtype(), true, [&](int64_t i) { return sample_gamma(a[i], gen.engine()); });
}

Tensor _standard_gamma_grad_cpu(const Tensor& self, const Tensor& output) {
  check_same_dtype(self, output);
  check_float_or_double(self, "_standard_gamma_grad_cpu");
  std::vector<int64_t> shape;
  const auto ts = broadcast_to_double({self, output}, shape);
  const double *a = ts[0].data_ptr<double>(), *x = ts[1].data_ptr<double>();
  return fill_double(shape, self.dtype(), false, [&](int64_t i) { return standard_gamma_grad_one(a[i], x[i]); });
}

Tensor _sample_dirichlet_cpu(const Tensor& self, std::optional<GeneratorPtr> generator) {
  check_float_or_double(self, "dirichlet");
  const Tensor alpha = self.to(ScalarType::Double).contiguous();
  const double* a = alpha.data_ptr<double>();
  const int64_t n = alpha.numel(), k = self.dim() == 0 ? 1 : self.size(-1);
  std::vector<double> gammas(n);
  {
    Generator& gen = generator_or_default(generator);
    std::lock_guard<std::mutex> lock(gen.mutex());
    for (int64_t i = 0; i < n; ++i) gammas[i] = std::max(sample_gamma(a[i], gen.engine()), std::numeric_limits<double>::min());
  }
  for (int64_t row = 0; k > 0 && row < n / k; ++row) {
    double* g = gammas.data() + row * k;
    const double total = std::accumulate(g, g + k, 0.0);
    std::for_each(g, g + k, [&](double& v) { v /= total; });
  }
  return fill_double(self.sizes(), self.dtype(), true, [&](int64_t i) { return gammas[i]; });
}

Tensor _dirichlet_grad_cpu(const Tensor& x, const Tensor& alpha, const Tensor& total) {
  check_same_dtype(x, alpha);
  check_same_dtype(x, total);
  check_float_or_double(x, "_dirichlet_grad_cpu");
  std::vector<int64_t> shape;
  const auto ts = broadcast_to_double({x, alpha, total}, shape);
  const double *xp = ts[0].data_ptr<double>(), *ap = ts[1].data_ptr<double>(), *tp = ts[2].data_ptr<double>();
  return fill_double(shape, x.dtype(), false, [&](int64_t i) { return dirichlet_grad_one(xp[i], ap[i], tp[i]); });
}

Tensor binomial_cpu(const Tensor& count, const Tensor& prob, std::optional<GeneratorPtr> generator) {
  TL_CHECK_VALUE(is_floating_point(count.dtype()), "binomial only supports floating-point dtypes for count, got: ",
                 scalar_type_cpp_name(count.dtype()));
  check_same_dtype(count, prob);
  check_float_or_double(count, "binomial_cpu");
  std::vector<int64_t> shape;
  const auto ts = broadcast_to_double({count, prob}, shape);
  const double *n = ts[0].data_ptr<double>(), *p = ts[1].data_ptr<double>();
  Generator& gen = generator_or_default(generator);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return fill_double(shape, count.dtype(), false, [&](int64_t i) { return sample_binomial(n[i], p[i], gen.engine()); });
}

// ---- the CUDA path -----------------------------------------------------------------------------
// Samples are drawn on the CPU from the same generator stream (Note [Random on every device]) and
// copied to the input's device; the gradients run elementwise kernels (DistributionGradients.h).

DispatchStub<void(const Tensor&, const Tensor&, const Tensor&)> standard_gamma_grad_stub("_standard_gamma_grad");
DispatchStub<void(const Tensor&, const Tensor&, const Tensor&, const Tensor&)> dirichlet_grad_stub("_dirichlet_grad");

Tensor _standard_gamma_composite(const Tensor& self, std::optional<GeneratorPtr> generator) {
  return _standard_gamma_cpu(self.to(Device(DeviceType::CPU)), generator).to(self.device());
}

Tensor _sample_dirichlet_composite(const Tensor& self, std::optional<GeneratorPtr> generator) {
  return _sample_dirichlet_cpu(self.to(Device(DeviceType::CPU)), generator).to(self.device());
}

Tensor binomial_composite(const Tensor& count, const Tensor& prob, std::optional<GeneratorPtr> generator) {
  const Device cpu(DeviceType::CPU);
  return binomial_cpu(count.to(cpu), prob.to(cpu), generator).to(count.device());
}

Tensor _standard_gamma_grad_composite(const Tensor& self, const Tensor& output) {
  check_same_dtype(self, output);
  check_float_or_double(self, "_standard_gamma_grad_cuda");
  std::vector<int64_t> shape;
  const auto ts = broadcast_to_double({self, output}, shape);
  Tensor out = empty_tensor(shape, TensorOptions(ScalarType::Double, self.device()));
  if (out.numel() > 0) standard_gamma_grad_stub(self.device().type, ts[0], ts[1], out);
  return out.to(self.dtype());
}

Tensor _dirichlet_grad_composite(const Tensor& x, const Tensor& alpha, const Tensor& total) {
  check_same_dtype(x, alpha);
  check_same_dtype(x, total);
  check_float_or_double(x, "_dirichlet_grad_cuda");
  std::vector<int64_t> shape;
  const auto ts = broadcast_to_double({x, alpha, total}, shape);
  Tensor out = empty_tensor(shape, TensorOptions(ScalarType::Double, x.device()));
  if (out.numel() > 0) dirichlet_grad_stub(x.device().type, ts[0], ts[1], ts[2], out);
  return out.to(x.dtype());
}

}  // namespace tl::native
