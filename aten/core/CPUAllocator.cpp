// Note [CPU allocator]: fresh pages cost ~1.5 us each to fault in on this class of machine,
// so an op that allocates a 64 MiB output spends more time faulting than computing. Large
// blocks are therefore (1) backed by transparent huge pages (madvise) and (2) kept in a
// size-keyed cache when freed, so the next op of the same size reuses warm memory. Small
// blocks come from malloc, over-allocated and aligned by hand to 64 bytes (one AVX-512 vector):
// posix_memalign would bypass glibc's per-thread cache and split a chunk on every call, which
// made allocation and freeing a third of a small op's time (`a + b` on 4 floats).
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>

#include "aten/core/Allocator.h"

namespace tl {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kLargeBlock = size_t(1) << 20;  // from here on: mmap + huge pages + cache
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kMaxCached = size_t(2) << 30;  // cap on memory held by the cache

struct LargeBlock {
  void* ptr;
  size_t size;
};

class CPUCachingAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes < kLargeBlock) {
      // malloc aligns to alignof(max_align_t); the slack covers the rest of the way to 64.
      size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
      void* raw = std::malloc((rounded ? rounded : kAlignment) + kAlignment - alignof(std::max_align_t));
      if (!raw) oom(nbytes);
      auto addr = reinterpret_cast<uintptr_t>(raw);
      void* p = reinterpret_cast<void*>((addr + kAlignment - 1) & ~(uintptr_t(kAlignment) - 1));
      return DataPtr(p, raw, &std::free, Device(DeviceType::CPU));
    }
    size_t size = (nbytes + kHugePage - 1) / kHugePage * kHugePage;
    LargeBlock* block = nullptr;
    {
      std::lock_guard<std::mutex> g(mu_);
      // The most recently freed block of this size: its lines are the likeliest still in cache.
      auto [first, last] = cache_.equal_range(size);
      if (first != last) {
        auto it = std::prev(last);
        block = it->second;
        cache_.erase(it);
        stats_.cached -= static_cast<int64_t>(size);
        ++stats_.cache_hits;
      } else {
        ++stats_.cache_misses;
      }
      stats_.allocated += static_cast<int64_t>(size);
    }
    if (!block) block = map_block(size, nbytes);
    return DataPtr(block->ptr, block, &free_large, Device(DeviceType::CPU));
  }

  void release_large(LargeBlock* b) {
    std::lock_guard<std::mutex> g(mu_);
    stats_.allocated -= static_cast<int64_t>(b->size);
    if (stats_.cached + static_cast<int64_t>(b->size) <= static_cast<int64_t>(kMaxCached)) {
      cache_.emplace(b->size, b);
      stats_.cached += static_cast<int64_t>(b->size);
      return;
    }
    munmap(b->ptr, b->size);
    delete b;
  }

  void empty_cache() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& kv : cache_) {
      munmap(kv.second->ptr, kv.second->size);
      delete kv.second;
    }
    cache_.clear();
    stats_.cached = 0;
  }

  CPUAllocatorStats stats() {
    std::lock_guard<std::mutex> g(mu_);
    return stats_;
  }

 private:
  static void free_large(void* ctx);

  LargeBlock* map_block(size_t size, size_t requested) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      empty_cache();  // give cached blocks back to the OS and try once more
      p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) oom(requested);
    }
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return new LargeBlock{p, size};
  }

  [[noreturn]] static void oom(size_t nbytes) {
    TL_ERROR("DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes.");
  }

  std::mutex mu_;
  std::multimap<size_t, LargeBlock*> cache_;
  CPUAllocatorStats stats_;
};

CPUCachingAllocator& instance() {
  // Leaked on purpose: storages freed during interpreter shutdown must still find it.
  static auto* a = new CPUCachingAllocator();
  return *a;
}

void CPUCachingAllocator::free_large(void* ctx) { instance().release_large(static_cast<LargeBlock*>(ctx)); }

Allocator* g_cuda_allocator = nullptr;

}  // namespace

Allocator* cpu_allocator() { return &instance(); }
CPUAllocatorStats cpu_allocator_stats() { return instance().stats(); }
void cpu_allocator_empty_cache() { instance().empty_cache(); }

Allocator* cuda_allocator() { return g_cuda_allocator; }
void set_cuda_allocator(Allocator* a) { g_cuda_allocator = a; }

}  // namespace tl
