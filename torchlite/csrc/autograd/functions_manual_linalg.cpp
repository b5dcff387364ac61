#include "torchlite/csrc/autograd/functions_manual_linalg.h"

#include <algorithm>

#include "generated/ops/_linalg_eig.h"
#include "generated/ops/_linalg_eigh.h"
#include "generated/ops/_linalg_svd.h"
#include "generated/ops/add.h"
#include "generated/ops/any.h"
#include "generated/ops/cat.h"
#include "generated/ops/cholesky_solve.h"
#include "generated/ops/complex.h"
#include "generated/ops/conj.h"
#include "generated/ops/cumprod.h"
#include "generated/ops/diag_embed.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/eye.h"
#include "generated/ops/flip.h"
#include "generated/ops/imag.h"
#include "generated/ops/linalg_det.h"
#include "generated/ops/linalg_inv_ex.h"
#include "generated/ops/linalg_lu_solve.h"
#include "generated/ops/linalg_pinv.h"
#include "generated/ops/linalg_solve.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/lu_unpack.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/neg.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/real.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/transpose.h"
#include "generated/ops/tril.h"
#include "generated/ops/triu.h"
#include "generated/ops/unsqueeze.h"
#include "torchlite/csrc/autograd/functions_manual.h"

namespace tl::autograd {

namespace {

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

Tensor eye_for(const Tensor& t, int64_t n) { return tl::eye(n, n, t.dtype(), std::nullopt, t.device()); }

// 1 / (x_j - x_i) off the diagonal, 0 on it: the coefficients of an eigen/singular vector's
// derivative. Repeated values give inf, as in PyTorch.
Tensor inverse_gaps(const Tensor& x) {
  const int64_t n = x.size(-1);
  Tensor I = eye_for(x, n);
  Tensor gaps = x.unsqueeze(-2).sub(x.unsqueeze(-1));
  return gaps.add(I).reciprocal().mul(I.neg().add(1));
}

// X with A X = B for complex A and B, through the real system [[Re A, -Im A], [Im A, Re A]]
// (torchlite's linalg_solve is real).
Tensor complex_solve(const Tensor& A, const Tensor& B) {
  const int64_t n = A.size(-1);
  Tensor P = tl::real(A), Q = tl::imag(A);
  Tensor block = tl::cat({tl::cat({P, Q.neg()}, -1), tl::cat({Q, P}, -1)}, -2);
  Tensor X = tl::linalg_solve(block, tl::cat({tl::real(B), tl::imag(B)}, -2));
  return tl::complex(X.narrow(-2, 0, n), X.narrow(-2, n, n));
}

// The gradient for a square A = Q R given gQ and gR (Seeger et al.): (gQ + Q copyltu(M)) R^-T with
// M = R gR^T - gQ^T Q and copyltu copying the lower triangle onto the upper.
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor M = tl::matmul(R, mT(gR)).sub(tl::matmul(mT(gQ), Q));
  Tensor copyltu = tl::tril(M).add(mT(tl::tril(M, -1)));
  Tensor b = gQ.add(tl::matmul(Q, copyltu));
  return tl::linalg_solve_triangular(mT(R), b, false, false, false);
}

// From gA (for A = P L U) to the gradient of the packed LU.
Tensor lu_grad_from_A(const Tensor& gA, const Tensor& LU, const Tensor& pivots) {
  auto [P, L, U] = tl::lu_unpack(LU, pivots, true, true);
  Tensor PtgA = tl::matmul(mT(P), gA);
  return tl::tril(tl::matmul(PtgA, mT(U)), -1).add(tl::triu(tl::matmul(mT(L), PtgA)));
}

}  // namespace

Tensor lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots, bool pivot) {
  if (LU.size(-1) != LU.size(-2)) not_implemented("linalg_lu_factor_ex backward for non-square matrices");
  auto [P, L, U] = tl::lu_unpack(LU, pivots, true, true);
  Tensor gL = tl::tril(grad, -1), gU = tl::triu(grad);
  Tensor M = tl::tril(tl::matmul(mT(L), gL), -1).add(tl::triu(tl::matmul(gU, mT(U))));
  Tensor X = tl::linalg_solve_triangular(mT(L), M, true, true, true);  // L^-T M
  Tensor Y = tl::linalg_solve_triangular(mT(U), X, false, false, false);  // X U^-T
  return tl::matmul(P, Y);
}

std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& LU,
                                                    const Tensor& pivots, const Tensor& B, bool left, bool adjoint,
                                                    std::array<bool, 2> mask) {
  Tensor gB = tl::linalg_lu_solve(LU, pivots, grad, left, !adjoint);
  Tensor gLU;
  if (mask[0]) {
    // A X = B, A^T X = B, X A = B, X A^T = B in turn.
    Tensor gA = left ? (adjoint ? tl::matmul(result, mT(gB)) : tl::matmul(gB, mT(result)))
                     : (adjoint ? tl::matmul(mT(gB), result) : tl::matmul(mT(result), gB));
    gLU = sum_to(lu_grad_from_A(gA.neg(), LU, pivots), LU.sizes());
  }
  return {gLU, mask[1] ? sum_to(gB, B.sizes()) : Tensor()};
}

std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& A,
                                                 const Tensor& B, bool left, std::array<bool, 2> mask) {
  // A^T (or, for X A = B, the system transposed) solves the adjoint system; solving again
  // rather than reusing the LU keeps this formula differentiable in A.
  Tensor gB = tl::linalg_solve(mT(A), grad, left);
  Tensor gA;
  if (mask[0]) {
    const bool vector = B.dim() == 1 || (B.dim() == A.dim() - 1 && std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin()));
    if (vector) gA = left ? gB.unsqueeze(-1).mul(result.unsqueeze(-2)) : result.unsqueeze(-1).mul(gB.unsqueeze(-2));
    else gA = left ? tl::matmul(gB, mT(result)) : tl::matmul(mT(result), gB);
    gA = sum_to(gA.neg(), A.sizes());
  }
  return {gA, mask[1] ? sum_to(gB, B.sizes()) : Tensor()};
}

Tensor linalg_inv_backward(const Tensor& grad, const Tensor& inverse) {
  Tensor inv_t = mT(inverse);
  return tl::matmul(inv_t, tl::matmul(grad, inv_t)).neg();
}

// d det = tr(adj(A) dA), so gA = grad adj(A)^T: det A^-T where A is invertible. With a singular
// matrix in the batch, adj(A)^T comes from the SVD A = U S V^T instead: det(U) det(V) U diag(s~) V^T,
// s~_i the product of the other singular values (prefix and suffix products, no division).
Tensor linalg_det_backward(const Tensor& grad, const Tensor& det, const Tensor& A) {
  if (!det.eq(0).any().item().to<bool>()) {
    Tensor inv = std::get<0>(tl::linalg_inv_ex(A, false));
    return grad.mul(det).unsqueeze(-1).unsqueeze(-1).mul(mT(inv));
  }
  auto [U, S, Vh] = tl::_linalg_svd(A, false, true, std::nullopt);
  const int64_t n = S.size(-1);
  Tensor ones = tl::ones_like(S.narrow(-1, 0, 1));
  Tensor prefix = tl::cat({ones, S.narrow(-1, 0, n - 1)}, -1).cumprod(-1);
  Tensor suffix = tl::cat({S.narrow(-1, 1, n - 1), ones}, -1).flip({-1}).cumprod(-1).flip({-1});
  Tensor sign = tl::linalg_det(U).mul(tl::linalg_det(Vh)).unsqueeze(-1).unsqueeze(-1);
  Tensor adj_t = tl::matmul(U.mul(prefix.mul(suffix).unsqueeze(-2)), Vh).mul(sign);
  return grad.unsqueeze(-1).unsqueeze(-1).mul(adj_t);
}

Tensor slogdet_backward(const Tensor& grad_logabsdet, const Tensor& A) {
  Tensor inv = std::get<0>(tl::linalg_inv_ex(A, false));
  return grad_logabsdet.unsqueeze(-1).unsqueeze(-1).mul(mT(inv));
}

// A = L L^T: gA = sym(L^-T Phi(L^T gL) L^-1), Phi taking the lower triangle with half its diagonal.
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& L) {
  Tensor Lo = upper ? mT(L) : L;
  Tensor gLo = upper ? mT(grad) : grad;
  Tensor M = tl::matmul(mT(Lo), gLo);
  Tensor phi = tl::tril(M).sub(tl::diag_embed(M.diagonal(0, -2, -1)).mul(0.5));
  Tensor X = tl::linalg_solve_triangular(mT(Lo), phi, true, true, false);   // Lo^-T phi
  Tensor gA = tl::linalg_solve_triangular(Lo, X, false, false, false);      // X Lo^-1
  return gA.add(mT(gA)).mul(0.5);
}

// X = (L L^T)^-1 B (or (U^T U)^-1 B); potrs reads only L's (U's) triangle.
std::tuple<Tensor, Tensor> cholesky_solve_backward(const Tensor& grad, const Tensor& B, const Tensor& L,
                                                   const Tensor& result, bool upper, std::array<bool, 2> mask) {
  Tensor gB = tl::cholesky_solve(grad, L, upper);
  Tensor gL;
  if (mask[1]) {
    Tensor gA = tl::matmul(gB, mT(result)).neg();
    Tensor sym = gA.add(mT(gA));
    gL = upper ? tl::triu(tl::matmul(L, sym)) : tl::tril(tl::matmul(sym, L));
    gL = sum_to(gL, L.sizes());
  }
  return {mask[0] ? sum_to(gB, B.sizes()) : Tensor(), gL};
}

Tensor cholesky_inverse_backward(const Tensor& grad, const Tensor& L, bool upper, const Tensor& result) {
  Tensor gA = tl::matmul(result, tl::matmul(grad, result)).neg();
  Tensor sym = gA.add(mT(gA));
  return upper ? tl::triu(tl::matmul(L, sym)) : tl::tril(tl::matmul(sym, L));
}

std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& B,
                                                            const Tensor& result, bool upper, bool left, bool unitriangular,
                                                            std::array<bool, 2> mask) {
  Tensor gB = tl::linalg_solve_triangular(mT(A), grad, !upper, left, unitriangular);
  Tensor gA;
  if (mask[0]) {
    gA = left ? tl::matmul(gB, mT(result)) : tl::matmul(mT(result), gB);
    const int64_t off = unitriangular ? 1 : 0;
    gA = upper ? tl::triu(gA.neg(), off) : tl::tril(gA.neg(), -off);
    gA = sum_to(gA, A.sizes());
  }
  return {gA, mask[1] ? sum_to(gB, B.sizes()) : Tensor()};
}

Tensor linalg_qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, const std::string& mode) {
  TL_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                        "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  TL_CHECK(!(mode == "complete" && m > n),
           "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  if (m >= n) return qr_backward_tall(gQ, gR, Q, R);
  // Wide A = Q [U | V]: the first m columns are a square QR; the rest are Y = Q V.
  Tensor U = R.narrow(-1, 0, m), V = R.narrow(-1, m, n - m);
  Tensor gU = gR.narrow(-1, 0, m), gV = gR.narrow(-1, m, n - m);
  Tensor Y = tl::matmul(Q, V);
  Tensor gX = qr_backward_tall(gQ.add(tl::matmul(Y, mT(gV))), gU, Q, U);
  return tl::cat({gX, tl::matmul(Q, gV)}, -1);
}

Tensor linalg_eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& A, const Tensor& L, const Tensor& V,
                            const std::string& UPLO, bool compute_v) {
  if (!compute_v) {
    Tensor vecs = std::get<1>(tl::_linalg_eigh(A, UPLO, true));
    return tl::matmul(vecs.mul(gL.unsqueeze(-2)), mT(vecs));
  }
  Tensor inner = tl::diag_embed(gL).add(inverse_gaps(L).mul(tl::matmul(mT(V), gV)));
  return tl::matmul(V, tl::matmul(inner, mT(V)));
}

// The gradient for a real A = V diag(L) V^-1 (complex L and V with unit-norm columns):
//   gA = Re( V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(L_j - L_i)) V^H ),
// where the subtracted term removes the change of each eigenvector along itself that the
// unit-norm scaling fixes; the division is off the diagonal only. With compute_v=False
// (eigvals) the eigenvectors are recomputed from A.
Tensor linalg_eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& A, const Tensor& L, const Tensor& V,
                           bool compute_v) {
  const Tensor vecs = compute_v ? V : std::get<1>(tl::_linalg_eig(A, true));
  const Tensor Vh = tl::conj(mT(vecs));
  Tensor inner;
  if (compute_v && gV.defined()) {
    const int64_t n = L.size(-1);
    Tensor VhgV = tl::matmul(Vh, gV);
    Tensor gauge = tl::matmul(Vh, vecs.mul(tl::real(VhgV).diagonal(0, -2, -1).unsqueeze(-2)));
    Tensor I = tl::eye(n, n, A.dtype(), std::nullopt, A.device());
    Tensor Lc = tl::conj(L);
    Tensor gaps = Lc.unsqueeze(-2).sub(Lc.unsqueeze(-1)).add(I);  // conj(L_j - L_i), 1 on the diagonal
    inner = VhgV.sub(gauge).div(gaps).mul(I.neg().add(1));
    if (gL.defined()) inner = inner.add(tl::diag_embed(gL));
  } else {
    inner = tl::diag_embed(gL);
  }
  return tl::real(complex_solve(Vh, tl::matmul(inner, Vh)));
}

// Townsend, "Differentiating the singular value decomposition", for A = U diag(S) V^T.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& A, const Tensor& U,
                    const Tensor& S, const Tensor& Vh, bool full_matrices, bool compute_uv) {
  if (!compute_uv) {
    auto [U2, S2, Vh2] = tl::_linalg_svd(A, false, true, std::nullopt);
    return tl::matmul(U2.mul(gS.unsqueeze(-2)), Vh2);
  }
  const int64_t m = A.size(-2), n = A.size(-1), k = S.size(-1);
  // Full matrices: only the first k columns of U (rows of Vh) are determined by A.
  Tensor u = full_matrices ? U.narrow(-1, 0, k) : U, vh = full_matrices ? Vh.narrow(-2, 0, k) : Vh;
  Tensor gu = full_matrices ? gU.narrow(-1, 0, k) : gU, gvh = full_matrices ? gVh.narrow(-2, 0, k) : gVh;
  Tensor v = mT(vh), gv = mT(gvh);
  Tensor F = inverse_gaps(S.mul(S));
  Tensor Ut_gU = tl::matmul(mT(u), gu), Vt_gV = tl::matmul(mT(v), gv);
  Tensor J = F.mul(Ut_gU.sub(mT(Ut_gU))), K = F.mul(Vt_gV.sub(mT(Vt_gV)));
  Tensor inner = J.mul(S.unsqueeze(-2)).add(tl::diag_embed(gS)).add(K.mul(S.unsqueeze(-1)));
  Tensor gA = tl::matmul(u, tl::matmul(inner, vh));
  if (m > k) gA = gA.add(tl::matmul(gu.sub(tl::matmul(u, Ut_gU)).div(S.unsqueeze(-2)), vh));
  if (n > k) gA = gA.add(tl::matmul(u, mT(gv.sub(tl::matmul(v, Vt_gV))).div(S.unsqueeze(-1))));
  return gA;
}

std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& grad, const Tensor& A, const Tensor& B,
                                                 std::array<bool, 2> mask) {
  const bool vector = B.dim() == 1 || B.dim() == A.dim() - 1;
  Tensor gX = vector ? grad.unsqueeze(-1) : grad;
  Tensor b = vector ? B.unsqueeze(-1) : B;
  Tensor P = tl::linalg_pinv(A, std::optional<Tensor>{}, std::optional<Tensor>{}, false);
  Tensor gA, gB;
  if (mask[0]) {
    const int64_t m = A.size(-2), n = A.size(-1);
    Tensor Gt = tl::matmul(b, mT(gX));  // (gX B^T)^T
    Tensor Pt = mT(P);
    Tensor proj_m = eye_for(A, m).sub(tl::matmul(A, P)), proj_n = eye_for(A, n).sub(tl::matmul(P, A));
    gA = tl::matmul(Pt, tl::matmul(mT(Gt), Pt)).neg()
             .add(tl::matmul(proj_m, tl::matmul(Gt, tl::matmul(P, Pt))))
             .add(tl::matmul(tl::matmul(Pt, P), tl::matmul(Gt, proj_n)));
    gA = sum_to(gA, A.sizes());
  }
  if (mask[1]) {
    gB = tl::matmul(mT(P), gX);
    gB = sum_to(vector ? gB.squeeze(-1) : gB, B.sizes());
  }
  return {gA, gB};
}

}  // namespace tl::autograd
