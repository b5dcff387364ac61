#pragma once
// Device memory allocation. A DataPtr owns one block and knows how to free it, so storages
// can also wrap foreign memory (NumPy arrays) without copying.
#include <cstddef>
#include <cstdint>

#include "aten/core/Device.h"

namespace tl {

struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;                  // passed to deleter
  void (*deleter)(void* ctx) = nullptr;  // nullptr: not owned
  Device device;

  DataPtr() = default;
  DataPtr(void* p, void* c, void (*d)(void*), Device dev) : ptr(p), ctx(c), deleter(d), device(dev) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { *this = std::move(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    release();
    ptr = o.ptr; ctx = o.ctx; deleter = o.deleter; device = o.device;
    o.ptr = nullptr; o.ctx = nullptr; o.deleter = nullptr;
    return *this;
  }
  ~DataPtr() { release(); }

 private:
  void release() {
    if (deleter) deleter(ctx);
    deleter = nullptr;
  }
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
  // On a given device (the CUDA allocator reads the index; -1: the current device).
  virtual DataPtr allocate(size_t nbytes, Device device) { return allocate(nbytes); }
};

// Statistics of the CPU allocator's large-block pool (bytes); small blocks go straight to
// the C allocator and are not counted. Exposed to Python for tests and benchmarks.
struct CPUAllocatorStats {
  int64_t allocated = 0;       // bytes in live large blocks
  int64_t cached = 0;          // bytes of freed large blocks kept for reuse
  int64_t cache_hits = 0;
  int64_t cache_misses = 0;
};

Allocator* cpu_allocator();
CPUAllocatorStats cpu_allocator_stats();
void cpu_allocator_empty_cache();

// Registered by the CUDA build; nullptr otherwise.
Allocator* cuda_allocator();
void set_cuda_allocator(Allocator* a);

inline Allocator* allocator_for(Device d) {
  if (d.is_cpu()) return cpu_allocator();
  Allocator* a = cuda_allocator();
  TL_CHECK(a != nullptr, "Torchlite not compiled with CUDA enabled: cannot allocate on ", d);
  return a;
}

}  // namespace tl
