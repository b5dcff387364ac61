#pragma once
// Iterator set-up and argument checks of binary (and ternary) elementwise ops, device-independent
// (Note [Stubs]). Each *_iter builds the TensorIterator for `out = f(inputs)`;
// `out` may be undefined (functional: allocate), the first input (in-place: never resized,
// the broadcast must fit it) or an out= tensor (resized when its shape differs).
#include <optional>
#include <string>

#include "aten/native/TensorIterator.h"

namespace tl::native {

// Common dtype for inputs and output (add, sub, mul, remainder, pow, maximum, bitwise...).
TensorIterator binary_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other);
// As binary_op_iter, but integer and bool inputs compute in the default float dtype (true division).
TensorIterator binary_float_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other);
// Inputs promoted to their common dtype, output bool (comparisons, logical ops).
TensorIterator comparison_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other);
// where: the output and both values have result_type(self, other); condition must be bool.
TensorIterator where_iter(const char* name, const Tensor& out, const Tensor& condition, const Tensor& self,
                          const Tensor& other);

// alpha must be integral for integral inputs, as in PyTorch.
void check_alpha(const char* name, ScalarType dtype, const Scalar& alpha);
// PyTorch's errors for `-` with bool tensors.
void check_sub_dtypes(const Tensor& self, const Tensor& other);
// RuntimeError("ZeroDivisionError") when input `arg` of an integer iterator holds a zero
// (integer division, remainder), on any device. No-op for floating dtypes.
void check_no_zero_divisor(const TensorIterator& iter, int arg);

enum class RoundingMode { True, Trunc, Floor };
// div's rounding_mode: None, "trunc" or "floor"; anything else raises PyTorch's error.
RoundingMode parse_rounding_mode(const std::optional<std::string>& mode);

}  // namespace tl::native
