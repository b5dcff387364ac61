#include "torchlite/csrc/autograd/functions_manual.h"

#include <vector>

#include "generated/ops/conj.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/fill.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/real.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/to.h"
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

namespace {
// Sum over one dim (differentiable: used under create_graph).
Tensor sum_dim(const Tensor& t, int64_t d, bool keepdim) {
  return t.sum(IntArrayRef(d), keepdim);
}
// One pass over a CPU gradient, accumulating into the reduced shape (not differentiable).
Tensor sum_to_cpu(const Tensor& grad, IntArrayRef shape) {
  NoGradGuard no_grad;
  Tensor g = grad.contiguous();
  int64_t nd = g.dim();
  int64_t lead = nd - static_cast<int64_t>(shape.size());
  std::vector<int64_t> out_strides = contiguous_strides(shape);
  std::vector<int64_t> step(nd, 0);  // output stride per grad dim (0 where summed)
  for (int64_t d = lead; d < nd; ++d) step[d] = shape[d - lead] == 1 ? 0 : out_strides[d - lead];
  Tensor out = empty_tensor(shape, g.options());
  dispatch_all_types_and_complex(g.dtype(), "sum_to", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using acc_t = opmath_t<T>;
    std::vector<acc_t> acc(static_cast<size_t>(out.numel()), acc_t(0));
    const T* in = g.data_ptr<T>();
    std::vector<int64_t> idx(nd, 0);
    int64_t off = 0;
    for (int64_t i = 0, n = g.numel(); i < n; ++i) {
      acc[off] = acc[off] + static_cast<acc_t>(in[i]);
      for (int64_t d = nd - 1; d >= 0; --d) {  // advance the multi-index
        off += step[d];
        if (++idx[d] < g.size(d)) break;
        off -= step[d] * idx[d];
        idx[d] = 0;
      }
    }
    T* o = out.data_ptr<T>();
    for (size_t k = 0; k < acc.size(); ++k) o[k] = static_cast<T>(acc[k]);
  });
  return out;
}
}  // namespace

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  if (!grad.defined() || grad.sizes().equals(shape)) return grad;
  TL_CHECK(is_expandable_to(shape, grad.sizes()), "sum_to: shape ", shape, " is not expandable to ", grad.sizes());
  if (grad.is_cpu() && !(GradMode::is_enabled() && requires_grad(grad))) return sum_to_cpu(grad, shape);
  Tensor r = grad;
  int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  for (int64_t i = 0; i < lead; ++i) r = sum_dim(r, 0, false);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1 && r.size(static_cast<int64_t>(d)) != 1) r = sum_dim(r, static_cast<int64_t>(d), true);
  }
  return r;
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

