// View ops: each returns a tensor over the same storage with new sizes/strides/offset (made
// by make_view, so views share the storage and with it the version counter). Also the ops
// that may copy (reshape), those that assemble tensors (cat, stack) and those that rearrange or
// select elements (flip, repeat/tile, roll, tril/triu, diag, broadcast, meshgrid): flip copies
// through a view with negated strides, the rest compose views, cat and where.
#include <algorithm>

#include "aten/native/ShapeUtils.h"
#include "aten/native/TensorIterator.h"
#include "generated/ops/arange.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/as_strided_native.h"
#include "generated/ops/broadcast_tensors.h"
#include "generated/ops/broadcast_tensors_native.h"
#include "generated/ops/broadcast_to.h"
#include "generated/ops/broadcast_to_native.h"
#include "generated/ops/cat.h"
#include "generated/ops/cat_native.h"
#include "generated/ops/chunk.h"
#include "generated/ops/chunk_native.h"
#include "generated/ops/clamp.h"
#include "generated/ops/clamp_native.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/diag.h"
#include "generated/ops/diag_embed.h"
#include "generated/ops/diag_embed_native.h"
#include "generated/ops/diag_native.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/diagonal_native.h"
#include "generated/ops/empty.h"
#include "generated/ops/expand.h"
#include "generated/ops/expand_as.h"
#include "generated/ops/expand_as_native.h"
#include "generated/ops/expand_native.h"
#include "generated/ops/fill.h"
#include "generated/ops/flatten.h"
#include "generated/ops/flatten_native.h"
#include "generated/ops/flip.h"
#include "generated/ops/flip_native.h"
#include "generated/ops/ge.h"
#include "generated/ops/le.h"
#include "generated/ops/meshgrid.h"
#include "generated/ops/meshgrid_native.h"
#include "generated/ops/moveaxis.h"
#include "generated/ops/moveaxis_native.h"
#include "generated/ops/movedim.h"
#include "generated/ops/movedim_native.h"
#include "generated/ops/narrow.h"
#include "generated/ops/narrow_native.h"
#include "generated/ops/permute.h"
#include "generated/ops/permute_native.h"
#include "generated/ops/repeat.h"
#include "generated/ops/repeat_native.h"
#include "generated/ops/reshape.h"
#include "generated/ops/reshape_native.h"
#include "generated/ops/roll.h"
#include "generated/ops/roll_native.h"
#include "generated/ops/select.h"
#include "generated/ops/select_native.h"
#include "generated/ops/slice.h"
#include "generated/ops/slice_native.h"
#include "generated/ops/split.h"
#include "generated/ops/split_native.h"
#include "generated/ops/split_with_sizes.h"
#include "generated/ops/split_with_sizes_native.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/squeeze_native.h"
#include "generated/ops/stack.h"
#include "generated/ops/stack_native.h"
#include "generated/ops/sub.h"
#include "generated/ops/swapaxes.h"
#include "generated/ops/swapaxes_native.h"
#include "generated/ops/swapdims.h"
#include "generated/ops/swapdims_native.h"
#include "generated/ops/t.h"
#include "generated/ops/t_native.h"
#include "generated/ops/tile.h"
#include "generated/ops/tile_native.h"
#include "generated/ops/transpose.h"
#include "generated/ops/transpose_native.h"
#include "generated/ops/tril.h"
#include "generated/ops/tril_native.h"
#include "generated/ops/triu.h"
#include "generated/ops/triu_native.h"
#include "generated/ops/unbind.h"
#include "generated/ops/unbind_native.h"
#include "generated/ops/unflatten.h"
#include "generated/ops/unflatten_native.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/unsqueeze_native.h"
#include "generated/ops/view.h"
#include "generated/ops/view_as.h"
#include "generated/ops/view_as_native.h"
#include "generated/ops/view_native.h"
#include "generated/ops/where.h"

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
  for (size_t i = 0; i < size.size(); ++i) {
    TL_CHECK(size[i] >= 0, "as_strided: negative size ", size[i], " in ", size);
    TL_CHECK(stride[i] >= 0, "as_strided: negative strides are not supported, got ", stride);
  }
  const int64_t elements = checked_storage_elements(size, stride, offset);
  const size_t needed = checked_nbytes(IntArrayRef(elements), self.element_size());
  TL_CHECK(elements == 0 || needed <= self.impl()->storage()->nbytes, "setStorage: sizes ", size, ", strides ", stride,
           ", storage offset ", offset, " and itemsize ", self.element_size(), " requiring a storage size of ", needed,
           " are out of bounds for storage of size ", self.impl()->storage()->nbytes);
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

std::pair<int64_t, int64_t> slice_bounds(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end) {
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return v < 0 ? 0 : v > size ? size : v;
  };
  const int64_t s = start ? clamp(*start) : 0;
  const int64_t e = end ? clamp(*end) : size;
  return {s, e < s ? s : e};
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  TL_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  TL_CHECK_VALUE(step > 0, "slice step must be positive");
  int64_t d = wrap_dim(dim, self.dim());
  const auto [s, e] = slice_bounds(self.sizes()[d], start, end);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  int64_t offset = self.storage_offset() + s * strides[d];
  sizes[d] = e > s ? (e - s - 1) / step + 1 : 0;  // no overflow for steps near INT64_MAX
  int64_t stepped;
  // A huge step leaves at most one element, whose stride does not matter: keep it finite.
  strides[d] = __builtin_mul_overflow(strides[d], step, &stepped) ? strides[d] : stepped;
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

// ---- dim permutations --------------------------------------------------------------------

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t n = self.dim();
  TL_CHECK(static_cast<int64_t>(dims.size()) == n,
           "permute(): number of dimensions in the tensor input does not match the length of the desired ordering "
           "of dimensions i.e. input.dim() = ", n, " is not equal to len(dims) = ", dims.size());
  std::vector<int64_t> sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n);
    TL_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t n = self.dim();
  int64_t a = wrap_dim(dim0, n), b = wrap_dim(dim1, n);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  if (n > 0) {
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
  }
  return make_view(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor t(const Tensor& self) {
  TL_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return self.transpose(0, self.dim() < 2 ? 0 : 1);
}

Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return self.transpose(axis0, axis1); }

Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const int64_t n = self.dim();
  TL_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (", source,
           " dims) should contain the same number of dims as destination (", destination, " dims)");
  std::vector<int64_t> order(n, -1);  // order[destination] = source
  std::vector<bool> src_used(n, false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = wrap_dim(source[i], n), d = wrap_dim(destination[i], n);
    if (n == 0) continue;  // a 0-dim tensor: dims -1 and 0 move nothing
    TL_CHECK(!src_used[s], "movedim: repeated dim in `source` (", source, ")");
    TL_CHECK(order[d] == -1, "movedim: repeated dim in `destination` (", destination, ")");
    src_used[s] = true;
    order[d] = s;
  }
  // The remaining dims keep their relative order in the free slots.
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] != -1) continue;
    while (src_used[next]) ++next;
    order[d] = next++;
  }
  return self.permute(order);
}

Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) { return self.transpose(dim0, dim1); }

Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return self.movedim(source, destination);
}

Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination) {
  return self.movedim(source, destination);
}

Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return tl::movedim(self, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}

// ---- expand / squeeze / flatten --------------------------------------------------------------

Tensor expand(const Tensor& self, IntArrayRef size, bool implicit) {
  const int64_t ndim = static_cast<int64_t>(size.size()), tdim = self.dim();
  TL_CHECK(ndim >= tdim, "expand(", legacy_type_name(self), "{", self.sizes(), "}, size=", size,
           "): the number of sizes provided (", ndim, ") must be greater or equal to the number of dimensions in "
           "the tensor (", tdim, ")");
  std::vector<int64_t> sizes(ndim), strides(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t d = i - (ndim - tdim);  // the matching dim of self, or < 0 for a new leading dim
    int64_t cur = d >= 0 ? self.sizes()[d] : 1;
    int64_t stride = d >= 0 ? self.strides()[d] : (i == ndim - 1 ? 1 : sizes[i + 1] * strides[i + 1]);
    int64_t target = size[i];
    if (target == -1) {
      TL_CHECK(d >= 0, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension ", i);
      target = cur;
    }
    if (cur != target) {
      TL_CHECK(cur == 1 && target >= 0, "The expanded size of the tensor (", target,
               ") must match the existing size (", cur, ") at non-singleton dimension ", i, ".  Target sizes: ",
               size, ".  Tensor sizes: ", self.sizes());
      cur = target;
      stride = 0;
    }
    sizes[i] = cur;
    strides[i] = stride;
  }
  return make_view(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }

namespace {
Tensor squeeze_dims_mask(const Tensor& self, const std::vector<bool>& drop) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (drop[d] && self.sizes()[d] == 1) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return make_view(self, std::move(sizes), std::move(strides), self.storage_offset());
}
}  // namespace

Tensor squeeze(const Tensor& self) { return squeeze_dims_mask(self, std::vector<bool>(self.dim(), true)); }

Tensor squeeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim());
  std::vector<bool> drop(self.dim(), false);
  if (self.dim() > 0) drop[d] = true;
  return squeeze_dims_mask(self, drop);
}

Tensor squeeze(const Tensor& self, IntArrayRef dim) {
  std::vector<bool> drop(std::max<int64_t>(self.dim(), 1), false);
  for (int64_t x : dim) {
    int64_t d = wrap_dim(x, self.dim());
    TL_CHECK(!drop[d], "dim ", d, " appears multiple times in the list of dims");
    drop[d] = true;
  }
  drop.resize(self.dim());
  return squeeze_dims_mask(self, drop);
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const int64_t n = self.dim();
  int64_t s = wrap_dim(start_dim, n), e = wrap_dim(end_dim, n);
  TL_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (n == 0) return self.reshape(std::vector<int64_t>{1});
  if (s == e) return self;
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + s);
  int64_t prod = 1;
  for (int64_t d = s; d <= e; ++d) prod *= self.sizes()[d];
  shape.push_back(prod);
  shape.insert(shape.end(), self.sizes().begin() + e + 1, self.sizes().end());
  return self.reshape(shape);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  const int64_t cur = self.dim() == 0 ? 1 : self.sizes()[d];
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      TL_CHECK(infer < 0, "unflatten: only one dimension can be inferred, got sizes ", sizes);
      infer = static_cast<int64_t>(i);
    } else {
      TL_CHECK(sizes[i] >= 0, "unflatten: invalid size ", sizes[i], " in ", sizes);
      known *= sizes[i];
    }
  }
  std::vector<int64_t> inner = sizes.vec();
  if (infer >= 0) {
    TL_CHECK(known != 0 && cur % known == 0, "unflatten: Provided sizes ", sizes,
             " don't multiply up to the size of dim ", dim, " (", cur, ") in the input tensor");
    inner[infer] = cur / known;
  } else {
    TL_CHECK(known == cur, "unflatten: Provided sizes ", sizes, " don't multiply up to the size of dim ", dim, " (",
             cur, ") in the input tensor");
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + std::min<int64_t>(d, self.dim()));
  shape.insert(shape.end(), inner.begin(), inner.end());
  if (self.dim() > 0) shape.insert(shape.end(), self.sizes().begin() + d + 1, self.sizes().end());
  return self.view(shape);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  TL_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  TL_CHECK(length >= 0, "narrow(): length must be non-negative.");
  int64_t d = wrap_dim(dim, self.dim());
  const int64_t cur = self.sizes()[d];
  TL_CHECK_INDEX(start >= -cur && start <= cur, "start out of range (expected to be in range of [", -cur, ", ", cur,
                 "], but got ", start, ")");
  if (start < 0) start += cur;
  TL_CHECK(start <= cur - length, "start (", start, ") + length (", length, ") exceeds dimension size (", cur, ").");
  return self.slice(d, start, start + length, 1);
}

// ---- split / chunk / unbind (views) --------------------------------------------------------------

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  TL_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  TL_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t dim_size = self.sizes()[d];
  TL_CHECK(split_size > 0 || dim_size == 0,
           "split_size can only be 0 if dimension size is 0, but got dimension size of ", dim_size);
  // One (possibly empty) piece when the dim is empty; the last piece holds the remainder.
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  out.reserve(pieces);
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    out.push_back(self.narrow(d, start, std::min(split_size, dim_size - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  TL_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t dim_size = self.sizes()[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    TL_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
             split_sizes);
    total += s;
  }
  TL_CHECK(total == dim_size, "split_with_sizes expects split_sizes to sum exactly to ", dim_size,
           " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(self.narrow(d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> split(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return self.split_with_sizes(split_size, dim);
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  TL_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TL_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t dim_size = self.sizes()[d];
  const int64_t split_size = (dim_size + chunks - 1) / chunks;
  if (split_size == 0 && dim_size == 0) {
    // An empty dim still gives `chunks` pieces (split would give one).
    return self.split_with_sizes(std::vector<int64_t>(chunks, 0), d);
  }
  return self.split(split_size, d);
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  TL_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  out.reserve(self.sizes()[d]);
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(self.select(d, i));
  return out;
}

// ---- reshape -----------------------------------------------------------------------------------

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  std::vector<int64_t> sizes = infer_size(shape, self.numel());
  if (compute_view_strides(self.sizes(), self.strides(), sizes)) return self.view(sizes);
  return self.contiguous().view(sizes);  // the layout cannot be viewed: copy once
}

Tensor view_as(const Tensor& self, const Tensor& other) { return self.view(other.sizes()); }

// ---- cat / stack --------------------------------------------------------------------------------

namespace {

// Byte range [lo, hi) of storage a tensor can touch; empty tensors touch nothing.
std::pair<int64_t, int64_t> memory_extent(const Tensor& t) {
  if (t.numel() == 0) return {0, 0};
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) hi += (t.sizes()[d] - 1) * t.strides()[d];
  const int64_t item = static_cast<int64_t>(t.element_size());
  return {lo * item, (hi + 1) * item};
}

void check_no_overlap(const Tensor& out, const Tensor& in) {
  if (out.impl()->storage() != in.impl()->storage()) return;
  auto a = memory_extent(out), b = memory_extent(in);
  TL_CHECK(a.first >= b.second || b.first >= a.second,
           "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.");
}

// Note [Legacy cat]: as in PyTorch, 1-D tensors with zero elements are skipped in the shape
// checks (they may be concatenated with tensors of any shape); they still join the dtype
// promotion. Returns the result shape and the wrapped dim; `ref` is the first tensor that
// is not skipped, or -1 when all are.
struct CatPlan {
  std::vector<int64_t> shape;
  int64_t dim = 0;
  ScalarType dtype = ScalarType::Float;
  Device device;
};

bool cat_skipped(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

CatPlan plan_cat(TensorList tensors, int64_t dim) {
  TL_CHECK_VALUE(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  CatPlan p;
  p.dtype = tensors[0].dtype();
  p.device = tensors[0].device();
  int64_t ref = -1;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TL_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    TL_CHECK(t.device() == p.device, "Expected all tensors to be on the same device, but found at least two devices, ",
             p.device, " and ", t.device(), "! (when checking argument for argument tensors in method cat)");
    p.dtype = promote_types(p.dtype, t.dtype());
    if (ref < 0 && !cat_skipped(t)) ref = static_cast<int64_t>(i);
  }
  if (ref < 0) {  // only 1-D empty tensors
    wrap_dim(dim, 1);
    p.shape = {0};
    p.dim = 0;
    return p;
  }
  const Tensor& r = tensors[ref];
  p.dim = wrap_dim(dim, r.dim());
  p.shape = r.sizes().vec();
  p.shape[p.dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_skipped(t)) continue;
    TL_CHECK(t.dim() == r.dim(), "Tensors must have same number of dimensions: got ", r.dim(), " and ", t.dim());
    for (int64_t d = 0; d < r.dim(); ++d) {
      if (d == p.dim) continue;
      TL_CHECK(t.sizes()[d] == r.sizes()[d], "Sizes of tensors must match except in dimension ", p.dim,
               ". Expected size ", r.sizes()[d], " but got size ", t.sizes()[d], " for tensor number ", i,
               " in the list.");
    }
    p.shape[p.dim] += t.sizes()[p.dim];
  }
  return p;
}

// Copies every input into its slice of `out` (already of the right shape). copy_ converts
// dtypes and runs on any device.
void cat_copy(TensorList tensors, const CatPlan& p, const Tensor& out) {
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (cat_skipped(t)) continue;
    const int64_t n = t.sizes()[p.dim];
    if (n > 0 && out.numel() > 0) out.slice(p.dim, offset, offset + n, 1).copy_(t);
    offset += n;
  }
}

}  // namespace

Tensor cat(TensorList tensors, int64_t dim) {
  CatPlan p = plan_cat(tensors, dim);
  Tensor out = tl::empty(p.shape, p.dtype, std::nullopt, p.device);
  cat_copy(tensors, p, out);
  return out;
}

Tensor cat_out(TensorList tensors, int64_t dim, const Tensor& out) {
  CatPlan p = plan_cat(tensors, dim);
  TL_CHECK_TYPE(can_cast(p.dtype, out.dtype()), "torch.cat(): input types can't be cast to the desired output type ",
                scalar_type_cpp_name(out.dtype()));
  TL_CHECK(out.device() == p.device, "torch.cat(): all input tensors and out must be on the same device, but inputs "
           "are on ", p.device, " and out is on ", out.device());
  for (const Tensor& t : tensors) check_no_overlap(out, t);
  resize_out(out, p.shape);
  cat_copy(tensors, p, out);
  return out;
}

namespace {
std::vector<Tensor> stack_inputs(TensorList tensors, int64_t dim) {
  TL_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].sizes().equals(tensors[0].sizes()), "stack expects each tensor to be equal size, but got ",
             tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return parts;
}
}  // namespace

Tensor stack(TensorList tensors, int64_t dim) {
  std::vector<Tensor> parts = stack_inputs(tensors, dim);
  return tl::cat(parts, wrap_dim(dim, tensors[0].dim() + 1));
}

Tensor stack_out(TensorList tensors, int64_t dim, const Tensor& out) {
  std::vector<Tensor> parts = stack_inputs(tensors, dim);
  return tl::cat_out(out, parts, wrap_dim(dim, tensors[0].dim() + 1));
}

// ---- diagonal ---------------------------------------------------------------------------------

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim();
  const int64_t d1 = wrap_dim(dim1, nd, false), d2 = wrap_dim(dim2, nd, false);
  TL_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t n1 = self.sizes()[d1], n2 = self.sizes()[d2];
  int64_t len = offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2);
  len = std::max<int64_t>(len, 0);
  int64_t storage_offset = self.storage_offset();
  if (len > 0) storage_offset += offset >= 0 ? offset * self.strides()[d2] : -offset * self.strides()[d1];
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(self.strides()[d1] + self.strides()[d2]);
  return make_view(self, std::move(sizes), std::move(strides), storage_offset);
}

// ---- flip, repeat/tile, roll, tril/triu, diag, broadcast, meshgrid -----------------------------

namespace {

// The (rows, cols) mask of the last two dims where col - row <= k (lower) or >= k (upper).
Tensor triangle_mask(const Tensor& self, int64_t k, bool lower) {
  TL_CHECK(self.dim() >= 2, lower ? "tril" : "triu", ": input tensor must have at least 2 dimensions");
  const int64_t rows = self.sizes()[self.dim() - 2], cols = self.sizes()[self.dim() - 1];
  Tensor r = tl::arange(Scalar(rows), ScalarType::Long, std::nullopt, self.device()).view({rows, 1});
  Tensor c = tl::arange(Scalar(cols), ScalarType::Long, std::nullopt, self.device()).view({1, cols});
  Tensor diff = c.sub(r);
  return lower ? diff.le(Scalar(k)) : diff.ge(Scalar(k));
}

}  // namespace

Tensor flip(const Tensor& self, IntArrayRef dims) {
  const std::vector<bool> flipped = dim_mask(dims, self.dim());
  std::vector<int64_t> strides = self.strides().vec();
  int64_t offset = self.storage_offset();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!flipped[d] || self.sizes()[d] == 0) continue;
    offset += (self.sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  Tensor result = empty_tensor(self.sizes(), self.options());
  result.copy_(make_view(self, self.sizes().vec(), std::move(strides), offset));
  return result;
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t n = static_cast<int64_t>(repeats.size());
  TL_CHECK(n >= self.dim(), "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  // View as [1, s0, 1, s1, ...], expand to [r0, s0, r1, s1, ...], merge each pair.
  std::vector<int64_t> paired, expanded, shape;
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK(repeats[i] >= 0, "Trying to create tensor with negative dimension ", repeats[i], ": ", repeats);
    const int64_t s = i < n - self.dim() ? 1 : self.sizes()[i - (n - self.dim())];
    paired.insert(paired.end(), {1, s});
    expanded.insert(expanded.end(), {repeats[i], s});
    shape.push_back(repeats[i] * s);
  }
  return self.reshape(paired).expand(expanded).reshape(shape);
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> reps(std::max<int64_t>(self.dim() - static_cast<int64_t>(dims.size()), 0), 1);
  reps.insert(reps.end(), dims.begin(), dims.end());
  return self.repeat(reps);
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    TL_CHECK(shifts.size() == 1, "roll: shifts must have one element when dims is empty, got ", shifts.size());
    return tl::roll(self.flatten(0, -1), shifts, {0}).view(self.sizes());
  }
  TL_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
           ", dims:", dims.size());
  Tensor r = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim(), false);
    const int64_t n = self.sizes()[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    // The last s elements come first.
    r = tl::cat(std::vector<Tensor>{r.narrow(d, n - s, s), r.narrow(d, 0, n - s)}, d);
  }
  return r.is_same(self) ? self.clone() : r;
}

namespace {
// A 0-dim zero of self's dtype: where() with a Scalar 0 would promote bool to int64.
Tensor zero_like_scalar(const Tensor& self) { return empty_tensor({}, self.options()).fill_(0); }
}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) {
  return tl::where(triangle_mask(self, diagonal, true), self, zero_like_scalar(self));
}
Tensor tril_(const Tensor& self, int64_t diagonal) { return self.copy_(tl::tril(self, diagonal)); }

Tensor triu(const Tensor& self, int64_t diagonal) {
  return tl::where(triangle_mask(self, diagonal, false), self, zero_like_scalar(self));
}
Tensor triu_(const Tensor& self, int64_t diagonal) { return self.copy_(tl::triu(self, diagonal)); }

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, nd, false), d2 = wrap_dim(dim2, nd, false);
  TL_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t n = (self.dim() == 0 ? 1 : self.sizes().back()) + std::abs(offset);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - (self.dim() == 0 ? 0 : 1));
  for (int64_t d : {std::min(d1, d2), std::max(d1, d2)}) shape.insert(shape.begin() + d, n);
  Tensor result = empty_tensor(shape, self.options());
  result.fill_(0);
  result.diagonal(offset, d1, d2).copy_(self);
  return result;
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", self.dim(), "D");
  return self.dim() == 1 ? tl::diag_embed(self, diagonal, 0, 1) : self.diagonal(diagonal).clone();
}

Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return self.expand(size); }

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes());
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

std::vector<Tensor> meshgrid(TensorList tensors, const std::string& indexing) {
  TL_CHECK(indexing == "ij" || indexing == "xy",
           "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  const int64_t n = static_cast<int64_t>(tensors.size());
  TL_CHECK(n > 0, "meshgrid expects a non-empty TensorList");
  for (const Tensor& t : tensors) {
    TL_CHECK(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ", t.dim(), "D");
    TL_CHECK(t.dtype() == tensors[0].dtype(), "meshgrid expects all tensors to have the same dtype");
  }
  // "xy" swaps the first two axes of the grid (Cartesian indexing).
  const bool swap = indexing == "xy" && n >= 2;
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape.push_back(t.numel());
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t axis = swap && i < 2 ? 1 - i : i;
    std::vector<int64_t> view(n, 1);
    view[axis] = -1;
    out.push_back(tensors[i].reshape(view).expand(shape));
  }
  return out;
}

std::vector<Tensor> meshgrid(TensorList tensors) { return tl::meshgrid(tensors, "ij"); }

}  // namespace tl::native
