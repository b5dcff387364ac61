// CUDAHooks for builds without CUDA.
#include "aten/core/Exception.h"
#include "aten/cuda/CUDACachingAllocator.h"
#include "aten/cuda/CUDAHooks.h"

namespace tl::cuda {

namespace {
[[noreturn]] void not_built() { TL_ERROR("Torchlite not compiled with CUDA enabled"); }
}  // namespace

bool is_built() { return false; }
int device_count() { return 0; }
bool is_available() { return false; }
int current_device() { not_built(); }
void set_device(int) { not_built(); }
void synchronize(int) { not_built(); }
std::string device_name(int) { not_built(); }
std::pair<int, int> device_capability(int) { not_built(); }
std::pair<int64_t, int64_t> mem_get_info(int) { not_built(); }
std::map<std::string, int64_t> memory_stats(int) { return CachingAllocatorCore::zero_stats(); }
void empty_cache() {}
void reset_peak_memory_stats(int) {}
std::vector<SegmentSnapshot> memory_snapshot() { return {}; }
DataPtr host_alloc_pinned(size_t) { TL_ERROR("Cannot access accelerator device when none is available."); }
bool is_pinned_storage(const StorageImpl&) { return false; }
void record_stream(void*, int, int64_t) { not_built(); }

int64_t stream_create(int, int) { not_built(); }
void stream_destroy(int64_t) { not_built(); }
void stream_synchronize(int64_t) { not_built(); }
bool stream_query(int64_t) { not_built(); }
int64_t current_stream(int) { not_built(); }
void set_current_stream(int, int64_t) { not_built(); }
void stream_wait_event(int64_t, int64_t) { not_built(); }

int64_t event_create(int, bool, bool) { not_built(); }
void event_destroy(int64_t) { not_built(); }
void event_record(int64_t, int64_t) { not_built(); }
bool event_query(int64_t) { not_built(); }
void event_synchronize(int64_t) { not_built(); }
float event_elapsed_time(int64_t, int64_t) { not_built(); }

std::vector<std::string> cuda_library_sonames() { return {}; }
void set_library_candidates(const std::map<std::string, std::vector<std::string>>&) {}
void set_cublas_enabled(std::optional<bool>) {}
std::pair<std::string, std::string> gemm_backend() { return {"none", "torchlite was built without CUDA"}; }
std::pair<std::string, std::string> library_probe(const std::vector<std::string>&, const std::vector<std::string>&) {
  not_built();
}
void set_matmul_allow_tf32(bool) {}
int64_t cufft_plan_cache_size(int) { not_built(); }
int64_t cufft_plan_cache_max_size(int) { not_built(); }
void set_cufft_plan_cache_max_size(int, int64_t) { not_built(); }
void clear_cufft_plan_cache(int) { not_built(); }

}  // namespace tl::cuda
