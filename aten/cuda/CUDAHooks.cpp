// The CUDA runtime hooks (CUDAHooks.h, CUDAContext.h) and the device allocator, for builds
// with CUDA. cudart is linked statically, so this loads on machines without a driver or
// GPU: device_count() is then 0 and anything that needs a device raises a RuntimeError.
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "aten/core/Allocator.h"
#include "aten/core/DeviceErrors.h"
#include "aten/cuda/CUDACachingAllocator.h"
#include "aten/cuda/CUDAContext.h"
#include "aten/cuda/CUDAHooks.h"

namespace tl::cuda {

void raise_cuda_error(cudaError_t err, const char* what) {
  (void)cudaGetLastError();  // clear the (non-sticky) error so the next call starts clean
  fail_with<AcceleratorError>("CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err), " from ", what,
                              ")");
}

namespace {

[[noreturn]] void no_device(const char* what) {
  TL_ERROR("CUDA error: no CUDA-capable device is detected (torchlite.cuda.is_available() is False): cannot ",
           what);
}

int cached_device_count() {
  static int count = [] {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();  // no driver / no GPU: not an error, just no devices
      n = 0;
    }
    return n;
  }();
  return count;
}

void require_device(const char* what) {
  if (cached_device_count() == 0) no_device(what);
}

// ---- device memory ----------------------------------------------------------------------

class CudaRawAllocator final : public RawAllocator {
 public:
  explicit CudaRawAllocator(int device) : device_(device) {}
  void* alloc(size_t nbytes) override {
    CUDAGuard g(device_);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    TL_CUDA_CHECK(err);
    return p;
  }
  void free(void* ptr) override {
    CUDAGuard g(device_);
    if (cudaFree(ptr) != cudaSuccess) (void)cudaGetLastError();  // e.g. driver shutting down
  }
  void synchronize() override {
    CUDAGuard g(device_);
    TL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  uintptr_t record_event(uintptr_t stream) override {
    CUDAGuard g(device_);
    cudaEvent_t e = nullptr;
    TL_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    TL_CUDA_CHECK(cudaEventRecord(e, reinterpret_cast<cudaStream_t>(stream)));
    return reinterpret_cast<uintptr_t>(e);
  }
  bool event_done(uintptr_t event) override {
    cudaEvent_t e = reinterpret_cast<cudaEvent_t>(event);
    const cudaError_t err = cudaEventQuery(e);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    if (cudaEventDestroy(e) != cudaSuccess) (void)cudaGetLastError();
    TL_CUDA_CHECK(err);
    return true;
  }
  std::string describe() const override {
    size_t free_b = 0, total = 0;
    CUDAGuard g(device_);
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
      (void)cudaGetLastError();
      return "";
    }
    std::ostringstream os;
    os << "GPU " << device_ << " has a total capacity of " << (total >> 20) << " MiB of which " << (free_b >> 20)
       << " MiB is free.";
    return os.str();
  }

 private:
  int device_;
};

class CUDAAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override { return allocate(nbytes, Device(DeviceType::CUDA, -1)); }

  DataPtr allocate(size_t nbytes, Device device) override {
    require_device("allocate memory on a CUDA device");
    const int index = resolve_device(device.index);
    Device dev(DeviceType::CUDA, index);
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, dev);
    CachingAllocatorCore& core = get(index);
    Block* b = core.malloc(nbytes, reinterpret_cast<StreamId>(current_cuda_stream(index)));
    return DataPtr(b->ptr, b, &free_block, dev);
  }

  CachingAllocatorCore* maybe_get(int index) {
    std::lock_guard<std::mutex> g(mu_);
    return index < static_cast<int>(cores_.size()) ? cores_[index].get() : nullptr;
  }

  CachingAllocatorCore& get(int index) {
    std::lock_guard<std::mutex> g(mu_);
    if (cores_.size() <= static_cast<size_t>(index)) cores_.resize(index + 1);
    if (!cores_[index]) {
      cores_[index] = std::make_unique<CachingAllocatorCore>(std::make_unique<CudaRawAllocator>(index));
      cores_[index]->set_config(config());
    }
    return *cores_[index];
  }

  std::vector<CachingAllocatorCore*> all() {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<CachingAllocatorCore*> out;
    for (auto& c : cores_) if (c) out.push_back(c.get());
    return out;
  }

 private:
  // PYTORCH_CUDA_ALLOC_CONF, read once, as PyTorch does, at the first device allocation.
  static const AllocatorConfig& config() {
    static const AllocatorConfig c = [] {
      const char* env = std::getenv("PYTORCH_CUDA_ALLOC_CONF");
      return parse_allocator_config(env ? env : "");
    }();
    return c;
  }

  static void free_block(void* ctx) {
    Block* b = static_cast<Block*>(ctx);
    b->owner->free(b);
  }

  std::mutex mu_;
  std::vector<std::unique_ptr<CachingAllocatorCore>> cores_;
};

CUDAAllocator& allocator() {
  // Leaked on purpose: storages freed during interpreter shutdown must still find it.
  static auto* a = new CUDAAllocator();
  return *a;
}

// Registering touches no CUDA API, so it is safe on machines without a GPU.
const bool allocator_registered = [] {
  set_cuda_allocator(&allocator());
  return true;
}();

// ---- streams ----------------------------------------------------------------------------

std::vector<cudaStream_t>& thread_streams() {
  thread_local std::vector<cudaStream_t> streams;  // per device; nullptr: the default stream
  if (streams.size() < static_cast<size_t>(cached_device_count())) streams.resize(cached_device_count(), nullptr);
  return streams;
}

cudaStream_t to_stream(int64_t s) { return reinterpret_cast<cudaStream_t>(static_cast<intptr_t>(s)); }
int64_t from_stream(cudaStream_t s) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(s)); }

}  // namespace

int resolve_device(int device) {
  require_device("use a CUDA device");
  if (device < 0) {
    int d = 0;
    TL_CUDA_CHECK(cudaGetDevice(&d));
    return d;
  }
  TL_CHECK(device < cached_device_count(), "CUDA error: invalid device ordinal: device ", device,
           " requested but only ", cached_device_count(), " CUDA device(s) are available");
  return device;
}

cudaStream_t current_cuda_stream(int device) { return thread_streams()[resolve_device(device)]; }

CUDAGuard::CUDAGuard(int device) {
  if (device < 0) return;
  TL_CUDA_CHECK(cudaGetDevice(&prev_));
  if (prev_ != device) {
    TL_CUDA_CHECK(cudaSetDevice(device));
    changed_ = true;
  }
}

CUDAGuard::~CUDAGuard() {
  if (changed_ && cudaSetDevice(prev_) != cudaSuccess) (void)cudaGetLastError();
}

// ---- CUDAHooks.h ----------------------------------------------------------------------------

bool is_built() { return true; }
int device_count() { return cached_device_count(); }
bool is_available() { return cached_device_count() > 0; }

int current_device() { return resolve_device(-1); }

void set_device(int device) {
  require_device("set the current device");
  TL_CHECK(device >= 0 && device < cached_device_count(), "CUDA error: invalid device ordinal ", device,
           " (device_count() is ", cached_device_count(), ")");
  TL_CUDA_CHECK(cudaSetDevice(device));
}

void synchronize(int device) {
  CUDAGuard g(resolve_device(device));
  TL_CUDA_CHECK(cudaDeviceSynchronize());
}

std::string device_name(int device) {
  cudaDeviceProp prop;
  TL_CUDA_CHECK(cudaGetDeviceProperties(&prop, resolve_device(device)));
  return prop.name;
}

std::pair<int, int> device_capability(int device) {
  const int d = resolve_device(device);
  int major = 0, minor = 0;
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d));
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d));
  return {major, minor};
}

std::pair<int64_t, int64_t> mem_get_info(int device) {
  CUDAGuard g(resolve_device(device));
  size_t free_b = 0, total = 0;
  TL_CUDA_CHECK(cudaMemGetInfo(&free_b, &total));
  return {static_cast<int64_t>(free_b), static_cast<int64_t>(total)};
}

std::map<std::string, int64_t> memory_stats(int device) {
  if (cached_device_count() == 0) return CachingAllocatorCore::zero_stats();
  CachingAllocatorCore* core = allocator().maybe_get(resolve_device(device));
  return core ? core->stats() : CachingAllocatorCore::zero_stats();
}

void empty_cache() {
  for (CachingAllocatorCore* c : allocator().all()) c->empty_cache();
}

void reset_peak_memory_stats(int device) {
  if (cached_device_count() == 0) return;
  if (CachingAllocatorCore* core = allocator().maybe_get(resolve_device(device))) core->reset_peak_stats();
}

std::vector<SegmentSnapshot> memory_snapshot() {
  std::vector<SegmentSnapshot> out;
  for (int d = 0; d < cached_device_count(); ++d) {
    CachingAllocatorCore* core = allocator().maybe_get(d);
    if (!core) continue;
    for (SegmentSnapshot& seg : core->snapshot()) {
      seg.device = d;
      out.push_back(std::move(seg));
    }
  }
  return out;
}

void record_stream(void* ptr, int device, int64_t stream) {
  if (!ptr) return;  // an empty tensor holds no memory
  allocator().get(resolve_device(device)).record_stream(ptr, static_cast<StreamId>(stream));
}

int64_t stream_create(int device, int priority) {
  CUDAGuard g(resolve_device(device));
  cudaStream_t s = nullptr;
  TL_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
  return from_stream(s);
}

void stream_destroy(int64_t stream) {
  if (stream != 0 && cudaStreamDestroy(to_stream(stream)) != cudaSuccess) (void)cudaGetLastError();
}

void stream_synchronize(int64_t stream) {
  require_device("synchronize a stream");
  TL_CUDA_CHECK(cudaStreamSynchronize(to_stream(stream)));
}

bool stream_query(int64_t stream) {
  require_device("query a stream");
  cudaError_t err = cudaStreamQuery(to_stream(stream));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  TL_CUDA_CHECK(err);
  return true;
}

int64_t current_stream(int device) { return from_stream(current_cuda_stream(device)); }

void set_current_stream(int device, int64_t stream) { thread_streams()[resolve_device(device)] = to_stream(stream); }

namespace {
cudaEvent_t to_event(int64_t e) { return reinterpret_cast<cudaEvent_t>(static_cast<intptr_t>(e)); }
}  // namespace

void stream_wait_event(int64_t stream, int64_t event) {
  require_device("make a stream wait for an event");
  TL_CUDA_CHECK(cudaStreamWaitEvent(to_stream(stream), to_event(event), 0));
}

int64_t event_create(int device, bool enable_timing, bool blocking) {
  CUDAGuard g(resolve_device(device));
  cudaEvent_t e = nullptr;
  const unsigned flags = (enable_timing ? 0u : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0u);
  TL_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(e));
}

void event_destroy(int64_t event) {
  if (event != 0 && cudaEventDestroy(to_event(event)) != cudaSuccess) (void)cudaGetLastError();
}

void event_record(int64_t event, int64_t stream) { TL_CUDA_CHECK(cudaEventRecord(to_event(event), to_stream(stream))); }

bool event_query(int64_t event) {
  const cudaError_t err = cudaEventQuery(to_event(event));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  TL_CUDA_CHECK(err);
  return true;
}

void event_synchronize(int64_t event) { TL_CUDA_CHECK(cudaEventSynchronize(to_event(event))); }

float event_elapsed_time(int64_t start, int64_t end) {
  float ms = 0;
  TL_CUDA_CHECK(cudaEventElapsedTime(&ms, to_event(start), to_event(end)));
  return ms;
}

}  // namespace tl::cuda
