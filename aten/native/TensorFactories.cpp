// Creation ops that only allocate: empty, empty_strided, empty_like. They work for every
// device through the device's allocator.
#include "aten/ATen.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  return empty_tensor(size, make_options(dtype, device, default_dtype()));
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return empty_strided_tensor(size, stride, make_options(dtype, device, default_dtype()));
}

Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return empty_tensor(self.sizes(), TensorOptions(dtype.value_or(self.dtype()), device.value_or(self.device())));
}

}  // namespace tl::native
