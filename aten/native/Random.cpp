// Random sampling: uniform_, normal_, random_ and the factories built on them (rand, randn,
// randint, *_like).
//
// Note [Random on every device]: values are drawn on the CPU from the tl::Generator (the one
// passed as generator=, else the default one that torchlite.manual_seed reseeds), in the
// logical row-major order of the tensor, and copied into the tensor with copy_. So the same
// seed gives the same numbers on every device and for every memory layout, and these
// kernels are device-generic (CompositeExplicitAutograd).
#include <cmath>
#include <limits>
#include <mutex>

#include "aten/native/ShapeUtils.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/empty_like.h"
#include "generated/ops/max.h"
#include "generated/ops/max_native.h"
#include "generated/ops/min.h"
#include "generated/ops/min_native.h"
#include "generated/ops/normal.h"
#include "generated/ops/normal_native.h"
#include "generated/ops/rand.h"
#include "generated/ops/rand_like.h"
#include "generated/ops/rand_like_native.h"
#include "generated/ops/rand_native.h"
#include "generated/ops/randint.h"
#include "generated/ops/randint_like.h"
#include "generated/ops/randint_like_native.h"
#include "generated/ops/randint_native.h"
#include "generated/ops/randn.h"
#include "generated/ops/randn_like.h"
#include "generated/ops/randn_like_native.h"
#include "generated/ops/randn_native.h"
#include "generated/ops/random.h"
#include "generated/ops/random_native.h"
#include "generated/ops/uniform.h"
#include "generated/ops/uniform_native.h"
#include "generated/ops/view_as_real.h"

namespace tl::native {

namespace {

// Uniform in [0, 1) with a full mantissa: 53 random bits for double, 24 for narrower types.
inline double uniform_double(std::mt19937_64& e) { return static_cast<double>(e() >> 11) * 0x1.0p-53; }
inline float uniform_float(std::mt19937_64& e) { return static_cast<float>(e() >> 40) * 0x1.0p-24f; }

// Runs `fill(T* data, int64_t n, engine)` on a contiguous CPU buffer with self's values and
// writes the result into self (directly when self is a contiguous CPU tensor).
template <typename Dispatch, typename Fill>
const Tensor& sample_into(const Tensor& self, const std::optional<GeneratorPtr>& generator, Dispatch dispatch,
                          const char* what, Fill fill) {
  if (self.numel() == 0) return self;
  const bool direct = self.is_cpu() && self.is_contiguous();
  Tensor buf = direct ? self : empty_tensor(self.sizes(), TensorOptions(self.dtype(), Device(DeviceType::CPU)));
  Generator& gen = generator_or_default(generator);
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    dispatch(self.dtype(), what, [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill(buf.template data_ptr<T>(), buf.numel(), gen.engine());
    });
  }
  if (direct) {
    self.bump_version();  // written in place without another op (copy_ bumps it otherwise)
  } else {
    self.copy_(buf);
  }
  return self;
}

// Largest value random_ draws for a dtype when no upper bound is given: every integer the
// type holds exactly (2^mantissa bits for floats).
int64_t random_max(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return 1;
    case ScalarType::Byte: return std::numeric_limits<uint8_t>::max();
    case ScalarType::Char: return std::numeric_limits<int8_t>::max();
    case ScalarType::Short: return std::numeric_limits<int16_t>::max();
    case ScalarType::Int: return std::numeric_limits<int32_t>::max();
    case ScalarType::Long: return std::numeric_limits<int64_t>::max();
    case ScalarType::Half: return int64_t(1) << 11;
    case ScalarType::BFloat16: return int64_t(1) << 8;
    case ScalarType::Float: return int64_t(1) << 24;
    case ScalarType::Double: return int64_t(1) << 53;
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: break;  // random_ rejects complex
  }
  return 0;
}

int64_t random_min(ScalarType t) {
  switch (t) {
    case ScalarType::Char: return std::numeric_limits<int8_t>::min();
    case ScalarType::Short: return std::numeric_limits<int16_t>::min();
    case ScalarType::Int: return std::numeric_limits<int32_t>::min();
    case ScalarType::Long: return std::numeric_limits<int64_t>::min();
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Float:
    case ScalarType::Double: return -random_max(t);
    default: return 0;
  }
}

// Integers uniform in [from, from + range), range = 0 meaning 2^64.
const Tensor& random_range(const Tensor& self, int64_t from, uint64_t range,
                           const std::optional<GeneratorPtr>& generator) {
  return sample_into(self, generator, [](ScalarType t, const char* w, auto&& f) { return dispatch_all_types(t, w, f); },
                     "random_", [from, range](auto* out, int64_t n, std::mt19937_64& e) {
                       using T = std::remove_pointer_t<decltype(out)>;
                       for (int64_t i = 0; i < n; ++i) {
                         uint64_t r = range == 0 ? e() : e() % range;
                         int64_t v = static_cast<int64_t>(static_cast<uint64_t>(from) + r);
                         if constexpr (std::is_same_v<T, bool>) out[i] = v != 0;
                         else if constexpr (std::is_integral_v<T>) out[i] = static_cast<T>(v);
                         else out[i] = static_cast<T>(static_cast<opmath_t<T>>(v));
                       }
                     });
}

}  // namespace

// ---- in-place samplers -----------------------------------------------------------------------

Tensor uniform_(const Tensor& self, double from, double to, std::optional<GeneratorPtr> generator) {
  // Complex: real and imaginary parts drawn independently, as PyTorch.
  if (is_complex(self.dtype())) {
    tl::view_as_real(self).uniform_(from, to, generator);
    return self;
  }
  if (!is_floating_point(self.dtype())) dtype_not_implemented("check_uniform_bounds", self.dtype());
  TL_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  return sample_into(self, generator, [](ScalarType t, const char* w, auto&& f) { return dispatch_floating_types(t, w, f); },
                     "uniform_", [from, to](auto* out, int64_t n, std::mt19937_64& e) {
                       using T = std::remove_pointer_t<decltype(out)>;
                       // Rounding can land on `to`; the range stays half-open, as documented.
                       if constexpr (std::is_same_v<T, double>) {
                         const double below = std::nextafter(to, from);
                         for (int64_t i = 0; i < n; ++i) {
                           const double v = from + (to - from) * uniform_double(e);
                           out[i] = v < to ? v : below;
                         }
                       } else {
                         const float f = static_cast<float>(from), w = static_cast<float>(to - from);
                         const float t = static_cast<float>(to), below = std::nextafter(t, f);
                         for (int64_t i = 0; i < n; ++i) {
                           const float v = f + w * uniform_float(e);
                           out[i] = static_cast<T>(v < t || from == to ? v : below);
                         }
                       }
                     });
}

Tensor normal_(const Tensor& self, double mean, double std, std::optional<GeneratorPtr> generator) {
  TL_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  // Complex: each part gets half the variance, so E|z - mean|^2 = std^2 (PyTorch's rule).
  if (is_complex(self.dtype())) {
    tl::view_as_real(self).normal_(mean, std / std::sqrt(2.0), generator);
    return self;
  }
  return sample_into(self, generator, [](ScalarType t, const char* w, auto&& f) { return dispatch_floating_types(t, w, f); },
                     "normal_kernel_cpu", [mean, std](auto* out, int64_t n, std::mt19937_64& e) {
                       using T = std::remove_pointer_t<decltype(out)>;
                       // Box-Muller: each pair of uniforms gives two independent normals.
                       constexpr double two_pi = 6.283185307179586476925286766559;
                       for (int64_t i = 0; i < n; i += 2) {
                         const double u1 = uniform_double(e), u2 = uniform_double(e);
                         const double r = std::sqrt(-2.0 * std::log1p(-u1));  // 1 - u1 is in (0, 1]
                         out[i] = static_cast<T>(mean + std * r * std::cos(two_pi * u2));
                         if (i + 1 < n) out[i + 1] = static_cast<T>(mean + std * r * std::sin(two_pi * u2));
                       }
                     });
}

Tensor random_(const Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<GeneratorPtr> generator) {
  const ScalarType t = self.dtype();
  if (to) {
    TL_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
    TL_CHECK(from >= random_min(t) && from <= random_max(t), "from is out of bounds for ", dtype_name(t));
    TL_CHECK(*to - 1 >= random_min(t) && *to - 1 <= random_max(t), "to - 1 is out of bounds for ", dtype_name(t));
    return random_range(self, from, static_cast<uint64_t>(*to) - static_cast<uint64_t>(from), generator);
  }
  // No upper bound: [from, largest exactly representable value].
  const int64_t hi = random_max(t);
  TL_CHECK(from <= hi && from >= random_min(t), "from is out of bounds for ", dtype_name(t));
  return random_range(self, from, static_cast<uint64_t>(hi) - static_cast<uint64_t>(from) + 1, generator);
}

Tensor random_(const Tensor& self, int64_t to, std::optional<GeneratorPtr> generator) {
  return self.random_(int64_t(0), std::optional<int64_t>(to), generator);
}

Tensor random_(const Tensor& self, std::optional<GeneratorPtr> generator) {
  return self.random_(int64_t(0), std::optional<int64_t>(), generator);
}

// ---- factories -------------------------------------------------------------------------------

Tensor rand(IntArrayRef size, std::optional<GeneratorPtr> generator, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::empty(size, dtype, layout, device, pin_memory).uniform_(0.0, 1.0, generator);
}

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::rand(size, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory);
}

Tensor randn(IntArrayRef size, std::optional<GeneratorPtr> generator, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::empty(size, dtype, layout, device, pin_memory).normal_(0.0, 1.0, generator);
}

Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::randn(size, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory);
}

// out= forms: out takes the size, keeps its dtype and device, and is filled in place.
Tensor rand_out(IntArrayRef size, std::optional<GeneratorPtr> generator, const Tensor& out) {
  resize_out(out, size);
  return out.uniform_(0.0, 1.0, generator);
}
Tensor rand_out(IntArrayRef size, const Tensor& out) { return rand_out(size, std::optional<GeneratorPtr>(), out); }

Tensor randn_out(IntArrayRef size, std::optional<GeneratorPtr> generator, const Tensor& out) {
  resize_out(out, size);
  return out.normal_(0.0, 1.0, generator);
}
Tensor randn_out(IntArrayRef size, const Tensor& out) { return randn_out(size, std::optional<GeneratorPtr>(), out); }

Tensor randint(int64_t low, int64_t high, IntArrayRef size, std::optional<GeneratorPtr> generator,
               std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  TL_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  return tl::empty(size, dtype.value_or(ScalarType::Long), layout, device, pin_memory)
      .random_(low, std::optional<int64_t>(high), generator);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, std::optional<ScalarType> dtype,
               std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::randint(low, high, size, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory);
}

Tensor randint(int64_t high, IntArrayRef size, std::optional<GeneratorPtr> generator, std::optional<ScalarType> dtype,
               std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::randint(int64_t(0), high, size, generator, dtype, layout, device, pin_memory);
}

Tensor randint(int64_t high, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
               std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::randint(int64_t(0), high, size, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory);
}

// out= keeps out's dtype and device (a float out gets whole numbers, as PyTorch's).
Tensor randint_out(int64_t low, int64_t high, IntArrayRef size, std::optional<GeneratorPtr> generator,
                   const Tensor& out) {
  return write_out(tl::randint(low, high, size, generator, out.dtype(), std::nullopt, out.device(), std::nullopt), out);
}
Tensor randint_out(int64_t low, int64_t high, IntArrayRef size, const Tensor& out) {
  return randint_out(low, high, size, std::optional<GeneratorPtr>(), out);
}
Tensor randint_out(int64_t high, IntArrayRef size, std::optional<GeneratorPtr> generator, const Tensor& out) {
  return randint_out(int64_t(0), high, size, generator, out);
}
Tensor randint_out(int64_t high, IntArrayRef size, const Tensor& out) {
  return randint_out(int64_t(0), high, size, std::optional<GeneratorPtr>(), out);
}

Tensor rand_like(const Tensor& self, std::optional<GeneratorPtr> generator, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return tl::empty_like(self, dtype, layout, device, pin_memory, memory_format).uniform_(0.0, 1.0, generator);
}

Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return tl::rand_like(self, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory, memory_format);
}

Tensor randn_like(const Tensor& self, std::optional<GeneratorPtr> generator, std::optional<ScalarType> dtype,
                  std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return tl::empty_like(self, dtype, layout, device, pin_memory, memory_format).normal_(0.0, 1.0, generator);
}

Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return tl::randn_like(self, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory, memory_format);
}

Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<GeneratorPtr> generator,
                    std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TL_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  return tl::empty_like(self, dtype, layout, device, pin_memory, memory_format)
      .random_(low, std::optional<int64_t>(high), generator);
}

Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return tl::randint_like(self, low, high, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory,
                          memory_format);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<GeneratorPtr> generator,
                    std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return tl::randint_like(self, int64_t(0), high, generator, dtype, layout, device, pin_memory, memory_format);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                    std::optional<Device> device, std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return tl::randint_like(self, int64_t(0), high, std::optional<GeneratorPtr>(), dtype, layout, device, pin_memory,
                          memory_format);
}

}  // namespace tl::native
