// Advanced indexing: index.Tensor (x[idx]) and index_put_ (x[idx] = v, x.index_put_(..., accumulate)).
//
// Note [Advanced index layout]: `indices` holds one entry per dimension of self (None for a
// dimension taken whole); a bool/uint8 mask of k dims stands for the k long index tensors of its
// nonzero() positions. The index tensors broadcast to one shape B. When the indexed dimensions
// are adjacent, B replaces them in place in the result; when slices separate them, B goes first
// (PyTorch's and NumPy's rule). The result is then (rest before) + B + (rest after), every
// element read at self[lin[b] + rest_off[r]] with `lin` the bounds-checked element offset of
// index position b and `rest_off` that of position r in the dimensions not indexed.
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"
#include "aten/native/IndexingUtils.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/expand.h"
#include "generated/ops/index_native.h"
#include "generated/ops/index_put.h"
#include "generated/ops/index_put_native.h"
#include "generated/ops/nonzero.h"
#include "generated/ops/select.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

// `b` broadcast with `a`, or nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> try_broadcast(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

bool is_iota(const std::vector<int64_t>& v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<int64_t>(i)) return false;
  return true;
}

AdvancedIndex make_advanced_index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  // One entry per self dim: the long/int index tensor, or undefined.
  std::vector<Tensor> per_dim;
  for (const std::optional<Tensor>& opt : indices) {
    if (!opt || !opt->defined()) {
      per_dim.emplace_back();
      continue;
    }
    const Tensor& t = *opt;
    if (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::Byte) {
      const int64_t d = static_cast<int64_t>(per_dim.size());
      TL_CHECK_INDEX(t.dim() > 0, "a 0-dim boolean mask is not supported among index tensors");
      TL_CHECK_INDEX(d + t.dim() <= self.dim(), "too many indices for tensor of dimension ", self.dim(),
                     " (got ", d + t.dim(), ")");
      for (int64_t k = 0; k < t.dim(); ++k) {
        TL_CHECK_INDEX(t.sizes()[k] == self.sizes()[d + k], "The shape of the mask ", index_sizes_str(t.sizes()),
                       " at index ", k, " does not match the shape of the indexed tensor ", index_sizes_str(self.sizes()),
                       " at index ", d + k);
      }
      Tensor nz = tl::nonzero(t);
      for (int64_t k = 0; k < t.dim(); ++k) per_dim.push_back(nz.select(1, k));
    } else {
      TL_CHECK_INDEX(t.dtype() == ScalarType::Long || t.dtype() == ScalarType::Int,
                     "tensors used as indices must be long, int, byte or bool tensors");
      per_dim.push_back(t);
    }
  }
  TL_CHECK_INDEX(static_cast<int64_t>(per_dim.size()) <= self.dim(), "too many indices for tensor of dimension ",
                 self.dim(), " (got ", per_dim.size(), ")");
  AdvancedIndex a;
  std::vector<int64_t> dims;
  for (size_t d = 0; d < per_dim.size(); ++d) {
    if (!per_dim[d].defined()) continue;
    if (dims.empty()) {
      a.bshape = per_dim[d].sizes().vec();
    } else {
      auto b = try_broadcast(a.bshape, per_dim[d].sizes());
      if (!b) {
        std::ostringstream shapes;
        for (size_t k = 0; k < per_dim.size(); ++k)
          if (per_dim[k].defined()) shapes << (k == static_cast<size_t>(dims.front()) ? "" : ", ") << per_dim[k].sizes();
        TL_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                       shapes.str());
      }
      a.bshape = *b;
    }
    dims.push_back(static_cast<int64_t>(d));
  }
  TL_CHECK_INDEX(!dims.empty(), "index(): expected at least one index tensor");
  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  a.insert_at = adjacent ? dims.front() : 0;
  std::vector<int64_t> rest_strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < static_cast<int64_t>(per_dim.size()) && per_dim[d].defined()) continue;
    a.rest_sizes.push_back(self.sizes()[d]);
    rest_strides.push_back(self.strides()[d]);
  }
  a.result_shape.assign(a.rest_sizes.begin(), a.rest_sizes.begin() + a.insert_at);
  a.result_shape.insert(a.result_shape.end(), a.bshape.begin(), a.bshape.end());
  a.result_shape.insert(a.result_shape.end(), a.rest_sizes.begin() + a.insert_at, a.rest_sizes.end());
  a.rest_off = walk_offsets(a.rest_sizes, rest_strides);
  a.lin.assign(static_cast<size_t>(numel_of(a.bshape)), 0);
  for (int64_t d : dims) {
    const Tensor t = (per_dim[d].is_cpu() ? per_dim[d] : per_dim[d].to(Device(DeviceType::CPU))).expand(a.bshape);
    const std::vector<int64_t> offs = walk_offsets(a.bshape, t.strides());
    const int64_t size = self.sizes()[d], stride = self.strides()[d];
    const bool is_long = t.dtype() == ScalarType::Long;
    const void* p = t.data_ptr();
    for (size_t i = 0; i < offs.size(); ++i) {
      int64_t v = is_long ? static_cast<const int64_t*>(p)[offs[i]] : static_cast<const int32_t*>(p)[offs[i]];
      TL_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", d, " with size ", size);
      if (v < 0) v += size;
      a.lin[i] += v * stride;
    }
  }
  return a;
}

void index_kernel_cpu(const Tensor& self, const AdvancedIndex& a, const Tensor& res) {
  const auto [b_off, r_off] = a.result_offsets(res.strides());
  const int64_t nb = static_cast<int64_t>(b_off.size()), nr = static_cast<int64_t>(r_off.size());
  const bool rows = nr > 1 && is_iota(r_off) && is_iota(a.rest_off);  // contiguous trailing rows: memcpy
  const size_t isz = self.element_size();
  const char* sp = static_cast<const char*>(self.data_ptr());
  char* rp = static_cast<char*>(res.data_ptr());
  dispatch_all_types(self.dtype(), "index", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = reinterpret_cast<const T*>(sp);
    T* r = reinterpret_cast<T*>(rp);
#pragma omp parallel for schedule(static) if (nb * nr > (1 << 16))
    for (int64_t b = 0; b < nb; ++b) {
      if (rows) {
        std::memcpy(r + b_off[b], s + a.lin[b], static_cast<size_t>(nr) * isz);
        continue;
      }
      for (int64_t k = 0; k < nr; ++k) r[b_off[b] + r_off[k]] = s[a.lin[b] + a.rest_off[k]];
    }
  });
}

void index_put_kernel_cpu(const Tensor& self, const AdvancedIndex& a, const Tensor& v, bool accumulate) {
  const auto [b_off, r_off] = a.result_offsets(v.strides());
  dispatch_all_types(self.dtype(), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    T* s = self.data_ptr<T>();
    const T* vp = v.data_ptr<T>();
    for (size_t b = 0; b < b_off.size(); ++b) {
      for (size_t k = 0; k < r_off.size(); ++k) {
        T& dst = s[a.lin[b] + a.rest_off[k]];
        const T x = vp[b_off[b] + r_off[k]];
        if (!accumulate) dst = x;
        else if constexpr (std::is_same_v<T, bool>) dst = dst || x;
        else dst = static_cast<T>(static_cast<A>(dst) + static_cast<A>(x));
      }
    }
  });
}

}  // namespace

DispatchStub<void(const Tensor&, const AdvancedIndex&, const Tensor&)> index_stub("index");
DispatchStub<void(const Tensor&, const AdvancedIndex&, const Tensor&, bool)> index_put_stub("index_put_");
TL_REGISTER_STUB(index_stub, CPU, &index_kernel_cpu);
TL_REGISTER_STUB(index_put_stub, CPU, &index_put_kernel_cpu);

Tensor index_Tensor_out(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& out) {
  const AdvancedIndex a = make_advanced_index(self, indices);
  Tensor res = empty_tensor(a.result_shape, self.options());
  if (res.numel() > 0) index_stub(self.device().type, self, a, res);
  if (!out.defined()) return res;
  TL_CHECK(out.dtype() == res.dtype(), "index(): Expected out tensor to have dtype ", dtype_name(res.dtype()),
           ", but got ", dtype_name(out.dtype()), " instead");
  resize_out(out, res.sizes());
  out.copy_(res);
  return out;
}

Tensor index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values_in,
                  bool accumulate) {
  // A 0-dim CPU value may fill a tensor on another device (cpu_scalars: values): the kernels read
  // values on self's device.
  const Tensor values = values_in.device() != self.device() ? values_in.to(self.device()) : values_in;
  TL_CHECK(values.dtype() == self.dtype(), "Index put requires the source and destination dtypes match, got ",
           dtype_name(self.dtype()), " for the destination and ", dtype_name(values.dtype()), " for the source.");
  const AdvancedIndex a = make_advanced_index(self, indices);
  auto shape = try_broadcast(a.result_shape, values.sizes());
  TL_CHECK(shape && IntArrayRef(*shape).equals(a.result_shape), "shape mismatch: value tensor of shape ",
           index_sizes_str(values.sizes()), " cannot be broadcast to indexing result of shape ", index_sizes_str(a.result_shape));
  if (numel_of(a.result_shape) == 0) return self;
  index_put_stub(self.device().type, self, a, values.expand(a.result_shape), accumulate);
  return self;
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  return self.clone(MemoryFormat::Contiguous).index_put_(indices, values, accumulate);
}

}  // namespace tl::native
