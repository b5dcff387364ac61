#pragma once
// Note [Batch norm stubs]: native_batch_norm and native_batch_norm_backward are written once
// (Normalization.cpp): they check the arguments, convert every operand to the compute dtype (float
// for Half and BFloat16), make it contiguous and allocate the results. Each device registers only
// the per-channel loops behind these stubs (cpu/BatchNormKernel.cpp, cuda/BatchNormKernel.cu).
// The input is N x C planes of S contiguous elements; per-channel tensors hold C elements and are
// undefined when absent. The forward's batch statistics accumulate in double: a float sum of a constant channel
// would round, and (x - mean) / sqrt(eps) magnifies that error.
#include <cstdint>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

struct BatchNormPlanes {
  int64_t N = 0, C = 0, S = 0;
};

// Training: save_mean / save_invstd get the batch statistics, and running_mean / running_var
// (when defined) move towards them by `momentum` (the running variance is the unbiased one, as in
// PyTorch). Evaluation: the running statistics are used and saved. y = (x - mean) * invstd * w + b.
struct BatchNormForward {
  BatchNormPlanes p;
  bool training = false;
  double momentum = 0, eps = 0;
  Tensor x, weight, bias, running_mean, running_var;
  Tensor y, save_mean, save_invstd;
};

// The gradients of y = (x - mean) * invstd * w + b with mean and invstd given; in training they
// are functions of x, which grad_input includes. Undefined outputs are not computed.
struct BatchNormBackward {
  BatchNormPlanes p;
  bool train = false;
  Tensor grad_out, x, weight, mean, invstd;
  Tensor grad_input, grad_weight, grad_bias;
};

extern DispatchStub<void(const BatchNormForward&)> batch_norm_stub;
extern DispatchStub<void(const BatchNormBackward&)> batch_norm_backward_stub;

}  // namespace tl::native
