// unique and unique_consecutive. The input is seen as rows [n, m] (m = 1 without a dim, else the
// slices along dim): rows are visited in sorted order (unique) or as they come
// (unique_consecutive), and each run of equal rows becomes one output row.
#include <algorithm>
#include <numeric>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"
#include "generated/ops/_unique2_native.h"
#include "generated/ops/any.h"
#include "generated/ops/arange.h"
#include "generated/ops/cat.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/cumsum.h"
#include "generated/ops/empty.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_select.h"
#include "generated/ops/masked_select.h"
#include "generated/ops/movedim.h"
#include "generated/ops/narrow.h"
#include "generated/ops/ne.h"
#include "generated/ops/ones.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/reshape.h"
#include "generated/ops/scatter.h"
#include "generated/ops/select.h"
#include "generated/ops/sort.h"
#include "generated/ops/sub.h"
#include "generated/ops/unique_consecutive_native.h"
#include "generated/ops/unique_dim_native.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

template <typename T>
bool nan_value(T v) {
  auto a = static_cast<opmath_t<T>>(v);
  return a != a;
}

// Orders rows lexicographically, NaN above every number (as sort does).
template <typename T>
bool row_less(const T* a, const T* b, int64_t m) {
  for (int64_t j = 0; j < m; ++j) {
    const auto x = static_cast<opmath_t<T>>(a[j]), y = static_cast<opmath_t<T>>(b[j]);
    if (x < y || (!nan_value(a[j]) && nan_value(b[j]))) return true;
    if (y < x || (nan_value(a[j]) && !nan_value(b[j]))) return false;
  }
  return false;
}

// Rows equal value by value (a NaN equals nothing, so every NaN stays its own value).
template <typename T>
bool row_equal(const T* a, const T* b, int64_t m) {
  for (int64_t j = 0; j < m; ++j)
    if (!(static_cast<opmath_t<T>>(a[j]) == static_cast<opmath_t<T>>(b[j]))) return false;
  return true;
}

std::tuple<Tensor, Tensor, Tensor> unique_rows(const Tensor& self, std::optional<int64_t> dim, bool sort,
                                               bool return_inverse, bool return_counts, const char* what) {
  const int64_t d = dim ? wrap_dim(*dim, self.dim()) : 0;
  // `moved` has the slices along dim 0; `rows` is its [n, m] contiguous form.
  Tensor moved = !dim ? self.reshape({-1}) : self.dim() == 0 ? self.reshape({1}) : self.movedim(d, 0);
  const int64_t n = moved.sizes()[0];
  const int64_t m = n == 0 ? 0 : moved.numel() / n;
  Tensor rows = moved.contiguous();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> first, counts;
  std::vector<int64_t> inverse_shape{0};
  if (return_inverse) inverse_shape = dim ? std::vector<int64_t>{n} : std::vector<int64_t>(self.sizes().begin(), self.sizes().end());
  Tensor inverse = empty_tensor(inverse_shape, TensorOptions(ScalarType::Long, self.device()));
  int64_t* inv = return_inverse ? inverse.data_ptr<int64_t>() : nullptr;
  dispatch_all_types(self.dtype(), what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = rows.data_ptr<T>();
    if (sort) {
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return row_less(p + a * m, p + b * m, m); });
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = order[static_cast<size_t>(i)];
      if (i == 0 || !row_equal(p + r * m, p + order[static_cast<size_t>(i - 1)] * m, m)) {
        first.push_back(r);
        counts.push_back(0);
      }
      counts.back() += 1;
      if (inv) inv[r] = static_cast<int64_t>(first.size()) - 1;
    }
  });
  const int64_t k = static_cast<int64_t>(first.size());
  Tensor index = empty_tensor({k}, TensorOptions(ScalarType::Long, self.device()));
  std::copy(first.begin(), first.end(), index.data_ptr<int64_t>());
  Tensor values = moved.index_select(0, index);
  if (dim && self.dim() > 0) values = values.movedim(0, d).contiguous();
  Tensor count_t = empty_tensor({return_counts ? k : 0}, TensorOptions(ScalarType::Long, self.device()));
  if (return_counts) std::copy(counts.begin(), counts.end(), count_t.data_ptr<int64_t>());
  return {values, inverse, count_t};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2_cpu(const Tensor& self, bool sorted, bool return_inverse,
                                                bool return_counts) {
  (void)sorted;  // the values always come sorted, which sorted=False allows
  return unique_rows(self, std::nullopt, true, return_inverse, return_counts, "unique");
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_cpu(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                                  bool return_counts) {
  (void)sorted;
  return unique_rows(self, dim, true, return_inverse, return_counts, "unique_dim");
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive_cpu(const Tensor& self, bool return_inverse, bool return_counts,
                                                          std::optional<int64_t> dim) {
  return unique_rows(self, dim, false, return_inverse, return_counts, "unique_consecutive");
}

// ---- the CUDA path of unique and unique_consecutive: stable sorts (one per column of the rows),
// run starts where a row differs from the one before it (a NaN equals nothing), and their running
// count.

namespace {

std::tuple<Tensor, Tensor, Tensor> unique_runs(const Tensor& self, std::optional<int64_t> dim, bool sort,
                                               bool return_inverse, bool return_counts) {
  const int64_t d = dim ? wrap_dim(*dim, self.dim()) : 0;
  const std::vector<int64_t> flat{-1}, one{1};
  Tensor moved = !dim ? self.reshape(flat) : self.dim() == 0 ? self.reshape(one) : self.movedim(d, 0);
  const int64_t n = moved.size(0), m = n == 0 ? 0 : moved.numel() / n;
  const std::vector<int64_t> row_shape{n, m};
  Tensor rows = moved.reshape(row_shape);
  Tensor order = tl::arange(Scalar(n), ScalarType::Long, std::nullopt, self.device());
  if (sort) {  // lexicographic order: a stable sort by each column, the last column first
    for (int64_t j = m - 1; j >= 0; --j) {
      const Tensor column = m == 1 ? rows.reshape(flat) : rows.select(1, j).index_select(0, order);
      auto [sorted, perm] = tl::sort(column, std::optional<bool>(true), 0, false);
      order = m == 1 ? perm : order.index_select(0, perm);
    }
  }
  Tensor ordered = rows.index_select(0, order);
  // starts[i]: row i (in visiting order) begins a run.
  Tensor starts = tl::ones(one, ScalarType::Bool, std::nullopt, self.device());
  if (n > 1) {
    const std::vector<int64_t> last{1};
    Tensor differs = ordered.narrow(0, 1, n - 1).ne(ordered.narrow(0, 0, n - 1)).any(IntArrayRef(last), false);
    starts = tl::cat(std::vector<Tensor>{starts, differs}, 0);
  }
  if (n == 0) starts = starts.narrow(0, 0, 0);
  Tensor run = starts.cumsum(0).sub(1);  // the run of each visited row
  Tensor first = order.masked_select(starts);
  const int64_t k = first.numel();
  Tensor values = moved.index_select(0, first);
  if (dim && self.dim() > 0) values = values.movedim(0, d).contiguous();
  const std::vector<int64_t> none{0}, inverse_shape =
      !return_inverse ? none : dim ? std::vector<int64_t>{n} : self.sizes().vec();
  const std::vector<int64_t> visited{n};
  Tensor inverse = return_inverse ? tl::empty(visited, ScalarType::Long, std::nullopt, self.device())
                                        .scatter(0, order, run)
                                        .reshape(inverse_shape)
                                  : tl::empty(none, ScalarType::Long, std::nullopt, self.device());
  const std::vector<int64_t> count_shape{return_counts ? k : 0};
  Tensor counts = tl::zeros(count_shape, ScalarType::Long, std::nullopt, self.device());
  if (return_counts) counts = counts.index_add(0, run, tl::ones_like(run));
  return {values, inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2_composite(const Tensor& self, bool sorted, bool return_inverse,
                                                      bool return_counts) {
  (void)sorted;  // the values always come sorted, which sorted=False allows
  return unique_runs(self, std::nullopt, true, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_composite(const Tensor& self, int64_t dim, bool sorted,
                                                        bool return_inverse, bool return_counts) {
  (void)sorted;
  return unique_runs(self, dim, true, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive_composite(const Tensor& self, bool return_inverse,
                                                                bool return_counts, std::optional<int64_t> dim) {
  return unique_runs(self, dim, false, return_inverse, return_counts);
}

}  // namespace tl::native
