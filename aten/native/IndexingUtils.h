#pragma once
// Small helpers shared by the indexing kernels (IndexingOps.cpp, AdvancedIndexing.cpp,
// cuda/IndexingKernel.cu), and the stubs of gather and scatter (Note [Stubs]).
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

inline std::string index_sizes_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

inline int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Row-major element offsets of a strided walk over `sizes`.
inline std::vector<int64_t> walk_offsets(IntArrayRef sizes, IntArrayRef strides) {
  const int64_t n = numel_of(sizes);
  std::vector<int64_t> offs(static_cast<size_t>(n));
  const int64_t nd = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> ctr(static_cast<size_t>(nd), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    offs[i] = off;
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += strides[d];
      if (++ctr[d] < sizes[d]) break;
      off -= strides[d] * sizes[d];
      ctr[d] = 0;
    }
  }
  return offs;
}

// ---- advanced indexing (Note [Advanced index layout], AdvancedIndexing.cpp) -------------------

// Element (b, r) of the result, b a position of the index tensors' broadcast shape and r one of
// the dims not indexed, is self[lin[b] + rest_off[r]].
struct AdvancedIndex {
  std::vector<int64_t> bshape;        // the broadcast shape of the index tensors
  std::vector<int64_t> lin;           // per position of bshape: element offset into self
  std::vector<int64_t> rest_sizes;    // the dimensions of self not indexed, in order
  std::vector<int64_t> rest_off;      // per position of rest_sizes: element offset into self
  std::vector<int64_t> result_shape;  // rest[:insert_at] + bshape + rest[insert_at:]
  int64_t insert_at = 0;

  // (b, r) offsets of a tensor of result_shape with `strides`: element (b, r) lies at b_off[b] + r_off[r].
  std::pair<std::vector<int64_t>, std::vector<int64_t>> result_offsets(IntArrayRef strides) const {
    const size_t nb = bshape.size(), at = static_cast<size_t>(insert_at);
    std::vector<int64_t> b_strides(strides.begin() + at, strides.begin() + at + nb);
    std::vector<int64_t> r_strides(strides.begin(), strides.begin() + at);
    r_strides.insert(r_strides.end(), strides.begin() + at + nb, strides.end());
    return {walk_offsets(bshape, b_strides), walk_offsets(rest_sizes, r_strides)};
  }
};

// x[idx]: result (result_shape, contiguous)[b_off[b] + r_off[r]] = self[lin[b] + rest_off[r]].
extern DispatchStub<void(const Tensor& self, const AdvancedIndex& a, const Tensor& result)> index_stub;
// x[idx] = v (accumulate: +=): values expanded to result_shape.
extern DispatchStub<void(const Tensor& self, const AdvancedIndex& a, const Tensor& values, bool accumulate)>
    index_put_stub;

// ---- scatter reductions (scatter, scatter_add, scatter_reduce) --------------------------------

enum class ScatterReduce { Assign, Sum, Prod, Mean, Amax, Amin };

inline ScatterReduce parse_scatter_reduce(const std::string& r, bool legacy) {
  if (legacy) {
    if (r == "add") return ScatterReduce::Sum;
    if (r == "multiply") return ScatterReduce::Prod;
    TL_CHECK(false, "reduce argument must be either add or multiply, got ", r);
  }
  if (r == "sum") return ScatterReduce::Sum;
  if (r == "prod") return ScatterReduce::Prod;
  if (r == "mean") return ScatterReduce::Mean;
  if (r == "amax") return ScatterReduce::Amax;
  if (r == "amin") return ScatterReduce::Amin;
  TL_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", r);
}

// The value a target starts from when scatter_reduce leaves self out (include_self=False).
template <typename T>
T scatter_reduce_identity(ScatterReduce r) {
  using A = opmath_t<T>;
  switch (r) {
    case ScatterReduce::Prod:
      return static_cast<T>(A(1));
    case ScatterReduce::Amax:
      if constexpr (std::numeric_limits<A>::has_infinity) return static_cast<T>(-std::numeric_limits<A>::infinity());
      else return static_cast<T>(std::numeric_limits<A>::lowest());
    case ScatterReduce::Amin:
      if constexpr (std::numeric_limits<A>::has_infinity) return static_cast<T>(std::numeric_limits<A>::infinity());
      else return static_cast<T>(std::numeric_limits<A>::max());
    default:
      return static_cast<T>(A(0));
  }
}

// dst = dst (r) v, for one target of a scatter (every device runs this).
template <typename T>
TL_HOST_DEVICE inline void scatter_combine(T& dst, T v, ScatterReduce r) {
  using A = opmath_t<T>;
  const A a = static_cast<A>(dst), b = static_cast<A>(v);
  switch (r) {
    case ScatterReduce::Assign:
      dst = v;
      return;
    case ScatterReduce::Sum:
    case ScatterReduce::Mean:
      if constexpr (std::is_same_v<T, bool>) dst = a || b;
      else dst = static_cast<T>(a + b);
      return;
    case ScatterReduce::Prod:
      if constexpr (std::is_same_v<T, bool>) dst = a && b;
      else dst = static_cast<T>(a * b);
      return;
    case ScatterReduce::Amax:  // NaN propagates, as in max() (b != b: NaN)
      if (b != b || b > a) dst = v;
      return;
    case ScatterReduce::Amin:
      if (b != b || b < a) dst = v;
      return;
  }
}

// A sum of `count` values as their mean: floor division for integers, as PyTorch.
template <typename T>
TL_HOST_DEVICE inline T scatter_mean(T sum, int64_t count) {
  using A = opmath_t<T>;
  const A q = static_cast<A>(sum);
  if constexpr (std::is_same_v<T, bool>) {
    return q;
  } else if constexpr (std::is_integral_v<A>) {
    const A d = static_cast<A>(count);
    A f = q / d;
    if constexpr (std::is_signed_v<A>) {
      if ((q % d != 0) && ((q < 0) != (d < 0))) --f;
    }
    return static_cast<T>(f);
  } else {
    return static_cast<T>(q / static_cast<A>(count));
  }
}

// ---- stubs ----------------------------------------------------------------------------------
// `index` is the checked, contiguous int64 index of gather/scatter (0-dim inputs taken as 1-d)
// on the device of the data. For each index position i (row-major), a_off(i) is the offset in
// `self`/`work` of the same position with `dim` replaced by index[i], b_off(i) that in `src`.

// result (fresh, contiguous, index's shape)[i] = self[a_off(i)]. On the CPU the index values come
// unchecked: the kernel raises for the first bad one (Note [Gather checks as it reads]).
extern DispatchStub<void(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& result)> gather_stub;
// work[a_off(i)] = work[a_off(i)] (r) (src defined ? src[b_off(i)] : value), `work` contiguous.
// include_self=false first resets every target to the reduction's identity; Mean then divides
// each target by the number of values it received (plus one with include_self).
extern DispatchStub<void(const Tensor& work, int64_t dim, const Tensor& index, const Tensor& src, const Scalar& value,
                         ScatterReduce r, bool include_self)>
    scatter_stub;

}  // namespace tl::native
