#include "aten/core/TensorImpl.h"

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

int64_t checked_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    TL_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
    n *= s;
  }
  return n;
}

void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
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
  int64_t n = checked_numel(sizes);
  size_t needed = static_cast<size_t>(n + storage_offset_) * itemsize();
  if (needed > storage_->nbytes) {
    // A fresh storage: the old one may be shared with views that must keep their data.
    uint32_t version = storage_->version;
    storage_ = StorageImpl::allocate(static_cast<size_t>(n) * itemsize(), device());
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
