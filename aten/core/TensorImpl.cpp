#include "aten/core/TensorImpl.h"

#include <algorithm>

namespace tl {

std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

// Note [Checked sizes]: every product of sizes goes through one of these, so a size that
// overflows int64 is a RuntimeError, never a wrapped number that later indexes out of bounds.
int64_t checked_numel(IntArrayRef sizes) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) {
    TL_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
    overflow |= __builtin_mul_overflow(n, s, &n);
  }
  TL_CHECK(!overflow || n == 0, "Storage size calculation overflowed with sizes=", sizes);
  return n;
}

size_t checked_nbytes(IntArrayRef sizes, size_t itemsize) {
  int64_t nbytes = 0;
  TL_CHECK(!__builtin_mul_overflow(checked_numel(sizes), static_cast<int64_t>(itemsize), &nbytes),
           "Storage size calculation overflowed with sizes=", sizes);
  return static_cast<size_t>(nbytes);
}

int64_t checked_storage_elements(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  int64_t end = offset + 1;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    int64_t span = 0;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &span) || __builtin_add_overflow(end, span, &end);
  }
  TL_CHECK(!overflow, "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  return end;
}

void TensorImpl::refresh() {
  numel_ = 1;
  bool overflow = false;
  for (int64_t s : sizes_) overflow |= __builtin_mul_overflow(numel_, s, &numel_);
  TL_CHECK(!overflow || std::find(sizes_.begin(), sizes_.end(), 0) != sizes_.end(),
           "numel: integer multiplication overflow");
  if (overflow) numel_ = 0;
  // Contiguous means row-major; dims of size 1 may have any stride (as in PyTorch).
  is_contiguous_ = true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      is_contiguous_ = numel_ == 0;
      break;
    }
    expected *= sizes_[i];
  }
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  const size_t nbytes = checked_nbytes(sizes, itemsize());
  if (nbytes + storage_offset_ * itemsize() > storage_->nbytes) {
    // A fresh storage: the old one may be shared with views that must keep their data.
    uint32_t version = storage_->version;
    storage_ = StorageImpl::allocate(nbytes, device());
    storage_->version = version;
    storage_offset_ = 0;
  }
  sizes_ = sizes.vec();
  strides_ = contiguous_strides(sizes);
  refresh();
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  sizes_ = sizes.vec();
  strides_ = strides.vec();
  storage_offset_ = storage_offset;
  refresh();
}

}  // namespace tl
