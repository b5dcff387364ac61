#pragma once
// Backward helpers for the complex-number operators (derivatives.yaml, "complex numbers").
#include "aten/core/Tensor.h"

namespace tl::autograd {

// angle(z): for complex z, grad * i z / |z|^2 (0 at z = 0); for real x, zeros (angle is
// piecewise constant).
Tensor angle_backward(const Tensor& grad, const Tensor& self);
// polar(abs, angle) = abs e^{i angle}: d/d angle is i * result, so the real angle gets
// Re(grad * conj(i * result)).
Tensor polar_angle_backward(const Tensor& grad, const Tensor& result);
// The complex conjugate of a Scalar (itself unless complex): add/sub pass grad * conj(alpha).
Scalar conj_scalar(const Scalar& s);

}  // namespace tl::autograd
