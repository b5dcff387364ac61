// cuBLAS loaded at run time (Note [cuBLAS at run time] in CuBLAS.h) and the GEMM call over it.
#include "aten/cuda/CuBLAS.h"

#include <dlfcn.h>
#include <library_types.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/cuda/CUDAHooks.h"

namespace tl::cuda {

namespace {

// The part of cublas_api.h (cuBLAS 13) used here, declared so that the build needs no cuBLAS
// headers (cudaDataType is the runtime's). Its enums are C enums, passed as int.
using Handle = struct CublasContext*;
using Status = int;
constexpr Status kStatusSuccess = 0;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kCompute32F = 68, kCompute32FFastTF32 = 77, kCompute64F = 70;
constexpr int kGemmDefault = -1;

using CreateFn = Status (*)(Handle*);
using SetStreamFn = Status (*)(Handle, cudaStream_t);
using StatusNameFn = const char* (*)(Status);
using GemmStridedBatchedExFn = Status (*)(Handle, int transa, int transb, int m, int n, int k, const void* alpha,
                                          const void* a, cudaDataType a_type, int lda, long long stride_a,
                                          const void* b, cudaDataType b_type, int ldb, long long stride_b,
                                          const void* beta, void* c, cudaDataType c_type, int ldc, long long stride_c,
                                          int batch_count, int compute_type, int algo);

struct Library {
  void* dl = nullptr;
  std::string path;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  StatusNameFn status_name = nullptr;
  GemmStridedBatchedExFn gemm_strided_batched = nullptr;
};

// Opens the first of `paths` that loads and has every function; `error` collects why the
// others did not.
Library open_library(const std::vector<std::string>& paths, std::string& error) {
  for (const std::string& path : paths) {
    void* dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
      const char* why = dlerror();
      error += (error.empty() ? "" : "; ") + std::string(why ? why : path + ": cannot be loaded");
      continue;
    }
    Library lib;
    lib.dl = dl;
    lib.path = path;
    const char* missing = nullptr;
    auto find = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(dl, name));
      if (!fn && !missing) missing = name;
    };
    find(lib.create, "cublasCreate_v2");
    find(lib.set_stream, "cublasSetStream_v2");
    find(lib.status_name, "cublasGetStatusName");
    find(lib.gemm_strided_batched, "cublasGemmStridedBatchedEx");
    if (!missing) return lib;
    error += (error.empty() ? "" : "; ") + path + ": no " + missing;
    dlclose(dl);
  }
  return Library{};
}

std::mutex candidates_mutex;
std::vector<std::string> candidates{"libcublas.so.13"};  // until torchlite.cuda sets them
std::atomic<bool> allow_tf32{false};

struct Loaded {
  Library lib;
  std::string error;  // why nothing loaded
};

// Loaded once, on first use, and kept for the life of the process.
const Loaded& loaded() {
  static const Loaded* l = [] {
    std::vector<std::string> paths;
    {
      std::lock_guard<std::mutex> g(candidates_mutex);
      paths = candidates;
    }
    auto* r = new Loaded;
    r->lib = open_library(paths, r->error);
    return r;
  }();
  return *l;
}

bool forced_off() {
  const char* v = std::getenv("TORCHLITE_CUBLAS");
  return v && std::strcmp(v, "0") == 0;
}

void check(const Library& lib, Status s, const char* call) {
  if (s != kStatusSuccess)
    TL_ERROR("CUDA error: ", lib.status_name(s), " when calling `", call, "` (cuBLAS ", lib.path, ")");
}

// This thread's handle for `device`, which must be the current device. A handle is used only by
// the thread that created it: on the H100, a handle taken over from a thread that had exited
// failed its next GEMM with CUBLAS_STATUS_INTERNAL_ERROR. Handles are not destroyed at thread
// exit either (cuBLAS's own per-thread state may already be gone then): one handle per thread
// that ran a CUDA matrix product stays allocated until the process ends.
Handle handle_for(const Library& lib, int device) {
  thread_local std::vector<Handle> mine;
  if (mine.size() <= static_cast<size_t>(device)) mine.resize(device + 1, nullptr);
  Handle& h = mine[device];
  if (!h) check(lib, lib.create(&h), "cublasCreate_v2");
  return h;
}

}  // namespace

void set_cublas_candidates(const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> g(candidates_mutex);
  candidates = paths;
}

std::pair<std::string, std::string> gemm_backend() {
  if (forced_off()) return {"tiled", "TORCHLITE_CUBLAS=0"};
  const Loaded& l = loaded();
  if (l.lib.dl) return {"cublas", l.lib.path};
  return {"tiled", "cuBLAS not found: " + l.error};
}

std::pair<std::string, std::string> cublas_probe(const std::vector<std::string>& paths) {
  std::string error;
  Library lib = open_library(paths, error);
  if (!lib.dl) return {"", error};
  dlclose(lib.dl);
  return {lib.path, ""};
}

void set_matmul_allow_tf32(bool allow) { allow_tf32 = allow; }

namespace blas {

bool enabled(ScalarType dtype) {
  const bool supported = dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Half ||
                         dtype == ScalarType::BFloat16;
  return supported && !forced_off() && loaded().lib.dl;
}

void gemm_strided_batched(ScalarType dtype, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                          const GemmOperand& b, void* c, int64_t ldc, int64_t stride_c, int64_t batches,
                          int device) {
  const Library& lib = loaded().lib;
  Handle h = handle_for(lib, device);
  check(lib, lib.set_stream(h, current_cuda_stream(device)), "cublasSetStream_v2");
  const float one_f = 1.f, zero_f = 0.f;
  const double one_d = 1., zero_d = 0.;
  const void* alpha = &one_f;
  const void* beta = &zero_f;
  cudaDataType type = CUDA_R_32F;
  int compute = kCompute32F;  // Half and BFloat16 accumulate in float
  switch (dtype) {
    case ScalarType::Float:
      compute = allow_tf32 ? kCompute32FFastTF32 : kCompute32F;
      break;
    case ScalarType::Double:
      type = CUDA_R_64F;
      compute = kCompute64F;
      alpha = &one_d;
      beta = &zero_d;
      break;
    case ScalarType::Half:
      type = CUDA_R_16F;
      break;
    case ScalarType::BFloat16:
      type = CUDA_R_16BF;
      break;
    default:
      TL_ERROR("cuBLAS GEMM: unsupported dtype ", dtype_name(dtype));
  }
  check(lib,
        lib.gemm_strided_batched(h, a.transposed ? kOpT : kOpN, b.transposed ? kOpT : kOpN, static_cast<int>(m),
                                 static_cast<int>(n), static_cast<int>(k), alpha, a.data, type,
                                 static_cast<int>(a.ld), a.batch_stride, b.data, type, static_cast<int>(b.ld),
                                 b.batch_stride, beta, c, type, static_cast<int>(ldc), stride_c,
                                 static_cast<int>(batches), compute, kGemmDefault),
        "cublasGemmStridedBatchedEx");
}

}  // namespace blas

}  // namespace tl::cuda
