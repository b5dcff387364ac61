#include "aten/core/Tensor.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "aten/core/DispatchUtils.h"
#include "generated/ops/to.h"

namespace tl {

int64_t wrap_dim(int64_t dim, int64_t ndim, bool scalar_ok) {
  if (ndim <= 0) {
    TL_CHECK_INDEX(scalar_ok, "dimension specified as ", dim, " but tensor has no dimensions");
    ndim = 1;  // a 0-dim tensor accepts dims -1 and 0
  }
  TL_CHECK_INDEX(dim >= -ndim && dim < ndim, "Dimension out of range (expected to be in range of [", -ndim, ", ",
                 ndim - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + ndim : dim;
}

std::vector<bool> dim_mask(IntArrayRef dims, int64_t ndim) {
  std::vector<bool> mask(static_cast<size_t>(std::max<int64_t>(ndim, 0)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    if (ndim == 0) continue;
    TL_CHECK(!mask[w], "dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

int64_t Tensor::size(int64_t d) const { return impl_->size(wrap_dim(d, dim(), false)); }
int64_t Tensor::stride(int64_t d) const { return impl_->stride(wrap_dim(d, dim(), false)); }

Tensor empty_tensor(IntArrayRef sizes, const TensorOptions& options) {
  auto storage = StorageImpl::allocate(checked_nbytes(sizes, element_size(options.dtype)), options.device);
  return Tensor::make(std::move(storage), options.dtype, sizes.vec(), contiguous_strides(sizes), 0);
}

Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  TL_CHECK(sizes.size() == strides.size(), "empty_strided: sizes ", sizes, " and strides ", strides,
           " must have the same length");
  checked_numel(sizes);
  for (int64_t st : strides)
    TL_CHECK(st >= 0, "empty_strided: negative strides are not supported, got ", strides);
  const int64_t elements = checked_storage_elements(sizes, strides, 0);
  auto storage =
      StorageImpl::allocate(checked_nbytes(IntArrayRef(elements), element_size(options.dtype)), options.device);
  return Tensor::make(std::move(storage), options.dtype, sizes.vec(), strides.vec(), 0);
}

Tensor scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device) {
  Tensor t = empty_tensor({}, TensorOptions(dtype, Device(DeviceType::CPU)));
  dispatch_all_types_and_complex(dtype, "scalar_to_tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    *t.data_ptr<T>() = s.to<T>();
  });
  return device.is_cpu() ? t : t.to(device);
}

Tensor wrapped_scalar_tensor(const Scalar& s) {
  ScalarType t = s.is_bool()       ? ScalarType::Bool
                 : s.is_integral() ? ScalarType::Long
                 : s.is_complex()  ? ScalarType::ComplexDouble
                                   : ScalarType::Double;
  Tensor w = scalar_to_tensor(s, t);
  w.impl()->set_wrapped_number(true);
  return w;
}

Scalar Tensor::item() const {
  TL_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  Tensor c = is_cpu() ? *this : to(Device(DeviceType::CPU));
  return dispatch_all_types_and_complex(dtype(), "item", [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, c.data_ptr(), sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      return Scalar(v);
    } else if constexpr (std::is_integral_v<T>) {
      return Scalar(static_cast<int64_t>(v));
    } else if constexpr (is_complex_v<T>) {
      return Scalar(v);
    } else {
      return Scalar(static_cast<double>(static_cast<opmath_t<T>>(v)));
    }
  });
}

std::string Tensor::toString() const {
  if (!defined()) return "Tensor(undefined)";
  std::ostringstream os;
  os << "Tensor(sizes=" << sizes() << ", dtype=" << dtype() << ", device=" << device() << ")";
  return os.str();
}

void no_kernel(const char* schema, Device device) {
  TL_NOT_IMPLEMENTED("Could not run '", schema, "' with arguments from the '",
                     device.is_cpu() ? "CPU" : "CUDA", "' backend: no kernel is registered for it",
                     device.is_cuda() ? " (or torchlite was built without CUDA)" : "");
}

void device_mismatch(const char* schema, Device a, Device b) {
  TL_ERROR("Expected all tensors to be on the same device, but found at least two devices, ", a, " and ", b,
           "! (when checking arguments for ", schema, ")");
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_bool()) return os << (s.to<bool>() ? "True" : "False");
  if (s.is_integral()) return os << s.to_long();
  if (s.is_complex()) return os << s.to_complex_double();
  return os << s.to_double();
}

const GeneratorPtr& default_generator() {
  static GeneratorPtr g = std::make_shared<Generator>();
  return g;
}

}  // namespace tl
