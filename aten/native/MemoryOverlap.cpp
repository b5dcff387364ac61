// Memory-overlap analysis: Note [Overlapping writes] in MemoryOverlap.h.
#include "aten/native/MemoryOverlap.h"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "aten/native/ShapeUtils.h"
#include "generated/ops/copy.h"

namespace tl {

namespace {

// Layouts that neither the stride test nor density settles are decided by listing every
// element's offset; above this many elements the answer stays "too hard".
constexpr int64_t kEnumerationLimit = int64_t{1} << 18;

// Dims of size > 1 as (stride in elements, size), by increasing |stride|.
std::vector<std::pair<int64_t, int64_t>> moving_dims(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] > 1) dims.emplace_back(t.strides()[d], t.sizes()[d]);
  std::sort(dims.begin(), dims.end(),
            [](const auto& x, const auto& y) { return std::abs(x.first) < std::abs(y.first); });
  return dims;
}

// Sorted byte offsets (from the storage's start) of every element of `t`.
std::vector<int64_t> element_offsets(const Tensor& t) {
  const int64_t item = static_cast<int64_t>(t.element_size());
  std::vector<int64_t> offs{t.storage_offset() * item};
  for (auto [stride, size] : moving_dims(t)) {
    const size_t n = offs.size();
    offs.reserve(n * size);
    for (int64_t i = 1; i < size; ++i)
      for (size_t k = 0; k < n; ++k) offs.push_back(offs[k] + i * stride * item);
  }
  std::sort(offs.begin(), offs.end());
  return offs;
}

// [first, last) bytes that `t` can touch, as addresses.
std::pair<const char*, const char*> byte_range(const Tensor& t) {
  int64_t lo = 0, hi = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t span = (t.sizes()[d] - 1) * t.strides()[d];
    (span < 0 ? lo : hi) += span;
  }
  const int64_t item = static_cast<int64_t>(t.element_size());
  const char* base = static_cast<const char*>(t.data_ptr());
  return {base + lo * item, base + (hi + 1) * item};
}

bool same_layout(const Tensor& a, const Tensor& b) {
  if (a.data_ptr() != b.data_ptr() || a.element_size() != b.element_size() || !a.sizes().equals(b.sizes()))
    return false;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.sizes()[d] > 1 && a.strides()[d] != b.strides()[d]) return false;
  return true;
}

bool is_dense(const Tensor& t) { return native::is_non_overlapping_and_dense(t.sizes(), t.strides()); }

[[noreturn]] void fail_overlap() {
  TL_ERROR("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.");
}

}  // namespace

MemOverlap has_internal_overlap(const Tensor& t) {
  if (t.numel() <= 1 || t.is_contiguous()) return MemOverlap::No;
  auto dims = moving_dims(t);
  // Mixed-radix test: each stride steps past everything the smaller strides can reach.
  int64_t reach = 0;
  bool distinct = true;
  for (auto [stride, size] : dims) {
    if (stride == 0) return MemOverlap::Yes;
    if (std::abs(stride) <= reach) distinct = false;
    reach += std::abs(stride) * (size - 1);
  }
  if (distinct) return MemOverlap::No;
  if (t.numel() > kEnumerationLimit) return MemOverlap::TooHard;
  std::vector<int64_t> offs = element_offsets(t);
  return std::adjacent_find(offs.begin(), offs.end()) != offs.end() ? MemOverlap::Yes : MemOverlap::No;
}

MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.numel() == 0 || b.numel() == 0) return MemOverlapStatus::No;
  if (a.is_same(b)) return MemOverlapStatus::Full;
  if (a.device() != b.device()) return MemOverlapStatus::No;
  auto [a_lo, a_hi] = byte_range(a);
  auto [b_lo, b_hi] = byte_range(b);
  if (a_hi <= b_lo || b_hi <= a_lo) return MemOverlapStatus::No;
  if (same_layout(a, b)) return MemOverlapStatus::Full;
  if (is_dense(a) && is_dense(b)) return MemOverlapStatus::Partial;  // both fill their ranges
  if (a.numel() + b.numel() > kEnumerationLimit) return MemOverlapStatus::TooHard;
  // Offsets are relative to each tensor's own storage: rebase b's onto a's.
  const int64_t shift = static_cast<const char*>(b.impl()->storage()->data.ptr) -
                        static_cast<const char*>(a.impl()->storage()->data.ptr);
  std::vector<int64_t> x = element_offsets(a), y = element_offsets(b);
  const int64_t xs = static_cast<int64_t>(a.element_size()), ys = static_cast<int64_t>(b.element_size());
  for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    int64_t yj = y[j] + shift;
    if (x[i] + xs <= yj) {
      ++i;
    } else if (yj + ys <= x[i]) {
      ++j;
    } else {
      return MemOverlapStatus::Partial;
    }
  }
  return MemOverlapStatus::No;
}

void assert_no_internal_overlap(const Tensor& t) {
  TL_CHECK(has_internal_overlap(t) != MemOverlap::Yes,
           "unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
}

void assert_no_partial_overlap(const Tensor& a, const Tensor& b) {
  if (get_overlap_status(a, b) == MemOverlapStatus::Partial) fail_overlap();
}

void assert_no_overlap(const Tensor& a, const Tensor& b) {
  MemOverlapStatus s = get_overlap_status(a, b);
  if (s == MemOverlapStatus::Partial || s == MemOverlapStatus::Full) fail_overlap();
}

bool must_copy_input(const Tensor& written, const Tensor& input, bool elementwise) {
  switch (get_overlap_status(written, input)) {
    case MemOverlapStatus::No:
      return false;
    case MemOverlapStatus::Full:
      return !elementwise;
    case MemOverlapStatus::TooHard:
      return true;
    case MemOverlapStatus::Partial:
      break;
  }
  fail_overlap();
}

Tensor copy_for_read(const Tensor& t) {
  Tensor copy = empty_tensor(t.sizes(), t.options());
  ops::copy_::redispatch(copy, t, false);
  return copy;
}

}  // namespace tl
