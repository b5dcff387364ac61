#pragma once
// Note [CPU capabilities]: runtime ISA dispatch, as PyTorch's CPU_CAPABILITY. The library is
// compiled for the build machine, or for a portable x86-64-v2 baseline (TORCHLITE_PORTABLE in
// CMakeLists.txt); the few files that hold hot kernels (TL_CPU_CAPABILITY_SOURCES) are
// compiled once per capability, with that capability's -march/-m flags and the macro
// CPU_CAPABILITY naming the namespace their definitions go in: DEFAULT (x86-64-v2), AVX2
// (AVX2 + FMA + F16C), AVX512 (F, BW, VL, DQ).
// Code guarded by `#if defined(__AVX512F__)` / `__AVX2__` in those files thus picks its path
// per copy. Their headers declare the copies with TL_DECLARE_CPU_KERNEL and call through
// TL_CPU_KERNEL, which picks the copy of cpu_capability(): chosen at first use, the best one
// this CPU and OS support, lowered by TORCHLITE_CPU_CAPABILITY=avx512|avx2|default.
//
// The copies share the inline functions of the headers they include (Tensor, std::vector):
// the linker keeps the first copy of each, so the baseline objects are linked first, and in a
// portable build no instruction of a higher capability leaks into code that runs on every CPU
// (checked with a link map, -Wl,-Map: every function kept from an AVX2/AVX512 object is in its
// namespace).
#include <cstdint>

namespace tl::native {

enum class CpuCapability : uint8_t { Default, AVX2, AVX512 };

// Warns about (and ignores) a TORCHLITE_CPU_CAPABILITY other than avx512, avx2 or default.
CpuCapability compute_cpu_capability();

// The extension asks at import, so the choice (and its warning) is made on Python's thread.
inline CpuCapability cpu_capability() {
  static const CpuCapability c = compute_cpu_capability();
  return c;
}

// "DEFAULT", "AVX2" or "AVX512", as torch.backends.cpu.get_cpu_capability() spells them.
const char* cpu_capability_name(CpuCapability c);

template <typename Fn>
inline Fn select_cpu_kernel(Fn default_fn, Fn avx2_fn, Fn avx512_fn) {
  switch (cpu_capability()) {
    case CpuCapability::AVX512:
      return avx512_fn;
    case CpuCapability::AVX2:
      return avx2_fn;
    default:
      return default_fn;
  }
}

}  // namespace tl::native

// Declares a kernel (or kernel template) in each capability's namespace; TL_CPU_KERNEL(name)
// is the chosen copy's address. Only x86-64 builds compile more than the DEFAULT copy.
#if defined(__x86_64__) || defined(_M_X64)
#define TL_DECLARE_CPU_KERNEL(...) \
  namespace DEFAULT {              \
  __VA_ARGS__;                     \
  }                                \
  namespace AVX2 {                 \
  __VA_ARGS__;                     \
  }                                \
  namespace AVX512 {               \
  __VA_ARGS__;                     \
  }
#define TL_CPU_KERNEL(...) ::tl::native::select_cpu_kernel(&DEFAULT::__VA_ARGS__, &AVX2::__VA_ARGS__, &AVX512::__VA_ARGS__)
#else
#define TL_DECLARE_CPU_KERNEL(...) \
  namespace DEFAULT {              \
  __VA_ARGS__;                     \
  }
#define TL_CPU_KERNEL(...) (&DEFAULT::__VA_ARGS__)
#endif
