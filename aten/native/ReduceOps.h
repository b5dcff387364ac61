#pragma once
// Device-generic parts of reductions: dim lists -> masks, result shapes and dtypes, and
// out= handling. Device kernels (cpu/ReduceOpsKernel.cpp, later cuda/) compute into a
// fresh contiguous tensor with the keepdim=True shape and hand it to finish_reduce().
// See Note [Reduction engine] in cpu/ReduceEngine.h.
#include <optional>
#include <vector>

#include "aten/ATen.h"

namespace tl::native {

// Which dims of an `ndim`-dim tensor are reduced. nullopt means all; so does an empty list,
// except for all/any, which PyTorch reduces over no dim for dim=[] (`empty_means_all` false).
// IndexError for a dim out of range, RuntimeError for a dim listed twice.
std::vector<bool> make_dim_mask(std::optional<IntArrayRef> dims, int64_t ndim, bool empty_means_all = true);
std::vector<bool> make_dim_mask(int64_t dim, int64_t ndim);

// Sizes after reducing `mask` (kept as 1 with keepdim).
std::vector<int64_t> reduced_shape(IntArrayRef sizes, const std::vector<bool>& mask, bool keepdim);

// A fresh contiguous keepdim-shaped result.
Tensor empty_reduce_result(const Tensor& self, const std::vector<bool>& mask, ScalarType dtype);

// Turns the keepdim-shaped result into what the op returns: drops reduced dims unless
// keepdim, and copies into `out` (resized when its shape differs) when one was given.
Tensor finish_reduce(const Tensor& result, const std::vector<bool>& mask, bool keepdim, const Tensor& out);

// Checks an out= tensor's dtype: RuntimeError "Expected out tensor to have dtype ...".
void check_out_dtype(const Tensor& out, ScalarType expected, const char* name);

// Errors when a reduction without identity (max, argmax, amax...) meets an empty dim.
// `dims_given`: false when the op reduces everything because no dim was named.
void check_nonempty_reduction(const Tensor& self, const std::vector<bool>& mask, bool dims_given, const char* name);

// sum/prod: dtype= if given, else out's dtype, else int64 for integers and bool, else self's.
ScalarType sum_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out);

}  // namespace tl::native
