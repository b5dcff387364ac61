// View ops: each returns a tensor over the same storage with new sizes/strides/offset.
#include "aten/native/ShapeUtils.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel) {
  int64_t known = 1;
  std::optional<size_t> infer;
  std::vector<int64_t> out = shape.vec();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TL_CHECK(!infer, "only one dimension can be inferred");
      infer = i;
    } else {
      TL_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  if (infer) {
    TL_CHECK(known != 0 && numel % known == 0, "shape '", shape, "' is invalid for input of size ", numel);
    out[*infer] = numel / known;
  } else {
    TL_CHECK(known == numel, "shape '", shape, "' is invalid for input of size ", numel);
  }
  return out;
}

std::optional<std::vector<int64_t>> compute_view_strides(IntArrayRef sizes, IntArrayRef strides,
                                                         IntArrayRef new_sizes) {
  std::vector<int64_t> out(new_sizes.size());
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) {
    // Any geometry views an empty tensor; use contiguous strides.
    return contiguous_strides(new_sizes);
  }
  if (sizes.empty()) {
    std::fill(out.begin(), out.end(), 1);
    return out;
  }
  // Walk old dims from the back, grouping runs that are contiguous with each other ("chunks");
  // each chunk must be covered exactly by a run of new dims.
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

Tensor make_view(const Tensor& self, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  return Tensor::make(self.impl()->storage(), self.dtype(), std::move(sizes), std::move(strides), offset);
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  TL_CHECK(size.size() == stride.size(), "as_strided: mismatch in length of strides and shape: ", size, " vs ",
           stride);
  int64_t offset = storage_offset.value_or(self.storage_offset());
  TL_CHECK(offset >= 0, "as_strided: negative storage offset ", offset);
  int64_t extent = 0;  // largest element offset reached
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    TL_CHECK(size[i] >= 0, "as_strided: negative size ", size[i], " in ", size);
    TL_CHECK(stride[i] >= 0, "as_strided: negative strides are not supported, got ", stride);
    if (size[i] == 0) empty = true;
    extent += (size[i] - 1) * stride[i];
  }
  if (!empty) {
    int64_t needed = (offset + extent + 1) * static_cast<int64_t>(self.element_size());
    TL_CHECK(needed <= static_cast<int64_t>(self.impl()->storage()->nbytes), "setStorage: sizes ", size,
             ", strides ", stride, ", storage offset ", offset, " and itemsize ", self.element_size(),
             " requiring a storage size of ", needed, " are out of bounds for storage of size ",
             self.impl()->storage()->nbytes);
  }
  return make_view(self, size.vec(), stride.vec(), offset);
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  TL_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[d];
  TL_CHECK_INDEX(index >= -size && index < size, "index ", index, " is out of bounds for dimension ", d,
                 " with size ", size);
  if (index < 0) index += size;
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  int64_t offset = self.storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return make_view(self, std::move(sizes), std::move(strides), offset);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  TL_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  TL_CHECK_VALUE(step > 0, "slice step must be positive");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[d];
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return v < 0 ? 0 : v > size ? size : v;
  };
  int64_t s = start ? clamp(*start) : 0;
  int64_t e = end ? clamp(*end) : size;
  if (e < s) e = s;
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  int64_t offset = self.storage_offset() + s * strides[d];
  sizes[d] = (e - s + step - 1) / step;
  strides[d] *= step;
  return make_view(self, std::move(sizes), std::move(strides), offset);
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim() + 1);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  int64_t new_stride = d >= self.dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, new_stride);
  return make_view(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor view(const Tensor& self, IntArrayRef size) {
  std::vector<int64_t> shape = infer_size(size, self.numel());
  auto strides = compute_view_strides(self.sizes(), self.strides(), shape);
  TL_CHECK(strides.has_value(), "view size is not compatible with input tensor's size and stride (at least one "
           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, std::move(shape), std::move(*strides), self.storage_offset());
}

}  // namespace tl::native
