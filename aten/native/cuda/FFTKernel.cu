// Note [cuFFT kernels]: the complex-to-complex and (onesided) real-to-complex FFTs run on the GPU
// through cuFFT when its library is installed (Note [CUDA libraries]: the nvidia-cufft wheel): the
// transformed dims are moved last into a contiguous copy, one cuFFT plan transforms up to three of
// them at once over the batch of the others, and the result is scaled and its dims moved back.
// The transforms are exact, so this is the CPU kernels' result up to rounding. Everything else goes
// to the host fallback (Note [Host fallback]), which gives the CPU's checks and messages: no cuFFT,
// other dtypes, more than three dims, dims the CPU would reject, empty or 32-bit-overflowing sizes,
// the two-sided real transform. _fft_c2r always does: cuFFT's multi-dimensional complex-to-real
// transform assumes a Hermitian input, while the CPU's treats every dim but the last as a
// complex transform (and the registry compares the two on inputs that are not Hermitian).
#include <algorithm>
#include <climits>
#include <cmath>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/cuda/CUDAHooks.h"
#include "aten/cuda/CUDALibraries.h"
#include "aten/native/HostFallback.h"
#include "generated/ops/_fft_c2c_native.h"
#include "generated/ops/_fft_r2c_native.h"
#include "generated/ops/clone.h"
#include "generated/ops/mul.h"
#include "generated/ops/permute.h"
#include "generated/ops/view_as_complex.h"
#include "generated/ops/view_as_real.h"

namespace tl::native {

namespace {

// The declarations of cufft.h that we call: plans are ints, data pointers plain device pointers.
using cufftHandle = int;
using cufftResult = int;
constexpr int kC2C = 0x29, kZ2Z = 0x69, kR2C = 0x2a, kD2Z = 0x6a;  // cufftType
constexpr int kForward = -1, kInverse = 1;                         // CUFFT_FORWARD, CUFFT_INVERSE

struct CuFFT {
  cufftResult (*create)(cufftHandle*);
  cufftResult (*set_auto_allocation)(cufftHandle, int);
  cufftResult (*make_plan_many)(cufftHandle, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                                int ostride, int odist, int type, int batch, size_t* work_size);
  cufftResult (*set_work_area)(cufftHandle, void*);
  cufftResult (*set_stream)(cufftHandle, cudaStream_t);
  cufftResult (*exec_c2c)(cufftHandle, void* in, void* out, int direction);
  cufftResult (*exec_z2z)(cufftHandle, void* in, void* out, int direction);
  cufftResult (*exec_r2c)(cufftHandle, void* in, void* out);
  cufftResult (*exec_d2z)(cufftHandle, void* in, void* out);
  cufftResult (*destroy)(cufftHandle);
};

// The loaded library's functions; nullptr without the library (or with one that lacks a function).
const CuFFT* cufft() {
  static const CuFFT* lib = []() -> const CuFFT* {
    static CuFFT c;
    const cuda::CudaLibrary& found =
        cuda::load_library_functions("CUFFT", {cuda::library_function("cufftCreate", c.create),
                                               cuda::library_function("cufftSetAutoAllocation", c.set_auto_allocation),
                                               cuda::library_function("cufftMakePlanMany", c.make_plan_many),
                                               cuda::library_function("cufftSetWorkArea", c.set_work_area),
                                               cuda::library_function("cufftSetStream", c.set_stream),
                                               cuda::library_function("cufftExecC2C", c.exec_c2c),
                                               cuda::library_function("cufftExecZ2Z", c.exec_z2z),
                                               cuda::library_function("cufftExecR2C", c.exec_r2c),
                                               cuda::library_function("cufftExecD2Z", c.exec_d2z),
                                               cuda::library_function("cufftDestroy", c.destroy)});
    return found.handle ? &c : nullptr;
  }();
  return lib;
}

void check_result(cufftResult result, const char* what) {
  TL_CHECK(result == 0, "cuFFT error: ", what, " returned ", result);
}

// The permutation that moves `dim` (up to three distinct, in-range dims, wrapped) last, in their
// order; nullopt for anything else, which the host fallback checks and reports.
std::optional<std::vector<int64_t>> dims_last_order(const Tensor& x, IntArrayRef dim) {
  const int64_t nd = x.dim();
  if (dim.empty() || dim.size() > 3) return std::nullopt;
  std::vector<int64_t> wrapped;
  std::vector<bool> chosen(static_cast<size_t>(nd), false);
  for (int64_t d : dim) {
    if (d < -nd || d >= nd) return std::nullopt;
    const int64_t w = d < 0 ? d + nd : d;
    if (chosen[w]) return std::nullopt;
    chosen[w] = true;
    wrapped.push_back(w);
  }
  std::vector<int64_t> order;
  for (int64_t d = 0; d < nd; ++d)
    if (!chosen[d]) order.push_back(d);
  order.insert(order.end(), wrapped.begin(), wrapped.end());
  return order;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& order) {
  std::vector<int64_t> inv(order.size());
  for (size_t i = 0; i < order.size(); ++i) inv[order[i]] = static_cast<int64_t>(i);
  return inv;
}

// A contiguous copy of x with its dims in `order`. A complex tensor is copied as its real view
// (the CUDA strided copy covers the real dtypes), whose last dim (re, im) stays last.
Tensor permuted_copy(const Tensor& x, std::vector<int64_t> order) {
  if (!is_complex(x.dtype())) return x.permute(order).clone(MemoryFormat::Contiguous);
  order.push_back(x.dim());
  return tl::view_as_complex(tl::view_as_real(x).permute(order).clone(MemoryFormat::Contiguous));
}

// Note [cuFFT plan cache]: making a plan costs far more than a small transform, so plans are kept
// per device, keyed by their signal sizes, type and batch, as torch.backends.cuda.cufft_plan_cache
// describes: at most max_size of them (4096 by default; 0 makes, runs and destroys one per call),
// the least recently used destroyed first, after a device synchronize (a queued transform may still
// use the plan). Plans have no work area of their own: each run takes one from the caching
// allocator on its stream, so two streams running one plan at once never share scratch memory,
// and the memory is the allocator's to reuse. The cache's lock is held from binding the stream and
// work area until the transform is queued.
struct PlanKey {
  std::vector<int> n;
  int type;
  int batch;
  auto operator<=>(const PlanKey&) const = default;
};

struct Plan {
  cufftHandle handle = 0;
  size_t work_size = 0;
};

class PlanCache {
 public:
  // Runs exec(plan) with the plan for `key` bound to `stream` and a fresh work area, making the
  // plan if needed.
  template <typename F>
  cufftResult run(const CuFFT& lib, const PlanKey& key, int device, cudaStream_t stream, F&& exec) {
    std::lock_guard<std::mutex> lock(mutex_);
    Plan plan;
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // most recently used first
      plan = it->second->second;
    } else {
      plan = make_plan(lib, key);
      if (max_size_ == 0) {
        const cufftResult result = run_plan_once(lib, plan, device, stream, exec);
        const cudaError_t synced = cudaStreamSynchronize(stream);
        lib.destroy(plan.handle);
        TL_CUDA_CHECK(synced);
        return result;
      }
      lru_.emplace_front(key, plan);
      index_[key] = lru_.begin();
      evict_locked(lib, max_size_);
    }
    return run_plan_once(lib, plan, device, stream, exec);
  }

  int64_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int64_t>(lru_.size());
  }
  int64_t max_size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int64_t>(max_size_);
  }
  // The caller holds a CUDAGuard for the cache's device.
  void set_max_size(const CuFFT* lib, int64_t max_size) {
    TL_CHECK(max_size >= 0, "cufft_plan_cache: max_size must be non-negative, got ", max_size);
    std::lock_guard<std::mutex> lock(mutex_);
    max_size_ = static_cast<size_t>(max_size);
    if (lib) evict_locked(*lib, max_size_);
  }
  // The caller holds a CUDAGuard for the cache's device.
  void clear(const CuFFT* lib) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lib) evict_locked(*lib, 0);
  }

 private:
  // Destroys the least recently used plans beyond `keep`; the current device is the cache's.
  void evict_locked(const CuFFT& lib, size_t keep) {
    if (lru_.size() <= keep) return;
    TL_CUDA_CHECK(cudaDeviceSynchronize());
    while (lru_.size() > keep) {
      lib.destroy(lru_.back().second.handle);
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }

  static Plan make_plan(const CuFFT& lib, const PlanKey& key) {
    Plan plan;
    check_result(lib.create(&plan.handle), "cufftCreate");
    std::vector<int> dims = key.n;
    cufftResult result = lib.set_auto_allocation(plan.handle, 0);
    if (result == 0)
      result = lib.make_plan_many(plan.handle, static_cast<int>(dims.size()), dims.data(), nullptr, 1, 0, nullptr, 1, 0,
                                  key.type, key.batch, &plan.work_size);
    if (result != 0) lib.destroy(plan.handle);
    check_result(result, "cufftMakePlanMany");
    return plan;
  }

  template <typename F>
  static cufftResult run_plan_once(const CuFFT& lib, const Plan& plan, int device, cudaStream_t stream, F& exec) {
    // Freed when this returns: the allocator reuses it only for work queued later on this stream.
    const std::vector<int64_t> bytes{static_cast<int64_t>(std::max<size_t>(plan.work_size, 1))};
    const Tensor work = empty_tensor(bytes, TensorOptions(ScalarType::Byte, Device(DeviceType::CUDA, device)));
    cufftResult result = lib.set_stream(plan.handle, stream);
    if (result == 0) result = lib.set_work_area(plan.handle, work.data_ptr());
    return result == 0 ? exec(plan.handle) : result;
  }

  std::mutex mutex_;
  std::list<std::pair<PlanKey, Plan>> lru_;  // most recently used first
  std::map<PlanKey, std::list<std::pair<PlanKey, Plan>>::iterator> index_;
  size_t max_size_ = 4096;
};

PlanCache& plan_cache(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<PlanCache>> caches;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<PlanCache>& cache = caches[device];
  if (!cache) cache = std::make_unique<PlanCache>();
  return *cache;
}

// The transform over the last `rank` dims of the contiguous `in` (signal sizes n), batched over
// the rest, run by exec(plan) on the current stream with the cached plan.
template <typename F>
void run_plan(const CuFFT& lib, const Tensor& in, const std::vector<int>& n, int type, F&& exec) {
  const int64_t signal = std::accumulate(n.begin(), n.end(), int64_t(1), std::multiplies<int64_t>());
  const int batch = static_cast<int>(in.numel() / signal);
  const int device = cuda::resolve_device(in.device().index);
  cuda::CUDAGuard guard(device);
  check_result(plan_cache(device).run(lib, PlanKey{n, type, batch}, device, cuda::current_cuda_stream(device), exec),
               "cufftExec");
}

// The signal sizes (the last `rank` dims of x), or nullopt when cuFFT's int sizes cannot hold them.
std::optional<std::vector<int>> signal_sizes(const Tensor& x, size_t rank) {
  if (x.numel() == 0 || x.numel() > INT_MAX) return std::nullopt;
  std::vector<int> n;
  for (int64_t i = x.dim() - static_cast<int64_t>(rank); i < x.dim(); ++i) n.push_back(static_cast<int>(x.size(i)));
  return n;
}

// The contiguous complex result z scaled (normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the
// product of the signal sizes, as on the CPU), with its dims put back in the input's order.
Tensor finished(const Tensor& z, int64_t normalization, const std::vector<int>& n, const std::vector<int64_t>& order) {
  const double size = std::accumulate(n.begin(), n.end(), 1.0, std::multiplies<double>());
  const double scale = normalization == 0 ? 1.0 : normalization == 1 ? 1.0 / std::sqrt(size) : 1.0 / size;
  Tensor r = tl::view_as_real(z);
  if (scale != 1.0) r = r.mul(scale);
  return permuted_copy(tl::view_as_complex(r), inverse(order));
}

}  // namespace

Tensor _fft_c2c_cuda(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  const CuFFT* lib = cufft();
  const bool supported = lib && (self.dtype() == ScalarType::ComplexFloat || self.dtype() == ScalarType::ComplexDouble);
  const auto order = supported && normalization >= 0 && normalization <= 2 ? dims_last_order(self, dim)
                                                                          : std::nullopt;
  const Tensor x = order ? permuted_copy(self, *order) : Tensor();
  const auto n = order ? signal_sizes(x, dim.size()) : std::nullopt;
  if (!n) return HostFallback<&_fft_c2c_cpu>::run(self, dim, normalization, forward);
  Tensor out = empty_tensor(x.sizes(), x.options());
  const int direction = forward ? kForward : kInverse;
  const bool single = self.dtype() == ScalarType::ComplexFloat;
  run_plan(*lib, x, *n, single ? kC2C : kZ2Z, [&](cufftHandle plan) {
    return (single ? lib->exec_c2c : lib->exec_z2z)(plan, x.data_ptr(), out.data_ptr(), direction);
  });
  return finished(out, normalization, *n, *order);
}

Tensor _fft_r2c_cuda(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  const CuFFT* lib = cufft();
  const bool supported = lib && onesided && (self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double);
  const auto order = supported && normalization >= 0 && normalization <= 2 ? dims_last_order(self, dim)
                                                                          : std::nullopt;
  const Tensor x = order ? permuted_copy(self, *order) : Tensor();
  const auto n = order ? signal_sizes(x, dim.size()) : std::nullopt;
  if (!n) return HostFallback<&_fft_r2c_cpu>::run(self, dim, normalization, onesided);
  std::vector<int64_t> out_sizes(x.sizes().begin(), x.sizes().end());
  out_sizes.back() = out_sizes.back() / 2 + 1;  // the non-redundant half of the last transformed dim
  const bool single = self.dtype() == ScalarType::Float;
  Tensor out = empty_tensor(out_sizes, TensorOptions(single ? ScalarType::ComplexFloat : ScalarType::ComplexDouble,
                                                     self.device()));
  run_plan(*lib, x, *n, single ? kR2C : kD2Z, [&](cufftHandle plan) {
    return (single ? lib->exec_r2c : lib->exec_d2z)(plan, x.data_ptr(), out.data_ptr());
  });
  return finished(out, normalization, *n, *order);
}

}  // namespace tl::native

namespace tl::cuda {

int64_t cufft_plan_cache_size(int device) { return native::plan_cache(device).size(); }

int64_t cufft_plan_cache_max_size(int device) { return native::plan_cache(device).max_size(); }

void set_cufft_plan_cache_max_size(int device, int64_t max_size) {
  CUDAGuard guard(device);
  native::plan_cache(device).set_max_size(native::cufft(), max_size);
}

void clear_cufft_plan_cache(int device) {
  CUDAGuard guard(device);
  native::plan_cache(device).clear(native::cufft());
}

}  // namespace tl::cuda
