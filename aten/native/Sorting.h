#pragma once
// The per-device full sort behind the CUDA path of sort, topk, kthvalue, median and nanmedian
// (Sorting.cpp): rows [..., n] (contiguous) sorted along the last dim, stably, NaN above every
// number (ascending puts NaNs last), into values and int64 indices of the rows' shape.
#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

extern DispatchStub<void(const Tensor& rows, bool descending, const Tensor& values, const Tensor& indices)>
    sort_rows_stub;

}  // namespace tl::native
