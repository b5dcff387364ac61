#include "aten/core/Device.h"

#include <cstdlib>

namespace tl {

Device::Device(const std::string& spec) {
  std::string kind = spec;
  int idx = -1;
  auto colon = spec.find(':');
  if (colon != std::string::npos) {
    kind = spec.substr(0, colon);
    std::string num = spec.substr(colon + 1);
    char* end = nullptr;
    long v = std::strtol(num.c_str(), &end, 10);
    TL_CHECK(!num.empty() && *end == '\0' && v >= 0 && v < 128, "invalid device string: '", spec, "'");
    idx = static_cast<int>(v);
  }
  if (kind == "cpu") {
    type = DeviceType::CPU;
  } else if (kind == "cuda") {
    type = DeviceType::CUDA;
  } else {
    TL_ERROR("Expected one of cpu, cuda device type at start of device string: ", spec);
  }
  index = static_cast<int8_t>(idx);
}

std::string Device::str() const {
  std::string s = is_cpu() ? "cpu" : "cuda";
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace tl
