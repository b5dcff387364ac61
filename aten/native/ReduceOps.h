#pragma once
// Device-independent parts of reductions: dim lists -> masks, result shapes and dtypes, out=
// handling, and the stubs (Note [Stubs]) behind which each device reduces into a fresh
// contiguous tensor with the keepdim=True shape, which finish_reduce() then shapes.
// See Note [Reduction engine] (cpu/ReduceEngine.h) and Note [CUDA reductions] (cuda/Reduce.cuh).
#include <optional>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"
#include "aten/native/ReduceFunctors.h"

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

// ---- stubs: reduce `input` (already in the result dtype) over `mask` into `result` --------
using ReduceStub = DispatchStub<void(const Tensor& input, const Tensor& result, const std::vector<bool>& mask)>;
// sum and mean (scale 1/N, applied once in the accumulator type).
extern DispatchStub<void(const Tensor& input, const Tensor& result, const std::vector<bool>& mask, double scale)>
    sum_stub;
extern ReduceStub nansum_stub;  // floating inputs, result in the input's dtype
extern ReduceStub amax_stub;
extern ReduceStub amin_stub;

// The stub kernels of a device whose engine is `Engine::run<T>(input, result, mask, op)`;
// each device registers these instances (TL_REGISTER_STUB), so the dtype dispatch and the
// ops are written once.
template <class Engine>
void sum_kernel(const Tensor& input, const Tensor& result, const std::vector<bool>& mask, double scale) {
  dispatch_all_types_and_complex(result.dtype(), "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    SumOp<T> op;
    op.scale = static_cast<typename SumOp<T>::acc_t>(scale);
    Engine::template run<T>(input, result, mask, op);
  });
}

template <class Engine>
void nansum_kernel(const Tensor& input, const Tensor& result, const std::vector<bool>& mask) {
  dispatch_floating_types(result.dtype(), "nansum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Engine::template run<T>(input, result, mask, NanSumOp<T>{});
  });
}

template <class Engine, bool IsMax>
void minmax_kernel(const Tensor& input, const Tensor& result, const std::vector<bool>& mask) {
  dispatch_all_types(input.dtype(), IsMax ? "amax" : "amin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Engine::template run<T>(input, result, mask, MinMaxOp<T, IsMax>{});
  });
}

}  // namespace tl::native
