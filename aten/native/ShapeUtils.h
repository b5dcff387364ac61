#pragma once
// Shape arithmetic shared by view and reshape ops.
#include <optional>
#include <vector>

#include "aten/ATen.h"

namespace tl::native {

// Resolves one -1 in `shape` so that it holds `numel` elements; errors name the shape.
std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel);

// Strides that view a tensor of (sizes, strides) as `new_sizes` without copying, or
// nullopt when the memory layout does not allow it.
std::optional<std::vector<int64_t>> compute_view_strides(IntArrayRef sizes, IntArrayRef strides,
                                                         IntArrayRef new_sizes);

// A view of `self` with the given geometry (shares storage and version counter).
Tensor make_view(const Tensor& self, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset);

}  // namespace tl::native
