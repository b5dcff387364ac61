#pragma once
// The per-device search behind searchsorted and bucketize (Bucketize.cpp; Note [Stubs]).
#include <cstdint>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

// result[i] (int32 or int64) = the insertion point of vals[i] in its row of seq (rows of n
// sorted elements, the last dim; per_row values share a row, or every value searches row 0
// when per_row is 0): the first position whose element is > vals[i] when `right`, else >=.
// seq and vals are contiguous and of one dtype.
extern DispatchStub<void(const Tensor& seq, const Tensor& vals, const Tensor& result, bool right, int64_t per_row)>
    searchsorted_stub;

}  // namespace tl::native
