// Sampling ops on the seeded Generator: bernoulli, multinomial, randperm, and dropout's
// native_dropout / native_dropout_backward.
//
// As in Note [Random on every device] (Random.cpp), values are drawn on the CPU in the logical
// row-major order of the result and copied to its device, so a seed gives the same numbers on
// every device and memory layout.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/BinaryOps.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/bernoulli.h"
#include "generated/ops/bernoulli_native.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/dropout.h"
#include "generated/ops/dropout_native.h"
#include "generated/ops/empty.h"
#include "generated/ops/empty_like.h"
#include "generated/ops/expand.h"
#include "generated/ops/mul.h"
#include "generated/ops/multinomial.h"
#include "generated/ops/multinomial_native.h"
#include "generated/ops/native_dropout.h"
#include "generated/ops/native_dropout_backward_native.h"
#include "generated/ops/native_dropout_native.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/randperm.h"
#include "generated/ops/randperm_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

// Two uniforms in [0, 1) with 24-bit mantissas from each 64-bit draw: bernoulli masks (dropout)
// are bound by the generator's speed.
template <typename F>
void for_each_uniform_float(std::mt19937_64& e, int64_t n, F&& f) {
  int64_t i = 0;
  for (; i + 1 < n; i += 2) {
    const uint64_t r = e();
    f(i, static_cast<float>(r >> 40) * 0x1.0p-24f);
    f(i + 1, static_cast<float>((r >> 8) & 0xFFFFFF) * 0x1.0p-24f);
  }
  if (i < n) f(i, static_cast<float>(e() >> 40) * 0x1.0p-24f);
}

double uniform_double(std::mt19937_64& e) { return static_cast<double>(e() >> 11) * 0x1.0p-53; }

void check_probability(double p, const char* what) {
  TL_CHECK(p >= 0.0 && p <= 1.0, what, " expects p to be in [0, 1], but got p=", p);
}

}  // namespace

// ---- bernoulli ---------------------------------------------------------------------------------

Tensor bernoulli_(const Tensor& self, double p, std::optional<GeneratorPtr> generator) {
  check_probability(p, "bernoulli_");
  if (self.numel() == 0) return self;
  Tensor mask = empty_tensor(self.sizes(), TensorOptions(ScalarType::Bool, Device(DeviceType::CPU)));
  bool* m = mask.data_ptr<bool>();
  const float pf = static_cast<float>(p);
  Generator& gen = generator_or_default(generator);
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    for_each_uniform_float(gen.engine(), mask.numel(), [&](int64_t i, float u) { m[i] = u < pf; });
  }
  return self.copy_(mask);
}

Tensor bernoulli_(const Tensor& self, const Tensor& p, std::optional<GeneratorPtr> generator) {
  if (self.numel() == 0) return self;
  const Tensor probs = p.to(ScalarType::Double).to(Device(DeviceType::CPU)).expand(self.sizes()).contiguous();
  const double* pp = probs.data_ptr<double>();
  TL_CHECK(std::all_of(pp, pp + probs.numel(), [](double v) { return v >= 0.0 && v <= 1.0; }),
           "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
  Tensor mask = empty_tensor(self.sizes(), TensorOptions(ScalarType::Bool, Device(DeviceType::CPU)));
  bool* m = mask.data_ptr<bool>();
  Generator& gen = generator_or_default(generator);
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    for (int64_t i = 0; i < mask.numel(); ++i) m[i] = uniform_double(gen.engine()) < pp[i];
  }
  return self.copy_(mask);
}

Tensor bernoulli(const Tensor& self, std::optional<GeneratorPtr> generator) {
  return tl::empty_like(self).bernoulli_(self, generator);
}

Tensor bernoulli(const Tensor& self, double p, std::optional<GeneratorPtr> generator) {
  return tl::empty_like(self).bernoulli_(p, generator);
}

// ---- multinomial -------------------------------------------------------------------------------

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement, std::optional<GeneratorPtr> generator) {
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "prob_dist must be 1 or 2 dim");
  TL_CHECK(is_floating_point(self.dtype()), "multinomial only supports floating-point dtypes for input, got: ",
           scalar_type_cpp_name(self.dtype()));
  TL_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t n_categories = self.size(-1);
  TL_CHECK(replacement || num_samples <= n_categories,
           "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TL_CHECK(n_categories <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
  const int64_t rows = self.dim() == 1 ? 1 : self.size(0);
  const Tensor probs = self.to(ScalarType::Double).to(Device(DeviceType::CPU)).contiguous();
  const double* p = probs.data_ptr<double>();
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = p + r * n_categories;
    double total = 0.0;
    int64_t nonzero = 0;
    for (int64_t c = 0; c < n_categories; ++c) {
      TL_CHECK(std::isfinite(row[c]) && row[c] >= 0.0, "probability tensor contains either `inf`, `nan` or element < 0");
      total += row[c];
      nonzero += row[c] > 0.0;
    }
    TL_CHECK(total > 0.0, "invalid multinomial distribution (sum of probabilities <= 0)");
    TL_CHECK(replacement || nonzero >= num_samples,
             "invalid multinomial distribution (with replacement=False, not enough non-negative category to sample)");
  }
  std::vector<int64_t> shape{num_samples};
  if (self.dim() == 2) shape.insert(shape.begin(), rows);
  Tensor result = empty_tensor(shape, TensorOptions(ScalarType::Long, Device(DeviceType::CPU)));
  int64_t* out = result.data_ptr<int64_t>();
  Generator& gen = generator_or_default(generator);
  std::lock_guard<std::mutex> lock(gen.mutex());
  std::vector<double> work(n_categories);
  std::vector<int64_t> order(n_categories);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = p + r * n_categories;
    int64_t* o = out + r * num_samples;
    if (replacement) {
      // Inverse CDF: the first category whose cumulative sum exceeds u * total.
      std::partial_sum(row, row + n_categories, work.begin());
      for (int64_t s = 0; s < num_samples; ++s) {
        const double u = uniform_double(gen.engine()) * work.back();
        int64_t c = std::upper_bound(work.begin(), work.end(), u) - work.begin();
        while (c == n_categories || row[c] == 0.0) --c;  // u rounded up to the total
        o[s] = c;
      }
    } else {
      // Exponential races (Efraimidis-Spirakis): the k largest keys log(u) / p_c are a draw of
      // k categories without replacement, in the order they were drawn.
      for (int64_t c = 0; c < n_categories; ++c) {
        const double u = 1.0 - uniform_double(gen.engine());  // in (0, 1]
        work[c] = row[c] > 0.0 ? std::log(u) / row[c] : -std::numeric_limits<double>::infinity();
      }
      std::iota(order.begin(), order.end(), int64_t(0));
      std::partial_sort(order.begin(), order.begin() + num_samples, order.end(),
                        [&](int64_t a, int64_t b) { return work[a] > work[b]; });
      std::copy(order.begin(), order.begin() + num_samples, o);
    }
  }
  return self.is_cpu() ? result : result.to(self.device());
}

// ---- randperm ----------------------------------------------------------------------------------

Tensor randperm(int64_t n, std::optional<GeneratorPtr> generator, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TL_CHECK(n >= 0, "n must be non-negative, got", n);
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), int64_t(0));
  {
    Generator& gen = generator_or_default(generator);
    std::lock_guard<std::mutex> lock(gen.mutex());
    for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
      const int64_t j = static_cast<int64_t>(gen.engine()() % static_cast<uint64_t>(i + 1));
      std::swap(perm[i], perm[j]);
    }
  }
  Tensor result = tl::empty({n}, dtype.value_or(ScalarType::Long), layout, device, pin_memory);
  Tensor values = empty_tensor({n}, TensorOptions(ScalarType::Long, Device(DeviceType::CPU)));
  std::copy(perm.begin(), perm.end(), values.data_ptr<int64_t>());
  return result.copy_(values);
}

Tensor randperm(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::randperm(n, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory);
}

// out= keeps out's dtype and device (an int32 out gets an int32 permutation).
Tensor randperm_out(int64_t n, std::optional<GeneratorPtr> generator, const Tensor& out) {
  return write_out(tl::randperm(n, generator, out.dtype(), std::nullopt, out.device(), std::nullopt), out);
}
Tensor randperm_out(int64_t n, const Tensor& out) { return randperm_out(n, std::optional<GeneratorPtr>(), out); }

// ---- dropout -----------------------------------------------------------------------------------

// Note [Dropout in one pass]: the mask (bool, like PyTorch's) and the output x * mask / (1 - p)
// are written in the same loop that draws the uniforms, on a contiguous copy of the input.
// A dropped element is x * 0, so NaN stays NaN, as in PyTorch's input.mul(mask).mul_(scale).
std::tuple<Tensor, Tensor> native_dropout_cpu(const Tensor& input, double p, std::optional<bool> train) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
  if (train.has_value() && !*train) {
    return {input.clone(), tl::ones_like(input, ScalarType::Bool)};
  }
  const Tensor x = input.contiguous();
  Tensor out = tl::empty_like(x);
  Tensor mask = empty_tensor(x.sizes(), TensorOptions(ScalarType::Bool, Device(DeviceType::CPU)));
  const float keep = static_cast<float>(1.0 - p);
  const double scale = p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
  bool* m = mask.data_ptr<bool>();
  Generator& gen = *default_generator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  dispatch_floating_types(x.dtype(), "native_dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const op_t s = static_cast<op_t>(scale);
    for_each_uniform_float(gen.engine(), x.numel(), [&](int64_t i, float u) {
      m[i] = u < keep;
      op[i] = static_cast<T>(static_cast<op_t>(xp[i]) * (m[i] ? s : op_t(0)));
    });
  });
  return {out, mask};
}

// grad_output * mask * scale, in one loop when both are contiguous.
Tensor native_dropout_backward_cpu(const Tensor& grad_output, const Tensor& mask, double scale) {
  TL_CHECK(mask.dtype() == ScalarType::Bool, "Mask should be Bool Scalar Type", mask.dtype());
  if (!(grad_output.is_contiguous() && mask.is_contiguous() && grad_output.sizes().equals(mask.sizes()) &&
        is_floating_point(grad_output.dtype()))) {
    return grad_output.mul(mask).mul(scale);
  }
  Tensor out = tl::empty_like(grad_output);
  const bool* m = mask.data_ptr<bool>();
  dispatch_floating_types(grad_output.dtype(), "native_dropout_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    const T* g = grad_output.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const op_t s = static_cast<op_t>(scale);
    // (grad * mask) * scale, as PyTorch: a dropped element times an infinite scale is NaN.
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = static_cast<T>(static_cast<op_t>(g[i]) * op_t(m[i]) * s);
  });
  return out;
}

// The CUDA path: the mask is drawn as bernoulli_ draws it, from the same generator stream as the
// CPU kernel's (a seed gives the same mask on every device), then applied on the input's device.
std::tuple<Tensor, Tensor> native_dropout_composite(const Tensor& input, double p, std::optional<bool> train) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
  if (train.has_value() && !*train) {
    return {input.clone(), tl::ones_like(input, ScalarType::Bool)};
  }
  if (!is_floating_point(input.dtype())) dtype_not_implemented("native_dropout", input.dtype());
  Tensor mask = tl::empty(input.sizes(), ScalarType::Bool, std::nullopt, input.device()).bernoulli_(1.0 - p);
  const double scale = p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
  return {input.mul(mask).mul(scale), mask};
}

Tensor native_dropout_backward_composite(const Tensor& grad_output, const Tensor& mask, double scale) {
  TL_CHECK(mask.dtype() == ScalarType::Bool, "Mask should be Bool Scalar Type", mask.dtype());
  return grad_output.mul(mask).mul(scale);
}

// torch.dropout: identity when not training or p == 0.
Tensor dropout(const Tensor& input, double p, bool train) {
  if (!train || p == 0.0 || input.numel() == 0) return input;
  return std::get<0>(tl::native_dropout(input, p, train));
}

}  // namespace tl::native
