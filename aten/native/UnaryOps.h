#pragma once
// Iterator set-up of unary elementwise ops (and clamp), device-independent (Note [Stubs]).
#include <optional>

#include "aten/native/TensorIterator.h"

namespace tl::native {

// out = f(self) in self's dtype (neg, abs, floor...). `out` as in binary_op_iter.
TensorIterator unary_op_iter(const char* name, const Tensor& out, const Tensor& self);
// As unary_op_iter, but a complex self gives a real output (abs, angle).
TensorIterator unary_to_real_op_iter(const char* name, const Tensor& out, const Tensor& self);
// Integer and bool inputs compute in the default float dtype (exp, sin, sqrt...).
TensorIterator unary_float_op_iter(const char* name, const Tensor& out, const Tensor& self);
// Output bool (logical_not).
TensorIterator unary_bool_op_iter(const char* name, const Tensor& out, const Tensor& self);
// Computes in `dtype` (pow.Tensor_Scalar, clamp: the scalar takes part in promotion).
TensorIterator unary_op_iter_with_dtype(const char* name, const Tensor& out, const Tensor& self, ScalarType dtype);

// clamp's result dtype: self's when floating, else promoted with the bounds (weak scalars);
// raises when both bounds are None.
ScalarType clamp_result_type(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max);

}  // namespace tl::native
