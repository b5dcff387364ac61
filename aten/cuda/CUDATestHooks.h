#pragma once
// Kernel-level test hooks bound as torchlite._C._cuda._* (tests/test_cuda.py). They exercise
// CUDA launchers that no operator uses yet; in builds without CUDA they raise.
#include "aten/core/Tensor.h"

namespace tl::cuda {

// Sum over the last `ndims` dims of a CUDA tensor with gpu_reduce_inner (Reduce.cuh):
// floating inputs keep their dtype (accumulating in float for half types), integers and
// bool give int64, as torch.sum.
Tensor reduce_sum_inner_for_test(const Tensor& self, int64_t ndims);

}  // namespace tl::cuda
