#pragma once
// Small helpers shared by the indexing kernels (IndexingOps.cpp, AdvancedIndexing.cpp).
#include <sstream>
#include <string>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::native {

inline std::string index_sizes_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

inline int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Row-major element offsets of a strided walk over `sizes`.
inline std::vector<int64_t> walk_offsets(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t n = numel_of(sizes);
  std::vector<int64_t> offs(static_cast<size_t>(n));
  const int64_t nd = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> ctr(static_cast<size_t>(nd), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    offs[i] = off;
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += strides[d];
      if (++ctr[d] < sizes[d]) break;
      off -= strides[d] * sizes[d];
      ctr[d] = 0;
    }
  }
  return offs;
}

}  // namespace tl::native
