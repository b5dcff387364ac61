#pragma once
// Note [CUDA libraries]: the CUDA math libraries (cuBLAS, cuSOLVER, cuFFT) are not linked into _C:
// each is dlopen'ed at its first use, so torchlite imports, and every operator runs, without
// them: a kernel that finds no library takes its fallback (the tiled GEMM of MatmulKernel.cu; for
// linalg and FFT, Note [Host fallback]). The candidates, in order: $TORCHLITE_<NAME>_LIBRARY alone
// when it is set (a path); else what torchlite.cuda._library_candidates(soname) listed at import:
// the library in NVIDIA's wheels on sys.path (site-packages/nvidia/cu13/lib for CUDA 13, or
// nvidia/<library>/lib), the bare soname (the system loader's search), then a CUDA toolkit's
// lib64; without that list, the bare soname. The soname carries the ABI version, so any of them
// matches what the kernels call. The first candidate that loads and defines every required symbol
// is kept for the process. The lists are handed over at import, not asked for at first use: a
// kernel may load a library from a thread that runs without the GIL, inside a static initialiser
// that a thread holding the GIL may be waiting on.
#include <dlfcn.h>

#include <string>
#include <vector>

namespace tl::cuda {

// A library as loaded: handle is nullptr when no candidate loaded, and error says why each failed.
struct CudaLibrary {
  void* handle = nullptr;
  std::string path;
  std::string error;
};

// The library `name` (CUBLAS, CUSOLVER or CUFFT: the environment variable's middle part), loaded
// once per process from the first candidate that has every symbol in `required`. The candidate
// lists come from set_library_candidates (CUDAHooks.h).
const CudaLibrary& cuda_library(const std::string& name, const std::vector<std::string>& required);

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
