#pragma once
// Note [CUDA libraries]: the CUDA math libraries (cuSOLVER, cuFFT, ...) are not linked into _C:
// each is dlopen'ed at its first use, from NVIDIA's wheel (nvidia-cusolver, nvidia-cufft; CUDA 13
// wheels keep their libraries in site-packages/nvidia/cu13/lib), so torchlite imports, and every
// operator runs, without them: a kernel that finds no library takes its fallback (for linalg,
// Note [Host fallback]). Where to look: $TORCHLITE_<NAME>_LIBRARY (a path) if set, else the path
// the resolver the extension registers finds in the Python environment (cuda_library_resolver.cpp;
// it asks Python, since the wheels may sit on PYTHONPATH rather than beside torchlite). The
// system's library search is not used: a toolkit's library may not match the wheels' CUDA version.
#include <dlfcn.h>

#include <functional>
#include <string>

namespace tl::cuda {

// soname (libcusolver.so.12) -> the path of that file in the installed NVIDIA wheels, or "".
void set_library_resolver(std::function<std::string(const std::string& soname)> resolver);

// The handle of the library (name: CUSOLVER, the environment variable's middle part), loaded once
// per process; nullptr when it is not installed or does not load.
void* cuda_library(const char* name, const char* soname);

// Points fn at the library's symbol `name`; false when it lacks one.
template <typename Fn>
bool library_symbol(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

}  // namespace tl::cuda
