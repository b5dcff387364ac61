// Indexing operators: index_select, gather, scatter (and its reductions), index_add,
// masked_fill, masked_select, take, nonzero.
//
// Note [Indexing kernels]: every index is bounds-checked before memory is touched (gather on the
// CPU: before its fresh result is returned, Note [Gather checks as it reads]) and an
// out-of-range one raises IndexError naming the index and the size (RuntimeError where PyTorch
// raises it). Ops that write into a tensor (scatter, index_add, ...) work on a contiguous
// buffer: `self` itself when it is contiguous, else a copy written back at the end.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/IndexingUtils.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/TensorIterator.h"
#include "generated/ops/add.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/expand.h"
#include "generated/ops/full.h"
#include "generated/ops/gather.h"
#include "generated/ops/gather_native.h"
#include "generated/ops/index_add_native.h"
#include "generated/ops/index_select_native.h"
#include "generated/ops/lt.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/masked_fill_native.h"
#include "generated/ops/masked_select_native.h"
#include "generated/ops/max.h"
#include "generated/ops/max_native.h"
#include "generated/ops/mul.h"
#include "generated/ops/nonzero.h"
#include "generated/ops/nonzero_native.h"
#include "generated/ops/reshape.h"
#include "generated/ops/scatter_add.h"
#include "generated/ops/scatter_add_native.h"
#include "generated/ops/scatter_native.h"
#include "generated/ops/scatter_reduce_native.h"
#include "generated/ops/select.h"
#include "generated/ops/take_native.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"
#include "generated/ops/where_native.h"
#include "generated/ops/zeros_like.h"

namespace tl::native {

namespace {

// Elements below which a kernel runs on one thread (a parallel region costs a few microseconds).
constexpr int64_t kIndexGrain = 1 << 16;

// The i-th element of an int64/int32 index tensor (contiguous).
struct IndexReader {
  const void* data;
  bool is_long;
  int64_t operator[](int64_t i) const {
    return is_long ? static_cast<const int64_t*>(data)[i] : static_cast<const int32_t*>(data)[i];
  }
};

void check_index_dtype(const Tensor& index, const char* op) {
  TL_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int, op,
           "(): Expected dtype int32 or int64 for index");
}

// `self` as it is (same sizes, strides) or the result written to `out` (resized): the contract
// of out= kernels; an undefined `out` means the functional form.
Tensor finish_out(const Tensor& res, const Tensor& out, const char* op) {
  if (!out.defined() || res.is_same(out)) return res;
  TL_CHECK(out.dtype() == res.dtype(), op, "(): Expected out tensor to have dtype ", dtype_name(res.dtype()),
           ", but got ", dtype_name(out.dtype()), " instead");
  resize_out(out, res.sizes());
  out.copy_(res);
  return out;
}

// A 0-dim tensor as 1-d (gather/scatter treat a scalar as a one-element vector).
Tensor as_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

// Writable result of an op that updates a copy of `self`: `out` (self when in-place), or a
// new tensor; contiguous.
Tensor result_like_self(const Tensor& self, const Tensor& out, const char* op) {
  if (!out.defined()) return self.clone(MemoryFormat::Contiguous);
  if (!out.is_same(self)) {
    TL_CHECK(out.dtype() == self.dtype(), op, "(): Expected out tensor to have dtype ", dtype_name(self.dtype()),
             ", but got ", dtype_name(out.dtype()), " instead");
    resize_out(out, self.sizes());
    out.copy_(self);
  }
  return out.is_contiguous() ? out : out.contiguous();
}

void write_back(const Tensor& work, const Tensor& out) {
  if (out.defined() && !work.is_same(out)) out.copy_(work);
}

// ---- gather / scatter geometry ------------------------------------------------------------------

// Checks shared by gather and the scatters: same number of dims, index no larger than `self`
// outside `dim` (and no larger than `src` anywhere).
void check_gather_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op) {
  check_index_dtype(index, op);
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  const int64_t ind = std::max<int64_t>(index.dim(), 1);
  TL_CHECK(index.numel() == 0 || ind == nd, "Index tensor must have the same number of dimensions as ",
           src ? "self" : "input", " tensor");
  if (src) {
    TL_CHECK(index.numel() == 0 || std::max<int64_t>(src->dim(), 1) == ind,
             "Index tensor must have the same number of dimensions as src tensor");
  }
  if (index.numel() == 0) return;
  Tensor s1 = as_1d(self), i1 = as_1d(index);
  for (int64_t d = 0; d < nd; ++d) {
    const bool fits_self = d == dim || i1.sizes()[d] <= s1.sizes()[d];
    if (!src) {
      TL_CHECK(fits_self, "Size does not match at dimension ", d, " expected index ", index_sizes_str(index.sizes()),
               " to be no larger than self ", index_sizes_str(self.sizes()), " apart from dimension ", dim);
      continue;
    }
    TL_CHECK(fits_self && i1.sizes()[d] <= as_1d(*src).sizes()[d], "Expected index ",
             index_sizes_str(index.sizes()), " to be no larger than self ", index_sizes_str(self.sizes()),
             " apart from dimension ", dim, " and to be no larger size than src ", index_sizes_str(src->sizes()));
  }
}

// The index of gather/scatter as a contiguous int64 tensor, its values not checked.
Tensor gather_index(const Tensor& index) { return as_1d(index).to(ScalarType::Long).contiguous(); }

// Whether a value of idx[0, n) lies outside [0, size): branch-free, so that it vectorises.
bool any_out_of_range(const int64_t* idx, int64_t n, int64_t size) {
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) bad |= static_cast<uint64_t>(idx[i]) >= static_cast<uint64_t>(size);
  return bad;
}

// Raises the error for the first value of idx[0, n) outside [0, size) (a gather/scatter index at dim).
void raise_first_out_of_range(const int64_t* idx, int64_t n, int64_t size, int64_t dim) {
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK(idx[i] >= 0 && idx[i] < size, "index ", idx[i], " is out of bounds for dimension ", dim, " with size ",
             size);
  }
}

// gather_index with every value checked against a's size at `dim` before any memory is written.
// On another device the values are checked on a host copy (one transfer, before any kernel).
Tensor checked_gather_index(const Tensor& a, int64_t dim, const Tensor& index) {
  Tensor i1 = gather_index(index);
  const Tensor host = i1.is_cpu() ? i1 : i1.to(Device(DeviceType::CPU));
  const int64_t size = as_1d(a).sizes()[dim];
  const int64_t* idx = host.data_ptr<int64_t>();
  const int64_t n = host.numel();
  // A parallel test first; the first bad value is looked for only when one exists.
  const int nth = n > kIndexGrain ? omp_get_max_threads() : 1;
  bool bad = false;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(|| : bad)
  for (int t = 0; t < nth; ++t) bad = any_out_of_range(idx + n * t / nth, n * (t + 1) / nth - n * t / nth, size) || bad;
  if (bad) raise_first_out_of_range(idx, n, size, dim);
  return i1;
}

// Where the positions of a gather/scatter index `i1` lead: position i + k of a row (rows run along
// the last dim, `inner` positions each) maps to ao + k * ai + index[i + k] * a_dim_stride in `a`
// and to bo + k * bi in `b`, where ao and bo are the row's offsets (gather_rows).
struct GatherGeometry {
  std::vector<int64_t> as, bs;  // strides of a (0 at dim) and b (0 when undefined)
  int64_t a_dim_stride, inner, ai, bi;
  GatherGeometry(const Tensor& a, int64_t dim, const Tensor& i1, const Tensor& b)
      : as(as_1d(a).strides().vec()), bs(b.defined() ? as_1d(b).strides().vec() : std::vector<int64_t>(i1.dim(), 0)) {
    a_dim_stride = as[dim];
    as[dim] = 0;
    inner = i1.sizes()[i1.dim() - 1];
    ai = as[i1.dim() - 1];
    bi = bs[i1.dim() - 1];
  }
};

// Calls row(i, ao, bo) for each row in [row0, row1) of `i1`: i is the row's first position
// (row-major), ao and bo its offsets in `a` and `b` with the index term left out.
template <typename F>
void gather_rows(const GatherGeometry& g, const Tensor& i1, int64_t row0, int64_t row1, F&& row) {
  const int64_t nd = i1.dim();
  if (row0 >= row1) return;
  IntArrayRef sizes = i1.sizes();
  const std::vector<int64_t>&as = g.as, &bs = g.bs;
  // The outer counters (and offsets) of row0.
  std::vector<int64_t> ctr(static_cast<size_t>(nd), 0);
  int64_t ao = 0, bo = 0;
  for (int64_t d = nd - 2, r = row0; d >= 0; --d) {
    ctr[d] = r % sizes[d];
    r /= sizes[d];
    ao += ctr[d] * as[d];
    bo += ctr[d] * bs[d];
  }
  for (int64_t i = row0 * g.inner; i < row1 * g.inner; i += g.inner) {
    row(i, ao, bo);
    for (int64_t d = nd - 2; d >= 0; --d) {
      ao += as[d];
      bo += bs[d];
      if (++ctr[d] < sizes[d]) break;
      ao -= as[d] * sizes[d];
      bo -= bs[d] * sizes[d];
      ctr[d] = 0;
    }
  }
}

// Calls f(i, a_off, b_off) for each element i of the checked index `i1`, in order (scatters
// depend on it when indices repeat): a_off is the element offset in `a` of the same position with
// `dim` replaced by the index value, b_off the offset of the same position in `b` (0 when b is
// undefined).
template <typename F>
void gather_walk(const Tensor& a, int64_t dim, const Tensor& i1, const Tensor& b, F&& f) {
  if (i1.numel() == 0) return;
  const GatherGeometry g(a, dim, i1, b);
  const int64_t* idx = i1.data_ptr<int64_t>();
  gather_rows(g, i1, 0, i1.numel() / g.inner, [&](int64_t i, int64_t ao, int64_t bo) {
    for (int64_t k = 0; k < g.inner; ++k) f(i + k, ao + k * g.ai + idx[i + k] * g.a_dim_stride, bo + k * g.bi);
  });
}

// Scatters src (or `value` when src is undefined) into `self`'s copy held by out, reducing with
// `r` (scatter_stub).
Tensor scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Scalar& value,
                    ScatterReduce r, bool include_self, const Tensor& out, const char* op) {
  dim = wrap_dim(dim, self.dim());
  check_gather_scatter(self, dim, index, src.defined() ? &src : nullptr, op);
  if (src.defined()) {
    TL_CHECK(src.dtype() == self.dtype(), op, "(): Expected self.dtype to be equal to src.dtype");
  }
  Tensor work = result_like_self(self, out, op);
  if (index.numel() == 0) {
    write_back(work, out);
    return out.defined() ? out : work;
  }
  const Tensor i1 = checked_gather_index(work, dim, index);
  scatter_stub(work.device().type, work, dim, i1, src, value, r, include_self);
  write_back(work, out);
  return out.defined() ? out : work;
}

// The CPU loops behind gather_stub and scatter_stub.
// Note [Gather checks as it reads]: on the CPU, gather's index comes unchecked (gather_out) and
// each row of it is checked just before that row is gathered, while it is in cache: a separate
// checking pass read the whole index (as large as the result, twice in int64) once more from
// memory. The result is fresh, so when a bad value stops the kernel nobody sees the part written.
void gather_kernel_cpu(const Tensor& self, int64_t dim, const Tensor& i1, const Tensor& res) {
  dispatch_all_types(self.dtype(), "gather", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* sp = self.data_ptr<T>();
    T* rp = res.data_ptr<T>();
    const int64_t* idx = i1.data_ptr<int64_t>();
    const GatherGeometry g(self, dim, i1, Tensor());
    const int64_t n = i1.numel(), inner = g.inner, ds = g.a_dim_stride, ai = g.ai, rows = n / inner;
    const int64_t size = as_1d(self).sizes()[dim];
    // Along the last dim a row reads one row of self (ai == 0), and that row is contiguous when
    // ds == 1: the generic loop with these constants known, which gcc vectorises (gathers).
    const bool along_row = ai == 0, unit = ds == 1;
    // Every element is written once: threads take contiguous ranges of rows.
    const int nth = n > kIndexGrain ? omp_get_max_threads() : 1;
    bool bad = false;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(|| : bad)
    for (int t = 0; t < nth; ++t) {
      gather_rows(g, i1, rows * t / nth, rows * (t + 1) / nth, [&](int64_t i, int64_t ao, int64_t) {
        const int64_t* __restrict ix = idx + i;
        if (bad || (bad = any_out_of_range(ix, inner, size))) return;
        const T* __restrict src = sp + ao;
        T* __restrict dst = rp + i;
        if (along_row && unit) {
          for (int64_t k = 0; k < inner; ++k) dst[k] = src[ix[k]];
        } else if (along_row) {
          for (int64_t k = 0; k < inner; ++k) dst[k] = src[ix[k] * ds];
        } else {
          for (int64_t k = 0; k < inner; ++k) dst[k] = src[k * ai + ix[k] * ds];
        }
      });
    }
    if (bad) raise_first_out_of_range(idx, n, size, dim);
  });
}

void scatter_kernel_cpu(const Tensor& work, int64_t dim, const Tensor& i1, const Tensor& src, const Scalar& value,
                        ScatterReduce r, bool include_self) {
  dispatch_all_types(work.dtype(), "scatter", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = work.data_ptr<T>();
    const T* sp = src.defined() ? static_cast<const T*>(src.data_ptr()) : nullptr;
    const T v = value.to<T>();
    if (!include_self) {
      const T id = scatter_reduce_identity<T>(r);
      gather_walk(work, dim, i1, Tensor(), [&](int64_t, int64_t ao, int64_t) { dst[ao] = id; });
    }
    std::vector<int64_t> counts;
    if (r == ScatterReduce::Mean) counts.assign(static_cast<size_t>(work.numel()), include_self ? 1 : 0);
    gather_walk(work, dim, i1, src, [&](int64_t, int64_t ao, int64_t bo) {
      scatter_combine(dst[ao], sp ? sp[bo] : v, r);
      if (r == ScatterReduce::Mean) ++counts[ao];
    });
    if (r == ScatterReduce::Mean) {
      gather_walk(work, dim, i1, Tensor(), [&](int64_t, int64_t ao, int64_t) {
        int64_t& c = counts[ao];
        if (c <= 0) return;  // already divided (several indices hit the same target)
        dst[ao] = scatter_mean(dst[ao], c);
        c = 0;
      });
    }
  });
}

// ---- index_select / index_add geometry -----------------------------------------------------------

// The index of index_select / index_add: 1-d (or 0-d), int32/int64, contiguous.
Tensor check_1d_index(const Tensor& index, const char* op) {
  TL_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector");
  check_index_dtype(index, op);
  return index.contiguous();
}

// index_add's argument checks; `idx` is the 1-d index, `host` its values readable on the CPU.
void check_index_add(const Tensor& self, int64_t dim, const Tensor& idx, const Tensor& host, const Tensor& source,
                     const Scalar& alpha) {
  const int64_t n = idx.numel();
  Tensor s1 = as_1d(self), src = as_1d(source);
  bool same_shape = s1.dim() == src.dim() && (source.dim() > 0 || self.dim() == 0);
  for (int64_t d = 0; same_shape && d < s1.dim(); ++d) same_shape = d == dim || s1.sizes()[d] == src.sizes()[d];
  TL_CHECK(same_shape, "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
           "self.shape = ", index_sizes_str(self.sizes()), " source.shape = ", index_sizes_str(source.sizes()));
  TL_CHECK(src.sizes()[dim] == n, "index_add_(): Number of indices (", n, ") should be equal to source.size(dim) (",
           src.sizes()[dim], ")");
  TL_CHECK(source.dtype() == self.dtype(), "index_add_(): self (", dtype_name(self.dtype()), ") and source (",
           dtype_name(source.dtype()), ") must have the same scalar type");
  TL_CHECK(!is_integral(self.dtype(), /*include_bool=*/true) || !alpha.is_floating_point(),
           "For integral input tensors, argument alpha must not be a floating point number.");
  const int64_t size = s1.sizes()[dim];
  IndexReader ir{host.data_ptr(), host.dtype() == ScalarType::Long};
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK_INDEX(ir[i] >= 0 && ir[i] < size, "index out of range in self: index ", ir[i],
                   " is out of bounds for dimension ", dim, " with size ", size);
  }
}

// take's index checks; `host` holds the index values (int64, contiguous) on the CPU.
void check_take_index(const Tensor& self, const Tensor& index, const Tensor& host) {
  TL_CHECK_TYPE(index.dtype() == ScalarType::Long, "take(): Expected a long tensor for index, but got ",
                dtype_name(index.dtype()));
  const int64_t n = self.numel();
  const int64_t* ip = host.data_ptr<int64_t>();
  TL_CHECK_INDEX(n > 0 || host.numel() == 0, "take(): tried to take from an empty tensor");
  for (int64_t i = 0; i < host.numel(); ++i) {
    TL_CHECK_INDEX(ip[i] >= -n && ip[i] < n, "out of range: tried to access index ", ip[i], " on a tensor of ", n,
                   " elements.");
  }
}

void check_masked_fill(const Tensor& self, const Tensor& mask) {
  TL_CHECK(mask.dtype() == ScalarType::Bool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
           dtype_name(mask.dtype()));
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  TL_CHECK(IntArrayRef(shape).equals(self.sizes()), "masked_fill_: the mask of shape ", index_sizes_str(mask.sizes()),
           " cannot be broadcast to the shape ", index_sizes_str(self.sizes()), " of self");
}

// A tensor's values readable on the CPU (itself when it is there).
Tensor on_host(const Tensor& t) { return t.is_cpu() ? t : t.to(Device(DeviceType::CPU)); }

}  // namespace

DispatchStub<void(const Tensor&, int64_t, const Tensor&, const Tensor&)> gather_stub("gather");
DispatchStub<void(const Tensor&, int64_t, const Tensor&, const Tensor&, const Scalar&, ScatterReduce, bool)>
    scatter_stub("scatter");
TL_REGISTER_STUB(gather_stub, CPU, &gather_kernel_cpu);
TL_REGISTER_STUB(scatter_stub, CPU, &scatter_kernel_cpu);

// ---- index_select ----------------------------------------------------------------------------------

Tensor index_select_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  dim = wrap_dim(dim, self.dim());
  Tensor idx = check_1d_index(index, "index_select");
  Tensor s = as_1d(self).contiguous();
  const int64_t size = s.sizes()[dim], n = idx.numel();
  std::vector<int64_t> shape = s.sizes().vec();
  shape[dim] = n;
  if (self.dim() == 0) shape.clear();  // a 0-dim self gives a 0-dim result (index has one element)
  TL_CHECK_INDEX(self.dim() > 0 || n == 1, "index_select(): Index to scalar can have only 1 value, got ", n,
                 " value(s)");
  Tensor res = empty_tensor(shape, self.options());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s.sizes()[d];
  for (int64_t d = dim + 1; d < s.dim(); ++d) inner *= s.sizes()[d];
  IndexReader ir{idx.data_ptr(), idx.dtype() == ScalarType::Long};
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK_INDEX(ir[i] >= 0 && ir[i] < size, "index out of range in self: index ", ir[i],
                   " is out of bounds for dimension ", dim, " with size ", size);
  }
  const size_t row = static_cast<size_t>(inner) * self.element_size();
  const char* sp = static_cast<const char*>(s.data_ptr());
  char* rp = static_cast<char*>(res.data_ptr());
  if (row > 0) {
    // Over (outer, index) pairs: index_select(x, 0, idx) has outer == 1.
#pragma omp parallel for collapse(2) schedule(static) if (outer * n * inner > kIndexGrain)
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(rp + (o * n + i) * row, sp + (o * size + ir[i]) * row, row);
      }
    }
  }
  return finish_out(res, out, "index_select");
}

// ---- gather --------------------------------------------------------------------------------------

Tensor gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/, const Tensor& out) {
  dim = wrap_dim(dim, self.dim());
  check_gather_scatter(self, dim, index, nullptr, "gather");
  Tensor res = empty_tensor(index.sizes(), self.options());
  if (index.numel() > 0) {
    // The CPU kernel checks the values as it reads them (Note [Gather checks as it reads]).
    const Tensor i1 = self.is_cpu() ? gather_index(index) : checked_gather_index(self, dim, index);
    gather_stub(self.device().type, self, dim, i1, res);
  }
  return finish_out(res, out, "gather");
}

// ---- scatter family --------------------------------------------------------------------------------

Tensor scatter_src_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& out) {
  return scatter_impl(self, dim, index, src, Scalar(0), ScatterReduce::Assign, true, out, "scatter");
}

Tensor scatter_value_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                         const Tensor& out) {
  return scatter_impl(self, dim, index, Tensor(), value, ScatterReduce::Assign, true, out, "scatter");
}

Tensor scatter_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          const std::string& reduce, const Tensor& out) {
  return scatter_impl(self, dim, index, src, Scalar(0), parse_scatter_reduce(reduce, true), true, out, "scatter");
}

Tensor scatter_value_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                const std::string& reduce, const Tensor& out) {
  return scatter_impl(self, dim, index, Tensor(), value, parse_scatter_reduce(reduce, true), true, out, "scatter");
}

Tensor scatter_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       const Tensor& out) {
  return scatter_impl(self, dim, index, src, Scalar(0), ScatterReduce::Sum, true, out, "scatter_add");
}

Tensor scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              const std::string& reduce, bool include_self, const Tensor& out) {
  const ScatterReduce r = parse_scatter_reduce(reduce, false);
  // A mean of booleans has no bool answer; PyTorch refuses it the same way.
  if (r == ScatterReduce::Mean && self.dtype() == ScalarType::Bool)
    dtype_not_implemented("scatter_gather_tensor_cpu_reduce_mean", ScalarType::Bool);
  return scatter_impl(self, dim, index, src, Scalar(0), r, include_self, out, "scatter_reduce");
}

// ---- index_add ---------------------------------------------------------------------------------------

Tensor index_add_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha, const Tensor& out) {
  dim = wrap_dim(dim, self.dim());
  Tensor idx = check_1d_index(index, "index_add");
  const int64_t n = idx.numel();
  check_index_add(self, dim, idx, idx, source, alpha);
  Tensor s1 = as_1d(self), src = as_1d(source);
  Tensor work = result_like_self(self, out, "index_add");
  const int64_t size = s1.sizes()[dim];
  IndexReader ir{idx.data_ptr(), idx.dtype() == ScalarType::Long};
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s1.sizes()[d];
  for (int64_t d = dim + 1; d < s1.dim(); ++d) inner *= s1.sizes()[d];
  Tensor sc = src.contiguous();
  dispatch_all_types(self.dtype(), "index_add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    T* dst = work.data_ptr<T>();
    const T* sp = sc.data_ptr<T>();
    const A a = alpha.to<A>();
    // Threads split the outer rows, so no two write the same element.
#pragma omp parallel for schedule(static) if (outer > 1 && outer * n * inner > kIndexGrain)
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < n; ++i) {
        T* d = dst + (o * size + ir[i]) * inner;
        const T* s = sp + (o * n + i) * inner;
        for (int64_t k = 0; k < inner; ++k) {
          if constexpr (std::is_same_v<T, bool>) d[k] = d[k] || (a && s[k]);
          else d[k] = static_cast<T>(static_cast<A>(d[k]) + a * static_cast<A>(s[k]));
        }
      }
    }
  });
  write_back(work, out);
  return out.defined() ? out : work;
}

// ---- masked_fill ------------------------------------------------------------------------------------

Tensor masked_fill_cpu_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_masked_fill(self, mask);
  if (self.numel() == 0) return self;
  if (self.is_contiguous() && mask.is_contiguous() && mask.sizes().equals(self.sizes())) {  // no offset tables
    const bool* mp = mask.data_ptr<bool>();
    dispatch_all_types(self.dtype(), "masked_fill_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = self.data_ptr<T>();
      const T v = value.to<T>();
      for (int64_t i = 0, n = self.numel(); i < n; ++i) p[i] = mp[i] ? v : p[i];
    });
    return self;
  }
  const std::vector<int64_t> so = walk_offsets(self.sizes(), self.strides());
  const std::vector<int64_t> mo = walk_offsets(self.sizes(), mask.expand(self.sizes()).strides());
  const bool* mp = mask.data_ptr<bool>();
  dispatch_all_types(self.dtype(), "masked_fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = self.data_ptr<T>();
    const T v = value.to<T>();
    for (size_t i = 0; i < so.size(); ++i)
      if (mp[mo[i]]) p[so[i]] = v;
  });
  return self;
}

Tensor masked_fill_tensor_cpu_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  TL_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
  return masked_fill_cpu_(self, mask, value.item());
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  Tensor res = self.expand(shape).clone(MemoryFormat::Contiguous);
  return res.masked_fill_(mask, value);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  Tensor res = self.expand(shape).clone(MemoryFormat::Contiguous);
  return res.masked_fill_(mask, value);
}

// ---- masked_select / take / nonzero ---------------------------------------------------------------

Tensor masked_select_out_cpu(const Tensor& self, const Tensor& mask, const Tensor& out) {
  TL_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  if (!(self.is_contiguous() && mask.is_contiguous() && mask.sizes().equals(self.sizes()))) {
    // One strided layout: both as contiguous tensors of the broadcast shape.
    return masked_select_out_cpu(self.expand(shape).contiguous(), mask.expand(shape).contiguous(), out);
  }
  const bool* mp = mask.data_ptr<bool>();
  int64_t count = 0;
  for (int64_t i = 0, n = mask.numel(); i < n; ++i) count += mp[i];
  Tensor res = empty_tensor({count}, self.options());
  dispatch_all_types(self.dtype(), "masked_select", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* sp = self.data_ptr<T>();
    T* rp = res.data_ptr<T>();
    for (int64_t i = 0, k = 0, n = mask.numel(); i < n; ++i)
      if (mp[i]) rp[k++] = sp[i];
  });
  return finish_out(res, out, "masked_select");
}

Tensor take_out_cpu(const Tensor& self, const Tensor& index, const Tensor& out) {
  const int64_t n = self.numel();
  Tensor idx = index.contiguous();
  check_take_index(self, index, idx);
  const int64_t* ip = idx.data_ptr<int64_t>();
  Tensor res = empty_tensor(index.sizes(), self.options());
  if (idx.numel() > 0) {
    const std::vector<int64_t> so = walk_offsets(self.sizes(), self.strides());
    dispatch_all_types(self.dtype(), "take", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* sp = self.data_ptr<T>();
      T* rp = res.data_ptr<T>();
      for (int64_t i = 0; i < idx.numel(); ++i) rp[i] = sp[so[ip[i] < 0 ? ip[i] + n : ip[i]]];
    });
  }
  return finish_out(res, out, "take");
}

Tensor nonzero_out_cpu(const Tensor& self, const Tensor& out) {
  const int64_t nd = self.dim();
  const std::vector<int64_t> so = walk_offsets(self.sizes(), self.strides());
  std::vector<int64_t> hits;
  dispatch_all_types(self.dtype(), "nonzero", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    const T* sp = self.data_ptr<T>();
    for (size_t i = 0; i < so.size(); ++i)
      if (static_cast<A>(sp[so[i]]) != A(0)) hits.push_back(static_cast<int64_t>(i));
  });
  const int64_t count = static_cast<int64_t>(hits.size());
  Tensor res = empty_tensor({count, nd}, TensorOptions(ScalarType::Long, self.device()));
  int64_t* rp = res.data_ptr<int64_t>();
  for (int64_t k = 0; k < count; ++k) {  // the flat position as coordinates
    int64_t flat = hits[k];
    for (int64_t d = nd - 1; d >= 0; --d) {
      rp[k * nd + d] = flat % self.sizes()[d];
      flat /= self.sizes()[d];
    }
  }
  if (out.defined()) {
    TL_CHECK(out.dtype() == ScalarType::Long, "nonzero: Expected out tensor to have scalar type Long but got scalar type",
             dtype_name(out.dtype()));
  }
  return finish_out(res, out, "nonzero");
}

// ---- the CUDA path: index_select, index_add, take, masked_fill and masked_select over gather,
// scatter_add, where and nonzero, with the checks of the CPU kernels above (index values are
// read on a host copy).

Tensor index_select_out_composite(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  dim = wrap_dim(dim, self.dim());
  Tensor idx = check_1d_index(index, "index_select").to(ScalarType::Long);
  Tensor s = as_1d(self);
  const int64_t size = s.sizes()[dim], n = idx.numel();
  TL_CHECK_INDEX(self.dim() > 0 || n == 1, "index_select(): Index to scalar can have only 1 value, got ", n,
                 " value(s)");
  const Tensor host = on_host(idx);
  const int64_t* ip = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    TL_CHECK_INDEX(ip[i] >= 0 && ip[i] < size, "index out of range in self: index ", ip[i],
                   " is out of bounds for dimension ", dim, " with size ", size);
  }
  // The index along `dim`, expanded over the other dims: a gather.
  std::vector<int64_t> shape = s.sizes().vec(), along(static_cast<size_t>(s.dim()), 1);
  shape[dim] = along[dim] = n;
  Tensor res = tl::gather(s, dim, idx.reshape(along).expand(shape));
  if (self.dim() == 0) res = res.reshape(IntArrayRef());
  return finish_out(res, out, "index_select");
}

Tensor index_add_out_composite(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                               const Scalar& alpha, const Tensor& out) {
  dim = wrap_dim(dim, self.dim());
  Tensor idx = check_1d_index(index, "index_add").to(ScalarType::Long);
  check_index_add(self, dim, idx, on_host(idx), source, alpha);
  Tensor src = as_1d(source);
  std::vector<int64_t> along(static_cast<size_t>(src.dim()), 1);
  along[dim] = idx.numel();
  // alpha * source in self's dtype (for bool, alpha is true or false).
  Tensor scaled = src;
  if (self.dtype() == ScalarType::Bool) {
    if (!alpha.to<bool>()) scaled = tl::zeros_like(src);
  } else if (!alpha.equal(1)) {
    scaled = src.mul(alpha).to(self.dtype());
  }
  Tensor res = tl::scatter_add(as_1d(self), dim, idx.reshape(along).expand(src.sizes()), scaled);
  if (self.dim() == 0) res = res.reshape(IntArrayRef());
  return finish_out(res, out, "index_add");
}

Tensor take_out_composite(const Tensor& self, const Tensor& index, const Tensor& out) {
  check_take_index(self, index, on_host(index.contiguous()));
  const int64_t n = self.numel();
  const int64_t flat_shape[] = {-1};
  Tensor flat_index = index.reshape(IntArrayRef(flat_shape, 1));
  flat_index = tl::where(flat_index.lt(0), flat_index.add(n), flat_index);
  Tensor res = tl::gather(self.reshape(IntArrayRef(flat_shape, 1)), 0, flat_index).reshape(index.sizes());
  return finish_out(res, out, "take");
}

Tensor masked_fill_composite_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_masked_fill(self, mask);
  if (self.numel() == 0) return self;
  Tensor v = tl::full(IntArrayRef(), value, self.dtype(), std::nullopt, self.device());
  return self.copy_(tl::where(mask, v, self));
}

Tensor masked_fill_tensor_composite_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  TL_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
  return masked_fill_composite_(self, mask, value.item());
}

Tensor masked_select_out_composite(const Tensor& self, const Tensor& mask, const Tensor& out) {
  TL_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes());
  const int64_t flat_shape[] = {-1};
  Tensor positions = tl::nonzero(mask.expand(shape).reshape(IntArrayRef(flat_shape, 1))).reshape(IntArrayRef(flat_shape, 1));
  Tensor res = tl::gather(self.expand(shape).reshape(IntArrayRef(flat_shape, 1)), 0, positions);
  return finish_out(res, out, "masked_select");
}

std::vector<Tensor> where(const Tensor& condition) {
  if (condition.dim() == 0) return tl::where(condition.unsqueeze(0));  // PyTorch treats 0-d as 1-d here
  Tensor nz = tl::nonzero(condition);
  std::vector<Tensor> cols;
  for (int64_t d = 0; d < condition.dim(); ++d) cols.push_back(nz.select(1, d));
  return cols;
}

}  // namespace tl::native
