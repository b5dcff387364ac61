#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include "aten/core/Exception.h"

namespace tl {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: "the current device" (CUDA) / unspecified

  Device() = default;
  Device(DeviceType t, int index = -1) : type(t), index(static_cast<int8_t>(index)) {}
  // Parses "cpu", "cuda", "cuda:1".
  explicit Device(const std::string& spec);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace tl
