// cuBLAS loaded at run time (Note [cuBLAS at run time] in CuBLAS.h) and the GEMM call over it.
#include "aten/cuda/CuBLAS.h"

#include <library_types.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/cuda/CUDAHooks.h"
#include "aten/cuda/CUDALibraries.h"

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
  const CudaLibrary* found = nullptr;  // found->handle is nullptr when no candidate loaded
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  StatusNameFn status_name = nullptr;
  GemmStridedBatchedExFn gemm_strided_batched = nullptr;
};

// Loaded on first use (Note [CUDA libraries]) and kept for the life of the process.
const Library& library() {
  static const Library lib = [] {
    Library l;
    l.found = &load_library_functions("CUBLAS", {library_function("cublasCreate_v2", l.create),
                                                 library_function("cublasSetStream_v2", l.set_stream),
                                                 library_function("cublasGetStatusName", l.status_name),
                                                 library_function("cublasGemmStridedBatchedEx", l.gemm_strided_batched)});
    return l;
  }();
  return lib;
}

// Whether the matrix products may use cuBLAS: TORCHLITE_CUBLAS=0 in the environment (read at the
// first query, and again after set_cublas_enabled(nullopt)) or set_cublas_enabled(false) turn it off.
enum class Switch { Unread, On, OffByEnvironment, OffByCall };
std::atomic<Switch> cublas_switch{Switch::Unread};
std::atomic<bool> allow_tf32{false};

Switch current_switch() {
  Switch s = cublas_switch.load(std::memory_order_relaxed);
  if (s == Switch::Unread) {
    const char* v = std::getenv("TORCHLITE_CUBLAS");
    Switch from_env = v && std::strcmp(v, "0") == 0 ? Switch::OffByEnvironment : Switch::On;
    cublas_switch.compare_exchange_strong(s, from_env);
    s = cublas_switch.load();
  }
  return s;
}

void check(const Library& lib, Status s, const char* call) {
  if (s != kStatusSuccess)
    TL_ERROR("CUDA error: ", lib.status_name(s), " when calling `", call, "` (cuBLAS ", lib.found->path, ")");
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

void set_cublas_enabled(std::optional<bool> enabled) {
  cublas_switch = !enabled ? Switch::Unread : *enabled ? Switch::On : Switch::OffByCall;
}

std::pair<std::string, std::string> gemm_backend() {
  switch (current_switch()) {
    case Switch::OffByEnvironment:
      return {"tiled", "TORCHLITE_CUBLAS=0"};
    case Switch::OffByCall:
      return {"tiled", "cuBLAS disabled by _set_cublas_enabled(False)"};
    default:
      break;
  }
  const Library& lib = library();
  if (lib.found->handle) return {"cublas", lib.found->path};
  return {"tiled", "cuBLAS not found: " + lib.found->error};
}

void set_matmul_allow_tf32(bool allow) { allow_tf32 = allow; }

namespace blas {

bool enabled(ScalarType dtype) {
  const bool supported = dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Half ||
                         dtype == ScalarType::BFloat16;
  return supported && current_switch() == Switch::On && library().found->handle;
}

void gemm_strided_batched(ScalarType dtype, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                          const GemmOperand& b, void* c, int64_t ldc, int64_t stride_c, int64_t batches,
                          int device) {
  const Library& lib = library();
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
