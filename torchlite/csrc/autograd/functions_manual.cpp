#include "torchlite/csrc/autograd/functions_manual.h"

#include <vector>

#include "generated/ops/conj.h"
#include "generated/ops/fill.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/real.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/to.h"
#include "generated/ops/view.h"
#include "torchlite/csrc/autograd/variable.h"

namespace tl::autograd {

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  size_t lead = desired.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != desired[lead + i] && shape[i] != 1) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  if (!grad.defined() || grad.sizes().equals(shape)) return grad;
  TL_CHECK(is_expandable_to(shape, grad.sizes()), "sum_to: shape ", shape, " is not expandable to ", grad.sizes());
  // One reduction over every broadcast dim (the leading ones and those of size 1 in `shape`),
  // kept as size-1 dims and then dropped by a view: one pass of the reduction engine, and
  // differentiable through sum's own backward under create_graph.
  int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && grad.size(d) != 1)) dims.push_back(d);
  }
  Tensor r = dims.empty() ? grad : grad.sum(IntArrayRef(dims), /*keepdim=*/true);
  return lead > 0 ? r.view(shape) : r;
}

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  bool is_one = s.is_bool() ? s.to<bool>() : s.equal(1.0);
  if (is_one) return t;
  return t.mul(s);
}

namespace {
bool is_column_major(IntArrayRef sizes, IntArrayRef strides) {
  return sizes.size() == 2 && sizes[0] > 1 && strides[0] == 1 && strides[1] == sizes[0];
}
}  // namespace

Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef sizes, IntArrayRef strides,
                        const Scalar& alpha) {
  if (is_column_major(sizes, strides)) return maybe_multiply(mat2.conj().mm(grad.t()).t(), alpha);
  return maybe_multiply(grad.mm(mat2.t().conj()), alpha);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef sizes, IntArrayRef strides,
                        const Scalar& alpha) {
  if (is_column_major(sizes, strides)) return maybe_multiply(grad.t().mm(mat1.conj()).t(), alpha);
  return maybe_multiply(mat1.t().conj().mm(grad), alpha);
}

Tensor zeros_like_grad(const Tensor& t) {
  Tensor z = empty_tensor(t.sizes(), t.options());
  z.fill_(0);
  return z;
}

Tensor grad_to_input_type(const Tensor& grad, Device device, ScalarType dtype) {
  const bool drop_imag = is_complex(grad.scalar_type()) && !is_complex(dtype);
  return (drop_imag ? tl::real(grad) : grad).to(device, dtype);
}

Tensor not_implemented(const char* what) { TL_NOT_IMPLEMENTED("the derivative for '", what, "' is not implemented."); }

}  // namespace tl::autograd

