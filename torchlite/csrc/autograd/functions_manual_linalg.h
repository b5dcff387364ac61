#pragma once
// Backward helpers of torch.linalg's factorizations and solvers (real matrices). Each is written
// with differentiable operators, so the formulas can be differentiated again. Notation: for a
// result X of A, gX is the gradient flowing into X and gA the one returned for A.
#include <array>
#include <optional>
#include <string>
#include <tuple>

#include "aten/core/Tensor.h"

namespace tl::autograd {

// A = P L U (square): gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T, gL and gU read from gLU.
Tensor lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots, bool pivot);
std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& LU,
                                                    const Tensor& pivots, const Tensor& B, bool left, bool adjoint,
                                                    std::array<bool, 2> mask);
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& A,
                                                 const Tensor& B, bool left, std::array<bool, 2> mask);
Tensor linalg_inv_backward(const Tensor& grad, const Tensor& inverse);
Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A);
Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A);
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L);
std::tuple<Tensor, Tensor> cholesky_solve_backward(const Tensor& grad, const Tensor& B, const Tensor& L,
                                                   const Tensor& result, bool upper, std::array<bool, 2> mask);
Tensor cholesky_inverse_backward(const Tensor& grad, const Tensor& L, bool upper, const Tensor& result);
std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& B,
                                                            const Tensor& result, bool upper, bool left, bool unitriangular,
                                                            std::array<bool, 2> mask);
Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, const std::string& mode);
// With compute_v=False (eigvalsh) the eigenvectors are recomputed from A.
Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& A, const Tensor& L, const Tensor& V,
                            const std::string& UPLO, bool compute_v);
// With compute_v=False (eigvals) the eigenvectors are recomputed from A.
Tensor linalg_eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& A, const Tensor& L, const Tensor& V,
                           bool compute_v);
// With compute_uv=False (svdvals) U and Vh are recomputed from A.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& A, const Tensor& U,
                    const Tensor& S, const Tensor& Vh, bool full_matrices, bool compute_uv);
// The solution is pinv(A) B: the gradient of the pseudo-inverse (Golub and Pereyra).
std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& grad, const Tensor& A, const Tensor& B,
                                                 std::array<bool, 2> mask);

}  // namespace tl::autograd
