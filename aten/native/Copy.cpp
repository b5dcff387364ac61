// Device-independent copy and conversion ops, all built on copy_: to, clone, contiguous.
#include "aten/native/Copy.h"

#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/clone.h"
#include "generated/ops/clone_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/contiguous_native.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty_like.h"
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
// Note [Memory formats]: an explicit format (contiguous_format, channels_last) lays the result out
// that way; preserve_format (the default) keeps a dense input's strides and gives other inputs
// dense strides in their dim order, as PyTorch's to() and clone() do (empty_like's rule). Kernels
// therefore may not assume that a copy made by to/clone is row-major: they call contiguous().
Tensor to_impl(const Tensor& self, ScalarType dtype, Device device, bool copy,
               std::optional<MemoryFormat> memory_format) {
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  // As PyTorch's to(): no copy when the format is the one the input suggests (so a transposed
  // tensor asked for contiguous_format comes back as it is).
  const bool same_format = format == MemoryFormat::Preserve || format == suggest_memory_format(self);
  if (!copy && self.dtype() == dtype && self.device() == device && same_format) return self;
  Tensor out = tl::empty_like(self, dtype, std::nullopt, device, std::nullopt, format);
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
  return to_impl(self, dtype.value_or(self.dtype()), resolve(device.value_or(self.device())), copy, memory_format);
}

Tensor to(const Tensor& self, Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype.value_or(self.dtype()), resolve(device), copy, memory_format);
}

Tensor to(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, self.device(), copy, memory_format);
}

Tensor to(const Tensor& self, const Tensor& other, bool non_blocking, bool copy,
          std::optional<MemoryFormat> memory_format) {
  return to_impl(self, other.dtype(), other.device(), copy, memory_format);
}

Tensor type_as(const Tensor& self, const Tensor& other) { return self.to(other.dtype()); }

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  return to_impl(self, self.dtype(), self.device(), /*copy=*/true, memory_format);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  if (memory_format == MemoryFormat::Preserve) return self;  // as PyTorch: nothing to lay out
  return is_contiguous_in(self, memory_format) ? self : self.clone(memory_format);
}

}  // namespace tl::native
