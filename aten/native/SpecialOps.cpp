// torch.special's composites (the Scalar overloads of the binary functions, the xlogy and
// gammainc/gammaincc aliases) and frexp, whose two outputs each run a stub.
#include <tuple>

#include "aten/native/UnaryOps.h"
#include "generated/Stubs.h"
#include "generated/ops/frexp_native.h"
#include "generated/ops/igamma.h"
#include "generated/ops/igammac.h"
#include "generated/ops/special_chebyshev_polynomial_t.h"
#include "generated/ops/special_chebyshev_polynomial_t_native.h"
#include "generated/ops/special_chebyshev_polynomial_u.h"
#include "generated/ops/special_chebyshev_polynomial_u_native.h"
#include "generated/ops/special_chebyshev_polynomial_v.h"
#include "generated/ops/special_chebyshev_polynomial_v_native.h"
#include "generated/ops/special_chebyshev_polynomial_w.h"
#include "generated/ops/special_chebyshev_polynomial_w_native.h"
#include "generated/ops/special_gammainc_native.h"
#include "generated/ops/special_gammaincc_native.h"
#include "generated/ops/special_hermite_polynomial_h.h"
#include "generated/ops/special_hermite_polynomial_h_native.h"
#include "generated/ops/special_hermite_polynomial_he.h"
#include "generated/ops/special_hermite_polynomial_he_native.h"
#include "generated/ops/special_laguerre_polynomial_l.h"
#include "generated/ops/special_laguerre_polynomial_l_native.h"
#include "generated/ops/special_legendre_polynomial_p.h"
#include "generated/ops/special_legendre_polynomial_p_native.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_t.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_t_native.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_u.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_u_native.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_v.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_v_native.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_w.h"
#include "generated/ops/special_shifted_chebyshev_polynomial_w_native.h"
#include "generated/ops/special_xlog1py.h"
#include "generated/ops/special_xlog1py_native.h"
#include "generated/ops/special_xlogy_native.h"
#include "generated/ops/special_zeta.h"
#include "generated/ops/special_zeta_native.h"
#include "generated/ops/xlogy.h"

namespace tl::native {

// The Scalar overloads wrap the number as a 0-d tensor (a weak type in promotion) and call the
// Tensor overload, so they share its dtype rules and gradient.
Tensor special_xlog1py(const Scalar& a, const Tensor& b) { return tl::special_xlog1py(wrapped_scalar_tensor(a), b); }
Tensor special_xlog1py(const Tensor& a, const Scalar& b) { return tl::special_xlog1py(a, wrapped_scalar_tensor(b)); }
Tensor special_xlog1py(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_xlog1py_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_xlog1py(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_xlog1py_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_zeta(const Scalar& a, const Tensor& b) { return tl::special_zeta(wrapped_scalar_tensor(a), b); }
Tensor special_zeta(const Tensor& a, const Scalar& b) { return tl::special_zeta(a, wrapped_scalar_tensor(b)); }
Tensor special_zeta(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_zeta_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_zeta(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_zeta_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_chebyshev_polynomial_t(const Scalar& a, const Tensor& b) { return tl::special_chebyshev_polynomial_t(wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_t(const Tensor& a, const Scalar& b) { return tl::special_chebyshev_polynomial_t(a, wrapped_scalar_tensor(b)); }
Tensor special_chebyshev_polynomial_t(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_chebyshev_polynomial_t_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_t(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_chebyshev_polynomial_t_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_chebyshev_polynomial_u(const Scalar& a, const Tensor& b) { return tl::special_chebyshev_polynomial_u(wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_u(const Tensor& a, const Scalar& b) { return tl::special_chebyshev_polynomial_u(a, wrapped_scalar_tensor(b)); }
Tensor special_chebyshev_polynomial_u(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_chebyshev_polynomial_u_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_u(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_chebyshev_polynomial_u_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_chebyshev_polynomial_v(const Scalar& a, const Tensor& b) { return tl::special_chebyshev_polynomial_v(wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_v(const Tensor& a, const Scalar& b) { return tl::special_chebyshev_polynomial_v(a, wrapped_scalar_tensor(b)); }
Tensor special_chebyshev_polynomial_v(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_chebyshev_polynomial_v_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_v(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_chebyshev_polynomial_v_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_chebyshev_polynomial_w(const Scalar& a, const Tensor& b) { return tl::special_chebyshev_polynomial_w(wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_w(const Tensor& a, const Scalar& b) { return tl::special_chebyshev_polynomial_w(a, wrapped_scalar_tensor(b)); }
Tensor special_chebyshev_polynomial_w(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_chebyshev_polynomial_w_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_chebyshev_polynomial_w(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_chebyshev_polynomial_w_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_shifted_chebyshev_polynomial_t(const Scalar& a, const Tensor& b) { return tl::special_shifted_chebyshev_polynomial_t(wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_t(const Tensor& a, const Scalar& b) { return tl::special_shifted_chebyshev_polynomial_t(a, wrapped_scalar_tensor(b)); }
Tensor special_shifted_chebyshev_polynomial_t(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_t_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_t(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_t_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_shifted_chebyshev_polynomial_u(const Scalar& a, const Tensor& b) { return tl::special_shifted_chebyshev_polynomial_u(wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_u(const Tensor& a, const Scalar& b) { return tl::special_shifted_chebyshev_polynomial_u(a, wrapped_scalar_tensor(b)); }
Tensor special_shifted_chebyshev_polynomial_u(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_u_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_u(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_u_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_shifted_chebyshev_polynomial_v(const Scalar& a, const Tensor& b) { return tl::special_shifted_chebyshev_polynomial_v(wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_v(const Tensor& a, const Scalar& b) { return tl::special_shifted_chebyshev_polynomial_v(a, wrapped_scalar_tensor(b)); }
Tensor special_shifted_chebyshev_polynomial_v(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_v_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_v(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_v_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_shifted_chebyshev_polynomial_w(const Scalar& a, const Tensor& b) { return tl::special_shifted_chebyshev_polynomial_w(wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_w(const Tensor& a, const Scalar& b) { return tl::special_shifted_chebyshev_polynomial_w(a, wrapped_scalar_tensor(b)); }
Tensor special_shifted_chebyshev_polynomial_w(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_w_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_shifted_chebyshev_polynomial_w(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_shifted_chebyshev_polynomial_w_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_hermite_polynomial_h(const Scalar& a, const Tensor& b) { return tl::special_hermite_polynomial_h(wrapped_scalar_tensor(a), b); }
Tensor special_hermite_polynomial_h(const Tensor& a, const Scalar& b) { return tl::special_hermite_polynomial_h(a, wrapped_scalar_tensor(b)); }
Tensor special_hermite_polynomial_h(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_hermite_polynomial_h_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_hermite_polynomial_h(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_hermite_polynomial_h_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_hermite_polynomial_he(const Scalar& a, const Tensor& b) { return tl::special_hermite_polynomial_he(wrapped_scalar_tensor(a), b); }
Tensor special_hermite_polynomial_he(const Tensor& a, const Scalar& b) { return tl::special_hermite_polynomial_he(a, wrapped_scalar_tensor(b)); }
Tensor special_hermite_polynomial_he(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_hermite_polynomial_he_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_hermite_polynomial_he(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_hermite_polynomial_he_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_laguerre_polynomial_l(const Scalar& a, const Tensor& b) { return tl::special_laguerre_polynomial_l(wrapped_scalar_tensor(a), b); }
Tensor special_laguerre_polynomial_l(const Tensor& a, const Scalar& b) { return tl::special_laguerre_polynomial_l(a, wrapped_scalar_tensor(b)); }
Tensor special_laguerre_polynomial_l(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_laguerre_polynomial_l_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_laguerre_polynomial_l(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_laguerre_polynomial_l_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_legendre_polynomial_p(const Scalar& a, const Tensor& b) { return tl::special_legendre_polynomial_p(wrapped_scalar_tensor(a), b); }
Tensor special_legendre_polynomial_p(const Tensor& a, const Scalar& b) { return tl::special_legendre_polynomial_p(a, wrapped_scalar_tensor(b)); }
Tensor special_legendre_polynomial_p(const Scalar& a, const Tensor& b, const Tensor& out) { return tl::special_legendre_polynomial_p_out(out, wrapped_scalar_tensor(a), b); }
Tensor special_legendre_polynomial_p(const Tensor& a, const Scalar& b, const Tensor& out) { return tl::special_legendre_polynomial_p_out(out, a, wrapped_scalar_tensor(b)); }

Tensor special_xlogy(const Tensor& self, const Tensor& other) { return tl::xlogy(self, other); }
Tensor special_xlogy(const Scalar& self, const Tensor& other) { return tl::xlogy(self, other); }
Tensor special_xlogy(const Tensor& self, const Scalar& other) { return tl::xlogy(self, other); }
Tensor special_xlogy(const Tensor& self, const Tensor& other, const Tensor& out) { return tl::xlogy_out(out, self, other); }
Tensor special_xlogy(const Scalar& self, const Tensor& other, const Tensor& out) { return tl::xlogy_out(out, self, other); }
Tensor special_xlogy(const Tensor& self, const Scalar& other, const Tensor& out) { return tl::xlogy_out(out, self, other); }

Tensor special_gammainc(const Tensor& self, const Tensor& other) { return tl::igamma(self, other); }
Tensor special_gammainc(const Tensor& self, const Tensor& other, const Tensor& out) { return tl::igamma_out(out, self, other); }
Tensor special_gammaincc(const Tensor& self, const Tensor& other) { return tl::igammac(self, other); }
Tensor special_gammaincc(const Tensor& self, const Tensor& other, const Tensor& out) { return tl::igammac_out(out, self, other); }

// The exponent is computed first, so a mantissa written over self (out=(x, e)) reads x intact.
std::tuple<Tensor, Tensor> frexp_out(const Tensor& self, const Tensor& mantissa, const Tensor& exponent) {
  TL_CHECK(is_floating_point(self.dtype()), "torch.frexp() only supports floating-point dtypes");
  TL_CHECK(!mantissa.defined() || mantissa.dtype() == self.dtype(), "torch.frexp() expects mantissa to have dtype ",
           self.dtype(), " but got ", mantissa.dtype());
  TL_CHECK(!exponent.defined() || exponent.dtype() == ScalarType::Int,
           "torch.frexp() expects exponent to have int dtype but got ", exponent.dtype());
  TensorIteratorConfig config;
  TensorIterator exp_iter = config.name("frexp").add_output(exponent).add_input(self).output_dtype(ScalarType::Int).build();
  frexp_exponent_stub(exp_iter.device().type, exp_iter);
  TensorIterator mant_iter = unary_op_iter("frexp", mantissa, self);
  frexp_mantissa_stub(mant_iter.device().type, mant_iter);
  return {mant_iter.output(), exp_iter.output()};
}

}  // namespace tl::native
