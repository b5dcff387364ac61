#pragma once
// Backward helpers of the padding and interpolation formulas (h-conv); see functions_manual.h.
#include "aten/ATen.h"

namespace tl::autograd {

// constant_pad_nd's gradient: the same padding negated (a crop; negative pads become zeros).
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);

}  // namespace tl::autograd
