// CUDAHooks for builds without CUDA.
#include "aten/core/Exception.h"
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
std::map<std::string, int64_t> memory_stats(int) {
  return {{"allocated_bytes.all.current", 0}, {"allocated_bytes.all.peak", 0},
          {"reserved_bytes.all.current", 0}, {"reserved_bytes.all.peak", 0}};
}
void empty_cache() {}
void reset_peak_memory_stats(int) {}

}  // namespace tl::cuda
