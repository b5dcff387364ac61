#pragma once
// A tensor is a strided view over a storage: sizes, strides (in elements), an offset into the
// storage, and a dtype. Views share the storage (and with it the version counter).
#include <cstdint>
#include <memory>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Storage.h"

namespace tl {

// Filled in by the autograd layer (torchlite/csrc/autograd); aten only carries the pointer.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
};

class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<StorageImpl> storage, ScalarType dtype, std::vector<int64_t> sizes,
             std::vector<int64_t> strides, int64_t storage_offset)
      : storage_(std::move(storage)), sizes_(std::move(sizes)), strides_(std::move(strides)),
        storage_offset_(storage_offset), dtype_(dtype) {
    refresh();
  }

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  size_t itemsize() const { return element_size(dtype_); }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return is_contiguous_; }
  const std::shared_ptr<StorageImpl>& storage() const { return storage_; }

  void* data() const { return static_cast<char*>(storage_->data.ptr) + storage_offset_ * itemsize(); }

  // Reshapes in place (used by out= resizing); grows the storage when needed.
  void set_sizes_contiguous(IntArrayRef sizes);
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  void set_storage(std::shared_ptr<StorageImpl> s) { storage_ = std::move(s); }

  uint32_t version() const { return storage_->version; }
  void bump_version() { ++storage_->version; }

  // Note [Wrapped numbers]: a 0-dim tensor made from a Python number for an op's Scalar
  // overload. Type promotion treats it as weak, like the number it came from.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_meta_ = std::move(m); }

 private:
  void refresh();

  std::shared_ptr<StorageImpl> storage_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
};

// Row-major strides for the given sizes.
std::vector<int64_t> contiguous_strides(IntArrayRef sizes);
// Product of sizes, checking each size is non-negative and the product fits (Note [Checked sizes]).
int64_t checked_numel(IntArrayRef sizes);
// Elements a storage needs to hold a view with these sizes, (non-negative) strides and offset;
// 0 when the view is empty. Checked the same way.
int64_t checked_storage_elements(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
// Bytes of a contiguous tensor of these sizes, checked the same way.
size_t checked_nbytes(IntArrayRef sizes, size_t itemsize);

}  // namespace tl
