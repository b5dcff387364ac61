#pragma once
// Note [CUDA libraries]: the CUDA math libraries (cuBLAS, cuSOLVER, cuFFT) are not linked into _C:
// each is dlopen'ed at its first use, so torchlite imports, and every operator runs, without
// them: a kernel that finds no library takes its fallback (the tiled GEMM of MatmulKernel.cu; for
// linalg and FFT, Note [Host fallback]). The candidates, in order: $TORCHLITE_<NAME>_LIBRARY alone
// when it is set (a path); else what torchlite.cuda._library_candidates(soname) lists: the
// library in NVIDIA's wheels on sys.path (site-packages/nvidia/cu13/lib for CUDA 13, or
// nvidia/<library>/lib), the bare soname (the system loader's search), then a CUDA toolkit's
// lib64. The soname carries the ABI version, so any of them matches what the kernels call. The
// first candidate that loads and defines every required symbol is kept for the process.
#include <dlfcn.h>

#include <functional>
#include <string>
#include <vector>

namespace tl::cuda {

// A library as loaded: handle is nullptr when no candidate loaded, and error says why each failed.
struct CudaLibrary {
  void* handle = nullptr;
  std::string path;
  std::string error;
};

// soname (libcusolver.so.12) -> the paths to try, in order (cuda_library_resolver.cpp asks Python).
void set_library_resolver(std::function<std::vector<std::string>(const std::string& soname)> resolver);

// The library (name: CUSOLVER, the environment variable's middle part), loaded once per process
// from the first candidate that has every symbol in `required`.
const CudaLibrary& cuda_library(const std::string& name, const std::string& soname,
                                const std::vector<std::string>& required);

// Opens the first of `paths` that loads and has every symbol in `required`; the caller owns the
// handle (dlclose). Exposed for the tests of the search.
CudaLibrary open_first_library(const std::vector<std::string>& paths, const std::vector<std::string>& required);

// Points fn at the library's symbol `name`; false when it lacks one.
template <typename Fn>
bool library_symbol(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

}  // namespace tl::cuda
