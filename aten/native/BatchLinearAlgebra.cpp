// torch.linalg's factorizations and solvers. The CPU kernels copy each input into a batch of
// column-major (Fortran) matrices and call LAPACK on each (Note [LAPACK source], Lapack.h); their
// results keep that layout, as PyTorch's do. The rest of the file composes those kernels
// (linalg_solve over _linalg_solve_ex, pinv over svd/eigh, ...); gradients of the kernels are in
// derivatives.yaml and torchlite/csrc/autograd/functions_manual_linalg.cpp.
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "aten/native/Lapack.h"
#include "aten/native/LinAlgError.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/_linalg_det.h"
#include "generated/ops/_linalg_det_native.h"
#include "generated/ops/_linalg_eig.h"
#include "generated/ops/_linalg_eig_native.h"
#include "generated/ops/_linalg_eigh.h"
#include "generated/ops/_linalg_eigh_native.h"
#include "generated/ops/_linalg_slogdet.h"
#include "generated/ops/_linalg_slogdet_native.h"
#include "generated/ops/_linalg_solve_ex.h"
#include "generated/ops/_linalg_solve_ex_native.h"
#include "generated/ops/_linalg_svd.h"
#include "generated/ops/_linalg_svd_native.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/all.h"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/broadcast_tensors.h"
#include "generated/ops/cat.h"
#include "generated/ops/cholesky_inverse.h"
#include "generated/ops/cholesky_inverse_native.h"
#include "generated/ops/cholesky_native.h"
#include "generated/ops/cholesky_solve.h"
#include "generated/ops/cholesky_solve_native.h"
#include "generated/ops/clone.h"
#include "generated/ops/conj.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/cross.h"
#include "generated/ops/cross_native.h"
#include "generated/ops/cumprod.h"
#include "generated/ops/det_native.h"
#include "generated/ops/detach.h"
#include "generated/ops/diag_embed.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/eq.h"
#include "generated/ops/expand.h"
#include "generated/ops/eye.h"
#include "generated/ops/flip.h"
#include "generated/ops/geqrf.h"
#include "generated/ops/geqrf_native.h"
#include "generated/ops/gt.h"
#include "generated/ops/inverse_native.h"
#include "generated/ops/isfinite.h"
#include "generated/ops/linalg_cholesky.h"
#include "generated/ops/linalg_cholesky_ex.h"
#include "generated/ops/linalg_cholesky_ex_native.h"
#include "generated/ops/linalg_cholesky_native.h"
#include "generated/ops/linalg_cond.h"
#include "generated/ops/linalg_cond_native.h"
#include "generated/ops/linalg_cross.h"
#include "generated/ops/linalg_cross_native.h"
#include "generated/ops/linalg_det.h"
#include "generated/ops/linalg_det_native.h"
#include "generated/ops/linalg_diagonal_native.h"
#include "generated/ops/linalg_eig.h"
#include "generated/ops/linalg_eig_native.h"
#include "generated/ops/linalg_eigh.h"
#include "generated/ops/linalg_eigh_native.h"
#include "generated/ops/linalg_eigvals.h"
#include "generated/ops/linalg_eigvals_native.h"
#include "generated/ops/linalg_eigvalsh.h"
#include "generated/ops/linalg_eigvalsh_native.h"
#include "generated/ops/linalg_householder_product.h"
#include "generated/ops/linalg_householder_product_native.h"
#include "generated/ops/linalg_inv.h"
#include "generated/ops/linalg_inv_ex.h"
#include "generated/ops/linalg_inv_ex_native.h"
#include "generated/ops/linalg_inv_native.h"
#include "generated/ops/linalg_ldl_factor.h"
#include "generated/ops/linalg_ldl_factor_ex.h"
#include "generated/ops/linalg_ldl_factor_ex_native.h"
#include "generated/ops/linalg_ldl_factor_native.h"
#include "generated/ops/linalg_ldl_solve.h"
#include "generated/ops/linalg_ldl_solve_native.h"
#include "generated/ops/linalg_lstsq_native.h"
#include "generated/ops/linalg_lu_factor.h"
#include "generated/ops/linalg_lu_factor_ex.h"
#include "generated/ops/linalg_lu_factor_ex_native.h"
#include "generated/ops/linalg_lu_factor_native.h"
#include "generated/ops/linalg_lu_native.h"
#include "generated/ops/linalg_lu_solve.h"
#include "generated/ops/linalg_lu_solve_native.h"
#include "generated/ops/linalg_matmul.h"
#include "generated/ops/linalg_matmul_native.h"
#include "generated/ops/linalg_matrix_exp.h"
#include "generated/ops/linalg_matrix_exp_native.h"
#include "generated/ops/linalg_matrix_norm.h"
#include "generated/ops/linalg_matrix_norm_native.h"
#include "generated/ops/linalg_matrix_power.h"
#include "generated/ops/linalg_matrix_power_native.h"
#include "generated/ops/linalg_matrix_rank.h"
#include "generated/ops/linalg_matrix_rank_native.h"
#include "generated/ops/linalg_multi_dot.h"
#include "generated/ops/linalg_multi_dot_native.h"
#include "generated/ops/linalg_pinv.h"
#include "generated/ops/linalg_pinv_native.h"
#include "generated/ops/linalg_qr.h"
#include "generated/ops/linalg_qr_native.h"
#include "generated/ops/linalg_slogdet.h"
#include "generated/ops/linalg_slogdet_native.h"
#include "generated/ops/linalg_solve.h"
#include "generated/ops/linalg_solve_ex_native.h"
#include "generated/ops/linalg_solve_native.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/linalg_solve_triangular_native.h"
#include "generated/ops/linalg_svd.h"
#include "generated/ops/linalg_svd_native.h"
#include "generated/ops/linalg_svdvals.h"
#include "generated/ops/linalg_svdvals_native.h"
#include "generated/ops/linalg_tensorinv.h"
#include "generated/ops/linalg_tensorinv_native.h"
#include "generated/ops/linalg_tensorsolve.h"
#include "generated/ops/linalg_tensorsolve_native.h"
#include "generated/ops/linalg_vander_native.h"
#include "generated/ops/linalg_vecdot.h"
#include "generated/ops/linalg_vecdot_native.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/log.h"
#include "generated/ops/logdet_native.h"
#include "generated/ops/lu_solve.h"
#include "generated/ops/lu_solve_native.h"
#include "generated/ops/lu_unpack.h"
#include "generated/ops/lu_unpack_native.h"
#include "generated/ops/matmul.h"
#include "generated/ops/matrix_exp_native.h"
#include "generated/ops/matrix_power.h"
#include "generated/ops/matrix_power_native.h"
#include "generated/ops/movedim.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/nuclear_norm.h"
#include "generated/ops/nuclear_norm_native.h"
#include "generated/ops/ones.h"
#include "generated/ops/orgqr.h"
#include "generated/ops/orgqr_native.h"
#include "generated/ops/ormqr.h"
#include "generated/ops/ormqr_native.h"
#include "generated/ops/permute.h"
#include "generated/ops/pinverse_native.h"
#include "generated/ops/qr.h"
#include "generated/ops/qr_native.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/reshape.h"
#include "generated/ops/select.h"
#include "generated/ops/slogdet_native.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/stack.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/svd.h"
#include "generated/ops/svd_native.h"
#include "generated/ops/to.h"
#include "generated/ops/transpose.h"
#include "generated/ops/triangular_solve.h"
#include "generated/ops/triangular_solve_native.h"
#include "generated/ops/tril.h"
#include "generated/ops/triu.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/vander_native.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

using Shape = std::vector<int64_t>;

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

// ---- argument checks, worded as PyTorch's ----------------------------------------------------

void check_floating(const char* fn, const Tensor& A) {
  const ScalarType t = A.dtype();
  TL_CHECK(!low_precision(t), fn, ": Low precision dtypes not supported. Got ", scalar_type_cpp_name(t));
  TL_CHECK(!is_complex(t), fn, ": complex inputs are not supported yet. Got ", scalar_type_cpp_name(t));
  TL_CHECK(t == ScalarType::Float || t == ScalarType::Double, fn,
           ": Expected a floating point or complex tensor as input. Got ", scalar_type_cpp_name(t));
}

void check_matrix(const char* fn, const Tensor& A, const char* name = "A") {
  TL_CHECK(A.dim() >= 2, fn, ": The input tensor ", name, " must have at least 2 dimensions.");
}

void check_square(const char* fn, const Tensor& A, const char* name = "A") {
  check_matrix(fn, A, name);
  TL_CHECK(A.size(-1) == A.size(-2), fn, ": ", name, " must be batches of square matrices, but they are ", A.size(-2),
           " by ", A.size(-1), " matrices");
}

void check_same_dtype(const char* fn, const Tensor& A, const Tensor& B) {
  TL_CHECK(A.dtype() == B.dtype(), fn, ": Expected A and B to have the same dtype, but found A of type ",
           scalar_type_cpp_name(A.dtype()), " and B of type ", scalar_type_cpp_name(B.dtype()), " instead");
}

// Calls f(T{}) with T the C++ type of a float32/float64 tensor.
template <typename F>
void dispatch_floating(const char* what, ScalarType t, F&& f) {
  if (t == ScalarType::Float) return f(float{});
  if (t == ScalarType::Double) return f(double{});
  dtype_not_implemented(what, t);
}

Shape batch_shape(const Tensor& A) { return Shape(A.sizes().begin(), A.sizes().end() - 2); }

int64_t prod(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>()); }

Shape concat(Shape a, std::initializer_list<int64_t> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Shape broadcast_batch(const Tensor& A, const Tensor& B) {
  Shape a = batch_shape(A), b = batch_shape(B);
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TL_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x, ") must match the size of tensor b (", y,
             ") at non-singleton dimension ", i);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// A fresh column-major copy of A broadcast to batch + [m, n]: the matrix b starts at
// data_ptr<T>() + b * m * n with leading dimension m. LAPACK overwrites it.
Tensor fortran_copy(const Tensor& A, const Shape& batch) {
  const int64_t m = A.size(-2), n = A.size(-1);
  Tensor buf = empty_tensor(concat(batch, {n, m}), A.options());
  buf.copy_(mT(A.expand(concat(batch, {m, n}))));
  return mT(buf);
}

// A new column-major batch of rows x cols matrices.
Tensor fortran_empty(const Shape& batch, int64_t rows, int64_t cols, ScalarType dtype) {
  return mT(empty_tensor(concat(batch, {cols, rows}), TensorOptions(dtype)));
}

int lapack_int(int64_t v) {
  TL_CHECK(v <= std::numeric_limits<int>::max(), "torch.linalg: matrix dimension ", v,
           " is larger than LAPACK's 32-bit integers allow");
  return static_cast<int>(v);
}
int ld(int64_t rows) { return lapack_int(std::max<int64_t>(1, rows)); }

// "(Batch element i): " for batched inputs, as PyTorch prefixes its LAPACK errors.
std::string batch_prefix(const Tensor& info, int64_t b) {
  return info.dim() > 0 ? "(Batch element " + std::to_string(b) + "): " : "";
}

// The first nonzero LAPACK info code: (batch index, code), or (-1, 0). Read on the host: info may
// be a CUDA kernel's (Note [Host fallback]).
std::pair<int64_t, int> first_error(const Tensor& info) {
  Tensor c = info.to(Device(DeviceType::CPU)).contiguous();
  const int* p = c.data_ptr<int>();
  for (int64_t b = 0; b < c.numel(); ++b)
    if (p[b] != 0) return {b, p[b]};
  return {-1, 0};
}

void check_solver_info(const std::string& fn, const Tensor& info) {
  auto [b, code] = first_error(info);
  if (b < 0) return;
  TL_CHECK(code > 0, fn, ": ", batch_prefix(info, b), "Argument ", -code, " has illegal value.");
  linalg_error(fn, ": ", batch_prefix(info, b), "The solver failed because the input matrix is singular.");
}

void check_inv_info(const std::string& fn, const Tensor& info) {
  auto [b, code] = first_error(info);
  if (b < 0) return;
  linalg_error(fn, ": ", batch_prefix(info, b), "The diagonal element ", code,
           " is zero, the inversion could not be completed because the input matrix is singular.");
}

void check_cholesky_info(const std::string& fn, const Tensor& info) {
  auto [b, code] = first_error(info);
  if (b < 0) return;
  linalg_error(fn, ": ", batch_prefix(info, b),
           "The factorization could not be completed because the input is not positive-definite (the leading minor "
           "of order ", code, " is not positive-definite).");
}

void check_lu_info(const std::string& fn, const Tensor& info) {
  auto [b, code] = first_error(info);
  if (b < 0) return;
  TL_ERROR(fn, ": ", batch_prefix(info, b), "U[", code, ",", code,
           "] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the "
           "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
}

void check_convergence(const char* fn, const char* what, const Tensor& info) {
  auto [b, code] = first_error(info);
  if (b < 0) return;
  linalg_error(fn, ": ", batch_prefix(info, b),
           "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated ",
           what, " (error code: ", code, ").");
}

Tensor info_tensor(const Shape& batch) { return empty_tensor(batch, TensorOptions(ScalarType::Int)); }

// B is a (batch of) vector(s) rather than matrices: PyTorch's rule for solve's right-hand side.
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  Shape expected(A.sizes().begin(), A.sizes().end() - 1);
  return Shape(B.sizes().begin(), B.sizes().end()) == expected;
}

// A Fortran copy of a square batch and its LAPACK info codes, after f(T* matrix, n, int* info,
// batch index) ran on each nonempty matrix.
template <typename F>
std::tuple<Tensor, Tensor> for_each_square(const Tensor& A, F&& f) {
  const Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  Tensor M = fortran_copy(A, batch);
  Tensor info = info_tensor(batch);
  dispatch_floating("linalg", A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int* inf = info.data_ptr<int>();
    for (int64_t b = 0; b < prod(batch); ++b) {
      inf[b] = 0;
      if (n > 0) f(M.data_ptr<T>() + b * n * n, lapack_int(n), inf + b, b);
    }
  });
  return {M, info};
}

// LU factorization in place on a Fortran batch (LU) into pivots/info.
void lu_factor_inplace(const Tensor& LU, const Tensor& pivots, const Tensor& info) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const int64_t batch = info.numel();
  dispatch_floating("lu_cpu", LU.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* a = LU.data_ptr<T>();
    int* piv = pivots.data_ptr<int>();
    int* inf = info.data_ptr<int>();
    for (int64_t b = 0; b < batch; ++b) {
      inf[b] = 0;
      if (m * n == 0) continue;
      lapack::getrf<T>(lapack_int(m), lapack_int(n), a + b * m * n, ld(m), piv + b * k, inf + b);
    }
  });
}

}  // namespace

// ---- LU ------------------------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex_cpu(const Tensor& A, bool pivot, bool check_errors) {
  TL_CHECK(A.dim() >= 2, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ", A.sizes(),
           " instead");
  TL_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  if (A.dtype() != ScalarType::Float && A.dtype() != ScalarType::Double) dtype_not_implemented("lu_cpu", A.dtype());
  const Shape batch = batch_shape(A);
  Tensor LU = fortran_copy(A, batch);
  Tensor pivots = empty_tensor(concat(batch, {std::min(A.size(-2), A.size(-1))}), TensorOptions(ScalarType::Int));
  Tensor info = info_tensor(batch);
  lu_factor_inplace(LU, pivots, info);
  if (check_errors) check_lu_info("torch.linalg.lu_factor_ex", info);
  return {LU, pivots, info};
}

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = tl::linalg_lu_factor_ex(A, pivot, false);
  check_lu_info("torch.linalg.lu_factor", info);
  return {LU, pivots};
}

// A = P L U: L is unit lower triangular (m x k), U upper (k x n), P the permutation the pivots
// (LAPACK's 1-based row swaps, applied in order) describe.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data,
                                             bool unpack_pivots) {
  TL_CHECK(LU_data.dim() >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: ",
           LU_data.sizes(), " instead");
  TL_CHECK(LU_pivots.dtype() == ScalarType::Int,
           "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. Note: this "
           "function is intended to be used with the output produced by torch.linalg.lu_factor");
  const int64_t m = LU_data.size(-2), n = LU_data.size(-1), k = std::min(m, n);
  Tensor L, U;
  if (unpack_data) {
    L = tl::tril(LU_data.narrow(-1, 0, k), -1).add(tl::eye(m, k, LU_data.dtype(), std::nullopt, LU_data.device()));
    U = tl::triu(LU_data.narrow(-2, 0, k));
  } else {
    L = empty_tensor({0}, LU_data.options());
    U = empty_tensor({0}, LU_data.options());
  }
  if (!unpack_pivots) return {empty_tensor({0}, LU_data.options()), L, U};
  const Shape batch = batch_shape(LU_data);
  TL_CHECK(LU_pivots.size(-1) == k, "torch.lu_unpack: Expected LU_pivots.size(-1) to be ", k, ", but got ",
           LU_pivots.size(-1));
  // P is built on the host from the pivots, then moved to LU's device.
  Tensor piv = LU_pivots.to(Device(DeviceType::CPU)).expand(concat(batch, {k})).contiguous();
  Tensor P = tl::zeros(concat(batch, {m, m}), LU_data.dtype());
  dispatch_floating("lu_unpack", LU_data.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int* pv = piv.data_ptr<int>();
    T* p = P.data_ptr<T>();
    std::vector<int64_t> perm(m);
    for (int64_t b = 0; b < prod(batch); ++b) {
      std::iota(perm.begin(), perm.end(), 0);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t j = pv[b * k + i] - 1;
        TL_CHECK(j >= i && j < m, "torch.lu_unpack: pivots[", i, "] = ", j + 1, " is out of range");
        std::swap(perm[i], perm[j]);
      }
      for (int64_t j = 0; j < m; ++j) p[b * m * m + perm[j] * m + j] = T(1);
    }
  });
  return {P.to(LU_data.device()), L, U};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = tl::linalg_lu_factor_ex(A, pivot, false);
  return tl::lu_unpack(LU, pivots, true, true);
}

Tensor linalg_lu_solve_cpu(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* fn = "linalg.lu_solve";
  check_square(fn, LU, "LU");
  check_matrix(fn, B, "B");
  check_same_dtype(fn, LU, B);
  TL_CHECK(pivots.dtype() == ScalarType::Int, fn, ": Expected pivots to be of type Int, but got ",
           scalar_type_cpp_name(pivots.dtype()));
  const int64_t n = LU.size(-1);
  const int64_t bn = left ? B.size(-2) : B.size(-1);
  TL_CHECK(bn == n, fn, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", n,
           "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  // X A = B is A^T X^T = B^T: solve with the transposed system and transpose back.
  const Tensor rhs = left ? B : mT(B);
  const char trans = (left != adjoint) ? 'N' : 'T';
  const Shape batch = broadcast_batch(LU, rhs);
  const int64_t k = rhs.size(-1);
  Tensor a = LU.expand(concat(batch, {n, n}));
  Tensor lu = fortran_copy(a, batch);
  Tensor piv = pivots.expand(concat(batch, {n})).contiguous();
  Tensor X = fortran_copy(rhs, batch);
  dispatch_floating("lu_solve_cpu", LU.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int info = 0;
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (n * k == 0) continue;
      lapack::getrs<T>(trans, lapack_int(n), lapack_int(k), lu.data_ptr<T>() + b * n * n, ld(n),
                       piv.data_ptr<int>() + b * n, X.data_ptr<T>() + b * n * k, ld(n), &info);
    }
  });
  return left ? X : mT(X);
}

Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  return tl::linalg_lu_solve(LU_data, LU_pivots, self, true, false);
}

// ---- LDL^T ---------------------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex_cpu(const Tensor& self, bool hermitian, bool check_errors) {
  const char* fn = "torch.linalg.ldl_factor_ex";
  check_floating(fn, self);
  check_square(fn, self);
  const Shape batch = batch_shape(self);
  const int64_t n = self.size(-1);
  Tensor pivots = empty_tensor(concat(batch, {n}), TensorOptions(ScalarType::Int));
  auto [LD, info] = for_each_square(self, [&](auto* a, int n, int* inf, int64_t b) {
    using T = std::remove_pointer_t<decltype(a)>;
    lapack::sytrf<T>('L', n, a, ld(n), pivots.data_ptr<int>() + b * n, inf);
    for (int64_t j = 1; j < n; ++j)  // sytrf leaves the upper triangle as it found it
      for (int64_t i = 0; i < j; ++i) a[j * n + i] = T(0);
  });
  if (check_errors) check_solver_info(fn, info);
  return {LD, pivots, info};
}

std::tuple<Tensor, Tensor> linalg_ldl_factor(const Tensor& self, bool hermitian) {
  auto [LD, pivots, info] = tl::linalg_ldl_factor_ex(self, hermitian, false);
  return {LD, pivots};
}

Tensor linalg_ldl_solve_cpu(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  const char* fn = "torch.linalg.ldl_solve";
  check_square(fn, LD, "LD");
  check_matrix(fn, B, "B");
  TL_CHECK(B.dtype() == LD.dtype(), "Expected b and A to have the same dtype, but found b of type ",
           scalar_type_cpp_name(B.dtype()), " and A of type ", scalar_type_cpp_name(LD.dtype()), " instead.");
  TL_CHECK(pivots.dtype() == ScalarType::Int, fn, ": Expected pivots to be integers. Got ",
           scalar_type_cpp_name(pivots.dtype()));
  const int64_t n = LD.size(-1), k = B.size(-1);
  TL_CHECK(B.size(-2) == n, fn, ": Incompatible shapes of A and B for the equation AX = B (", n, "x", n, " and ",
           B.size(-2), "x", k, ")");
  const Shape batch = broadcast_batch(LD, B);
  Tensor a = fortran_copy(LD, batch);
  Tensor piv = pivots.expand(concat(batch, {n})).contiguous();
  Tensor X = fortran_copy(B, batch);
  dispatch_floating("ldl_solve_cpu", LD.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int info = 0;
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (n * k == 0) continue;
      lapack::sytrs<T>('L', lapack_int(n), lapack_int(k), a.data_ptr<T>() + b * n * n, ld(n),
                       piv.data_ptr<int>() + b * n, X.data_ptr<T>() + b * n * k, ld(n), &info);
    }
  });
  return X;
}

// ---- solve, inv ------------------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_solve_ex_cpu(const Tensor& A, const Tensor& B, bool left,
                                                                bool check_errors) {
  const char* fn = "linalg.solve";
  check_floating(fn, A);
  check_same_dtype(fn, A, B);
  check_square(fn, A);
  const bool vector = is_vector_rhs(A, B);
  const int64_t n = A.size(-1);
  Tensor rhs = vector ? B.unsqueeze(-1) : (left ? B : mT(B));
  TL_CHECK(rhs.size(-2) == n, fn, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
           " (", n, "x", n, " and ", vector ? B.size(-1) : B.size(-2), "x", vector ? 1 : B.size(-1), ")");
  // X A = B is A^T X^T = B^T.
  const Tensor a = left ? A : mT(A);
  const Shape batch = broadcast_batch(a, rhs);
  const int64_t k = rhs.size(-1);
  Tensor LU = fortran_copy(a, batch);
  Tensor pivots = empty_tensor(concat(batch, {n}), TensorOptions(ScalarType::Int));
  Tensor info = info_tensor(batch);
  Tensor X = fortran_copy(rhs, batch);
  lu_factor_inplace(LU, pivots, info);
  dispatch_floating("linalg_solve", A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int rinfo = 0;
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (n * k == 0) continue;
      lapack::getrs<T>('N', lapack_int(n), lapack_int(k), LU.data_ptr<T>() + b * n * n, ld(n),
                       pivots.data_ptr<int>() + b * n, X.data_ptr<T>() + b * n * k, ld(n), &rinfo);
    }
  });
  if (check_errors) check_solver_info("torch.linalg.solve_ex", info);
  Tensor result = vector ? X.squeeze(-1) : (left ? X : mT(X));
  return {result, LU, pivots, info};
}

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  auto [result, LU, pivots, info] = tl::_linalg_solve_ex(A, B, left, check_errors);
  return {result, info};
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  auto [result, LU, pivots, info] = tl::_linalg_solve_ex(A, B, left, false);
  check_solver_info("torch.linalg.solve", info);
  return result;
}

std::tuple<Tensor, Tensor> linalg_inv_ex_cpu(const Tensor& A, bool check_errors) {
  const char* fn = "linalg.inv";
  check_floating(fn, A);
  check_square(fn, A);
  const Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  Tensor inv = fortran_copy(A, batch);
  Tensor pivots = empty_tensor(concat(batch, {n}), TensorOptions(ScalarType::Int));
  Tensor info = info_tensor(batch);
  lu_factor_inplace(inv, pivots, info);
  dispatch_floating("linalg_inv", A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int* inf = info.data_ptr<int>();
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (n == 0 || inf[b] != 0) continue;
      lapack::getri<T>(lapack_int(n), inv.data_ptr<T>() + b * n * n, ld(n), pivots.data_ptr<int>() + b * n,
                       inf + b);
    }
  });
  if (check_errors) check_inv_info("linalg.inv_ex", info);
  return {inv, info};
}

Tensor linalg_inv(const Tensor& A) {
  auto [inv, info] = tl::linalg_inv_ex(A, false);
  check_inv_info("linalg.inv", info);
  return inv;
}

Tensor inverse(const Tensor& self) { return tl::linalg_inv(self); }

// ---- det, slogdet ------------------------------------------------------------------------------

namespace {

// LU of a square batch, then per matrix: the sign of the permutation times the signs of U's
// diagonal, and the sum of log|u_ii|. `f(b, sign, logabs)` receives each.
template <typename F>
std::tuple<Tensor, Tensor> det_lu(const char* fn, const Tensor& A, F&& f) {
  check_floating(fn, A);
  check_square(fn, A);
  const Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  Tensor LU = fortran_copy(A, batch);
  Tensor pivots = empty_tensor(concat(batch, {n}), TensorOptions(ScalarType::Int));
  Tensor info = info_tensor(batch);
  lu_factor_inplace(LU, pivots, info);
  dispatch_floating(fn, A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < prod(batch); ++b) {
      const T* a = LU.data_ptr<T>() + b * n * n;
      const int* p = pivots.data_ptr<int>() + b * n;
      T sign = 1, logabs = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T u = a[i * n + i];
        if (p[i] != i + 1) sign = -sign;
        sign = u > 0 ? sign : (u < 0 ? -sign : (u == 0 ? T(0) : u));  // a NaN pivot makes the sign NaN
        logabs += std::log(std::abs(u));
      }
      f(b, static_cast<double>(sign), static_cast<double>(logabs));
    }
  });
  return {LU, pivots};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _linalg_det_cpu(const Tensor& A) {
  Tensor det = empty_tensor(batch_shape(A.dim() >= 2 ? A : A.unsqueeze(0).unsqueeze(0)), A.options());
  auto [LU, pivots] = det_lu("linalg.det", A, [&](int64_t b, double sign, double logabs) {
    dispatch_floating("linalg.det", A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      det.data_ptr<T>()[b] = static_cast<T>(sign == 0 ? 0.0 : sign * std::exp(logabs));
    });
  });
  return {det, LU, pivots};
}

Tensor linalg_det(const Tensor& A) { return std::get<0>(tl::_linalg_det(A)); }
Tensor det(const Tensor& self) { return tl::linalg_det(self); }

std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_slogdet_cpu(const Tensor& A) {
  Tensor sign = empty_tensor(batch_shape(A.dim() >= 2 ? A : A.unsqueeze(0).unsqueeze(0)), A.options());
  Tensor logabsdet = empty_tensor(sign.sizes(), A.options());
  auto [LU, pivots] = det_lu("linalg.slogdet", A, [&](int64_t b, double s, double logabs) {
    dispatch_floating("linalg.slogdet", A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      sign.data_ptr<T>()[b] = static_cast<T>(s);
      logabsdet.data_ptr<T>()[b] = static_cast<T>(logabs);
    });
  });
  return {sign, logabsdet, LU, pivots};
}

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  auto [sign, logabsdet, LU, pivots] = tl::_linalg_slogdet(A);
  return {sign, logabsdet};
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return tl::linalg_slogdet(self); }

// log(det): NaN for a negative determinant, -inf for a singular matrix (log of the sign).
Tensor logdet(const Tensor& self) {
  check_floating("logdet", self);
  auto [sign, logabsdet] = tl::linalg_slogdet(self);
  return logabsdet.add(sign.log());
}

// ---- Cholesky ------------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> linalg_cholesky_ex_cpu(const Tensor& self, bool upper, bool check_errors) {
  const char* fn = "linalg.cholesky";
  check_floating(fn, self);
  check_square(fn, self);
  auto [L, info] = for_each_square(self, [&](auto* a, int n, int* inf, int64_t b) {
    using T = std::remove_pointer_t<decltype(a)>;
    lapack::potrf<T>(upper ? 'U' : 'L', n, a, ld(n), inf);
    // potrf leaves the other triangle as it found it.
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i)
        if (upper ? i > j : i < j) a[j * n + i] = T(0);
  });
  if (check_errors) check_cholesky_info("linalg.cholesky_ex", info);
  return {L, info};
}

namespace {
Tensor cholesky_checked(const std::string& fn, const Tensor& self, bool upper) {
  auto [L, info] = tl::linalg_cholesky_ex(self, upper, false);
  check_cholesky_info(fn, info);
  return L;
}
}  // namespace

Tensor linalg_cholesky(const Tensor& self, bool upper) { return cholesky_checked("linalg.cholesky", self, upper); }
Tensor cholesky(const Tensor& self, bool upper) { return cholesky_checked("cholesky", self, upper); }
Tensor cholesky(const Tensor& self, bool upper, const Tensor& out) {
  return write_out(cholesky_checked("cholesky", self, upper), out);
}

Tensor cholesky_solve_cpu(const Tensor& self, const Tensor& input2, bool upper) {
  TL_CHECK(self.dim() >= 2, "b should have at least 2 dimensions, but has ", self.dim(), " dimensions instead");
  TL_CHECK(input2.dim() >= 2, "u should have at least 2 dimensions, but has ", input2.dim(), " dimensions instead");
  TL_CHECK(self.dtype() == input2.dtype(), "Expected b and A to have the same dtype, but found b of type ",
           scalar_type_cpp_name(self.dtype()), " and A of type ", scalar_type_cpp_name(input2.dtype()), " instead.");
  const int64_t n = input2.size(-1);
  TL_CHECK(input2.size(-2) == n && self.size(-2) == n,
           "Incompatible matrix sizes for cholesky_solve: each A matrix is ", input2.size(-2), " by ", n,
           " but each b matrix is ", self.size(-2), " by ", self.size(-1));
  const Shape batch = broadcast_batch(input2, self);
  const int64_t k = self.size(-1);
  Tensor L = fortran_copy(input2, batch);
  Tensor X = fortran_copy(self, batch);
  dispatch_floating("cholesky_solve_cpu", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int info = 0;
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (n * k == 0) continue;
      lapack::potrs<T>(upper ? 'U' : 'L', lapack_int(n), lapack_int(k), L.data_ptr<T>() + b * n * n, ld(n),
                       X.data_ptr<T>() + b * n * k, ld(n), &info);
    }
  });
  return X;
}

Tensor cholesky_inverse_cpu(const Tensor& self, bool upper) {
  const char* fn = "cholesky_inverse";
  check_square(fn, self);
  if (!is_floating_point(self.dtype()) || low_precision(self.dtype()))
    dtype_not_implemented("cholesky_inverse_out_cpu", self.dtype());
  auto [R, info] = for_each_square(self, [&](auto* a, int n, int* inf, int64_t b) {
    using T = std::remove_pointer_t<decltype(a)>;
    lapack::potri<T>(upper ? 'U' : 'L', n, a, ld(n), inf);
    // potri fills one triangle of the symmetric inverse: mirror it.
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = j + 1; i < n; ++i) {
        if (upper) a[j * n + i] = a[i * n + j];
        else a[i * n + j] = a[j * n + i];
      }
  });
  check_inv_info("cholesky_inverse", info);
  return R;
}

// ---- triangular solve ---------------------------------------------------------------------------

Tensor linalg_solve_triangular_cpu(const Tensor& self, const Tensor& B, bool upper, bool left, bool unitriangular) {
  const char* fn = "linalg.solve_triangular";
  check_square(fn, self);
  check_matrix(fn, B, "B");
  check_same_dtype(fn, self, B);
  if (self.dtype() != ScalarType::Float && self.dtype() != ScalarType::Double)
    dtype_not_implemented("triangular_solve_cpu", self.dtype());
  const int64_t n = self.size(-1);
  TL_CHECK((left ? B.size(-2) : B.size(-1)) == n, fn, ": Incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  const Shape batch = broadcast_batch(self, B);
  const int64_t m = B.size(-2), k = B.size(-1);
  Tensor A = self.expand(concat(batch, {n, n})).contiguous();  // row-major A is column-major A^T
  Tensor X = fortran_copy(B, batch);
  dispatch_floating("triangular_solve_cpu", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (m * k == 0) continue;
      // The buffer holds A^T in column-major order: solve with op = transpose and the other triangle.
      lapack::trsm<T>(left ? 'L' : 'R', upper ? 'L' : 'U', 'T', unitriangular ? 'U' : 'N', lapack_int(m),
                      lapack_int(k), T(1), A.data_ptr<T>() + b * n * n, ld(n), X.data_ptr<T>() + b * m * k, ld(m));
    }
  });
  return X;
}

std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  TL_CHECK(self.dim() >= 2, "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has ",
           self.dim(), " dimensions instead");
  TL_CHECK(A.dim() >= 2, "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has ", A.dim(),
           " dimensions instead");
  Tensor X = tl::linalg_solve_triangular(transpose ? mT(A) : A, self, upper != transpose, true, unitriangular);
  return {X, A.clone()};
}

// ---- QR --------------------------------------------------------------------------------------------

namespace {

// geqrf on a Fortran copy of A: (reflectors and R in `a`, tau).
std::tuple<Tensor, Tensor> geqrf_impl(const Tensor& A, int64_t extra_cols = 0) {
  const Shape batch = batch_shape(A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Tensor a = fortran_empty(batch, m, n + extra_cols, A.dtype());
  a.narrow(-1, 0, n).copy_(A);
  Tensor tau = empty_tensor(concat(batch, {k}), A.options());
  dispatch_floating("geqrf_cpu", A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int info = 0;
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (m * n == 0) continue;
      lapack::geqrf<T>(lapack_int(m), lapack_int(n), a.data_ptr<T>() + b * m * (n + extra_cols), ld(m),
                       tau.data_ptr<T>() + b * k, &info);
    }
  });
  return {a, tau};
}

// Q's first `cols` columns from reflectors in a Fortran batch (overwritten in place).
void orgqr_inplace(const Tensor& a, const Tensor& tau, int64_t cols) {
  const int64_t m = a.size(-2), stride = a.size(-1), k = tau.size(-1);
  const int64_t batch = tau.numel() / std::max<int64_t>(k, 1);
  dispatch_floating("orgqr_cpu", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int info = 0;
    for (int64_t b = 0; b < (k == 0 ? prod(batch_shape(a)) : batch); ++b) {
      if (m * cols == 0) continue;
      lapack::orgqr<T>(lapack_int(m), lapack_int(cols), lapack_int(k), a.data_ptr<T>() + b * m * stride, ld(m),
                       tau.data_ptr<T>() + b * k, &info);
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_qr_cpu(const Tensor& A, const std::string& mode) {
  const char* fn = "linalg.qr";
  TL_CHECK(mode == "reduced" || mode == "r" || mode == "complete", "qr received unrecognized mode '", mode,
           "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_floating(fn, A);
  check_matrix(fn, A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete" && m > n;
  // Complete Q (m x m) needs room for m columns of reflectors.
  auto [a, tau] = geqrf_impl(A, complete ? m - n : 0);
  const int64_t rrows = mode == "complete" ? m : k;
  Tensor R = tl::triu(a.narrow(-1, 0, n).narrow(-2, 0, rrows));
  if (mode == "r") return {empty_tensor({0}, A.options()), R};
  const int64_t qcols = complete ? m : k;
  orgqr_inplace(a, tau, qcols);
  return {a.narrow(-1, 0, qcols), R};
}

std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some) {
  return tl::linalg_qr(self, some ? "reduced" : "complete");
}

std::tuple<Tensor, Tensor> geqrf_cpu(const Tensor& self) {
  TL_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  if (self.dtype() != ScalarType::Float && self.dtype() != ScalarType::Double)
    dtype_not_implemented("geqrf_cpu", self.dtype());
  return geqrf_impl(self);
}

Tensor linalg_householder_product_cpu(const Tensor& input, const Tensor& tau) {
  const char* fn = "torch.linalg.householder_product";
  TL_CHECK(input.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  TL_CHECK(input.size(-2) >= input.size(-1), fn, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TL_CHECK(input.size(-1) >= tau.size(-1), fn, ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  TL_CHECK(input.dim() - tau.dim() == 1, fn, ": Expected tau to have one dimension less than input, but got tau.ndim ",
           "equal to ", tau.dim(), " and input.ndim is equal to ", input.dim());
  TL_CHECK(Shape(tau.sizes().begin(), tau.sizes().end() - 1) == batch_shape(input), fn,
           ": Expected batch dimensions of tau to be equal to input.shape[:-2]");
  TL_CHECK(input.dtype() == tau.dtype(), fn, ": tau dtype ", scalar_type_cpp_name(tau.dtype()),
           " does not match input dtype ", scalar_type_cpp_name(input.dtype()));
  if (input.dtype() != ScalarType::Float && input.dtype() != ScalarType::Double)
    dtype_not_implemented("orgqr_cpu", input.dtype());
  const Shape batch = batch_shape(input);
  Tensor a = fortran_copy(input, batch);
  Tensor t = tau.contiguous();
  orgqr_inplace(a, t, input.size(-1));
  return a;
}

Tensor orgqr(const Tensor& self, const Tensor& input2) { return tl::linalg_householder_product(self, input2); }

Tensor ormqr_cpu(const Tensor& self, const Tensor& input2, const Tensor& input3, bool left, bool transpose) {
  const char* fn = "torch.ormqr";
  TL_CHECK(self.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  TL_CHECK(input3.dim() >= 2, fn, ": other must have at least 2 dimensions.");
  TL_CHECK(self.dtype() == input2.dtype() && self.dtype() == input3.dtype(), fn,
           ": Expected input, tau and other to have the same dtype");
  const int64_t m = input3.size(-2), n = input3.size(-1), k = input2.size(-1);
  const int64_t mq = left ? m : n;
  TL_CHECK(self.size(-2) == mq, fn, ": input.shape[-2] must be equal to other.shape[", left ? -2 : -1, "]");
  TL_CHECK(k <= mq && k <= self.size(-1), fn, ": tau.shape[-1] must be less than or equal to input.shape[-2]");
  if (self.dtype() != ScalarType::Float && self.dtype() != ScalarType::Double)
    dtype_not_implemented("ormqr_cpu", self.dtype());
  const Shape batch = batch_shape(input3);
  TL_CHECK(batch_shape(self) == batch, fn, ": Expected batch dimensions of input to be equal to other.shape[:-2]");
  Tensor a = fortran_copy(self.narrow(-1, 0, k), batch);
  Tensor t = input2.contiguous();
  Tensor C = fortran_copy(input3, batch);
  dispatch_floating("ormqr_cpu", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int info = 0;
    for (int64_t b = 0; b < prod(batch); ++b) {
      if (m * n == 0) continue;
      lapack::ormqr<T>(left ? 'L' : 'R', transpose ? 'T' : 'N', lapack_int(m), lapack_int(n), lapack_int(k),
                       a.data_ptr<T>() + b * mq * k, ld(mq), t.data_ptr<T>() + b * k, C.data_ptr<T>() + b * m * n,
                       ld(m), &info);
    }
  });
  return C;
}

// ---- symmetric eigendecomposition, SVD, least squares ---------------------------------------------

std::tuple<Tensor, Tensor> _linalg_eigh_cpu(const Tensor& A, const std::string& UPLO, bool compute_v) {
  const char* fn = "linalg.eigh";
  TL_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
           "Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  check_square(fn, A);
  if (A.dtype() != ScalarType::Float && A.dtype() != ScalarType::Double)
    dtype_not_implemented("linalg_eigh_cpu", A.dtype());
  const Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  Tensor V = fortran_copy(A, batch);
  Tensor w = empty_tensor(concat(batch, {n}), A.options());
  Tensor info = info_tensor(batch);
  const char uplo = (UPLO == "U" || UPLO == "u") ? 'U' : 'L';
  dispatch_floating(fn, A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < prod(batch); ++b) {
      int* inf = info.data_ptr<int>() + b;
      *inf = 0;
      if (n == 0) continue;
      lapack::syevd<T>(compute_v ? 'V' : 'N', uplo, lapack_int(n), V.data_ptr<T>() + b * n * n, ld(n),
                       w.data_ptr<T>() + b * n, inf);
    }
  });
  check_convergence(fn, "eigenvalues", info);
  return {w, compute_v ? V : empty_tensor({0}, A.options())};
}

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& self, const std::string& UPLO) {
  return tl::_linalg_eigh(self, UPLO, true);
}

// The general (non-symmetric) eigenproblem of a real matrix, through geev. The results are
// complex: a conjugate pair of eigenvalues a +- bi comes with the eigenvectors u +- iv, which
// LAPACK stores as the columns u and v; each eigenvector has unit norm (LAPACK's scaling, which
// PyTorch keeps too).
std::tuple<Tensor, Tensor> linalg_eig_cpu(const Tensor& A, bool compute_v) {
  const char* fn = "linalg.eig";
  check_square(fn, A);
  if (A.dtype() != ScalarType::Float && A.dtype() != ScalarType::Double)
    dtype_not_implemented("linalg_eig_cpu", A.dtype());
  TL_CHECK(A.isfinite().all().item().to<bool>(), "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  const Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  const ScalarType complex_type = to_complex_type(A.scalar_type());
  Tensor M = fortran_copy(A, batch);
  Tensor L = empty_tensor(concat(batch, {n}), TensorOptions(complex_type));
  Tensor V = compute_v ? empty_tensor(concat(batch, {n, n}), TensorOptions(complex_type))
                       : empty_tensor({0}, TensorOptions(complex_type));
  Tensor info = info_tensor(batch);
  dispatch_floating(fn, A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::complex<T>;
    std::vector<T> wr(n), wi(n), vr(compute_v ? n * n : 1);
    for (int64_t b = 0; b < prod(batch); ++b) {
      int* inf = info.data_ptr<int>() + b;
      *inf = 0;
      if (n == 0) continue;
      lapack::geev<T>(compute_v ? 'V' : 'N', lapack_int(n), M.data_ptr<T>() + b * n * n, ld(n), wr.data(), wi.data(),
                      vr.data(), ld(compute_v ? n : 1), inf);
      C* l = L.data_ptr<C>() + b * n;
      for (int64_t j = 0; j < n; ++j) l[j] = C(wr[j], wi[j]);
      if (!compute_v) continue;
      C* v = V.data_ptr<C>() + b * n * n;  // row-major: v[r * n + j] is row r of eigenvector j
      for (int64_t j = 0; j < n; ++j) {
        const T* u = vr.data() + j * n;
        if (wi[j] == T(0) || j + 1 == n) {
          for (int64_t r = 0; r < n; ++r) v[r * n + j] = C(u[r], 0);
          continue;
        }
        const T* w = u + n;  // the imaginary parts, stored in the pair's second column
        for (int64_t r = 0; r < n; ++r) {
          v[r * n + j] = C(u[r], w[r]);
          v[r * n + j + 1] = C(u[r], -w[r]);
        }
        ++j;
      }
    }
  });
  check_convergence(fn, "eigenvalues", info);
  return {L, V};
}

std::tuple<Tensor, Tensor> linalg_eig(const Tensor& self) { return tl::_linalg_eig(self, true); }

// Eigenvalues only: the backward recomputes the eigenvectors it needs (functions_manual_linalg.cpp).
Tensor linalg_eigvals(const Tensor& self) { return std::get<0>(tl::_linalg_eig(self, false)); }

// Eigenvalues only: the backward recomputes the eigenvectors it needs (functions_manual_linalg.cpp).
Tensor linalg_eigvalsh(const Tensor& self, const std::string& UPLO) {
  return std::get<0>(tl::_linalg_eigh(self, UPLO, false));
}

std::tuple<Tensor, Tensor, Tensor> _linalg_svd_cpu(const Tensor& A, bool full_matrices, bool compute_uv,
                                                   const std::optional<std::string>& driver) {
  const char* fn = "linalg.svd";
  TL_CHECK(!driver.has_value(),
           "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
  check_floating(fn, A);
  check_matrix(fn, A);
  const Shape batch = batch_shape(A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  Tensor a = fortran_copy(A, batch);
  Tensor S = empty_tensor(concat(batch, {k}), A.options());
  Tensor U = compute_uv ? fortran_empty(batch, m, ucols, A.dtype()) : empty_tensor({0}, A.options());
  Tensor Vh = compute_uv ? fortran_empty(batch, vrows, n, A.dtype()) : empty_tensor({0}, A.options());
  Tensor info = info_tensor(batch);
  const char jobz = compute_uv ? (full_matrices ? 'A' : 'S') : 'N';
  dispatch_floating(fn, A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < prod(batch); ++b) {
      int* inf = info.data_ptr<int>() + b;
      *inf = 0;
      if (m * n == 0) continue;
      T* u = compute_uv ? U.data_ptr<T>() + b * m * ucols : nullptr;
      T* vt = compute_uv ? Vh.data_ptr<T>() + b * vrows * n : nullptr;
      T dummy = 0;
      lapack::gesdd<T>(jobz, lapack_int(m), lapack_int(n), a.data_ptr<T>() + b * m * n, ld(m),
                       S.data_ptr<T>() + b * k, u ? u : &dummy, ld(m), vt ? vt : &dummy, ld(vrows), inf);
    }
  });
  check_convergence(fn, "singular values", info);
  // An empty matrix still has full-size orthogonal factors.
  if (compute_uv && m * n == 0) {
    U.copy_(tl::eye(m, ucols, A.dtype()));
    Vh.copy_(tl::eye(vrows, n, A.dtype()));
  }
  return {U, S, Vh};
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices,
                                              const std::optional<std::string>& driver) {
  return tl::_linalg_svd(A, full_matrices, true, driver);
}

// torch.svd: V rather than Vh; with compute_uv=False, U and V are zero matrices (as PyTorch).
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  check_matrix("svd", self);
  if (!compute_uv) {
    Tensor S = tl::linalg_svdvals(self, std::nullopt);
    const int64_t m = self.size(-2), n = self.size(-1);
    return {tl::zeros(concat(batch_shape(self), {m, m}), self.dtype(), std::nullopt, self.device()), S,
            tl::zeros(concat(batch_shape(self), {n, n}), self.dtype(), std::nullopt, self.device())};
  }
  auto [U, S, Vh] = tl::_linalg_svd(self, !some, true, std::nullopt);
  return {U, S, mT(Vh)};
}

// Singular values only: the backward recomputes U and Vh (functions_manual_linalg.cpp).
Tensor linalg_svdvals(const Tensor& A, const std::optional<std::string>& driver) {
  return std::get<1>(tl::_linalg_svd(A, false, false, driver));
}

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq_cpu(const Tensor& self, const Tensor& b,
                                                            std::optional<double> rcond,
                                                            const std::optional<std::string>& driver) {
  const char* fn = "torch.linalg.lstsq";
  const std::string drv = driver.value_or("gelsy");
  TL_CHECK(drv == "gels" || drv == "gelsy" || drv == "gelsd" || drv == "gelss", fn,
           ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  TL_CHECK(self.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  TL_CHECK(b.dim() >= 1, fn, ": other must have at least 1 dimension.");
  TL_CHECK(self.dtype() == b.dtype(), fn, ": Expected input and other to have the same dtype, but got input's dtype ",
           scalar_type_cpp_name(self.dtype()), " and other's dtype ", scalar_type_cpp_name(b.dtype()));
  TL_CHECK(self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double,
           "This function doesn't handle types other than float and double");
  const bool vector = b.dim() == 1 || b.dim() == self.dim() - 1;
  Tensor B = vector ? b.unsqueeze(-1) : b;
  const int64_t m = self.size(-2), n = self.size(-1), nrhs = B.size(-1), k = std::min(m, n);
  TL_CHECK(B.size(-2) == m, fn, ": input.size(-2) should match other.size(-2)");
  const Shape batch = broadcast_batch(self, B);
  const int64_t ldb = std::max(m, n);
  Tensor a = fortran_copy(self, batch);
  Tensor X = fortran_empty(batch, ldb, nrhs, self.dtype());
  X.narrow(-2, 0, m).copy_(B.expand(concat(batch, {m, nrhs})));
  const bool with_rank = drv != "gels", with_sv = drv == "gelsd" || drv == "gelss";
  Tensor rank = empty_tensor(with_rank ? batch : Shape{0}, TensorOptions(ScalarType::Long));
  Tensor sv = empty_tensor(with_sv ? concat(batch, {k}) : Shape{0}, self.options());
  Tensor info = info_tensor(batch);
  dispatch_floating(fn, self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T rc = rcond.has_value() && *rcond > 0 ? static_cast<T>(*rcond)
                                                 : std::numeric_limits<T>::epsilon() * static_cast<T>(std::max(m, n));
    std::vector<T> s_dummy(std::max<int64_t>(1, k));
    for (int64_t i = 0; i < prod(batch); ++i) {
      int* inf = info.data_ptr<int>() + i;
      *inf = 0;
      int r = static_cast<int>(k);
      T* ai = a.data_ptr<T>() + i * m * n;
      T* xi = X.data_ptr<T>() + i * ldb * nrhs;
      T* si = with_sv ? sv.data_ptr<T>() + i * k : s_dummy.data();
      if (m * n * nrhs == 0) {
        r = 0;
      } else if (drv == "gels") {
        lapack::gels<T>(lapack_int(m), lapack_int(n), lapack_int(nrhs), ai, ld(m), xi, ld(ldb), inf);
      } else if (drv == "gelsy") {
        lapack::gelsy<T>(lapack_int(m), lapack_int(n), lapack_int(nrhs), ai, ld(m), xi, ld(ldb), rc, &r, inf);
      } else if (drv == "gelsd") {
        lapack::gelsd<T>(lapack_int(m), lapack_int(n), lapack_int(nrhs), ai, ld(m), xi, ld(ldb), si, rc, &r, inf);
      } else {
        lapack::gelss<T>(lapack_int(m), lapack_int(n), lapack_int(nrhs), ai, ld(m), xi, ld(ldb), si, rc, &r, inf);
      }
      if (with_rank) rank.data_ptr<int64_t>()[i] = r;
    }
  });
  if (drv == "gels") check_solver_info(fn, info);
  else check_convergence(fn, "singular values", info);
  Tensor solution = X.narrow(-2, 0, n);
  // Residuals: the squared norms of the rows past n, when every matrix has full rank (gelsy never reports them).
  Tensor residuals = empty_tensor({0}, self.options());
  if (m > n && drv != "gelsy") {
    bool full = true;
    if (with_rank) {
      const int64_t* r = rank.data_ptr<int64_t>();
      for (int64_t i = 0; i < rank.numel(); ++i) full = full && r[i] == n;
    }
    if (full) residuals = X.narrow(-2, n, m - n).mul(X.narrow(-2, n, m - n)).sum(std::vector<int64_t>{-2});
  }
  if (vector) solution = solution.squeeze(-1);
  if (vector && residuals.numel() > 0) residuals = residuals.squeeze(-1);
  return {solution.clone(), residuals, rank, sv};
}

// ---- compositions --------------------------------------------------------------------------------

namespace {

Tensor eye_like(const Tensor& A, int64_t n) { return tl::eye(n, n, A.dtype(), std::nullopt, A.device()); }

// PyTorch's tolerance rule for pinv and matrix_rank: singular values (or |eigenvalues|) at or
// below max(atol, rtol * largest) count as zero; rtol defaults to eps * max(m, n) when atol is
// absent or zero. Returns the tolerance with a trailing dim of 1 for broadcasting over S.
Tensor spectral_tolerance(const Tensor& A, const Tensor& S, const std::optional<Tensor>& atol,
                          const std::optional<Tensor>& rtol) {
  const double eps = A.dtype() == ScalarType::Float ? std::numeric_limits<float>::epsilon()
                                                    : std::numeric_limits<double>::epsilon();
  Tensor max_s = S.numel() > 0 ? S.amax(std::vector<int64_t>{-1}, true)
                               : tl::zeros(concat(Shape(S.sizes().begin(), S.sizes().end() - 1), {1}), S.dtype(),
                                           std::nullopt, S.device());
  Tensor r;
  if (rtol.has_value()) r = *rtol;
  else if (atol.has_value()) r = tl::where(atol->gt(0), 0.0, eps * std::max(A.size(-2), A.size(-1)));
  else r = scalar_to_tensor(eps * std::max(A.size(-2), A.size(-1)), S.dtype(), S.device());
  Tensor tol = max_s.mul(r.dim() > 0 ? r.unsqueeze(-1) : r);
  if (atol.has_value()) {
    Tensor a = atol->dim() > 0 ? atol->unsqueeze(-1) : *atol;
    tol = tl::where(a.gt(tol), a.to(tol.dtype(), false, false, std::nullopt), tol);
  }
  return tol;
}

std::optional<Tensor> opt_scalar(const Tensor& like, std::optional<double> v) {
  if (!v.has_value()) return std::nullopt;
  return scalar_to_tensor(*v, like.dtype(), like.device());
}

}  // namespace

Tensor linalg_pinv(const Tensor& self, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                   bool hermitian) {
  check_floating("linalg.pinv", self);
  check_matrix("linalg.pinv", self);
  if (hermitian) {
    auto [L, V] = tl::linalg_eigh(self, "L");
    Tensor absL = L.abs();
    Tensor keep = absL.gt(spectral_tolerance(self, absL, atol, rtol).detach());
    Tensor inv = tl::where(keep, tl::where(keep, L, 1.0).reciprocal(), 0.0);
    return tl::matmul(V.mul(inv.unsqueeze(-2)), mT(V));
  }
  auto [U, S, Vh] = tl::linalg_svd(self, false, std::nullopt);
  Tensor keep = S.gt(spectral_tolerance(self, S, atol, rtol).detach());
  // Reciprocal of the kept values only: 1/0 in the other branch would poison the gradient.
  Tensor inv = tl::where(keep, tl::where(keep, S, 1.0).reciprocal(), 0.0);
  return tl::matmul(mT(Vh).mul(inv.unsqueeze(-2)), mT(U));
}

Tensor linalg_pinv(const Tensor& self, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return tl::linalg_pinv(self, opt_scalar(self, atol), opt_scalar(self, rtol), hermitian);
}

Tensor linalg_pinv(const Tensor& self, double rcond, bool hermitian) {
  return tl::linalg_pinv(self, std::optional<Tensor>(scalar_to_tensor(0.0, self.dtype())),
                         std::optional<Tensor>(scalar_to_tensor(rcond, self.dtype())), hermitian);
}

Tensor linalg_pinv(const Tensor& self, const Tensor& rcond, bool hermitian) {
  return tl::linalg_pinv(self, std::optional<Tensor>(scalar_to_tensor(0.0, self.dtype())),
                         std::optional<Tensor>(rcond), hermitian);
}

Tensor pinverse(const Tensor& self, double rcond) { return tl::linalg_pinv(self, rcond, false); }

Tensor linalg_matrix_rank(const Tensor& input, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                          bool hermitian) {
  check_floating("linalg.matrix_rank", input);
  check_matrix("linalg.matrix_rank", input);
  Tensor S = hermitian ? tl::linalg_eigvalsh(input, "L").abs() : tl::linalg_svdvals(input, std::nullopt);
  return S.gt(spectral_tolerance(input, S, atol, rtol)).sum(std::vector<int64_t>{-1}, false, ScalarType::Long);
}

Tensor linalg_matrix_rank(const Tensor& self, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return tl::linalg_matrix_rank(self, opt_scalar(self, atol), opt_scalar(self, rtol), hermitian);
}

Tensor linalg_matrix_rank(const Tensor& self, double tol, bool hermitian) {
  return tl::linalg_matrix_rank(self, std::optional<Tensor>(scalar_to_tensor(tol, self.dtype())),
                                std::optional<Tensor>(scalar_to_tensor(0.0, self.dtype())), hermitian);
}

Tensor linalg_matrix_rank(const Tensor& input, const Tensor& tol, bool hermitian) {
  return tl::linalg_matrix_rank(input, std::optional<Tensor>(tol),
                                std::optional<Tensor>(scalar_to_tensor(0.0, input.dtype())), hermitian);
}

// ---- matrix norms, cond ----------------------------------------------------------------------------

namespace {

// The two norm dims moved last, so svdvals sees them as the matrix.
Tensor matrix_dims_last(const Tensor& A, int64_t d0, int64_t d1) {
  return A.movedim(std::vector<int64_t>{d0, d1}, std::vector<int64_t>{A.dim() - 2, A.dim() - 1});
}

Tensor restore_keepdim(Tensor r, int64_t d0, int64_t d1, bool keepdim) {
  if (!keepdim) return r;
  const int64_t lo = std::min(d0, d1), hi = std::max(d0, d1);
  return r.unsqueeze(lo).unsqueeze(hi);
}

std::pair<int64_t, int64_t> norm_dims(const char* fn, const Tensor& A, IntArrayRef dim) {
  TL_CHECK(dim.size() == 2, fn, ": dim must be a 2-tuple. Got ", dim);
  TL_CHECK(A.dim() >= 2, fn, ": The input tensor A must have at least 2 dimensions.");
  const int64_t d0 = wrap_dim(dim[0], A.dim()), d1 = wrap_dim(dim[1], A.dim());
  TL_CHECK(d0 != d1, fn, ": dims must be different. Got (", dim[0], ", ", dim[1], ")");
  return {d0, d1};
}

}  // namespace

Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const char* fn = "linalg.matrix_norm";
  const Tensor A = dtype ? self.to(*dtype, false, false, std::nullopt) : self;
  check_floating(fn, A);
  auto [d0, d1] = norm_dims(fn, A, dim);
  const double o = ord.to<double>();
  if (std::abs(o) == 2) {
    Tensor S = tl::linalg_svdvals(matrix_dims_last(A, d0, d1), std::nullopt);
    Tensor r = o > 0 ? S.amax(std::vector<int64_t>{-1}) : S.amin(std::vector<int64_t>{-1});
    return restore_keepdim(r, d0, d1, keepdim);
  }
  TL_CHECK(std::abs(o) == 1 || std::isinf(o), fn, ": Order ", ord, " not supported.");
  // 1 / -1: max / min column sum of |A|; inf / -inf: the same over rows.
  const bool cols = std::abs(o) == 1;
  const int64_t sum_dim = cols ? d0 : d1, red_dim = cols ? d1 : d0;
  Tensor sums = A.abs().sum(std::vector<int64_t>{sum_dim}, true);
  Tensor r = o > 0 ? sums.amax(std::vector<int64_t>{red_dim}, true) : sums.amin(std::vector<int64_t>{red_dim}, true);
  if (keepdim) return r;
  return r.squeeze(std::vector<int64_t>{std::max(d0, d1)}).squeeze(std::vector<int64_t>{std::min(d0, d1)});
}

Tensor linalg_matrix_norm(const Tensor& self, const std::string& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const char* fn = "linalg.matrix_norm";
  TL_CHECK(ord == "fro" || ord == "nuc", fn, ": Order ", ord, " not supported.");
  const Tensor A = dtype ? self.to(*dtype, false, false, std::nullopt) : self;
  check_floating(fn, A);
  auto [d0, d1] = norm_dims(fn, A, dim);
  if (ord == "fro") return tl::linalg_vector_norm(A, 2, std::vector<int64_t>{d0, d1}, keepdim);
  Tensor r = tl::linalg_svdvals(matrix_dims_last(A, d0, d1), std::nullopt).sum(std::vector<int64_t>{-1});
  return restore_keepdim(r, d0, d1, keepdim);
}

Tensor nuclear_norm(const Tensor& self, bool keepdim) {
  TL_CHECK(self.dim() == 2, "nuclear_norm: Expected a 2D tensor, but got a ", self.dim(), "D tensor");
  return tl::linalg_matrix_norm(self, std::string("nuc"), std::vector<int64_t>{-2, -1}, keepdim, std::nullopt);
}

Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return tl::linalg_matrix_norm(self, std::string("nuc"), dim, keepdim, std::nullopt);
}

namespace {
// norm(A) * norm(A^-1) for the norms that need the inverse; inf where A is singular.
Tensor cond_by_inverse(const Tensor& self, const std::function<Tensor(const Tensor&)>& norm) {
  check_square("linalg.cond", self);
  auto [inv, info] = tl::linalg_inv_ex(self, false);
  Tensor c = norm(self).mul(norm(inv));
  return tl::where(info.gt(0), std::numeric_limits<double>::infinity(), c);
}
}  // namespace

Tensor linalg_cond(const Tensor& self, const std::optional<Scalar>& p) {
  check_floating("linalg.cond", self);
  check_matrix("linalg.cond", self);
  const double o = p.has_value() ? p->to<double>() : 2.0;
  if (std::abs(o) == 2) {
    Tensor S = tl::linalg_svdvals(self, std::nullopt);
    Tensor hi = S.amax(std::vector<int64_t>{-1}), lo = S.amin(std::vector<int64_t>{-1});
    return o > 0 ? hi.div(lo) : lo.div(hi);
  }
  TL_CHECK(std::abs(o) == 1 || std::isinf(o), "linalg.cond got an invalid norm type: ", *p);
  return cond_by_inverse(self, [&](const Tensor& X) {
    return tl::linalg_matrix_norm(X, *p, std::vector<int64_t>{-2, -1}, false, std::nullopt);
  });
}

Tensor linalg_cond(const Tensor& self, const std::string& p) {
  TL_CHECK(p == "fro" || p == "nuc", "linalg.cond got an invalid norm type: ", p);
  check_floating("linalg.cond", self);
  return cond_by_inverse(self, [&](const Tensor& X) {
    return tl::linalg_matrix_norm(X, p, std::vector<int64_t>{-2, -1}, false, std::nullopt);
  });
}

// ---- matrix functions --------------------------------------------------------------------------------

// Repeated squaring; a negative power inverts first.
Tensor linalg_matrix_power(const Tensor& self, int64_t n) {
  check_square("linalg.matrix_power", self);
  // A^0 is the identity, still connected to A (with a zero gradient) as in PyTorch.
  if (n == 0) return self.clone().copy_(eye_like(self, self.size(-1)).expand(self.sizes()));
  Tensor base = n < 0 ? tl::linalg_inv(self) : self;
  uint64_t e = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  Tensor result;
  while (true) {
    if (e & 1) result = result.defined() ? tl::matmul(result, base) : base;
    e >>= 1;
    if (!e) break;
    base = tl::matmul(base, base);
  }
  return result;
}

Tensor matrix_power(const Tensor& self, int64_t n) { return tl::linalg_matrix_power(self, n); }

// Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s) with ||A / 2^s||_1 <= 1/2, where a degree-18
// Taylor polynomial (Horner form) is accurate to double precision.
Tensor linalg_matrix_exp(const Tensor& self) {
  check_square("linalg.matrix_exp", self);
  check_floating("linalg.matrix_exp", self);
  const int64_t n = self.size(-1);
  if (self.numel() == 0) return self.clone();
  const double norm = tl::linalg_matrix_norm(self.detach(), 1, std::vector<int64_t>{-2, -1}, false, std::nullopt)
                          .amax()
                          .item()
                          .to<double>();
  const int s = norm > 0.5 ? static_cast<int>(std::ceil(std::log2(norm / 0.5))) : 0;
  Tensor X = s > 0 ? self.mul(std::ldexp(1.0, -s)) : self;
  Tensor I = eye_like(self, n);
  Tensor P = I.expand(self.sizes());
  for (int k = 18; k >= 1; --k) P = I.add(tl::matmul(X, P).div(k));
  for (int i = 0; i < s; ++i) P = tl::matmul(P, P);
  return P;
}

Tensor matrix_exp(const Tensor& self) { return tl::linalg_matrix_exp(self); }

// Left to right: the first and last operands may be vectors.
Tensor linalg_multi_dot(TensorList tensors) {
  const int64_t n = static_cast<int64_t>(tensors.size());
  TL_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  const int64_t d0 = tensors[0].dim(), dl = tensors[n - 1].dim();
  TL_CHECK(d0 == 1 || d0 == 2, "multi_dot(): the first tensor must be 1D or 2D but got ", d0, "D");
  TL_CHECK(dl == 1 || dl == 2, "multi_dot(): the last tensor must be 1D or 2D but got ", dl, "D");
  for (int64_t i = 1; i < n - 1; ++i)
    TL_CHECK(tensors[i].dim() == 2, "multi_dot(): tensor ", i, " must be 2D but got ", tensors[i].dim(), "D");
  for (int64_t i = 1; i < n; ++i)
    TL_CHECK(tensors[i].dtype() == tensors[0].dtype(),
             "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
             scalar_type_cpp_name(tensors[0].dtype()), " and tensor ", i, " ", scalar_type_cpp_name(tensors[i].dtype()));
  Tensor r = d0 == 1 ? tensors[0].unsqueeze(0) : tensors[0];
  for (int64_t i = 1; i < n; ++i) {
    const Tensor& t = tensors[i];
    Tensor rhs = (i == n - 1 && dl == 1) ? t.unsqueeze(-1) : t;
    TL_CHECK(r.size(-1) == rhs.size(0), "multi_dot(): tensors ", i - 1, " and ", i,
             " with shapes ", r.sizes(), " and ", rhs.sizes(), " cannot be multiplied");
    r = tl::matmul(r, rhs);
  }
  if (dl == 1) r = r.squeeze(-1);
  if (d0 == 1) r = r.squeeze(0);
  return r;
}

Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  TL_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  std::vector<Tensor> bt = tl::broadcast_tensors({self, other});
  const int64_t d = wrap_dim(dim, bt[0].dim());
  TL_CHECK(bt[0].size(d) == 3 && bt[1].size(d) == 3, "linalg.cross: inputs dimension ", dim,
           " must have length 3. Got ", self.size(d), " and ", other.size(d));
  auto c = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  const Tensor &a = bt[0], &b = bt[1];
  return tl::cat({c(a, 1).mul(c(b, 2)).sub(c(a, 2).mul(c(b, 1))), c(a, 2).mul(c(b, 0)).sub(c(a, 0).mul(c(b, 2))),
                  c(a, 0).mul(c(b, 1)).sub(c(a, 1).mul(c(b, 0)))},
                 d);
}

// dim=None: the first dim of size 3 (PyTorch's deprecated default).
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim.has_value()) return tl::linalg_cross(self, other, *dim);
  std::vector<Tensor> bt = tl::broadcast_tensors({self, other});
  for (int64_t d = 0; d < bt[0].dim(); ++d)
    if (bt[0].size(d) == 3) return tl::linalg_cross(self, other, d);
  TL_ERROR("no dimension of size 3 in input");
}

Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  TL_CHECK(x.dtype() == y.dtype(), "linalg.vecdot: Expected x and y to have the same dtype, but found x of type ",
           scalar_type_cpp_name(x.dtype()), " and y of type ", scalar_type_cpp_name(y.dtype()), " instead");
  return x.conj().mul(y).sum(std::vector<int64_t>{dim});  // x's conjugate, as the inner product of C^n
}

Tensor linalg_tensorinv(const Tensor& self, int64_t ind) {
  TL_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind);
  const Shape shape(self.sizes().begin(), self.sizes().end());
  TL_CHECK(ind <= self.dim(), "Expected ind (", ind, ") to be at most the number of dimensions (", self.dim(), ")");
  const Shape out_dims(shape.begin(), shape.begin() + ind), in_dims(shape.begin() + ind, shape.end());
  const int64_t p = prod(out_dims), q = prod(in_dims);
  TL_CHECK(p == q, "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got ",
           q, " != ", p);
  Shape result_shape = in_dims;
  result_shape.insert(result_shape.end(), out_dims.begin(), out_dims.end());
  return tl::linalg_inv(self.reshape({p, p})).reshape(result_shape);
}

Tensor linalg_tensorsolve(const Tensor& self, const Tensor& other, std::optional<IntArrayRef> dims) {
  Tensor A = self;
  if (dims.has_value()) {
    std::vector<int64_t> dest;
    for (size_t i = 0; i < dims->size(); ++i) dest.push_back(self.dim() - static_cast<int64_t>(dims->size()) + i);
    A = self.movedim(*dims, dest);
  }
  const int64_t nb = other.dim();
  TL_CHECK(nb <= A.dim(), "linalg.tensorsolve: other has more dimensions than self");
  const Shape result_shape(A.sizes().begin() + nb, A.sizes().end());
  const int64_t rows = other.numel(), cols = prod(result_shape);
  TL_CHECK(rows == cols,
           "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got ",
           cols, " != ", rows);
  return tl::linalg_solve(A.reshape({rows, cols}), other.reshape({rows}), true).reshape(result_shape);
}

namespace {

// x^0, x^1, ..., x^(n-1) along a new last dim, in `dtype` (n >= 1).
Tensor increasing_powers(const Tensor& x, int64_t n, ScalarType dtype) {
  Shape shape(x.sizes().begin(), x.sizes().end());
  Tensor ones = tl::ones(concat(shape, {1}), dtype, std::nullopt, x.device());
  Tensor powers = x.to(dtype).unsqueeze(-1).expand(concat(shape, {n - 1}));
  return tl::cat({ones, powers}, -1).cumprod(-1, dtype);
}

}  // namespace

Tensor linalg_vander(const Tensor& x, std::optional<int64_t> N) {
  TL_CHECK(x.dim() >= 1, "x must be at least 1-dimensional.");
  const int64_t n = N.value_or(x.size(-1));
  TL_CHECK(n > 1, "N must be greater than 1.");
  return increasing_powers(x, n, x.scalar_type());
}

// torch.vander: 1-D x, decreasing powers unless `increasing`; integers and bool give int64.
Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  TL_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.size(0));
  TL_CHECK(n >= 0, "N must be non-negative.");
  const ScalarType dtype = is_integral(x.scalar_type(), /*include_bool=*/true) ? ScalarType::Long : x.scalar_type();
  if (n == 0) return tl::empty({x.size(0), 0}, dtype, std::nullopt, x.device());
  Tensor result = increasing_powers(x, n, dtype);
  return increasing ? result : result.flip({-1});
}

Tensor linalg_diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return A.diagonal(offset, dim1, dim2);
}

Tensor linalg_matmul(const Tensor& self, const Tensor& other) { return tl::matmul(self, other); }

}  // namespace tl::native
