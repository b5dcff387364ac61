#pragma once
// The input check the spatial nn ops (padding, pooling, convolution) share. Each op raises its
// own message (PyTorch's words for it), so the test is here and the message at the call.
#include "aten/core/Tensor.h"

namespace tl::native {

// Whether `input` fits an nd-d spatial op: nd + 1 dims (unbatched) or nd + 2 (batched), and, when
// `nonempty`, no empty dimension but the batch one.
inline bool is_spatial_input(const Tensor& input, int64_t nd, bool nonempty) {
  const int64_t dim = input.dim();
  if (dim != nd + 1 && dim != nd + 2) return false;
  for (int64_t d = dim == nd + 2 ? 1 : 0; nonempty && d < dim; ++d)
    if (input.sizes()[d] == 0) return false;
  return true;
}

}  // namespace tl::native
