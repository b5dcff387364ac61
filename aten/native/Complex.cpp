// Complex numbers (Note [Complex dtypes]): the real/complex views, real/imag, complex/polar,
// conj, angle and isreal. conj is materialised (conj_physical): torchlite has no lazy conjugate
// bit, so resolve_conj/resolve_neg return their input.
#include "aten/native/ShapeUtils.h"
#include "aten/native/UnaryOps.h"
#include "generated/Stubs.h"
#include "generated/ops/adjoint_native.h"
#include "generated/ops/angle_native.h"
#include "generated/ops/complex_native.h"
#include "generated/ops/conj.h"
#include "generated/ops/conj_native.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/cos.h"
#include "generated/ops/eq.h"
#include "generated/ops/expand.h"
#include "generated/ops/fill.h"
#include "generated/ops/imag.h"
#include "generated/ops/imag_native.h"
#include "generated/ops/isreal_native.h"
#include "generated/ops/mul.h"
#include "generated/ops/polar_native.h"
#include "generated/ops/real_native.h"
#include "generated/ops/resolve_conj_native.h"
#include "generated/ops/resolve_neg_native.h"
#include "generated/ops/select.h"
#include "generated/ops/sin.h"
#include "generated/ops/stack.h"
#include "generated/ops/to.h"
#include "generated/ops/transpose.h"
#include "generated/ops/view_as_complex.h"
#include "generated/ops/view_as_complex_native.h"
#include "generated/ops/view_as_real.h"
#include "generated/ops/view_as_real_native.h"

namespace tl::native {

// ---- views -------------------------------------------------------------------------------------

Tensor view_as_real(const Tensor& self) {
  TL_CHECK(is_complex(self.dtype()), "view_as_real is only supported for complex tensors");
  std::vector<int64_t> sizes = self.sizes().vec(), strides;
  for (int64_t s : self.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  return Tensor::make(self.impl()->storage(), to_real_type(self.dtype()), std::move(sizes), std::move(strides),
                      2 * self.storage_offset());
}

Tensor view_as_complex(const Tensor& self) {
  const ScalarType t = self.dtype();
  TL_CHECK(t == ScalarType::Float || t == ScalarType::Double,
           "view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: ",
           scalar_type_cpp_name(t));
  TL_CHECK(self.dim() != 0, "Input tensor must have one or more dimensions");
  TL_CHECK(self.sizes()[self.dim() - 1] == 2, "Tensor must have a last dimension of size 2");
  TL_CHECK(self.strides()[self.dim() - 1] == 1, "Tensor must have a last dimension with stride 1");
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d + 1 < self.dim(); ++d) {
    TL_CHECK(self.strides()[d] % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d] / 2);
  }
  TL_CHECK(self.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return Tensor::make(self.impl()->storage(), to_complex_type(t), std::move(sizes), std::move(strides),
                      self.storage_offset() / 2);
}

Tensor real(const Tensor& self) { return is_complex(self.dtype()) ? tl::view_as_real(self).select(-1, 0) : self; }

Tensor imag(const Tensor& self) {
  TL_CHECK(is_complex(self.dtype()), "imag is not implemented for tensors with non-complex dtypes.");
  return tl::view_as_real(self).select(-1, 1);
}

// ---- construction ------------------------------------------------------------------------------

namespace {

void check_complex_parts(const char* name, const Tensor& a, const Tensor& b) {
  auto ok = [](ScalarType t) { return t == ScalarType::Float || t == ScalarType::Double; };
  TL_CHECK_TYPE(ok(a.dtype()) && ok(b.dtype()), name, "(): expected both inputs to be Float or Double tensors "
                "(torchlite has no complex32) but got ", scalar_type_cpp_name(a.dtype()), " and ",
                scalar_type_cpp_name(b.dtype()));
  TL_CHECK(a.dtype() == b.dtype(), "Expected object of scalar type ", scalar_type_cpp_name(a.dtype()),
           " but got scalar type ", scalar_type_cpp_name(b.dtype()), " for second argument");
}

// re + i im, broadcast, as a fresh complex tensor.
Tensor make_complex(const Tensor& re, const Tensor& im) {
  std::vector<int64_t> shape = broadcast_shapes(re.sizes(), im.sizes());
  return tl::view_as_complex(tl::stack({re.expand(shape), im.expand(shape)}, -1));
}

}  // namespace

Tensor complex(const Tensor& real, const Tensor& imag) {
  check_complex_parts("complex", real, imag);
  return make_complex(real, imag);
}

Tensor complex(const Tensor& real, const Tensor& imag, const Tensor& out) {
  return write_out(native::complex(real, imag), out);
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  check_complex_parts("polar", abs, angle);
  return make_complex(abs.mul(angle.cos()), abs.mul(angle.sin()));
}

Tensor polar(const Tensor& abs, const Tensor& angle, const Tensor& out) {
  return write_out(native::polar(abs, angle), out);
}

// ---- conjugation -------------------------------------------------------------------------------

Tensor conj(const Tensor& self) { return is_complex(self.dtype()) ? tl::conj_physical(self) : self; }
Tensor resolve_conj(const Tensor& self) { return self; }
Tensor resolve_neg(const Tensor& self) { return self; }

Tensor adjoint(const Tensor& self) {
  TL_CHECK(self.dim() >= 2, "tensor.adjoint() is only supported on matrices or batches of matrices. Got ",
           self.dim(), "-D tensor.");
  return self.transpose(-2, -1).conj();
}

// ---- angle, isreal -----------------------------------------------------------------------------

Tensor angle_out(const Tensor& self, const Tensor& out) {
  Tensor x = is_integral(self.dtype(), true) ? self.to(default_dtype()) : self;
  TensorIterator iter = unary_to_real_op_iter("angle", out, x);
  angle_stub(iter.device().type, iter);
  return iter.output();
}

Tensor angle(const Tensor& self) { return angle_out(self, Tensor()); }

Tensor isreal(const Tensor& self) {
  if (is_complex(self.dtype())) return tl::imag(self).eq(Scalar(0));
  Tensor r = empty_tensor(self.sizes(), TensorOptions(ScalarType::Bool, self.device()));
  return r.fill_(Scalar(true));
}

}  // namespace tl::native
