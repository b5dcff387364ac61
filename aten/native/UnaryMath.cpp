// Unary math (issue 13): the kernels with argument checks before their stubs (polygamma,
// mvlgamma) and the composites: square, deg2rad / rad2deg, sgn, positive and polygamma_.
// PyTorch's aliases (arcsin, fix, negative...) are `alias_of:` YAML entries (Note [Aliases]).
#include "aten/native/ShapeUtils.h"
#include "aten/native/UnaryOps.h"
#include "generated/Stubs.h"
#include "generated/ops/abs.h"
#include "generated/ops/all.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/deg2rad_native.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/gt.h"
#include "generated/ops/mul.h"
#include "generated/ops/mvlgamma_native.h"
#include "generated/ops/polygamma.h"
#include "generated/ops/polygamma_native.h"
#include "generated/ops/positive_native.h"
#include "generated/ops/pow.h"
#include "generated/ops/rad2deg_native.h"
#include "generated/ops/sgn.h"
#include "generated/ops/sgn_native.h"
#include "generated/ops/sign.h"
#include "generated/ops/square_native.h"
#include "generated/ops/where.h"

namespace tl::native {

Tensor polygamma_out(int64_t n, const Tensor& self, const Tensor& out) {
  TL_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  TensorIterator iter = unary_float_op_iter("polygamma", out, self);
  polygamma_stub(iter.device().type, iter, n);
  return iter.output();
}

// Its (self, n) order differs from polygamma's, so it is not a structured in-place form. The
// clone keeps the value polygamma's backward saves from being overwritten by the copy.
Tensor polygamma_(const Tensor& self, int64_t n) {
  Tensor result = tl::polygamma(n, self.clone());
  TL_CHECK(can_cast(result.dtype(), self.dtype()), "result type ", result.dtype(),
           " can't be cast to the desired output type ", self.dtype());
  return self.copy_(result);
}

Tensor mvlgamma_out(const Tensor& self, int64_t p, const Tensor& out) {
  TL_CHECK(p >= 1, "p has to be greater than or equal to 1");
  TL_CHECK(self.gt(Scalar(0.5 * static_cast<double>(p - 1))).all().item().to<bool>(),
           "All elements must be greater than (p-1)/2");
  TensorIterator iter = unary_float_op_iter("mvlgamma", out, self);
  mvlgamma_stub(iter.device().type, iter, p);
  return iter.output();
}

Tensor square(const Tensor& self) { return tl::pow(self, Scalar(2)); }
Tensor square_(const Tensor& self) { return self.pow_(Scalar(2)); }
Tensor square(const Tensor& self, const Tensor& out) { return tl::pow_out(out, self, Scalar(2)); }

namespace {
constexpr double kDegPerRad = 57.295779513082320876798154814105;
}  // namespace

Tensor deg2rad(const Tensor& self) { return tl::mul(self, Scalar(1.0 / kDegPerRad)); }
Tensor deg2rad_(const Tensor& self) { return self.mul_(Scalar(1.0 / kDegPerRad)); }
Tensor deg2rad(const Tensor& self, const Tensor& out) { return tl::mul_out(out, self, Scalar(1.0 / kDegPerRad)); }
Tensor rad2deg(const Tensor& self) { return tl::mul(self, Scalar(kDegPerRad)); }
Tensor rad2deg_(const Tensor& self) { return self.mul_(Scalar(kDegPerRad)); }
Tensor rad2deg(const Tensor& self, const Tensor& out) { return tl::mul_out(out, self, Scalar(kDegPerRad)); }

// Complex: z / |z|, 0 at 0.
Tensor sgn(const Tensor& self) {
  if (!is_complex(self.dtype())) return tl::sign(self);
  return tl::where(self.eq(Scalar(0)), Scalar(0.0), self.div(self.abs()));
}
Tensor sgn_(const Tensor& self) { return is_complex(self.dtype()) ? self.copy_(tl::sgn(self)) : self.sign_(); }
Tensor sgn(const Tensor& self, const Tensor& out) {
  return is_complex(self.dtype()) ? write_out(tl::sgn(self), out) : tl::sign_out(out, self);
}

Tensor positive(const Tensor& self) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

}  // namespace tl::native
