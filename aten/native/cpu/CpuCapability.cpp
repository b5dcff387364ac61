// Choosing the capability of the dispatched CPU kernels (Note [CPU capabilities]).
#include "aten/native/cpu/CpuCapability.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "aten/core/Exception.h"

namespace tl::native {

namespace {

CpuCapability supported_capability() {
#if defined(__x86_64__) || defined(_M_X64)
  // The same feature sets the copies are compiled with (CMakeLists.txt); gcc's and clang's
  // checks include the OS's support for saving the wider registers (XCR0).
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  return avx512 ? CpuCapability::AVX512 : avx2 ? CpuCapability::AVX2 : CpuCapability::Default;
#else
  return CpuCapability::Default;
#endif
}

}  // namespace

CpuCapability compute_cpu_capability() {
  const CpuCapability best = supported_capability();
  const char* request = std::getenv("TORCHLITE_CPU_CAPABILITY");
  if (request == nullptr || *request == '\0') return best;
  CpuCapability asked;
  if (std::strcmp(request, "avx512") == 0) {
    asked = CpuCapability::AVX512;
  } else if (std::strcmp(request, "avx2") == 0) {
    asked = CpuCapability::AVX2;
  } else if (std::strcmp(request, "default") == 0) {
    asked = CpuCapability::Default;
  } else {
    warn(std::string("ignoring invalid value for TORCHLITE_CPU_CAPABILITY: '") + request +
         "' (expected avx512, avx2 or default)");
    return best;
  }
  // Only lowers: a capability this CPU lacks would die on an illegal instruction.
  return asked < best ? asked : best;
}

const char* cpu_capability_name(CpuCapability c) {
  switch (c) {
    case CpuCapability::AVX512:
      return "AVX512";
    case CpuCapability::AVX2:
      return "AVX2";
    default:
      return "DEFAULT";
  }
}

}  // namespace tl::native
