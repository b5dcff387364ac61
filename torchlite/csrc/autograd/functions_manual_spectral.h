#pragma once
// Backward helpers for the FFT primitives (derivatives.yaml, "spectral").
#include "aten/core/Tensor.h"

namespace tl::autograd {

// r2c = (keep the first n/2 + 1 entries if onesided) . c2c forward . (real -> complex). Its
// adjoint zero-pads grad back to the input's size along the last dim, runs the inverse c2c and
// keeps the real part (the engine takes it for the real input).
Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        IntArrayRef self_sizes);
// c2r = real . c2c inverse . (fill X[n-k] = conj(X[k])). Its adjoint is a onesided r2c of grad,
// with the entries whose mirror image was filled in (k = 1 .. n - (n/2 + 1)) counted twice.
Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization);

}  // namespace tl::autograd
