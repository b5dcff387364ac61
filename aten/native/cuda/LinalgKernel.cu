// The CUDA entry points of the linear algebra operators that do more than the host fallback
// (Note [Host fallback], aten/native/HostFallback.h), which every other one registers.
//
// Note [cuSOLVER kernels]: Cholesky, LU and the symmetric eigendecomposition run on the GPU
// through cuSOLVER when its library is installed (Note [CUDA libraries]: the nvidia-cusolver
// wheel), one matrix at a time on the current stream, on the same column-major copies and with the
// same LAPACK routines' info codes as the CPU kernels, whose results they return. Everything else
// goes to the host fallback, which gives the CPU's checks and messages: no cuSOLVER, an input the
// CPU kernel would reject or treat specially (a dtype other than float/double, no matrix, an empty
// one), check_errors=True, and any matrix cuSOLVER reports a failure for.
#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/cuda/CUDALibraries.h"
#include "aten/native/HostFallback.h"
#include "generated/ops/_linalg_eigh_native.h"
#include "generated/ops/_linalg_svd_native.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/linalg_cholesky_ex_native.h"
#include "generated/ops/linalg_lu_factor_ex_native.h"
#include "generated/ops/to.h"
#include "generated/ops/transpose.h"
#include "generated/ops/tril.h"
#include "generated/ops/triu.h"

namespace tl::native {

namespace {

// ---- cuSOLVER, resolved at run time --------------------------------------------------------------
// The declarations of cusolverDn.h that we call (the toolkit's headers are not needed to build):
// the handle is opaque and the enums are C ints.
using cusolverDnHandle_t = struct cusolverDnContext*;
using cusolverStatus_t = int;
constexpr int kFillLower = 0, kFillUpper = 1;       // cublasFillMode_t
constexpr int kEigNoVector = 0, kEigVector = 1;     // cusolverEigMode_t

template <typename T>
struct Routines {
  cusolverStatus_t (*potrf_buffer_size)(cusolverDnHandle_t, int uplo, int n, T* a, int lda, int* lwork);
  cusolverStatus_t (*potrf)(cusolverDnHandle_t, int uplo, int n, T* a, int lda, T* work, int lwork, int* info);
  cusolverStatus_t (*getrf_buffer_size)(cusolverDnHandle_t, int m, int n, T* a, int lda, int* lwork);
  cusolverStatus_t (*getrf)(cusolverDnHandle_t, int m, int n, T* a, int lda, T* work, int* ipiv, int* info);
  cusolverStatus_t (*syevd_buffer_size)(cusolverDnHandle_t, int jobz, int uplo, int n, const T* a, int lda,
                                        const T* w, int* lwork);
  cusolverStatus_t (*syevd)(cusolverDnHandle_t, int jobz, int uplo, int n, T* a, int lda, T* w, T* work, int lwork,
                            int* info);
};

struct CuSolver {
  cusolverStatus_t (*create)(cusolverDnHandle_t*);
  cusolverStatus_t (*set_stream)(cusolverDnHandle_t, cudaStream_t);
  Routines<float> s;
  Routines<double> d;

  template <typename T>
  const Routines<T>& routines() const {
    if constexpr (std::is_same_v<T, float>) return s;
    else return d;
  }
};

// The functions of one precision's routines: cusolverDn<p><routine> (p: S for float, D for double).
template <typename T>
void add_routines(std::vector<cuda::LibraryFunction>& functions, Routines<T>& r, char p) {
  const auto name = [p](const char* routine) { return std::string("cusolverDn") + p + routine; };
  functions.push_back(cuda::library_function(name("potrf_bufferSize"), r.potrf_buffer_size));
  functions.push_back(cuda::library_function(name("potrf"), r.potrf));
  functions.push_back(cuda::library_function(name("getrf_bufferSize"), r.getrf_buffer_size));
  functions.push_back(cuda::library_function(name("getrf"), r.getrf));
  functions.push_back(cuda::library_function(name("syevd_bufferSize"), r.syevd_buffer_size));
  functions.push_back(cuda::library_function(name("syevd"), r.syevd));
}

// The loaded library's routines; nullptr without the library (or with one that lacks a routine).
const CuSolver* cusolver() {
  static const CuSolver* lib = []() -> const CuSolver* {
    static CuSolver c;
    std::vector<cuda::LibraryFunction> functions{cuda::library_function("cusolverDnCreate", c.create),
                                                 cuda::library_function("cusolverDnSetStream", c.set_stream)};
    add_routines(functions, c.s, 'S');
    add_routines(functions, c.d, 'D');
    return cuda::load_library_functions("CUSOLVER", functions).handle ? &c : nullptr;
  }();
  return lib;
}

void check_status(cusolverStatus_t status, const char* what) {
  TL_CHECK(status == 0, "cuSOLVER error: ", what, " returned status ", status);
}

// A handle per host thread and device (a handle is tied to the device current at its creation),
// bound to the current stream. The caller holds a CUDAGuard for the device.
cusolverDnHandle_t stream_handle(const CuSolver& lib, int device) {
  thread_local std::vector<cusolverDnHandle_t> handles;
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1, nullptr);
  if (!handles[device]) check_status(lib.create(&handles[device]), "cusolverDnCreate");
  check_status(lib.set_stream(handles[device], cuda::current_cuda_stream(device)), "cusolverDnSetStream");
  return handles[device];
}

// What the cuSOLVER kernels take: a nonempty float/double (batch of) matrix with 32-bit sizes;
// square where asked.
bool cusolver_input(const Tensor& A, bool square) {
  return (A.dtype() == ScalarType::Float || A.dtype() == ScalarType::Double) && A.dim() >= 2 && A.numel() > 0 &&
         (!square || A.size(-1) == A.size(-2)) && A.size(-1) <= INT_MAX && A.size(-2) <= INT_MAX;
}

std::vector<int64_t> batch_of(const Tensor& A) { return std::vector<int64_t>(A.sizes().begin(), A.sizes().end() - 2); }

// A fresh copy of A whose matrix b is column-major at data_ptr<T>() + b * rows * cols (LAPACK's
// layout): the row-major storage of A^T. Transposed back, it is the result in the CPU's layout.
// Always a copy (clone, not contiguous()): cuSOLVER overwrites it, and A may already be laid out so.
Tensor column_major_copy(const Tensor& A) { return A.transpose(-2, -1).clone(MemoryFormat::Contiguous); }

Tensor device_info(const Tensor& A) { return empty_tensor(batch_of(A), TensorOptions(ScalarType::Int, A.device())); }

bool any_failed(const Tensor& info) {
  Tensor host = info.to(Device(DeviceType::CPU)).contiguous();
  const int* p = host.data_ptr<int>();
  return std::any_of(p, p + host.numel(), [](int v) { return v != 0; });
}

// f(routines, handle, T()) for A's dtype T, with A's device current and the handle on its stream.
template <typename F>
void with_cusolver(const CuSolver& lib, const Tensor& A, F&& f) {
  const int device = cuda::resolve_device(A.device().index);
  cuda::CUDAGuard guard(device);
  cusolverDnHandle_t handle = stream_handle(lib, device);
  dispatch_float_double(A.dtype(), "cusolver", [&](auto tag) {
    using T = typename decltype(tag)::type;
    f(lib.routines<T>(), handle, T());
  });
}

Tensor workspace(int lwork, const Tensor& like) {
  return empty_tensor(std::vector<int64_t>{std::max(lwork, 1)}, TensorOptions(like.dtype(), like.device()));
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_cholesky_ex_cuda(const Tensor& self, bool upper, bool check_errors) {
  const CuSolver* lib = cusolver();
  if (!lib || check_errors || !cusolver_input(self, true))
    return HostFallback<&linalg_cholesky_ex_cpu>::run(self, upper, check_errors);
  const int n = static_cast<int>(self.size(-1));
  Tensor a = column_major_copy(self);
  Tensor info = device_info(self);
  with_cusolver(*lib, self, [&](const auto& r, cusolverDnHandle_t h, auto tag) {
    using T = decltype(tag);
    const int uplo = upper ? kFillUpper : kFillLower;
    int lwork = 0;
    check_status(r.potrf_buffer_size(h, uplo, n, a.data_ptr<T>(), n, &lwork), "potrf_bufferSize");
    Tensor work = workspace(lwork, self);
    for (int64_t b = 0; b < info.numel(); ++b)
      check_status(r.potrf(h, uplo, n, a.data_ptr<T>() + b * n * n, n, work.data_ptr<T>(), lwork,
                           info.data_ptr<int>() + b),
                   "potrf");
  });
  // potrf leaves the other triangle as it found it; the CPU kernel zeroes it.
  Tensor L = a.transpose(-2, -1);
  return {upper ? tl::triu(L) : tl::tril(L), info};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex_cuda(const Tensor& A, bool pivot, bool check_errors) {
  const CuSolver* lib = cusolver();
  if (!lib || !pivot || check_errors || !cusolver_input(A, false))
    return HostFallback<&linalg_lu_factor_ex_cpu>::run(A, pivot, check_errors);
  const int m = static_cast<int>(A.size(-2)), n = static_cast<int>(A.size(-1)), k = std::min(m, n);
  Tensor a = column_major_copy(A);
  Tensor info = device_info(A);
  std::vector<int64_t> pivots_shape = batch_of(A);
  pivots_shape.push_back(k);
  Tensor pivots = empty_tensor(pivots_shape, TensorOptions(ScalarType::Int, A.device()));
  with_cusolver(*lib, A, [&](const auto& r, cusolverDnHandle_t h, auto tag) {
    using T = decltype(tag);
    int lwork = 0;
    check_status(r.getrf_buffer_size(h, m, n, a.data_ptr<T>(), m, &lwork), "getrf_bufferSize");
    Tensor work = workspace(lwork, A);
    for (int64_t b = 0; b < info.numel(); ++b)
      check_status(r.getrf(h, m, n, a.data_ptr<T>() + b * m * n, m, work.data_ptr<T>(),
                           pivots.data_ptr<int>() + b * k, info.data_ptr<int>() + b),
                   "getrf");
  });
  return {a.transpose(-2, -1), pivots, info};
}

std::tuple<Tensor, Tensor> _linalg_eigh_cuda(const Tensor& A, const std::string& UPLO, bool compute_v) {
  const CuSolver* lib = cusolver();
  const bool upper = UPLO == "U" || UPLO == "u";
  if (!lib || !(upper || UPLO == "L" || UPLO == "l") || !cusolver_input(A, true))
    return HostFallback<&_linalg_eigh_cpu>::run(A, UPLO, compute_v);
  const int n = static_cast<int>(A.size(-1));
  Tensor a = column_major_copy(A);
  Tensor info = device_info(A);
  std::vector<int64_t> w_shape = batch_of(A);
  w_shape.push_back(n);
  Tensor w = empty_tensor(w_shape, A.options());
  with_cusolver(*lib, A, [&](const auto& r, cusolverDnHandle_t h, auto tag) {
    using T = decltype(tag);
    const int jobz = compute_v ? kEigVector : kEigNoVector, uplo = upper ? kFillUpper : kFillLower;
    int lwork = 0;
    check_status(r.syevd_buffer_size(h, jobz, uplo, n, a.data_ptr<T>(), n, w.data_ptr<T>(), &lwork),
                 "syevd_bufferSize");
    Tensor work = workspace(lwork, A);
    for (int64_t b = 0; b < info.numel(); ++b)
      check_status(r.syevd(h, jobz, uplo, n, a.data_ptr<T>() + b * n * n, n, w.data_ptr<T>() + b * n,
                           work.data_ptr<T>(), lwork, info.data_ptr<int>() + b),
                   "syevd");
  });
  // The CPU kernel raises where the algorithm did not converge: its error, from its run.
  if (any_failed(info)) return HostFallback<&_linalg_eigh_cpu>::run(A, UPLO, compute_v);
  return {w, compute_v ? a.transpose(-2, -1) : empty_tensor(std::vector<int64_t>{0}, A.options())};
}

// driver= names a cuSOLVER method, which only CUDA inputs accept (PyTorch's rule). The host's
// LAPACK divide-and-conquer computes the same factorization whichever is named.
std::tuple<Tensor, Tensor, Tensor> _linalg_svd_cuda(const Tensor& A, bool full_matrices, bool compute_uv,
                                                    const std::optional<std::string>& driver) {
  TL_CHECK(!driver || *driver == "gesvd" || *driver == "gesvdj" || *driver == "gesvda",
           "torch.linalg.svd: unknown svd driver ", *driver,
           " in svd_cusolver computation. Available options are: None, gesvd, gesvdj, and gesvda.");
  return HostFallback<&_linalg_svd_cpu>::run(A, full_matrices, compute_uv, std::nullopt);
}

}  // namespace tl::native
