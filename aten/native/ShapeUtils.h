#pragma once
// Shape arithmetic shared by view, reshape, factory and random ops.
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::native {

// slice's bounds on a dim of `size`: negative ones count from the end, both are clamped to
// [0, size] and end to at least start.
std::pair<int64_t, int64_t> slice_bounds(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end);

// Resolves one -1 in `shape` so that it holds `numel` elements; errors name the shape.
std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel);

// Strides that view a tensor of (sizes, strides) as `new_sizes` without copying, or
// nullopt when the memory layout does not allow it.
std::optional<std::vector<int64_t>> compute_view_strides(IntArrayRef sizes, IntArrayRef strides,
                                                         IntArrayRef new_sizes);

// A view of `self` with the given geometry (shares storage and version counter).
Tensor make_view(const Tensor& self, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset);

// True when the elements of a tensor with these sizes/strides tile a block of memory with
// no gaps and no element reached twice (any dim order), as PyTorch's
// is_non_overlapping_and_dense.
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);

// Dense strides that keep the dim order (by stride) of `strides`, as PyTorch's
// infer_dense_strides: what *_like factories give under preserve_format.
std::vector<int64_t> infer_dense_strides(IntArrayRef sizes, IntArrayRef strides);

// The dense strides of `sizes` in `format` (Contiguous, ChannelsLast or ChannelsLast3d; the
// channels-last formats need a 4-d / 5-d shape and say so otherwise).
std::vector<int64_t> strides_in_format(IntArrayRef sizes, MemoryFormat format);
// Whether `t` is laid out as `format` lays it out (Preserve: always). Size-1 dims' strides do not
// matter, so a tensor can be contiguous in two formats, as in PyTorch.
bool is_contiguous_in(const Tensor& t, MemoryFormat format);
// The format a tensor's strides suggest: ChannelsLast(3d) for a 4-d (5-d) tensor laid out so and not
// also row-major, else Contiguous.
MemoryFormat suggest_memory_format(const Tensor& t);

// Resizes an out= tensor to `sizes` (keeping it when it already has them).
void resize_out(const Tensor& out, IntArrayRef sizes);
// The out= form of a composite: copies `result` into `out` (resized as needed; dtypes must match).
Tensor write_out(const Tensor& result, const Tensor& out);
// The same for an op with two or three results (values and indices; P, L, U).
std::tuple<Tensor, Tensor> write_out(const std::tuple<Tensor, Tensor>& result, const Tensor& out0, const Tensor& out1);
std::tuple<Tensor, Tensor, Tensor> write_out(const std::tuple<Tensor, Tensor, Tensor>& result, const Tensor& out0,
                                             const Tensor& out1, const Tensor& out2);

// PyTorch's legacy type strings in messages: "torch.FloatTensor", "torch.cuda.LongTensor".
std::string legacy_type_name(const Tensor& t);

}  // namespace tl::native
