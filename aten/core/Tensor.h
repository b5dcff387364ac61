#pragma once
// Tensor: a shared handle to a TensorImpl. Copying a Tensor copies the handle, never data.
// The operator methods (t.add(...), t.view(...)) are generated from native_functions.yaml
// into TensorMethods.h and included inside the class body.
#include <array>  // bool[N] arguments of the generated signatures
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/Generator.h"
#include "aten/core/Scalar.h"
#include "aten/core/TensorImpl.h"
#include "aten/core/TensorOptions.h"

namespace tl {

class Tensor;
using TensorList = ArrayRef<Tensor>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A tensor over `storage` with the given geometry.
  static Tensor make(std::shared_ptr<StorageImpl> storage, ScalarType dtype, std::vector<int64_t> sizes,
                     std::vector<int64_t> strides, int64_t offset) {
    return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, std::move(sizes), std::move(strides),
                                               offset));
  }

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl_->numel(); }
  int64_t size(int64_t d) const;    // negative dims wrap
  int64_t stride(int64_t d) const;  // negative dims wrap
  int64_t storage_offset() const { return impl_->storage_offset(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  ScalarType dtype() const { return impl_->dtype(); }
  size_t element_size() const { return impl_->itemsize(); }
  Device device() const { return impl_->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_floating_point() const { return tl::is_floating_point(dtype()); }
  TensorOptions options() const { return TensorOptions(dtype(), device()); }

  void* data_ptr() const { return impl_->data(); }
  template <typename T>
  T* data_ptr() const {
    return static_cast<T*>(impl_->data());
  }
  // Python-style value of a one-element tensor.
  Scalar item() const;

  uint32_t _version() const { return impl_->version(); }
  void bump_version() const { impl_->bump_version(); }

  std::string toString() const;

#include "generated/TensorMethods.h"

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// Wraps a possibly negative dim into [0, ndim). IndexError names the allowed range.
int64_t wrap_dim(int64_t dim, int64_t ndim, bool scalar_ok = true);
// The dims of an `ndim`-dim tensor that `dims` names (each through wrap_dim); a repeated dim is
// an error. A 0-dim tensor accepts dims -1 and 0, which name nothing: the mask is empty.
std::vector<bool> dim_mask(IntArrayRef dims, int64_t ndim);

// Allocation helpers for kernels (not operators: no Python binding, no autograd).
Tensor empty_tensor(IntArrayRef sizes, const TensorOptions& options);
Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options);
// A 0-dim tensor holding `s` converted to `dtype`.
Tensor scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device = Device(DeviceType::CPU));
// A 0-dim CPU tensor for a Python number passed to an op (see Note [Wrapped numbers]).
Tensor wrapped_scalar_tensor(const Scalar& s);

}  // namespace tl
