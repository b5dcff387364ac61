#pragma once
#include <optional>

#include "aten/core/Device.h"
#include "aten/core/ScalarType.h"

namespace tl {

// Only the strided layout exists; the enum is here so schemas can name it as PyTorch's do.
enum class Layout : int8_t { Strided };
enum class MemoryFormat : int8_t { Contiguous, Preserve };

struct TensorOptions {
  ScalarType dtype = ScalarType::Float;
  Device device;
  TensorOptions() = default;
  TensorOptions(ScalarType d, Device dev = Device(DeviceType::CPU)) : dtype(d), device(dev) {}
  TensorOptions with_dtype(ScalarType d) const { return TensorOptions(d, device); }
};

// Resolves the optional dtype/device keywords of a factory function.
inline TensorOptions make_options(std::optional<ScalarType> dtype, std::optional<Device> device,
                                  ScalarType fallback_dtype) {
  return TensorOptions(dtype.value_or(fallback_dtype), device.value_or(Device(DeviceType::CPU)));
}

}  // namespace tl
