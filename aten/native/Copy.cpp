// Device-independent copy and conversion ops, all built on copy_: to, clone, contiguous.
#include "aten/native/Copy.h"

#include "aten/core/Tensor.h"
#include "generated/ops/clone.h"
#include "generated/ops/clone_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/contiguous_native.h"
#include "generated/ops/copy.h"
#include "generated/ops/to.h"
#include "generated/ops/to_native.h"
#include "generated/ops/type_as.h"
#include "generated/ops/type_as_native.h"

namespace tl::native {

TensorIterator copy_iter(const Tensor& self, const Tensor& src) {
  return TensorIteratorConfig()
      .name("copy_")
      .add_output(self)
      .add_input(src)
      .resize_outputs(false)
      .promote_inputs_to_common_dtype(false)
      .enforce_safe_casting_to_output(false)
      .output_dtype(self.dtype())
      .build();
}

namespace {
Tensor to_impl(const Tensor& self, ScalarType dtype, Device device, bool copy) {
  if (!copy && self.dtype() == dtype && self.device() == device) return self;
  Tensor out = empty_tensor(self.sizes(), TensorOptions(dtype, device));
  out.copy_(self);
  return out;
}
Device resolve(Device d) {
  // "cuda" without an index means the current device: index 0 for now.
  return d.is_cuda() && d.index < 0 ? Device(DeviceType::CUDA, 0) : d;
}
}  // namespace

Tensor to(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
          std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype.value_or(self.dtype()), resolve(device.value_or(self.device())), copy);
}

Tensor to(const Tensor& self, Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype.value_or(self.dtype()), resolve(device), copy);
}

Tensor to(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, self.device(), copy);
}

Tensor to(const Tensor& self, const Tensor& other, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to_impl(self, other.dtype(), other.device(), copy);
}

Tensor type_as(const Tensor& self, const Tensor& other) { return self.to(other.dtype()); }

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  return to_impl(self, self.dtype(), self.device(), /*copy=*/true);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  return self.is_contiguous() ? self : self.clone();
}

}  // namespace tl::native
