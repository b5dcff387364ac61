// Sorting and selection along one dim (sort, topk, kthvalue, median, mode). Note [Rows along a dim]: each kernel moves the dim
// last and makes the tensor contiguous, so every row is a contiguous run handled on its own
// (OpenMP over rows), then moves the dim back in the results.
#include <algorithm>
#include <numeric>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/Sorting.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/Parallel.h"
#include "generated/ops/add.h"
#include "generated/ops/arange.h"
#include "generated/ops/argmax.h"
#include "generated/ops/argsort.h"
#include "generated/ops/argsort_native.h"
#include "generated/ops/constant_pad_nd.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/cummax.h"
#include "generated/ops/div.h"
#include "generated/ops/empty.h"
#include "generated/ops/eq.h"
#include "generated/ops/full.h"
#include "generated/ops/gather.h"
#include "generated/ops/gt.h"
#include "generated/ops/kthvalue.h"
#include "generated/ops/kthvalue_native.h"
#include "generated/ops/logical_and.h"
#include "generated/ops/logical_not.h"
#include "generated/ops/logical_or.h"
#include "generated/ops/median.h"
#include "generated/ops/median_native.h"
#include "generated/ops/mode.h"
#include "generated/ops/mode_native.h"
#include "generated/ops/movedim.h"
#include "generated/ops/nanmedian.h"
#include "generated/ops/nanmedian_native.h"
#include "generated/ops/narrow.h"
#include "generated/ops/ne.h"
#include "generated/ops/neg.h"
#include "generated/ops/reshape.h"
#include "generated/ops/select.h"
#include "generated/ops/sort.h"
#include "generated/ops/sort_native.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/topk.h"
#include "generated/ops/topk_native.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"

namespace tl::native {

namespace {

constexpr int64_t kGrain = 1 << 14;  // elements below which one thread does all rows

// NaN compares above every number (PyTorch's order): ascending puts NaNs last.
template <typename T>
bool is_nan(T v) {
  auto a = static_cast<opmath_t<T>>(v);
  return a != a;
}

template <typename T>
bool less_nan_last(T a, T b) {
  return (!is_nan(a) && is_nan(b)) || static_cast<opmath_t<T>>(a) < static_cast<opmath_t<T>>(b);
}

// A strict order on (value, index) pairs: by value (descending or ascending), ties by index,
// so unstable algorithms (nth_element, partial sorts) give the stable sort's answer.
template <typename T>
struct PairOrder {
  bool descending;
  bool operator()(const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) const {
    const bool before = descending ? less_nan_last(b.first, a.first) : less_nan_last(a.first, b.first);
    const bool after = descending ? less_nan_last(a.first, b.first) : less_nan_last(b.first, a.first);
    return before || (!after && a.second < b.second);
  }
};

// A row's (value, index) pairs, to be sorted or selected by PairOrder.
template <typename T>
std::vector<std::pair<T, int64_t>> indexed(const T* row, int64_t n) {
  std::vector<std::pair<T, int64_t>> buf(n);
  for (int64_t i = 0; i < n; ++i) buf[i] = {row[i], i};
  return buf;
}

// The tensor as rows [..., n] along dim d (a 0-dim tensor is one row of one element).
Tensor as_rows(const Tensor& t, int64_t d) { return t.dim() == 0 ? t.reshape({1}) : t.movedim(d, -1).contiguous(); }

// A results' rows [..., m] back to a tensor with the row dim at d (ndim 0: a scalar again).
Tensor from_rows(const Tensor& r, int64_t d, int64_t ndim) {
  return ndim == 0 ? r.reshape(IntArrayRef()) : r.movedim(-1, d).contiguous();
}

int64_t row_length(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

// Runs f(row_index) over `rows` rows of `n` elements, in parallel when the work is large.
template <typename F>
void for_rows(int64_t rows, int64_t n, F&& f) {
#pragma omp parallel for schedule(static) if (worth_parallel(rows, rows * n, kGrain))
  for (int64_t r = 0; r < rows; ++r) f(r);
}

// values[r, :m] / indices[r, :m] = the first m pairs of each row of x in `order` (all of the
// row when m == n). The rows tensors are returned in the row layout.
std::pair<Tensor, Tensor> ordered_rows(const Tensor& x, int64_t m, bool descending, bool full_sort, const char* what) {
  const int64_t n = x.dim() == 0 ? 1 : x.sizes().back();
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  if (!shape.empty()) shape.back() = m;
  Tensor values = empty_tensor(shape, x.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, x.device()));
  dispatch_all_types(x.dtype(), what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data_ptr<T>();
    T* vo = values.data_ptr<T>();
    int64_t* io = indices.data_ptr<int64_t>();
    PairOrder<T> order{descending};
    for_rows(rows, n, [&](int64_t r) {
      auto buf = indexed(src + r * n, n);
      if (full_sort) {
        std::sort(buf.begin(), buf.end(), order);
      } else if (m > 0) {
        std::nth_element(buf.begin(), buf.begin() + (m - 1), buf.end(), order);
        std::sort(buf.begin(), buf.begin() + m, order);
      }
      for (int64_t i = 0; i < m; ++i) {
        vo[r * m + i] = buf[i].first;
        io[r * m + i] = buf[i].second;
      }
    });
  });
  return {values, indices};
}

constexpr int64_t kMedian = -1;     // kth_rows: the lower median; a row with a NaN gives its first NaN
constexpr int64_t kNanMedian = -2;  // kth_rows: the lower median of the non-NaN values (all NaN: the first)

// One (value, index) per row of x [..., n]: pick(row, n) for each row, in parallel. pick is
// generic over the element type (it receives `const T*`).
template <typename F>
std::pair<Tensor, Tensor> select_rows(const Tensor& x, const char* what, F&& pick) {
  const int64_t n = x.dim() == 0 ? 1 : x.sizes().back();
  const int64_t rows = n == 0 ? 0 : x.numel() / n;
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  if (!shape.empty()) shape.pop_back();
  Tensor values = empty_tensor(shape, x.options());
  Tensor indices = empty_tensor(shape, TensorOptions(ScalarType::Long, x.device()));
  dispatch_all_types(x.dtype(), what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data_ptr<T>();
    T* vo = values.data_ptr<T>();
    int64_t* io = indices.data_ptr<int64_t>();
    for_rows(rows, n, [&](int64_t r) { std::tie(vo[r], io[r]) = pick(src + r * n, n); });
  });
  return {values, indices};
}

// The k-th smallest (0-based) element of each row of x, or a median (k = kMedian, kNanMedian).
std::pair<Tensor, Tensor> kth_rows(const Tensor& x, int64_t k, const char* what) {
  return select_rows(x, what, [k](const auto* row, int64_t n) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(row)>>;
    int64_t count = n;  // the values the median is taken over
    if (k < 0) {
      const T* nan = std::find_if(row, row + n, [](T v) { return is_nan(v); });
      if (k == kNanMedian) count = n - std::count_if(row, row + n, [](T v) { return is_nan(v); });
      if (nan != row + n && (k == kMedian || count == 0)) return std::pair<T, int64_t>{*nan, nan - row};
    }
    const int64_t kk = k < 0 ? (count - 1) / 2 : k;
    auto buf = indexed(row, n);
    std::nth_element(buf.begin(), buf.begin() + kk, buf.end(), PairOrder<T>{false});
    return buf[kk];
  });
}

// The most frequent value of each row of x and the index of its last occurrence; among equally
// frequent values the smallest, and NaNs count as equal to each other (PyTorch's CPU kernel
// gives the same for rows without NaN; with NaN its answer depends on its sort's order).
std::pair<Tensor, Tensor> mode_rows(const Tensor& x) {
  return select_rows(x, "mode", [](const auto* row, int64_t n) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(row)>>;
    auto buf = indexed(row, n);
    std::sort(buf.begin(), buf.end(), PairOrder<T>{false});  // ascending, NaN last, ties by index
    auto same = [](T a, T b) { return a == b || (is_nan(a) && is_nan(b)); };
    int64_t best = 0, best_count = 0;
    for (int64_t start = 0; start < n;) {
      int64_t end = start + 1;
      while (end < n && same(buf[end].first, buf[start].first)) ++end;
      if (end - start > best_count) best = end - 1, best_count = end - start;  // a run's last is its last index
      start = end;
    }
    return buf[best];
  });
}

// A per-row selection (values, indices over rows along dim) shaped as a reduction over dim.
std::tuple<Tensor, Tensor> select_along(const Tensor& self, int64_t d, bool keepdim, std::pair<Tensor, Tensor> rows) {
  auto& [values, indices] = rows;
  if (self.dim() == 0) return {values.reshape(IntArrayRef()), indices.reshape(IntArrayRef())};
  if (keepdim) return {values.unsqueeze(d), indices.unsqueeze(d)};
  return {values, indices};
}

std::tuple<Tensor, Tensor> kth_along(const Tensor& self, int64_t dim, bool keepdim, int64_t k, const char* what) {
  const int64_t d = wrap_dim(dim, self.dim());
  return select_along(self, d, keepdim, kth_rows(as_rows(self, d), k, what));
}

}  // namespace

std::tuple<Tensor, Tensor> sort_cpu(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  (void)stable;  // the sort is always stable (ties keep their order)
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor x = as_rows(self, d);
  auto [values, indices] = ordered_rows(x, row_length(self, d), descending, true, "sort");
  return {from_rows(values, d, self.dim()), from_rows(indices, d, self.dim())};
}

std::tuple<Tensor, Tensor> topk_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // results always come sorted, which `sorted=False` allows
  const int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK(k >= 0 && k <= row_length(self, d), "selected index k out of range");
  auto [values, indices] = ordered_rows(as_rows(self, d), k, largest, false, "topk");
  return {from_rows(values, d, self.dim()), from_rows(indices, d, self.dim())};
}

std::tuple<Tensor, Tensor> kthvalue_cpu(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK(k >= 1 && k <= row_length(self, d), "kthvalue(): selected number k out of range for dimension ", dim);
  return kth_along(self, dim, keepdim, k - 1, "kthvalue");
}

std::tuple<Tensor, Tensor> median_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK_INDEX(row_length(self, d) > 0, "median(): Expected reduction dim ", d, " to have non-zero size.");
  return kth_along(self, dim, keepdim, kMedian, "median");
}

std::tuple<Tensor, Tensor> mode_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK_INDEX(row_length(self, d) > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  return select_along(self, d, keepdim, mode_rows(as_rows(self, d)));
}

std::tuple<Tensor, Tensor> nanmedian_dim_cpu(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK_INDEX(row_length(self, d) > 0, "nanmedian(): Expected reduction dim ", d, " to have non-zero size.");
  return kth_along(self, dim, keepdim, kNanMedian, "nanmedian");
}

// ---- the CUDA path: a full sort per row (sort_rows_stub), and the selections over it -----------

DispatchStub<void(const Tensor&, bool, const Tensor&, const Tensor&)> sort_rows_stub("sort");

namespace {

// Rows of self along d, sorted.
std::pair<Tensor, Tensor> sorted_rows(const Tensor& self, int64_t d, bool descending) {
  Tensor x = as_rows(self, d);
  Tensor values = empty_tensor(x.sizes(), x.options());
  Tensor indices = empty_tensor(x.sizes(), TensorOptions(ScalarType::Long, x.device()));
  if (x.numel() > 0) sort_rows_stub(x.device().type, x, descending, values, indices);
  return {values, indices};
}

// Column pos[r] of each sorted row r (pos: int64 of the rows' leading shape).
std::pair<Tensor, Tensor> pick_sorted(const std::pair<Tensor, Tensor>& sorted, const Tensor& pos) {
  const Tensor at = pos.unsqueeze(-1);
  return {sorted.first.gather(-1, at).squeeze(-1), sorted.second.gather(-1, at).squeeze(-1)};
}

// The median's column in each sorted row: the lower median of the non-NaN values; a row with a
// NaN gives its first NaN for median (NaNs sort last, in their order), for nanmedian only when
// the row is all NaN.
std::tuple<Tensor, Tensor> median_composite(const Tensor& self, int64_t dim, bool keepdim, bool ignore_nan) {
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = row_length(self, d);
  auto sorted = sorted_rows(self, d, false);
  const Tensor rows = as_rows(self, d);
  const std::vector<int64_t> last{-1};
  Tensor nans = rows.ne(rows).sum(IntArrayRef(last), false);  // x != x: NaN (never true for integers)
  Tensor count = nans.neg().add(n);  // the non-NaN values of each row
  Tensor lower = count.sub(1).div(Scalar(int64_t(2)), std::string("floor"));
  Tensor pos = ignore_nan ? tl::where(count.gt(0), lower, Scalar(int64_t(0))) : tl::where(nans.gt(0), count, lower);
  return select_along(self, d, keepdim, pick_sorted(sorted, pos));
}

}  // namespace

std::tuple<Tensor, Tensor> sort_composite(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                          bool descending) {
  (void)stable;  // the sort is always stable
  const int64_t d = wrap_dim(dim, self.dim());
  auto [values, indices] = sorted_rows(self, d, descending);
  return {from_rows(values, d, self.dim()), from_rows(indices, d, self.dim())};
}

std::tuple<Tensor, Tensor> topk_composite(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // results always come sorted
  const int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK(k >= 0 && k <= row_length(self, d), "selected index k out of range");
  auto [values, indices] = sorted_rows(self, d, largest);
  return {from_rows(values.narrow(-1, 0, k), d, self.dim()), from_rows(indices.narrow(-1, 0, k), d, self.dim())};
}

std::tuple<Tensor, Tensor> kthvalue_composite(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, self.dim());
  TL_CHECK(k >= 1 && k <= row_length(self, d), "kthvalue(): selected number k out of range for dimension ", dim);
  auto [values, indices] = sorted_rows(self, d, false);
  return select_along(self, d, keepdim, {values.select(-1, k - 1), indices.select(-1, k - 1)});
}

std::tuple<Tensor, Tensor> median_dim_composite(const Tensor& self, int64_t dim, bool keepdim) {
  TL_CHECK_INDEX(row_length(self, wrap_dim(dim, self.dim())) > 0, "median(): Expected reduction dim ",
                 wrap_dim(dim, self.dim()), " to have non-zero size.");
  return median_composite(self, dim, keepdim, false);
}

std::tuple<Tensor, Tensor> nanmedian_dim_composite(const Tensor& self, int64_t dim, bool keepdim) {
  TL_CHECK_INDEX(row_length(self, wrap_dim(dim, self.dim())) > 0, "nanmedian(): Expected reduction dim ",
                 wrap_dim(dim, self.dim()), " to have non-zero size.");
  return median_composite(self, dim, keepdim, true);
}

// mode over the sorted row: a value's run (NaNs equal each other) starts where it differs from its
// left neighbour; each position's distance from its run's start (a running maximum of the starts)
// peaks first at the end of the smallest most frequent value's run, whose last element has that
// value's largest index (the sort is stable), as the CPU picks.
std::tuple<Tensor, Tensor> mode_composite(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = row_length(self, d);
  TL_CHECK_INDEX(n > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  auto sorted = sorted_rows(self, d, false);
  const Tensor left = sorted.first.narrow(-1, 0, n - 1), right = sorted.first.narrow(-1, 1, n - 1);
  const Tensor same = left.eq(right).logical_or(left.ne(left).logical_and(right.ne(right)));
  const Tensor pos = tl::arange(Scalar(n), ScalarType::Long, std::nullopt, self.device());
  const int64_t first_column[] = {1, 0};
  const Tensor starts = tl::constant_pad_nd(tl::where(same.logical_not(), pos.narrow(0, 1, n - 1), Scalar(int64_t(0))),
                                            IntArrayRef(first_column, 2), Scalar(int64_t(0)));
  const Tensor run_length = pos.sub(std::get<0>(starts.cummax(-1)));
  return select_along(self, d, keepdim, pick_sorted(sorted, run_length.argmax(-1, false)));
}

// Whole-tensor nanmedian: over the flattened tensor, so its gradient comes from nanmedian.dim.
Tensor nanmedian(const Tensor& self) {
  if (self.numel() == 0) return tl::full({}, Scalar(NAN), self.scalar_type(), std::nullopt, self.device());
  return std::get<0>(tl::nanmedian(self.reshape({-1}), 0, false));
}

Tensor median(const Tensor& self) {
  if (self.numel() == 0) return tl::full({}, Scalar(NAN), self.scalar_type(), std::nullopt, self.device());
  return std::get<0>(tl::median(self.reshape({-1}), 0, false));
}

// The composite forms: sort and argsort are the stable sort.
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return tl::sort(self, std::optional<bool>(false), dim, descending);
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(tl::sort(self, std::optional<bool>(false), dim, descending));
}

Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(tl::sort(self, std::optional<bool>(stable), dim, descending));
}

}  // namespace tl::native
