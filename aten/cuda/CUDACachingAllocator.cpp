// The pool logic of the CUDA caching allocator (Note [CUDA caching allocator]). No CUDA
// runtime here: this file is compiled in every build, so the test hooks at the bottom run
// the same code on host memory where no GPU exists.
#include "aten/cuda/CUDACachingAllocator.h"

#include <algorithm>
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
  for (auto& pending : pending_free_) collect(pending.first);
  std::set<Block*> all(small_pool_.begin(), small_pool_.end());
  all.insert(large_pool_.begin(), large_pool_.end());
  for (auto& kv : active_) all.insert(kv.second);
  for (auto& pending : pending_free_) {
    for (uintptr_t e : pending.second) raw_->event_done(e);  // destroys the events that completed
    all.insert(pending.first);
  }
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
  // With max_split_size: oversize blocks serve only oversize requests of about their size.
  if (!oversize(size) && oversize(b->size)) return nullptr;
  if (oversize(size) && b->size >= size + kLargeBuffer) return nullptr;
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
  process_events(false);
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
      process_events(true);
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
    if (oversize(seg)) stats_.oversize_segments.add(1);
  }

  // Split off the tail when the remainder is worth keeping (an oversize request never splits).
  const size_t remaining = block->size - size;
  if (small ? remaining >= kMinBlockSize : remaining > kSmallSize && !oversize(size)) {
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
  if (oversize(block->size)) stats_.oversize_allocations.add(1);
  return block;
}

void CachingAllocatorCore::free(Block* block) {
  std::lock_guard<std::mutex> g(mu_);
  TL_CHECK(block && block->allocated, "CUDA caching allocator: free of a block that is not allocated");
  const bool small = block->small;
  active_.erase(block->ptr);
  update(stats_.allocation, small, -1);
  update(stats_.allocated_bytes, small, -static_cast<int64_t>(block->size));
  update(stats_.requested_bytes, small, -static_cast<int64_t>(block->requested));
  if (oversize(block->size)) stats_.oversize_allocations.add(-1);
  if (block->stream_uses.empty()) return free_block(block);
  // Still in use on other streams: reusable once an event recorded on each has completed.
  std::vector<uintptr_t> events;
  for (StreamId s : block->stream_uses) events.push_back(raw_->record_event(s));
  block->stream_uses.clear();
  pending_free_.emplace_back(block, std::move(events));
}

void CachingAllocatorCore::process_events(bool wait) {
  if (pending_free_.empty()) return;
  if (wait) raw_->synchronize();
  std::vector<std::pair<Block*, std::vector<uintptr_t>>> still;
  for (auto& [block, events] : pending_free_) {
    std::vector<uintptr_t> left;
    for (uintptr_t e : events)
      if (!raw_->event_done(e)) left.push_back(e);
    if (left.empty()) free_block(block);
    else still.emplace_back(block, std::move(left));
  }
  pending_free_ = std::move(still);
}

void CachingAllocatorCore::free_block(Block* block) {
  const bool small = block->small;
  block->allocated = false;
  block->requested = 0;
  update(stats_.active, small, -1);
  update(stats_.active_bytes, small, -static_cast<int64_t>(block->size));

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

void CachingAllocatorCore::record_stream(void* ptr, StreamId stream) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = active_.find(ptr);
  TL_CHECK(it != active_.end(), "record_stream: the tensor's memory was not allocated by the CUDA caching allocator");
  if (stream != it->second->stream) it->second->stream_uses.insert(stream);
}

std::vector<SegmentSnapshot> CachingAllocatorCore::snapshot() {
  std::lock_guard<std::mutex> g(mu_);
  std::set<Block*> heads;  // first block of each segment
  auto head = [](Block* b) {
    while (b->prev) b = b->prev;
    return b;
  };
  for (Block* b : small_pool_) heads.insert(head(b));
  for (Block* b : large_pool_) heads.insert(head(b));
  for (auto& kv : active_) heads.insert(head(kv.second));
  std::set<Block*> pending;
  for (auto& entry : pending_free_) {
    heads.insert(head(entry.first));
    pending.insert(entry.first);
  }
  std::vector<SegmentSnapshot> out;
  for (Block* h : heads) {
    SegmentSnapshot seg;
    seg.address = reinterpret_cast<uintptr_t>(h->ptr);
    seg.stream = h->stream;
    seg.small = h->small;
    for (Block* b = h; b; b = b->next) {
      const char* state = !b->allocated ? "inactive" : pending.count(b) ? "active_pending_free" : "active_allocated";
      seg.blocks.push_back({reinterpret_cast<uintptr_t>(b->ptr), b->size, b->requested, state});
      seg.total_size += b->size;
      if (b->allocated) seg.active_size += b->size;
      if (b->allocated && !pending.count(b)) {
        seg.allocated_size += b->size;
        seg.requested_size += b->requested;
      }
    }
    out.push_back(std::move(seg));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
  return out;
}

AllocatorConfig parse_allocator_config(const std::string& conf) {
  AllocatorConfig config;
  size_t pos = 0;
  while (pos < conf.size()) {
    size_t end = conf.find(',', pos);
    if (end == std::string::npos) end = conf.size();
    const std::string item = conf.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    TL_CHECK_VALUE(colon != std::string::npos, "PYTORCH_CUDA_ALLOC_CONF: expected key:value, got '", item, "'");
    const std::string key = item.substr(0, colon), value = item.substr(colon + 1);
    if (key == "max_split_size_mb") {
      char* rest = nullptr;
      const long long mb = std::strtoll(value.c_str(), &rest, 10);
      TL_CHECK_VALUE(!value.empty() && *rest == '\0' && mb > static_cast<long long>(kLargeBuffer >> 20),
                     "PYTORCH_CUDA_ALLOC_CONF: max_split_size_mb must be an integer greater than ",
                     kLargeBuffer >> 20, ", got '", value, "'");
      config.max_split_size = static_cast<size_t>(mb) << 20;
    } else {
      static const std::set<std::string> known = {
          "backend", "expandable_segments", "garbage_collection_threshold", "roundup_power2_divisions",
          "release_lock_on_cudamalloc", "pinned_use_cuda_host_register", "pinned_num_register_threads"};
      TL_CHECK_VALUE(known.count(key), "PYTORCH_CUDA_ALLOC_CONF: unrecognized option '", key, "'");
    }
  }
  return config;
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
      if (oversize(b->size)) stats_.oversize_segments.add(-1);
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
  process_events(true);
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
  for (auto [name, stat] : {std::pair{"oversize_allocations", &stats_.oversize_allocations},
                            std::pair{"oversize_segments", &stats_.oversize_segments}}) {
    out[std::string(name) + ".current"] = stat->current;
    out[std::string(name) + ".peak"] = stat->peak;
    out[std::string(name) + ".allocated"] = stat->allocated;
    out[std::string(name) + ".freed"] = stat->freed;
  }
  out["max_split_size"] = config_.max_split_size == SIZE_MAX ? -1 : static_cast<int64_t>(config_.max_split_size);
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
  stats_.oversize_allocations.reset_peak();
  stats_.oversize_segments.reset_peak();
}

// ---- test hooks: the pool on host memory ---------------------------------------------------

namespace {

// Host memory, and events that complete when the test says so (test_pool_complete_events) or
// at synchronize().
class HostRawAllocator final : public RawAllocator {
 public:
  void* alloc(size_t nbytes) override { return std::aligned_alloc(kMinBlockSize, nbytes); }
  void free(void* ptr) override { std::free(ptr); }
  void synchronize() override { running_.clear(); }
  uintptr_t record_event(uintptr_t) override {
    running_.insert(++last_event_);
    return last_event_;
  }
  bool event_done(uintptr_t event) override { return !running_.count(event); }
  void complete_events() { running_.clear(); }

 private:
  std::set<uintptr_t> running_;
  uintptr_t last_event_ = 0;
};

HostRawAllocator* test_raw = nullptr;  // the current test pool's, owned by it

std::unique_ptr<CachingAllocatorCore>& test_pool() {
  static std::unique_ptr<CachingAllocatorCore> p;
  return p;
}

void new_test_pool() {
  auto raw = std::make_unique<HostRawAllocator>();
  test_raw = raw.get();
  test_pool() = std::make_unique<CachingAllocatorCore>(std::move(raw));
}

CachingAllocatorCore& get_test_pool() {
  if (!test_pool()) new_test_pool();
  return *test_pool();
}

}  // namespace

void test_pool_reset(int64_t memory_limit, const std::string& alloc_conf) {
  TL_CHECK_VALUE(memory_limit >= 0, "test_pool_reset: memory_limit must be >= 0, got ", memory_limit);
  const AllocatorConfig config = parse_allocator_config(alloc_conf);
  new_test_pool();
  test_pool()->set_memory_limit(static_cast<size_t>(memory_limit));
  test_pool()->set_config(config);
}

void test_pool_record_stream(int64_t ptr, int64_t stream) {
  get_test_pool().record_stream(reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)), static_cast<StreamId>(stream));
}

void test_pool_complete_events() {
  get_test_pool();
  test_raw->complete_events();
}

std::vector<SegmentSnapshot> test_pool_snapshot() { return get_test_pool().snapshot(); }

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
