#pragma once
#include <optional>

#include "aten/core/Device.h"
#include "aten/core/ScalarType.h"

namespace tl {

// Only the strided layout exists; the enum is here so schemas can name it as PyTorch's do.
enum class Layout : int8_t { Strided };
// ChannelsLast/ChannelsLast3d: dense, with the channel dim (1) innermost: N, H, W, C in memory for a
// 4-d tensor, N, D, H, W, C for a 5-d one.
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

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
