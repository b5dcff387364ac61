#pragma once
// The device seam of _embedding_bag (EmbeddingBag.cpp checks the arguments and the index values,
// on a host copy, once; CPU: EmbeddingBag.cpp, CUDA: cuda/EmbeddingBagKernel.cu).
#include <cstdint>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

// Bag b of B = out.size(0) holds indices [off[b], off[b + 1]) (the last one runs to the end of
// idx). Fills out (B, D), offset2bag (per index, its bag), bag_size (per bag, its indices other
// than padding_idx) and, in max mode (2), max_indices (B, D): the row that gave each maximum.
// idx and off are int64, w, psw (undefined: weights of 1) float or double; all contiguous, B > 0.
extern DispatchStub<void(const Tensor& w, const Tensor& idx, const Tensor& off, const Tensor& psw, int64_t mode,
                         int64_t padding_idx, const Tensor& out, const Tensor& offset2bag, const Tensor& bag_size,
                         const Tensor& max_indices)>
    embedding_bag_stub;

}  // namespace tl::native
