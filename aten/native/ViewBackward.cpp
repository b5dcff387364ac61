// Backward kernels of view ops (select_backward, slice_backward) and detach. They are
// operators (not helpers) so that their own derivatives make view gradients differentiable.
#include "aten/ATen.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor detach(const Tensor& self) {
  // A new tensor over the same memory with no autograd history.
  TensorImpl* i = self.impl();
  return Tensor::make(i->storage(), i->dtype(), i->sizes().vec(), i->strides().vec(), i->storage_offset());
}

Tensor select_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  Tensor grad_input = empty_tensor(input_sizes, grad_output.options());
  grad_input.fill_(0);
  grad_input.select(dim, index).copy_(grad_output);
  return grad_input;
}

Tensor slice_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t start, int64_t end,
                      int64_t step) {
  Tensor grad_input = empty_tensor(input_sizes, grad_output.options());
  grad_input.fill_(0);
  grad_input.slice(dim, start, end, step).copy_(grad_output);
  return grad_input;
}

}  // namespace tl::native
