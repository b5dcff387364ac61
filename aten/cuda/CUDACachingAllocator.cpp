// The pool logic of the CUDA caching allocator (Note [CUDA caching allocator]). No CUDA
// runtime here: this file is compiled in every build, so the test hooks at the bottom run
// the same code on host memory where no GPU exists.
#include "aten/cuda/CUDACachingAllocator.h"

#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "aten/core/DeviceErrors.h"
#include "aten/core/Exception.h"
#include "aten/cuda/CUDAHooks.h"

namespace tl::cuda {

namespace {
std::string format_size(int64_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(2);
  if (bytes < (int64_t(1) << 20)) os << static_cast<double>(bytes) / 1024.0 << " KiB";
  else if (bytes < (int64_t(1) << 30)) os << static_cast<double>(bytes) / 1048576.0 << " MiB";
  else os << static_cast<double>(bytes) / 1073741824.0 << " GiB";
  return os.str();
}
}  // namespace

CachingAllocatorCore::CachingAllocatorCore(std::unique_ptr<RawAllocator> raw) : raw_(std::move(raw)) {}

CachingAllocatorCore::~CachingAllocatorCore() {
  // Only test pools are destroyed (device allocators live for the whole process): give
  // back whatever they hold, in use or not.
  std::set<void*> segments;
  auto collect = [&](Block* b) {
    while (b->prev) b = b->prev;
    segments.insert(b->ptr);
  };
  for (Block* b : small_pool_) collect(b);
  for (Block* b : large_pool_) collect(b);
  for (auto& kv : active_) collect(kv.second);
  std::set<Block*> all(small_pool_.begin(), small_pool_.end());
  all.insert(large_pool_.begin(), large_pool_.end());
  for (auto& kv : active_) all.insert(kv.second);
  for (void* p : segments) raw_->free(p);
  for (Block* b : all) delete b;
}

Block* CachingAllocatorCore::find_free(Pool& p, size_t size, StreamId stream) {
  Block key{this, false, stream, size, 0, nullptr};
  auto it = p.lower_bound(&key);
  if (it == p.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  // Do not hand a small request a huge cached segment of the large pool: keep large
  // blocks for large requests (PyTorch's max_split_size idea, with a fixed bound).
  if (!b->small && size < kMinLargeAlloc && b->size >= kMinLargeAlloc && b->size > 2 * kLargeBuffer) return nullptr;
  p.erase(it);
  return b;
}

void* CachingAllocatorCore::raw_alloc(size_t size) {
  if (limit_ && static_cast<size_t>(reserved_) + size > limit_) return nullptr;
  ++raw_alloc_calls_;
  return raw_->alloc(size);
}

Block* CachingAllocatorCore::malloc(size_t nbytes, StreamId stream) {
  std::lock_guard<std::mutex> g(mu_);
  const size_t size = round_size(nbytes);
  const bool small = size <= kSmallSize;
  Pool& p = pool(small);

  Block* block = find_free(p, size, stream);
  if (block) {
    if (is_split(block)) {
      update(stats_.inactive_split, small, -1);
      update(stats_.inactive_split_bytes, small, -static_cast<int64_t>(block->size));
    }
  } else {
    const size_t seg = segment_size(size);
    void* ptr = raw_alloc(seg);
    if (!ptr) {
      // Out of memory: give every cached whole segment back and try once more.
      ++stats_.num_alloc_retries;
      release_cached_segments();
      ptr = raw_alloc(seg);
    }
    if (!ptr) {
      ++stats_.num_ooms;
      const int64_t allocated = stats_.allocated_bytes[kAll].current;
      const int64_t reserved = stats_.reserved_bytes[kAll].current;
      std::string extra = raw_->describe();
      fail_with<OutOfMemoryError>("CUDA out of memory. Tried to allocate ", format_size(static_cast<int64_t>(size)), ". ", extra,
               extra.empty() ? "" : " ", "Of the allocated memory ", format_size(allocated),
               " is allocated by torchlite, and ", format_size(reserved - allocated),
               " is reserved by torchlite but unallocated.",
               limit_ ? " (memory limit " + format_size(static_cast<int64_t>(limit_)) + ")" : std::string());
    }
    block = new Block{this, small, stream, seg, 0, ptr};
    reserved_ += static_cast<int64_t>(seg);
    update(stats_.segment, small, 1);
    update(stats_.reserved_bytes, small, static_cast<int64_t>(seg));
  }

  // Split off the tail when the remainder is worth keeping.
  const size_t remaining = block->size - size;
  if (small ? remaining >= kMinBlockSize : remaining > kSmallSize) {
    Block* rest = new Block{this, small, stream, remaining, 0, static_cast<char*>(block->ptr) + size};
    rest->prev = block;
    rest->next = block->next;
    if (rest->next) rest->next->prev = rest;
    block->next = rest;
    block->size = size;
    p.insert(rest);
    update(stats_.inactive_split, small, 1);
    update(stats_.inactive_split_bytes, small, static_cast<int64_t>(remaining));
  }

  block->allocated = true;
  block->requested = nbytes;
  active_[block->ptr] = block;
  update(stats_.allocation, small, 1);
  update(stats_.active, small, 1);
  update(stats_.allocated_bytes, small, static_cast<int64_t>(block->size));
  update(stats_.active_bytes, small, static_cast<int64_t>(block->size));
  update(stats_.requested_bytes, small, static_cast<int64_t>(nbytes));
  return block;
}

void CachingAllocatorCore::free(Block* block) {
  std::lock_guard<std::mutex> g(mu_);
  TL_CHECK(block && block->allocated, "CUDA caching allocator: free of a block that is not allocated");
  const bool small = block->small;
  active_.erase(block->ptr);
  block->allocated = false;
  update(stats_.allocation, small, -1);
  update(stats_.active, small, -1);
  update(stats_.allocated_bytes, small, -static_cast<int64_t>(block->size));
  update(stats_.active_bytes, small, -static_cast<int64_t>(block->size));
  update(stats_.requested_bytes, small, -static_cast<int64_t>(block->requested));
  block->requested = 0;

  Pool& p = pool(small);
  // Merge with free neighbours of the same segment.
  auto absorb = [&](Block* dst, Block* src) {  // src is free and adjacent: it disappears
    p.erase(src);
    update(stats_.inactive_split, small, -1);
    update(stats_.inactive_split_bytes, small, -static_cast<int64_t>(src->size));
    if (src == dst->prev) {
      dst->ptr = src->ptr;
      dst->prev = src->prev;
      if (dst->prev) dst->prev->next = dst;
    } else {
      dst->next = src->next;
      if (dst->next) dst->next->prev = dst;
    }
    dst->size += src->size;
    delete src;
  };
  if (block->prev && !block->prev->allocated) absorb(block, block->prev);
  if (block->next && !block->next->allocated) absorb(block, block->next);
  if (is_split(block)) {
    update(stats_.inactive_split, small, 1);
    update(stats_.inactive_split_bytes, small, static_cast<int64_t>(block->size));
  }
  p.insert(block);
}

void CachingAllocatorCore::free_ptr(void* ptr) {
  Block* b = nullptr;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = active_.find(ptr);
    TL_CHECK(it != active_.end(), "CUDA caching allocator: pointer ", ptr, " was not allocated by this pool");
    b = it->second;
  }
  free(b);
}

void CachingAllocatorCore::release_cached_segments() {
  bool synced = false;
  for (Pool* p : {&small_pool_, &large_pool_}) {
    for (auto it = p->begin(); it != p->end();) {
      Block* b = *it;
      if (is_split(b)) {
        ++it;
        continue;
      }
      if (!synced) {
        raw_->synchronize();
        synced = true;
      }
      raw_->free(b->ptr);
      reserved_ -= static_cast<int64_t>(b->size);
      update(stats_.segment, b->small, -1);
      update(stats_.reserved_bytes, b->small, -static_cast<int64_t>(b->size));
      it = p->erase(it);
      delete b;
    }
  }
}

void CachingAllocatorCore::empty_cache() {
  std::lock_guard<std::mutex> g(mu_);
  release_cached_segments();
}

std::map<std::string, int64_t> CachingAllocatorCore::stats() {
  std::lock_guard<std::mutex> g(mu_);
  std::map<std::string, int64_t> out;
  static const char* pools[kNumPools] = {"all", "large_pool", "small_pool"};
  auto put = [&](const char* name, const Stat (&s)[kNumPools]) {
    for (int i = 0; i < kNumPools; ++i) {
      std::string prefix = std::string(name) + "." + pools[i] + ".";
      out[prefix + "current"] = s[i].current;
      out[prefix + "peak"] = s[i].peak;
      out[prefix + "allocated"] = s[i].allocated;
      out[prefix + "freed"] = s[i].freed;
    }
  };
  put("allocation", stats_.allocation);
  put("segment", stats_.segment);
  put("active", stats_.active);
  put("inactive_split", stats_.inactive_split);
  put("allocated_bytes", stats_.allocated_bytes);
  put("reserved_bytes", stats_.reserved_bytes);
  put("active_bytes", stats_.active_bytes);
  put("inactive_split_bytes", stats_.inactive_split_bytes);
  put("requested_bytes", stats_.requested_bytes);
  out["num_alloc_retries"] = stats_.num_alloc_retries;
  out["num_ooms"] = stats_.num_ooms;
  return out;
}

void CachingAllocatorCore::reset_peak_stats() {
  std::lock_guard<std::mutex> g(mu_);
  for (Stat* group : {stats_.allocation, stats_.segment, stats_.active, stats_.inactive_split,
                      stats_.allocated_bytes, stats_.reserved_bytes, stats_.active_bytes,
                      stats_.inactive_split_bytes, stats_.requested_bytes}) {
    for (int i = 0; i < kNumPools; ++i) group[i].reset_peak();
  }
}

// ---- test hooks: the pool on host memory ---------------------------------------------------

namespace {

class HostRawAllocator final : public RawAllocator {
 public:
  void* alloc(size_t nbytes) override { return std::aligned_alloc(kMinBlockSize, nbytes); }
  void free(void* ptr) override { std::free(ptr); }
};

std::unique_ptr<CachingAllocatorCore>& test_pool() {
  static std::unique_ptr<CachingAllocatorCore> p;
  return p;
}

CachingAllocatorCore& get_test_pool() {
  auto& p = test_pool();
  if (!p) p = std::make_unique<CachingAllocatorCore>(std::make_unique<HostRawAllocator>());
  return *p;
}

}  // namespace

void test_pool_reset(int64_t memory_limit) {
  TL_CHECK_VALUE(memory_limit >= 0, "test_pool_reset: memory_limit must be >= 0, got ", memory_limit);
  test_pool() = std::make_unique<CachingAllocatorCore>(std::make_unique<HostRawAllocator>());
  test_pool()->set_memory_limit(static_cast<size_t>(memory_limit));
}

int64_t test_pool_malloc(int64_t nbytes, int64_t stream) {
  TL_CHECK_VALUE(nbytes >= 0, "test_pool_malloc: nbytes must be >= 0, got ", nbytes);
  Block* b = get_test_pool().malloc(static_cast<size_t>(nbytes), static_cast<StreamId>(stream));
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(b->ptr));
}

void test_pool_free(int64_t ptr) { get_test_pool().free_ptr(reinterpret_cast<void*>(static_cast<uintptr_t>(ptr))); }

void test_pool_empty_cache() { get_test_pool().empty_cache(); }

void test_pool_reset_peak() { get_test_pool().reset_peak_stats(); }

std::map<std::string, int64_t> test_pool_stats() {
  auto s = get_test_pool().stats();
  s["raw_alloc_calls"] = get_test_pool().raw_alloc_calls();
  return s;
}

}  // namespace tl::cuda
