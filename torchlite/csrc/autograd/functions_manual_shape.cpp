#include "torchlite/csrc/autograd/functions_manual_shape.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/fill.h"
#include "generated/ops/narrow.h"
#include "generated/ops/permute.h"
#include "generated/ops/select.h"
#include "generated/ops/slice_backward.h"

namespace tl::autograd {

Tensor unsqueeze_backward(const Tensor& grad, int64_t dim) { return grad.select(dim, 0); }

Tensor slice_backward_wrapper(const Tensor& grad, IntArrayRef input_sizes, int64_t dim,
                              std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  const auto [s, e] = tl::native::slice_bounds(input_sizes[d], start, end);
  return tl::slice_backward(grad, input_sizes, d, s, e, step);
}

namespace {
bool non_overlapping(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<size_t> idx(sizes.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t reach = 0;  // max offset covered by the dims so far, plus one
  for (size_t i : idx) {
    if (sizes[i] <= 1) continue;
    if (strides[i] < reach + 1 && reach > 0) return false;
    if (strides[i] == 0) return false;
    reach += (sizes[i] - 1) * strides[i];
  }
  return true;
}
}  // namespace

Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_storage_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset) {
  // Scatter grad into a zeroed buffer spanning both geometries, read the input's geometry back.
  // Written with copy_ into a view (recorded through CopySlices), so it differentiates again.
  TL_CHECK(non_overlapping(input_sizes, input_strides) && non_overlapping(size, stride),
           "as_strided backward: overlapping input or output geometries are not supported yet");
  int64_t out_offset = storage_offset.value_or(input_storage_offset);
  int64_t base = std::min(out_offset, input_storage_offset);
  auto extent = [](IntArrayRef sz, IntArrayRef st, int64_t off) {
    int64_t e = off + 1;
    for (size_t i = 0; i < sz.size(); ++i) {
      if (sz[i] == 0) return off;
      e += (sz[i] - 1) * st[i];
    }
    return e;
  };
  int64_t n = std::max(extent(input_sizes, input_strides, input_storage_offset), extent(size, stride, out_offset)) - base;
  std::vector<int64_t> flat{std::max<int64_t>(n, 0)};
  Tensor storage = empty_tensor(flat, grad.options());
  storage.fill_(0);
  storage.as_strided(size, stride, out_offset - base).copy_(grad);
  return storage.as_strided(input_sizes, input_strides, input_storage_offset - base).clone();
}

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims) {
  int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n)] = i;
  return grad.permute(inverse);
}

std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<Tensor> out;
  int64_t d = wrap_dim(dim, grad.dim());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.size(0) == 0) {  // legacy empty tensors take no part in cat
      out.push_back(Tensor());
      continue;
    }
    int64_t n = t.size(d);
    out.push_back(grad.narrow(d, offset, n));
    offset += n;
  }
  return out;
}

}  // namespace tl::autograd
