// Creation ops. All are device-generic (CompositeExplicitAutograd): they allocate with empty
// (the device's allocator) and write with fill_/copy_, so they run wherever those kernels
// exist. Sequences (arange, linspace) are computed on the CPU and copied to the device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "aten/native/ShapeUtils.h"
#include "generated/Stubs.h"
#include "generated/ops/arange.h"
#include "generated/ops/arange_native.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/empty_like.h"
#include "generated/ops/empty_like_native.h"
#include "generated/ops/empty_native.h"
#include "generated/ops/empty_strided.h"
#include "generated/ops/empty_strided_native.h"
#include "generated/ops/eye.h"
#include "generated/ops/eye_native.h"
#include "generated/ops/fill.h"
#include "generated/ops/fill_native.h"
#include "generated/ops/full.h"
#include "generated/ops/full_like.h"
#include "generated/ops/full_like_native.h"
#include "generated/ops/full_native.h"
#include "generated/ops/linspace.h"
#include "generated/ops/linspace_native.h"
#include "generated/ops/max.h"
#include "generated/ops/max_native.h"
#include "generated/ops/mul.h"
#include "generated/ops/mul_native.h"
#include "generated/ops/new_empty.h"
#include "generated/ops/new_empty_native.h"
#include "generated/ops/new_full.h"
#include "generated/ops/new_full_native.h"
#include "generated/ops/new_ones.h"
#include "generated/ops/new_ones_native.h"
#include "generated/ops/new_zeros.h"
#include "generated/ops/new_zeros_native.h"
#include "generated/ops/ones.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/ones_like_native.h"
#include "generated/ops/ones_native.h"
#include "generated/ops/zero.h"
#include "generated/ops/zero_native.h"
#include "generated/ops/zeros.h"
#include "generated/ops/zeros_like.h"
#include "generated/ops/zeros_like_native.h"
#include "generated/ops/zeros_native.h"

namespace tl::native {

// ---- shared helpers (declared in ShapeUtils.h) --------------------------------------------

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  const size_t n = sizes.size();
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  // Size-0/1 dims last; the rest by increasing stride.
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t required = 1;
  for (size_t i : perm) {
    if (sizes[i] < 2) return true;
    if (strides[i] != required) return false;
    required *= sizes[i];
  }
  return true;
}

std::vector<int64_t> strides_in_format(IntArrayRef sizes, MemoryFormat format) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  TL_CHECK(format != MemoryFormat::Preserve, "preserve memory format is unsupported by this operator");
  TL_CHECK(format != MemoryFormat::ChannelsLast || n == 4, "required rank 4 tensor to use channels_last format");
  TL_CHECK(format != MemoryFormat::ChannelsLast3d || n == 5, "required rank 5 tensor to use channels_last_3d format");
  // The order in which dims move, fastest first: row-major, or the channels (dim 1) first.
  std::vector<int64_t> order;
  if (format == MemoryFormat::Contiguous) {
    for (int64_t d = n - 1; d >= 0; --d) order.push_back(d);
  } else {
    order.push_back(1);
    for (int64_t d = n - 1; d >= 2; --d) order.push_back(d);
    order.push_back(0);
  }
  std::vector<int64_t> strides(n);
  int64_t next = 1;
  for (int64_t d : order) {
    strides[d] = next;
    next *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

bool is_contiguous_in(const Tensor& t, MemoryFormat format) {
  if (format == MemoryFormat::Preserve) return true;
  if (format == MemoryFormat::Contiguous) return t.is_contiguous();
  const int64_t rank = format == MemoryFormat::ChannelsLast ? 4 : 5;
  if (t.dim() != rank) return false;
  const std::vector<int64_t> expected = strides_in_format(t.sizes(), format);
  for (int64_t d = 0; d < rank; ++d) {
    if (t.sizes()[d] != 1 && t.strides()[d] != expected[d]) return false;
  }
  return true;
}

MemoryFormat suggest_memory_format(const Tensor& t) {
  if (t.is_contiguous()) return MemoryFormat::Contiguous;
  if (is_contiguous_in(t, MemoryFormat::ChannelsLast)) return MemoryFormat::ChannelsLast;
  if (is_contiguous_in(t, MemoryFormat::ChannelsLast3d)) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

std::vector<int64_t> infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  // perm[0] is the fastest-moving dim; start from row-major order and insertion-sort by
  // stride. Zero strides compare as ambiguous so broadcast dims keep row-major order.
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    int64_t s0 = strides[d0], s1 = strides[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (int64_t i = 1; i < n; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> out(n);
  int64_t cur = 1;
  for (int64_t i = 0; i < n; ++i) {
    out[perm[i]] = cur;
    cur *= std::max<int64_t>(sizes[perm[i]], 1);
  }
  return out;
}

void resize_out(const Tensor& out, IntArrayRef sizes) {
  if (!out.sizes().equals(sizes)) out.impl()->set_sizes_contiguous(sizes);
}

Tensor write_out(const Tensor& result, const Tensor& out) {
  TL_CHECK(out.dtype() == result.dtype(), "Expected out tensor to have dtype ", dtype_name(result.dtype()),
           ", but got ", dtype_name(out.dtype()), " instead");
  resize_out(out, result.sizes());
  out.copy_(result);
  return out;
}

std::tuple<Tensor, Tensor> write_out(const std::tuple<Tensor, Tensor>& result, const Tensor& out0, const Tensor& out1) {
  return {write_out(std::get<0>(result), out0), write_out(std::get<1>(result), out1)};
}

std::tuple<Tensor, Tensor, Tensor> write_out(const std::tuple<Tensor, Tensor, Tensor>& result, const Tensor& out0,
                                             const Tensor& out1, const Tensor& out2) {
  return {write_out(std::get<0>(result), out0), write_out(std::get<1>(result), out1),
          write_out(std::get<2>(result), out2)};
}

std::string legacy_type_name(const Tensor& t) {
  return std::string(t.is_cuda() ? "torch.cuda." : "torch.") + scalar_type_cpp_name(t.dtype()) + "Tensor";
}

namespace {

// Copies a CPU tensor `src` into `dst` (any device), or returns it when it already is `dst`.
void finish_into(const Tensor& dst, const Tensor& src) {
  if (!dst.is_same(src)) dst.copy_(src);
}

// A contiguous CPU tensor to compute `like`'s values in: `like` itself when it qualifies.
Tensor cpu_scratch(const Tensor& like) {
  if (like.is_cpu() && like.is_contiguous()) return like;
  return empty_tensor(like.sizes(), TensorOptions(like.dtype(), Device(DeviceType::CPU)));
}

}  // namespace

// ---- empty / zeros / ones / full ------------------------------------------------------------

Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  const TensorOptions options = make_options(dtype, device, default_dtype());
  if (!memory_format || *memory_format == MemoryFormat::Contiguous) return empty_tensor(size, options);
  return empty_strided_tensor(size, strides_in_format(size, *memory_format), options);
}

Tensor empty(IntArrayRef size, std::optional<MemoryFormat> memory_format, const Tensor& out) {
  resize_out(out, size);
  return out;
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return empty_strided_tensor(size, stride, make_options(dtype, device, default_dtype()));
}

// Note [preserve_format]: *_like factories keep the memory layout of `self` as PyTorch does:
// the same strides when self is non-overlapping and dense (e.g. a transposed tensor), else
// dense strides in self's dim order; memory_format=contiguous_format gives row-major.
Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  ScalarType dt = dtype.value_or(self.dtype());
  Device dev = device.value_or(self.device());
  MemoryFormat mf = memory_format.value_or(MemoryFormat::Preserve);
  if (mf != MemoryFormat::Preserve) return tl::empty(self.sizes(), dt, std::nullopt, dev, std::nullopt, mf);
  if (self.is_contiguous()) return tl::empty(self.sizes(), dt, std::nullopt, dev);
  std::vector<int64_t> strides = is_non_overlapping_and_dense(self.sizes(), self.strides())
                                     ? self.strides().vec()
                                     : infer_dense_strides(self.sizes(), self.strides());
  return tl::empty_strided(self.sizes(), strides, dt, std::nullopt, dev);
}

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::empty(size, dtype, layout, device, pin_memory).zero_();
}

Tensor zeros_out(IntArrayRef size, const Tensor& out) {
  resize_out(out, size);
  return out.zero_();
}

Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::empty(size, dtype, layout, device, pin_memory).fill_(Scalar(int64_t(1)));
}

Tensor ones_out(IntArrayRef size, const Tensor& out) {
  resize_out(out, size);
  return out.fill_(Scalar(int64_t(1)));
}

Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  // Without dtype=, the fill value decides: bool -> bool, int -> int64, float -> default dtype.
  ScalarType dt = dtype.value_or(fill_value.natural_dtype());
  return tl::empty(size, dt, layout, device, pin_memory).fill_(fill_value);
}

Tensor full_out(IntArrayRef size, const Scalar& fill_value, const Tensor& out) {
  resize_out(out, size);
  return out.fill_(fill_value);
}

Tensor zeros_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return tl::empty_like(self, dtype, layout, device, pin_memory, memory_format).zero_();
}

Tensor ones_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return tl::empty_like(self, dtype, layout, device, pin_memory, memory_format).fill_(Scalar(int64_t(1)));
}

Tensor full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return tl::empty_like(self, dtype, layout, device, pin_memory, memory_format).fill_(fill_value);
}

// new_*: dtype and device default to self's.
Tensor new_empty(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::empty(size, dtype.value_or(self.dtype()), layout, device.value_or(self.device()), pin_memory);
}

Tensor new_zeros(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory) {
  return self.new_empty(size, dtype, layout, device, pin_memory).zero_();
}

Tensor new_ones(const Tensor& self, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  return self.new_empty(size, dtype, layout, device, pin_memory).fill_(Scalar(int64_t(1)));
}

Tensor new_full(const Tensor& self, IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return self.new_empty(size, dtype, layout, device, pin_memory).fill_(fill_value);
}

Tensor fill_(const Tensor& self, const Scalar& value) {
  if (self.numel() == 0) return self;
  TensorIterator iter =
      TensorIteratorConfig()
          .name("fill_")
          .add_output(self)
          .resize_outputs(false)
          .check_mem_overlap(false)  // one value everywhere: writing an alias twice is harmless
          .common_dtype(self.dtype())
          .build();
  fill_stub(iter.device().type, iter, value);
  iter.output();
  return self;
}

Tensor zero_(const Tensor& self) { return self.fill_(Scalar(int64_t(0))); }

Tensor fill_(const Tensor& self, const Tensor& value) {
  TL_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
           " dimensions.");
  if (value.is_cpu()) return self.fill_(value.item());
  return self.copy_(value);  // a device scalar: broadcast it without a round trip to the host
}

// ---- arange ---------------------------------------------------------------------------------

namespace {

// Accumulation type of arange on the CPU (PyTorch's acc_type): int64 for integers, float for
// the half types, double otherwise. Values are start + i * step computed in it.
template <typename T>
using arange_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t,
                                        std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>,
                                                           double, float>>;

int64_t arange_size(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype) {
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  TL_CHECK(st != 0, "step must be nonzero");
  TL_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", start, " -> ", end);
  TL_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "upper bound and lower bound inconsistent with step sign");
  double size_d;
  if (dtype == ScalarType::Long) {
    // Integer arithmetic on the values cast to int64, as PyTorch does for int64 results.
    const int64_t xs = start.to_long(), xe = end.to_long(), xst = step.to_long();
    TL_CHECK(xst != 0, "step must be nonzero");
    const int64_t sgn = (xst > 0) - (xst < 0);
    size_d = std::ceil(static_cast<double>((xe - xs + xst - sgn) / xst));
  } else {
    size_d = std::ceil((e - s) / st);
  }
  TL_CHECK(size_d >= 0 && size_d <= static_cast<double>(std::numeric_limits<int64_t>::max()),
           "invalid size, possible overflow?");
  return static_cast<int64_t>(size_d);
}

void arange_fill(const Tensor& result, const Scalar& start, const Scalar& step) {
  Tensor buf = cpu_scratch(result);
  dispatch_all_types(result.dtype(), "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = arange_acc_t<T>;
    const Acc xstart = start.to<Acc>(), xstep = step.to<Acc>();
    T* out = buf.template data_ptr<T>();
    const int64_t n = buf.numel();
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(xstart + xstep * static_cast<Acc>(i));
  });
  finish_into(result, buf);
}

}  // namespace

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
              std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  // Without dtype=, any float argument makes a default-dtype result, else int64.
  ScalarType dt = dtype.value_or(
      start.is_floating_point() || end.is_floating_point() || step.is_floating_point() ? default_dtype()
                                                                                       : ScalarType::Long);
  TL_CHECK(dt != ScalarType::Bool, "\"arange_cpu\" not implemented for 'Bool'");
  int64_t n = arange_size(start, end, step, dt);
  Tensor result = tl::empty(std::vector<int64_t>{n}, dt, layout, device, pin_memory);
  arange_fill(result, start, step);
  return result;
}

Tensor arange(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::arange(start, end, Scalar(int64_t(1)), dtype, layout, device, pin_memory);
}

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return tl::arange(Scalar(int64_t(0)), end, Scalar(int64_t(1)), dtype, layout, device, pin_memory);
}

Tensor arange_out(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  TL_CHECK(out.dtype() != ScalarType::Bool, "\"arange_cpu\" not implemented for 'Bool'");
  int64_t n = arange_size(start, end, step, out.dtype());
  resize_out(out, std::vector<int64_t>{n});
  arange_fill(out, start, step);
  return out;
}

Tensor arange_out(const Scalar& end, const Tensor& out) {
  return tl::arange_out(out, Scalar(int64_t(0)), end, Scalar(int64_t(1)));
}

// ---- linspace -------------------------------------------------------------------------------

namespace {

// PyTorch's CPU formula: the first half counts up from start, the second half down from end
// (so both ends are exact); the step is double for integer results, T otherwise.
void linspace_fill(const Tensor& result, const Scalar& start, const Scalar& end, int64_t steps) {
  if (steps == 0) return;
  if (steps == 1) {
    result.fill_(start);
    return;
  }
  Tensor buf = cpu_scratch(result);
  dispatch_all_types(result.dtype(), "linspace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Step = std::conditional_t<std::is_integral_v<T>, double, T>;
    using M = opmath_t<Step>;  // half types compute in float and round after each operation
    const T xs = start.to<T>(), xe = end.to<T>();
    // Each operation rounds to Step, as PyTorch's scalar_t arithmetic does for half types.
    auto mul = [](Step a, Step b) { return static_cast<Step>(static_cast<M>(a) * static_cast<M>(b)); };
    const Step s = static_cast<Step>(xs), e = static_cast<Step>(xe);
    const Step diff = static_cast<Step>(static_cast<M>(e) - static_cast<M>(s));
    const Step step = static_cast<Step>(static_cast<M>(diff) / static_cast<M>(static_cast<Step>(steps - 1)));
    const int64_t halfway = steps / 2;
    T* out = buf.template data_ptr<T>();
    for (int64_t i = 0; i < steps; ++i) {
      const Step k = static_cast<Step>(i < halfway ? i : steps - i - 1);
      if constexpr (std::is_same_v<Step, M>) {
        // One rounding, as PyTorch's fused multiply-add on every CPU with AVX2: an explicit fma
        // keeps that result on the portable build too.
        out[i] = static_cast<T>(i < halfway ? std::fma(step, k, s) : std::fma(-step, k, e));
      } else {
        out[i] = static_cast<T>(i < halfway ? static_cast<M>(s) + static_cast<M>(mul(step, k))
                                            : static_cast<M>(e) - static_cast<M>(mul(step, k)));
      }
    }
  });
  finish_into(result, buf);
}

}  // namespace

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TL_CHECK(steps >= 0, "number of steps must be non-negative");
  Tensor result = tl::empty(std::vector<int64_t>{steps}, dtype.value_or(default_dtype()), layout, device, pin_memory);
  linspace_fill(result, start, end, steps);
  return result;
}

Tensor linspace_out(const Scalar& start, const Scalar& end, int64_t steps, const Tensor& out) {
  TL_CHECK(steps >= 0, "number of steps must be non-negative");
  resize_out(out, std::vector<int64_t>{steps});
  linspace_fill(out, start, end, steps);
  return out;
}

// ---- eye ------------------------------------------------------------------------------------

Tensor eye_out(int64_t n, int64_t m, const Tensor& out) {
  TL_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TL_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  resize_out(out, std::vector<int64_t>{n, m});
  out.zero_();
  const int64_t k = std::min(n, m);
  if (k > 0) {
    // The diagonal as a strided view, filled in one op.
    out.as_strided(std::vector<int64_t>{k}, std::vector<int64_t>{out.stride(0) + out.stride(1)}, out.storage_offset()).fill_(Scalar(int64_t(1)));
  }
  return out;
}

Tensor eye_out(int64_t n, const Tensor& out) { return tl::eye_out(out, n, n); }

Tensor eye(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Layout> layout,
           std::optional<Device> device, std::optional<bool> pin_memory) {
  TL_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TL_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  Tensor result = tl::empty(std::vector<int64_t>{n, m}, dtype, layout, device, pin_memory);
  return tl::eye_out(result, n, m);
}

Tensor eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
           std::optional<bool> pin_memory) {
  return tl::eye(n, n, dtype, layout, device, pin_memory);
}

}  // namespace tl::native
