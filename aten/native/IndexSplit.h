#pragma once
// Note [32-bit index splits]: the CUDA elementwise kernels do their index math in 32 bits only
// (a 64-bit twin of every kernel cost a third of the CUDA build). An iteration whose element
// count or byte extents do not fit is cut into pieces that do: the dim with the largest byte
// extent is halved until each piece fits, and each piece is launched at its own base offsets.
// PyTorch's TensorIterator::with_32bit_indexing does the same. Strides may be negative (flip's
// restrided input walks backwards from its base): the offsets are signed 32-bit, so an operand
// fits when its forward and its backward extent each do. Host-only code, so CPU builds test it
// (torchlite._C._cuda._test_32bit_index_split).
#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <vector>

#include "aten/core/Exception.h"

namespace tl::native {

// One piece of an iteration: its shape, each operand's byte strides ([operand][dim]) and each
// operand's byte offset from the iteration's base pointers.
struct IndexPiece {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;
  std::vector<int64_t> offsets;
};

// True when every element index and every operand's byte offset fits in a signed 32-bit int.
inline bool fits_32bit_indexing(const std::vector<int64_t>& shape, const std::vector<std::vector<int64_t>>& strides) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  if (numel > kMax) return false;
  for (const auto& st : strides) {
    int64_t forward = 0, backward = 0;
    for (size_t d = 0; d < shape.size(); ++d) (st[d] < 0 ? backward : forward) += (shape[d] - 1) * std::abs(st[d]);
    if (forward > kMax || backward > kMax) return false;
  }
  return true;
}

// Appends to `out` pieces that together cover `piece` once each and each fit 32-bit indexing.
inline void split_for_32bit_indexing(const IndexPiece& piece, std::vector<IndexPiece>& out) {
  if (fits_32bit_indexing(piece.shape, piece.strides)) {
    out.push_back(piece);
    return;
  }
  // Halve the dim whose largest operand stride spans the most bytes (a broadcast dim, stride 0,
  // still counts by its length so that an oversized element count splits too).
  int best = -1;
  int64_t best_span = 0;
  for (size_t d = 0; d < piece.shape.size(); ++d) {
    if (piece.shape[d] < 2) continue;
    int64_t stride = 1;
    for (const auto& st : piece.strides) stride = std::max(stride, std::abs(st[d]));
    const int64_t span = piece.shape[d] * stride;
    if (span > best_span) {
      best_span = span;
      best = static_cast<int>(d);
    }
  }
  TL_CHECK(best >= 0, "CUDA elementwise kernel: cannot split an iteration that does not fit 32-bit indexing");
  const int64_t half = piece.shape[best] / 2;
  IndexPiece lo = piece, hi = piece;
  lo.shape[best] = half;
  hi.shape[best] = piece.shape[best] - half;
  for (size_t a = 0; a < piece.strides.size(); ++a) hi.offsets[a] += half * piece.strides[a][best];
  split_for_32bit_indexing(lo, out);
  split_for_32bit_indexing(hi, out);
}

}  // namespace tl::native
