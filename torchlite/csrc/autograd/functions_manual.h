#pragma once
// Hand-written helpers the formulas in derivatives.yaml call (PyTorch's FunctionsManual): the
// ones every family uses here, the others in one header per family of derivatives.yaml, all
// included here for the generated code. Every helper is built from differentiable operators, so
// a backward formula that uses it can itself be differentiated (create_graph=True), unless its
// comment says otherwise.
#include "aten/core/Tensor.h"
#include "torchlite/csrc/autograd/functions_manual_complex.h"
#include "torchlite/csrc/autograd/functions_manual_indexing.h"
#include "torchlite/csrc/autograd/functions_manual_linalg.h"
#include "torchlite/csrc/autograd/functions_manual_nn.h"
#include "torchlite/csrc/autograd/functions_manual_pointwise.h"
#include "torchlite/csrc/autograd/functions_manual_reduction.h"
#include "torchlite/csrc/autograd/functions_manual_rnn.h"
#include "torchlite/csrc/autograd/functions_manual_shape.h"
#include "torchlite/csrc/autograd/functions_manual_special.h"
#include "torchlite/csrc/autograd/functions_manual_spectral.h"
#include "torchlite/csrc/autograd/functions_manual_unary_math.h"

namespace tl::autograd {

// Whether `shape` broadcasts to `desired`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);
// Sums a broadcast gradient back to `shape` (the backward of broadcasting / expand).
Tensor sum_to(const Tensor& grad, IntArrayRef shape);
// grad * s, skipping the multiply when s == 1.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
// The gradients of mat1 and mat2 in alpha * mat1 @ mat2 (mm, addmm), given the gradient of the
// product. When that input is a transposed view (column-major, as linear's weight.t() is), the
// gradient is formed in the same layout, so AccumulateGrad keeps it instead of copying it into
// the parameter's layout (PyTorch's mm_mat1_backward / mm_mat2_backward do the same).
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef sizes, IntArrayRef strides,
                        const Scalar& alpha);
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef sizes, IntArrayRef strides,
                        const Scalar& alpha);
// A tensor of zeros with t's sizes, dtype and device.
Tensor zeros_like_grad(const Tensor& t);
// grad converted to an input's device and dtype; for a real input, a complex grad gives its real
// part (PyTorch's handle_r_to_c), without copy_'s warning about discarding the imaginary part.
Tensor grad_to_input_type(const Tensor& grad, Device device, ScalarType dtype);
// Raised by formulas that are not implemented.
[[noreturn]] Tensor not_implemented(const char* what);

}  // namespace tl::autograd

