#pragma once
// ctc_loss's device seam: LossCTC.cpp checks the arguments (label values on a host copy) once; the
// recursions behind the stubs (CPU: LossCTC.cpp, CUDA: cuda/LossCTCKernel.cu) share the log-space
// helpers below.
#include <cstdint>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/core/Macros.h"
#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

// Where each sample's labels start in the flattened targets, checked against the lengths.
struct CtcGeom {
  int64_t T, N, C, max_target;
  std::vector<int64_t> target_start;
  Tensor labels;  // the targets, flattened to contiguous int64, on the host
};

namespace ctc {

// log(exp(a) + exp(b) + exp(c)), -inf when all three are.
template <typename T>
TL_HOST_DEVICE inline T log_sum3(T a, T b, T c) {
  const T bc = b < c ? c : b, m = a < bc ? bc : a;
  if (m == -std::numeric_limits<T>::infinity()) return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m));
}

template <typename T>
TL_HOST_DEVICE inline T log_add(T a, T b) {
  return log_sum3(a, b, -std::numeric_limits<T>::infinity());
}

// The extended label of state s: blank on even states, the target's labels on odd ones.
struct Extended {
  const int64_t* labels;
  int64_t blank;
  TL_HOST_DEVICE int64_t operator()(int64_t s) const { return s % 2 == 0 ? blank : labels[s / 2]; }
};

}  // namespace ctc

// log_probs (T, N, C) contiguous, float or double. Forward: nll (N) and log_alpha (N, T, Smax),
// every entry written. Backward: result (T, N, C), zeroed by the caller, written for t below each
// input length.
extern DispatchStub<void(const CtcGeom& g, const Tensor& log_probs, IntArrayRef input_lengths,
                         IntArrayRef target_lengths, int64_t blank, const Tensor& nll, const Tensor& log_alpha)>
    ctc_loss_stub;
extern DispatchStub<void(const CtcGeom& g, const Tensor& grad, const Tensor& log_probs, IntArrayRef input_lengths,
                         IntArrayRef target_lengths, const Tensor& nll, const Tensor& log_alpha, int64_t blank,
                         bool zero_infinity, const Tensor& result)>
    ctc_loss_backward_stub;

}  // namespace tl::native
