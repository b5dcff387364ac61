// Backward kernels of view ops (select_backward, slice_backward, diagonal_backward) and detach.
// They are operators (not helpers) so that their own derivatives make view gradients
// differentiable.
#include "aten/core/Tensor.h"
#include "generated/ops/copy.h"
#include "generated/ops/detach.h"
#include "generated/ops/detach_native.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/diagonal_backward.h"
#include "generated/ops/diagonal_backward_native.h"
#include "generated/ops/fill.h"
#include "generated/ops/select.h"
#include "generated/ops/select_backward.h"
#include "generated/ops/select_backward_native.h"
#include "generated/ops/slice.h"
#include "generated/ops/slice_backward.h"
#include "generated/ops/slice_backward_native.h"
#include "generated/ops/view.h"
#include "generated/ops/view_native.h"

namespace tl::native {

Tensor detach(const Tensor& self) {
  // A new tensor over the same memory with no autograd history.
  TensorImpl* i = self.impl();
  return Tensor::make(i->storage(), i->dtype(), i->sizes().vec(), i->strides().vec(), i->storage_offset());
}

namespace {

// Zeros of the input's size with grad_output copied into the view of it that `view` takes.
template <typename View>
Tensor into_zeros(const Tensor& grad_output, IntArrayRef input_sizes, View&& view) {
  Tensor grad_input = empty_tensor(input_sizes, grad_output.options());
  grad_input.fill_(0);
  view(grad_input).copy_(grad_output);
  return grad_input;
}

}  // namespace

Tensor select_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  return into_zeros(grad_output, input_sizes, [&](const Tensor& g) { return g.select(dim, index); });
}

Tensor slice_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t start, int64_t end,
                      int64_t step) {
  return into_zeros(grad_output, input_sizes, [&](const Tensor& g) { return g.slice(dim, start, end, step); });
}

Tensor diagonal_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t offset, int64_t dim1,
                         int64_t dim2) {
  return into_zeros(grad_output, input_sizes, [&](const Tensor& g) { return g.diagonal(offset, dim1, dim2); });
}

}  // namespace tl::native
