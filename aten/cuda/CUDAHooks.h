#pragma once
// The CUDA runtime as the rest of torchlite sees it. CUDAHooks.cpp implements it with the
// CUDA runtime when the build has CUDA; CUDAHooksStub.cpp otherwise (no devices, and every
// call that needs a device raises a clear error).
#include <cstdint>
#include <map>
#include <string>

namespace tl::cuda {

bool is_built();
int device_count();  // 0 when built without CUDA, or when no driver / GPU is present
bool is_available();
int current_device();
void set_device(int device);
void synchronize(int device);
std::string device_name(int device);

// Caching allocator statistics for one device (bytes), as torch.cuda.memory_stats() names them.
std::map<std::string, int64_t> memory_stats(int device);
void empty_cache();
void reset_peak_memory_stats(int device);

}  // namespace tl::cuda
