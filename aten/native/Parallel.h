#pragma once
// Note [When a CPU loop goes parallel]
// Every hand-written OpenMP loop over independent units (planes, rows, channels, chunks) asks
// worth_parallel() in its `if` clause. Waking the team costs a few microseconds, so a loop
// splits only when it has at least two units to hand out and at least `grain` elements of work
// in all; a call made from inside another loop's parallel region runs on its own thread (nested
// regions would only add that cost). kParallelGrain is the default; a loop whose elements are much
// cheaper or dearer than a load and a store passes its own grain.
#include <omp.h>

#include <cstdint>

namespace tl::native {

constexpr int64_t kParallelGrain = int64_t(1) << 15;

inline bool worth_parallel(int64_t units, int64_t work, int64_t grain = kParallelGrain) {
  return units > 1 && work >= grain && !omp_in_parallel() && omp_get_max_threads() > 1;
}

}  // namespace tl::native
