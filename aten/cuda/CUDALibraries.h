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
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tl::cuda {

// A library as loaded: handle is nullptr when no candidate loaded, and error says why each failed.
struct CudaLibrary {
  void* handle = nullptr;
  std::string path;
  std::string error;
};

// Opens the first of `paths` that loads and has every symbol in `required`; the caller owns the
// handle (dlclose). Exposed for the tests of the search.
CudaLibrary open_first_library(const std::vector<std::string>& paths, const std::vector<std::string>& required);

// A function a kernel calls from a library: its symbol, and the pointer that receives its address.
struct LibraryFunction {
  std::string symbol;
  std::function<void(void*)> set;
};
template <typename Fn>
LibraryFunction library_function(std::string symbol, Fn& fn) {
  return {std::move(symbol), [&fn](void* address) { fn = reinterpret_cast<Fn>(address); }};
}

// The library `name` (CUBLAS, CUSOLVER or CUFFT: the environment variable's middle part), loaded
// once per process from the first candidate that has every symbol of `functions` (the candidate
// lists come from set_library_candidates, CUDAHooks.h), with each function pointed at its symbol:
// the one list of the symbols a kernel file calls. Where no candidate loaded (handle nullptr) the
// pointers are left as they are.
const CudaLibrary& load_library_functions(const std::string& name, const std::vector<LibraryFunction>& functions);

}  // namespace tl::cuda
