#pragma once
// The CUDA runtime as the rest of torchlite sees it. CUDAHooks.cpp implements it with the
// CUDA runtime when the build has CUDA; CUDAHooksStub.cpp otherwise (no devices, and every
// call that needs a device raises a clear error). No CUDA types here: streams are passed as
// integers (the cudaStream_t value; 0 is the legacy default stream), so pure C++ and the
// Python bindings can include this header in every build. CUDA code uses CUDAContext.h.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aten/core/Allocator.h"
#include "aten/core/Storage.h"
#include "aten/cuda/CUDACachingAllocator.h"

namespace tl::cuda {

bool is_built();
int device_count();  // 0 when built without CUDA, or when no driver / GPU is present
bool is_available();
int current_device();
void set_device(int device);
void synchronize(int device);
std::string device_name(int device);
std::pair<int, int> device_capability(int device);  // (major, minor)
std::pair<int64_t, int64_t> mem_get_info(int device);  // (free, total) bytes

// Caching allocator statistics for one device (bytes), as torch.cuda.memory_stats() names them.
std::map<std::string, int64_t> memory_stats(int device);
void empty_cache();
void reset_peak_memory_stats(int device);
std::vector<SegmentSnapshot> memory_snapshot();  // every device's segments; empty without a GPU
// Tensor.record_stream: the storage at `ptr` (its base address) on `device` is used on `stream`.
void record_stream(void* ptr, int device, int64_t stream);

// Page-locked host memory (Tensor.pin_memory): DMA reads and writes it directly, so copies
// between it and a device can be asynchronous (non_blocking=True). A CPU DataPtr.
DataPtr host_alloc_pinned(size_t nbytes);
bool is_pinned_storage(const StorageImpl& storage);

// Streams (Note [Current stream] in CUDAContext.h). -1 as device: the current device.
int64_t stream_create(int device, int priority);
void stream_destroy(int64_t stream);
void stream_synchronize(int64_t stream);
bool stream_query(int64_t stream);  // true when all work queued on it has finished
int64_t current_stream(int device);
void set_current_stream(int device, int64_t stream);
void stream_wait_event(int64_t stream, int64_t event);

// Events (torch.cuda.Event), as integers like streams.
int64_t event_create(int device, bool enable_timing, bool blocking);
void event_destroy(int64_t event);
void event_record(int64_t event, int64_t stream);
bool event_query(int64_t event);  // true when the work it waits for has completed
void event_synchronize(int64_t event);
float event_elapsed_time(int64_t start, int64_t end);  // milliseconds

// Note [CUDA libraries] (CUDALibraries.h): the sonames of the libraries loaded at run time, and
// the paths to try for each, in order (torchlite.cuda hands them over at import).
std::vector<std::string> cuda_library_sonames();
void set_library_candidates(const std::map<std::string, std::vector<std::string>>& candidates);
// cuBLAS (Note [cuBLAS at run time] in CuBLAS.h). Switches the matrix products between cuBLAS
// and the tiled kernel (the tests run both); nullopt returns to what TORCHLITE_CUBLAS says.
void set_cublas_enabled(std::optional<bool> enabled);
// The GEMM the CUDA matrix products use now: ("cublas", the library's path), ("tiled", why not
// cuBLAS), or ("none", why) in a build without CUDA. Loads cuBLAS on the first call.
std::pair<std::string, std::string> gemm_backend();
// Opens the first of `paths` that loads and defines every symbol in `required`, as the CUDA
// library search does (Note [CUDA libraries]), then lets it go: (the path that loaded, "") or
// ("", what each path reported).
std::pair<std::string, std::string> library_probe(const std::vector<std::string>& paths,
                                                  const std::vector<std::string>& required);
// torch.backends.cuda.cufft_plan_cache (Note [cuFFT plan cache] in FFTKernel.cu), per device: the
// kernels of the YAML ops _cufft_* (SpectralOps.cpp) call them.
int64_t cufft_plan_cache_size(int device);
int64_t cufft_plan_cache_max_size(int device);
void set_cufft_plan_cache_max_size(int device, int64_t max_size);
void clear_cufft_plan_cache(int device);
// set_float32_matmul_precision: whether float32 GEMMs may round their inputs to TF32.
void set_matmul_allow_tf32(bool allow);

// Test hooks: the caching allocator's pool logic (CUDACachingAllocator.cpp) driven with
// host memory, so its rounding, best-fit reuse, splitting, merging, statistics and
// out-of-memory path are tested on machines without a GPU. Pointers are returned as integers.
// A fresh pool; limit on reserved bytes (0: none); options as PYTORCH_CUDA_ALLOC_CONF spells them.
void test_pool_reset(int64_t memory_limit, const std::string& alloc_conf);
int64_t test_pool_malloc(int64_t nbytes, int64_t stream);
void test_pool_free(int64_t ptr);
void test_pool_empty_cache();
void test_pool_reset_peak();
std::map<std::string, int64_t> test_pool_stats();  // memory_stats keys + "raw_alloc_calls"
void test_pool_record_stream(int64_t ptr, int64_t stream);
void test_pool_complete_events();  // the events recorded so far complete
std::vector<SegmentSnapshot> test_pool_snapshot();

}  // namespace tl::cuda
