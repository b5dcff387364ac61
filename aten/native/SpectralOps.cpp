// The FFT primitives torch.fft is built on (PyTorch's _fft_c2c, _fft_r2c, _fft_c2r): CPU kernels
// over the plans of Note [FFT plan] (aten/native/cpu/FFTPlan.h). A transform over several dims
// is one 1-D pass per dim: the tensor is laid out as rows along that dim, every row is
// transformed (rows run in parallel), and the rows are moved back. `normalization` is PyTorch's
// fft_norm_mode: 0 none, 1 divide by sqrt(n), 2 divide by n, n the signal size (the product of
// the transformed sizes; each pass applies its own dim's share).
#include <cmath>
#include <vector>

#include "aten/cuda/CUDAHooks.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cpu/FFTPlan.h"
#include "aten/native/Parallel.h"
#include "generated/ops/_cufft_clear_plan_cache_native.h"
#include "generated/ops/_cufft_get_plan_cache_max_size_native.h"
#include "generated/ops/_cufft_get_plan_cache_size_native.h"
#include "generated/ops/_cufft_set_plan_cache_max_size_native.h"
#include "generated/ops/_fft_c2c.h"
#include "generated/ops/_fft_c2c_native.h"
#include "generated/ops/_fft_c2r.h"
#include "generated/ops/_fft_c2r_native.h"
#include "generated/ops/_fft_r2c.h"
#include "generated/ops/_fft_r2c_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/movedim.h"
#include "generated/ops/narrow.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

constexpr int64_t kGrain = 1 << 14;

int64_t outer_size(const Tensor& x, int64_t d) {
  int64_t outer = 1;
  for (int64_t i = 0; i < d; ++i) outer *= x.sizes()[i];
  return outer;
}

double norm_scale(int64_t normalization, int64_t n) {
  if (normalization == 1) return 1.0 / std::sqrt(static_cast<double>(n));
  if (normalization == 2) return 1.0 / static_cast<double>(n);
  return 1.0;
}

// The dims to transform, wrapped; a repeated dim is an error.
std::vector<int64_t> fft_dims(const char* op, const Tensor& self, IntArrayRef dim) {
  TL_CHECK(!dim.empty(), op, ": expected at least one dim to transform");
  std::vector<int64_t> dims;
  for (int64_t d : dim) dims.push_back(wrap_dim(d, self.dim(), false));
  std::vector<bool> seen(static_cast<size_t>(self.dim()), false);
  for (int64_t d : dims) {
    TL_CHECK(!seen[d], "FFT dims must be unique");
    seen[d] = true;
  }
  return dims;
}

void check_normalization(int64_t normalization) {
  TL_CHECK(normalization >= 0 && normalization <= 2, "Invalid normalization mode: ", normalization);
}

// Runs f(row, work) over `rows` rows of length n, in parallel when the work is large; `work`
// is a per-thread buffer of work_size elements.
template <typename C, typename F>
void for_fft_rows(int64_t rows, int64_t n, int64_t work_size, F&& f) {
#pragma omp parallel if (worth_parallel(rows, rows * n, kGrain))
  {
    std::vector<C> work(static_cast<size_t>(work_size));
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) f(r, work.data());
  }
}

// b[0..len) <- a transformed by `run` (a forward transform in place) and scaled; the inverse
// transform is conj(forward(conj(a))).
template <typename C, typename T, typename F>
void transform_copy(const C* a, C* b, int64_t len, bool forward, T scale, F&& run) {
  if (forward) {
    std::copy(a, a + len, b);
  } else {
    for (int64_t i = 0; i < len; ++i) b[i] = std::conj(a[i]);
  }
  run(b);
  for (int64_t i = 0; i < len; ++i) b[i] = (forward ? b[i] : std::conj(b[i])) * scale;
}

// Along a dim with inner elements after it, the [n, inner] block of each outer index is
// transformed as `inner` interleaved signals (FFTPlan::forward_interleaved) when it is small
// enough to be a work buffer; else (and for Bluestein plans) row by row.
constexpr int64_t kMaxInterleaved = 1 << 20;

template <typename T>
bool c2c_interleaved(const Tensor& x, int64_t d, T scale, bool forward, Tensor& result) {
  using C = std::complex<T>;
  const int64_t n = x.sizes()[d];
  const int64_t inner = x.numel() / std::max<int64_t>(1, n) / std::max<int64_t>(1, outer_size(x, d));
  const auto plan = get_fft_plan<T>(n);
  if (d == x.dim() - 1 || inner < 4 || n * inner > kMaxInterleaved || !plan->interleavable() || x.numel() == 0) {
    return false;
  }
  const Tensor src = x.contiguous();
  result = empty_tensor(src.sizes(), src.options());
  const int64_t outer = outer_size(src, d), block = n * inner;
  const C* in = src.data_ptr<C>();
  C* out = result.data_ptr<C>();
  for_fft_rows<C>(outer, block, block, [&](int64_t o, C* work) {
    transform_copy(in + o * block, out + o * block, block, forward, scale,
                   [&](C* b) { plan->forward_interleaved(b, work, inner); });
  });
  return true;
}

// One c2c pass along dim d of a complex tensor; returns a new tensor (the input is only read).
Tensor c2c_pass(const Tensor& x, int64_t d, double scale, bool forward) {
  Tensor interleaved;
  const bool done = dispatch_float_double(to_real_type(x.dtype()), "_fft_c2c", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return c2c_interleaved<T>(x, d, static_cast<T>(scale), forward, interleaved);
  });
  if (done) return interleaved;
  const Tensor src = x.movedim(d, -1).contiguous();
  Tensor dst = empty_tensor(src.sizes(), src.options());
  const int64_t n = src.sizes().back();
  const int64_t rows = n == 0 ? 0 : src.numel() / n;
  if (rows == 0) return dst.movedim(-1, d);
  dispatch_float_double(to_real_type(x.dtype()), "_fft_c2c", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::complex<T>;
    const auto plan = get_fft_plan<T>(n);
    const C* in = src.data_ptr<C>();
    C* out = dst.data_ptr<C>();
    const T sc = static_cast<T>(scale);
    for_fft_rows<C>(rows, n, plan->work_size(), [&](int64_t r, C* work) {
      transform_copy(in + r * n, out + r * n, n, forward, sc, [&](C* b) { plan->forward(b, work); });
    });
  });
  return dst.movedim(-1, d);
}

// The onesided transform along dim d (of even size) of a real tensor (RealFFTPlan).
Tensor r2c_pass(const Tensor& x, int64_t d, double scale) {
  const Tensor src = x.movedim(d, -1).contiguous();
  const int64_t n = src.sizes().back(), rows = src.numel() / n;
  std::vector<int64_t> sizes(src.sizes().begin(), src.sizes().end());
  sizes.back() = n / 2 + 1;
  Tensor dst = empty_tensor(sizes, TensorOptions(to_complex_type(x.dtype()), x.device()));
  dispatch_float_double(x.dtype(), "_fft_r2c", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::complex<T>;
    const auto plan = cached_plan<RealFFTPlan<T>>(n);
    const T* in = src.data_ptr<T>();
    C* out = dst.data_ptr<C>();
    const T sc = static_cast<T>(scale);
    for_fft_rows<C>(rows, n, plan->work_size(), [&](int64_t r, C* work) {
      plan->forward(in + r * n, out + r * (n / 2 + 1), work, sc);
    });
  });
  return dst.movedim(-1, d);
}

Tensor c2c_passes(Tensor x, const std::vector<int64_t>& dims, int64_t normalization, bool forward) {
  for (int64_t d : dims) x = c2c_pass(x, d, norm_scale(normalization, x.sizes()[d]), forward);
  return x.contiguous();
}

}  // namespace

Tensor _fft_c2c_cpu(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  TL_CHECK(is_complex(self.dtype()), "_fft_c2c expects a complex input tensor, but got ",
           scalar_type_cpp_name(self.dtype()));
  check_normalization(normalization);
  return c2c_passes(self, fft_dims("_fft_c2c", self, dim), normalization, forward);
}

Tensor _fft_r2c_cpu(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  TL_CHECK(self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double,
           "_fft_r2c expects a floating point input tensor, but got ", scalar_type_cpp_name(self.dtype()));
  check_normalization(normalization);
  const std::vector<int64_t> dims = fft_dims("_fft_r2c", self, dim);
  const int64_t last = dims.back();
  if (onesided && self.sizes()[last] % 2 == 0 && self.numel() > 0) {
    // An even last dim goes through the half-length real transform, the others through c2c.
    const Tensor x = r2c_pass(self, last, norm_scale(normalization, self.sizes()[last]));
    return c2c_passes(x, std::vector<int64_t>(dims.begin(), dims.end() - 1), normalization, true);
  }
  // Otherwise the real input as complex, then a full c2c; onesided keeps the non-redundant half
  // (n/2 + 1 entries) of the last transformed dim.
  const Tensor z = self.to(to_complex_type(self.dtype()), false, false, std::nullopt);
  Tensor full = c2c_passes(z, dims, normalization, true);
  if (!onesided) return full;
  return full.narrow(last, 0, full.sizes()[last] / 2 + 1).contiguous();
}

Tensor _fft_c2r_cpu(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  TL_CHECK(is_complex(self.dtype()), "_fft_c2r expects a complex input tensor, but got ",
           scalar_type_cpp_name(self.dtype()));
  check_normalization(normalization);
  TL_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
  const std::vector<int64_t> dims = fft_dims("_fft_c2r", self, dim);
  const int64_t last = dims.back();
  const int64_t n = last_dim_size, half = n / 2 + 1;
  TL_CHECK(self.sizes()[last] == half, "_fft_c2r: expected the last transformed dim to have size ", half,
           " (last_dim_size / 2 + 1), but got ", self.sizes()[last]);
  // Every dim but the last is an ordinary inverse c2c; the last one is Hermitian.
  const Tensor x = c2c_passes(self, std::vector<int64_t>(dims.begin(), dims.end() - 1), normalization, false);
  const Tensor src = x.movedim(last, -1).contiguous();
  std::vector<int64_t> out_sizes(src.sizes().begin(), src.sizes().end());
  out_sizes.back() = n;
  Tensor dst = empty_tensor(out_sizes, TensorOptions(to_real_type(self.dtype()), self.device()));
  const int64_t rows = dst.numel() / n;
  if (rows > 0) {
    dispatch_float_double(to_real_type(self.dtype()), "_fft_c2r", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = std::complex<T>;
      const auto plan = get_fft_plan<T>(n);
      const C* in = src.data_ptr<C>();
      T* out = dst.data_ptr<T>();
      const T sc = static_cast<T>(norm_scale(normalization, n));
      for_fft_rows<C>(rows, n, plan->work_size(), [&](int64_t r, C* work) {
        // The full spectrum X[n-k] = conj(X[k]), conjugated for the inverse: b = conj(X).
        std::vector<C> b(static_cast<size_t>(n));
        const C* a = in + r * half;
        for (int64_t k = 0; k < half; ++k) b[k] = std::conj(a[k]);
        for (int64_t k = 1; k < n - half + 1; ++k) b[n - k] = a[k];
        // A real signal's DC and Nyquist terms are real: their imaginary parts are ignored.
        b[0].imag(0);
        if (n % 2 == 0) b[n / 2].imag(0);
        plan->forward(b.data(), work);
        // The real part of conj(.) is the real part.
        for (int64_t i = 0; i < n; ++i) out[r * n + i] = b[i].real() * sc;
      });
    });
  }
  return dst.movedim(-1, last).contiguous();
}

// ---- torch.backends.cuda.cufft_plan_cache ---------------------------------------------------------
// Each CUDA device's cache of cuFFT plans (Note [cuFFT plan cache], cuda/FFTKernel.cu), through the
// CUDA hooks; without CUDA they raise "Torchlite not compiled with CUDA enabled".

namespace {

// The index as the hooks take it, once it names a device (a build without CUDA has none to name:
// its hooks raise).
int plan_cache_device(int64_t device_index) {
  const int count = cuda::device_count();
  TL_CHECK(!cuda::is_built() || (device_index >= 0 && device_index < count),
           "cufft_plan_cache: expected 0 <= device index < ", count, ", but got device with index ", device_index);
  return static_cast<int>(device_index);
}

}  // namespace

int64_t _cufft_get_plan_cache_size(int64_t device_index) {
  return cuda::cufft_plan_cache_size(plan_cache_device(device_index));
}
int64_t _cufft_get_plan_cache_max_size(int64_t device_index) {
  return cuda::cufft_plan_cache_max_size(plan_cache_device(device_index));
}
void _cufft_set_plan_cache_max_size(int64_t device_index, int64_t max_size) {
  cuda::set_cufft_plan_cache_max_size(plan_cache_device(device_index), max_size);
}
void _cufft_clear_plan_cache(int64_t device_index) { cuda::clear_cufft_plan_cache(plan_cache_device(device_index)); }

}  // namespace tl::native
