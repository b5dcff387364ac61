// Shape ops that rearrange or select elements: flip, repeat/tile, roll, tril/triu, diag,
// diag_embed, trace, broadcast_to/broadcast_tensors, meshgrid. flip copies through a view with
// negated strides; the rest compose views, cat and where.
#include <algorithm>

#include "aten/native/ShapeUtils.h"
#include "aten/native/TensorIterator.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

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
Tensor tril(const Tensor& self, int64_t diagonal, const Tensor& out) { return write_out(tl::tril(self, diagonal), out); }
Tensor tril_(const Tensor& self, int64_t diagonal) { return self.copy_(tl::tril(self, diagonal)); }

Tensor triu(const Tensor& self, int64_t diagonal) {
  return tl::where(triangle_mask(self, diagonal, false), self, zero_like_scalar(self));
}
Tensor triu(const Tensor& self, int64_t diagonal, const Tensor& out) { return write_out(tl::triu(self, diagonal), out); }
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
Tensor diag(const Tensor& self, int64_t diagonal, const Tensor& out) { return write_out(tl::diag(self, diagonal), out); }

Tensor trace(const Tensor& self) {
  TL_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return self.diagonal().sum();
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
