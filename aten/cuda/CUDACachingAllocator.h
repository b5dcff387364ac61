#pragma once
// Note [CUDA caching allocator]: cudaMalloc/cudaFree synchronise the device and cost tens of
// microseconds, so device memory is cached like PyTorch does it:
// - request sizes are rounded up to multiples of 512 bytes (kMinBlockSize);
// - requests <= 1 MiB come from the small pool, carved out of 2 MiB segments; larger ones
//   from the large pool (20 MiB segments below 10 MiB, else the size rounded up to 2 MiB);
// - a free block is found best-fit (smallest size >= request) in the pool of the request's
//   stream (blocks are keyed by (stream, size, address)), and split when the remainder is
//   worth keeping (>= 512 bytes in the small pool, > 1 MiB in the large pool);
// - a freed block is merged with its free neighbours in the same segment, so segments
//   coalesce back to one block and can be released by empty_cache();
// - when the raw allocator runs out of memory, every cached whole segment is released and
//   the request retried once; a second failure raises "CUDA out of memory" with the stats.
// A block is reused only on the stream it was allocated for ("a pool per stream"): work
// queued on that stream runs in order, so the memory is free once the host frees it.
// A block also used on other streams (Tensor.record_stream) is not reused when the host frees
// it: an event is recorded on each of those streams, and the block returns to its pool once all
// have completed (checked at each malloc; empty_cache and the out-of-memory retry wait for them).
// - max_split_size_mb (PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:N", as PyTorch reads it):
//   blocks of at least that size ("oversize") are never split, and a request below it never
//   takes one, so that large cached blocks are not fragmented by small requests.
//
// The pool logic below knows nothing about CUDA: it gets raw memory from a RawAllocator, so
// tests drive it with host memory (cuda::test_pool_* in CUDAHooks.h) on machines without a GPU.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tl::cuda {

using StreamId = uintptr_t;  // cudaStream_t as an integer; 0 is the default stream

constexpr size_t kMinBlockSize = 512;
constexpr size_t kSmallSize = size_t(1) << 20;
constexpr size_t kSmallBuffer = size_t(2) << 20;
constexpr size_t kLargeBuffer = size_t(20) << 20;
constexpr size_t kMinLargeAlloc = size_t(10) << 20;
constexpr size_t kRoundLarge = size_t(2) << 20;

// Source of segments: cudaMalloc/cudaFree on one device, or host memory in tests.
class RawAllocator {
 public:
  virtual ~RawAllocator() = default;
  // nullptr when out of memory (after clearing any sticky error); other failures throw.
  virtual void* alloc(size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  // Called before cached segments are released (cudaFree needs finished work anyway).
  virtual void synchronize() {}
  // Extra context for the out-of-memory message ("GPU 0 has a total capacity of ...").
  virtual std::string describe() const { return ""; }
  // An event recorded now on `stream` (cross-stream use of a freed block), and whether it has
  // completed (a completed event is destroyed, and not asked about again).
  virtual uintptr_t record_event(uintptr_t stream) = 0;
  virtual bool event_done(uintptr_t event) = 0;
};

// The options of PYTORCH_CUDA_ALLOC_CONF that torchlite reads ("key:value,key:value").
struct AllocatorConfig {
  size_t max_split_size = SIZE_MAX;  // bytes; SIZE_MAX: no limit
};
// Raises ValueError on a malformed string or a value out of range; PyTorch's other options
// (expandable_segments, garbage_collection_threshold, ...) are accepted and have no effect here.
AllocatorConfig parse_allocator_config(const std::string& conf);

// One segment as torch.cuda.memory_snapshot() describes it.
struct SegmentSnapshot {
  int device = 0;
  uintptr_t address = 0;
  size_t total_size = 0, allocated_size = 0, active_size = 0, requested_size = 0;
  uintptr_t stream = 0;
  bool small = false;
  struct BlockSnapshot {
    uintptr_t address;
    size_t size, requested_size;
    const char* state;  // "active_allocated", "active_pending_free" or "inactive"
  };
  std::vector<BlockSnapshot> blocks;  // in address order
};

class CachingAllocatorCore;

struct Block {
  CachingAllocatorCore* owner;
  bool small;         // which pool
  StreamId stream;
  size_t size;        // bytes of this block (multiple of 512)
  size_t requested;   // bytes the caller asked for (0 when free)
  void* ptr;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours in the same segment
  Block* next = nullptr;
  std::set<StreamId> stream_uses{};  // other streams it was recorded on (record_stream)
};

// One counter as torch.cuda.memory_stats reports it.
struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void add(int64_t n) {
    current += n;
    if (n > 0) allocated += n; else freed -= n;
    if (current > peak) peak = current;
  }
  void reset_peak() { peak = current; }
};

class CachingAllocatorCore {
 public:
  explicit CachingAllocatorCore(std::unique_ptr<RawAllocator> raw);
  ~CachingAllocatorCore();

  // A block of at least `nbytes` for use on `stream`; never nullptr (throws on OOM).
  Block* malloc(size_t nbytes, StreamId stream);
  void free(Block* block);
  void free_ptr(void* ptr);  // by address (tests)
  // Marks the allocated block at `ptr` (a storage's base address) as used on `stream` too.
  void record_stream(void* ptr, StreamId stream);
  std::vector<SegmentSnapshot> snapshot();
  void set_config(const AllocatorConfig& config) { config_ = config; }
  // Releases every cached segment that is entirely free.
  void empty_cache();
  // torch.cuda.memory_stats keys: "allocated_bytes.all.current", "reserved_bytes.large_pool.peak", ...
  std::map<std::string, int64_t> stats();
  void reset_peak_stats();
  // The stats of an allocator that never allocated (every key, all zeros).
  static std::map<std::string, int64_t> zero_stats() { return CachingAllocatorCore(nullptr).stats(); }
  // Limit on reserved bytes (tests use it to exercise the out-of-memory path); 0: none.
  void set_memory_limit(size_t bytes) { limit_ = bytes; }
  int64_t raw_alloc_calls() const { return raw_alloc_calls_; }

  static size_t round_size(size_t nbytes) {
    return nbytes < kMinBlockSize ? kMinBlockSize : (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
  }
  static size_t segment_size(size_t rounded) {
    if (rounded <= kSmallSize) return kSmallBuffer;
    if (rounded < kMinLargeAlloc) return kLargeBuffer;
    return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
  }

 private:
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const {
      if (a->stream != b->stream) return a->stream < b->stream;
      if (a->size != b->size) return a->size < b->size;
      return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
    }
  };
  using Pool = std::set<Block*, BlockLess>;

  enum { kAll = 0, kLarge = 1, kSmall = 2, kNumPools = 3 };
  struct Stats {
    Stat allocation[kNumPools], segment[kNumPools], active[kNumPools], inactive_split[kNumPools];
    Stat allocated_bytes[kNumPools], reserved_bytes[kNumPools], active_bytes[kNumPools];
    Stat inactive_split_bytes[kNumPools], requested_bytes[kNumPools];
    Stat oversize_allocations, oversize_segments;
    int64_t num_alloc_retries = 0, num_ooms = 0;
  };

  Pool& pool(bool small) { return small ? small_pool_ : large_pool_; }
  Block* find_free(Pool& p, size_t size, StreamId stream);
  bool oversize(size_t size) const { return size >= config_.max_split_size; }
  void free_block(Block* block);      // back to its pool, merged with free neighbours; requires mu_
  void process_events(bool wait);     // frees the pending blocks whose events completed; requires mu_
  void* raw_alloc(size_t size);
  void release_cached_segments();  // requires mu_
  void update(Stat (&s)[kNumPools], bool small, int64_t n) {
    s[kAll].add(n);
    s[small ? kSmall : kLarge].add(n);
  }
  bool is_split(const Block* b) const { return b->prev || b->next; }

  std::unique_ptr<RawAllocator> raw_;
  std::mutex mu_;
  Pool small_pool_, large_pool_;
  std::unordered_map<void*, Block*> active_;
  // Freed blocks waiting for the events of the other streams they were used on.
  std::vector<std::pair<Block*, std::vector<uintptr_t>>> pending_free_;
  Stats stats_;
  AllocatorConfig config_;
  size_t limit_ = 0;
  int64_t reserved_ = 0;
  int64_t raw_alloc_calls_ = 0;
};

}  // namespace tl::cuda
