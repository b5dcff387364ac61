// CUDA kernels of the indexing ops: the gather and scatter stubs (IndexingUtils.h), which
// gather, the scatter family and the CUDA composites of index_select, index_add, take and
// masked_select run on; the advanced-indexing stubs (x[idx], index_put_), whose offset tables
// are computed on the host and copied over; and nonzero, through CUB's DeviceSelect.
//
// A scatter updates its targets with atomics (a compare-and-swap loop over the aligned word
// that holds the target, so every dtype and reduction takes one path; scatter_combine is the
// CPU's update). As in PyTorch, which of several values scattered to one target with
// reduce=None lands is unspecified, and float sums may differ in the last bits between runs.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/IndexingUtils.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/cuda/GridStride.cuh"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/fill.h"
#include "generated/ops/ne.h"
#include "generated/ops/nonzero_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

using grid_stride::kThreads;
constexpr int kMaxDims = 16;

using grid_stride::grid_for;

// The walk of gather_walk (IndexingOps.cpp): index position i of `sizes` (row-major) maps to
// a_off = sum coord_d * a_strides[d] + index[i] * a_dim_stride (a_strides[dim] = 0) and
// b_off = sum coord_d * b_strides[d].
struct GatherGeometry {
  int nd = 0;
  int64_t sizes[kMaxDims];
  int64_t a_strides[kMaxDims];
  int64_t b_strides[kMaxDims];
  int64_t a_dim_stride = 0;

  GatherGeometry(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& b) {
    nd = static_cast<int>(index.dim());
    TL_CHECK(nd <= kMaxDims, "gather/scatter on CUDA supports at most ", kMaxDims, " dims, got ", nd);
    for (int d = 0; d < nd; ++d) {
      sizes[d] = index.size(d);
      a_strides[d] = d == dim ? 0 : (a.dim() == 0 ? 1 : a.stride(d));
      b_strides[d] = b.defined() && b.dim() > 0 ? b.stride(d) : 0;
    }
    a_dim_stride = a.dim() == 0 ? 1 : a.stride(dim);
  }

  __device__ void offsets(int64_t i, int64_t index, int64_t& ao, int64_t& bo) const {
    ao = index * a_dim_stride;
    bo = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t c = i % sizes[d];
      i /= sizes[d];
      ao += c * a_strides[d];
      bo += c * b_strides[d];
    }
  }
};

template <typename T>
__global__ void gather_kernel(GatherGeometry g, int64_t n, const int64_t* index, const T* a, T* res) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    int64_t ao, bo;
    g.offsets(i, index[i], ao, bo);
    res[i] = a[ao];
  }
}

// *addr = f(*addr) atomically, for any T of 1, 2, 4 or 8 bytes (naturally aligned).
template <typename T, typename F>
__device__ void atomic_update(T* addr, const F& f) {
  if constexpr (sizeof(T) == 8) {
    auto* word = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *word, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, sizeof(T));
      const T next = f(cur);
      unsigned long long bits;
      memcpy(&bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, bits);
    } while (assumed != old);
  } else {
    // The aligned 32-bit word holding *addr (little-endian: the byte offset is the shift).
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    auto* word = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(a & 3) * 8;
    const unsigned mask = (sizeof(T) == 4 ? 0xffffffffu : ((1u << (8 * sizeof(T))) - 1u)) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const unsigned int cur_bits = (assumed & mask) >> shift;
      T cur;
      memcpy(&cur, &cur_bits, sizeof(T));
      const T next = f(cur);
      unsigned int next_bits = 0;
      memcpy(&next_bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | ((next_bits << shift) & mask));
    } while (assumed != old);
  }
}

template <typename T>
__global__ void scatter_fill_kernel(GatherGeometry g, int64_t n, const int64_t* index, T* dst, T value) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    int64_t ao, bo;
    g.offsets(i, index[i], ao, bo);
    dst[ao] = value;
  }
}

template <typename T>
__global__ void scatter_kernel(GatherGeometry g, int64_t n, const int64_t* index, T* dst, const T* src, T value,
                               ScatterReduce r, unsigned long long* counts) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    int64_t ao, bo;
    g.offsets(i, index[i], ao, bo);
    const T v = src ? src[bo] : value;
    if (r == ScatterReduce::Assign) {
      dst[ao] = v;
      continue;
    }
    atomic_update(dst + ao, [v, r](T cur) {
      scatter_combine(cur, v, r);
      return cur;
    });
    if (counts) atomicAdd(counts + ao, 1ull);
  }
}

template <typename T>
__global__ void scatter_mean_kernel(int64_t n, T* dst, const unsigned long long* counts) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    if (counts[i] > 0) dst[i] = scatter_mean(dst[i], static_cast<int64_t>(counts[i]));
  }
}

void gather_kernel_cuda(const Tensor& self, int64_t dim, const Tensor& i1, const Tensor& res) {
  const int64_t n = i1.numel();
  const GatherGeometry g(self, dim, i1, Tensor());
  const int device = self.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_all_types(self.dtype(), "gather", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, static_cast<const int64_t*>(i1.data_ptr()),
                                                           static_cast<const T*>(self.data_ptr()),
                                                           static_cast<T*>(res.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void scatter_kernel_cuda(const Tensor& work, int64_t dim, const Tensor& i1, const Tensor& src, const Scalar& value,
                         ScatterReduce r, bool include_self) {
  const int64_t n = i1.numel();
  const GatherGeometry g(work, dim, i1, src);
  const int device = work.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const int64_t* index = static_cast<const int64_t*>(i1.data_ptr());
  // Mean: how many values each target received (plus one for self).
  Tensor counts;
  if (r == ScatterReduce::Mean) {
    counts = empty_tensor(work.sizes(), TensorOptions(ScalarType::Long, work.device()));
    counts.fill_(include_self ? 1 : 0);
  }
  auto* count_ptr = counts.defined() ? static_cast<unsigned long long*>(counts.data_ptr()) : nullptr;
  dispatch_all_types(work.dtype(), "scatter", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(work.data_ptr());
    if (!include_self) {
      scatter_fill_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, index, dst, scatter_reduce_identity<T>(r));
      TL_CUDA_KERNEL_LAUNCH_CHECK();
    }
    const T* sp = src.defined() ? static_cast<const T*>(src.data_ptr()) : nullptr;
    scatter_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, index, dst, sp, value.to<T>(), r, count_ptr);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
    if (count_ptr) {
      scatter_mean_kernel<T><<<grid_for(work.numel()), kThreads, 0, stream>>>(work.numel(), dst, count_ptr);
      TL_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
}

// The flat positions `positions[k]` (row-major) as coordinates: res[k, d].
__global__ void unravel_kernel(int64_t count, const int64_t* positions, int nd, GatherGeometry g, int64_t* res) {
  for (int64_t k = blockIdx.x * int64_t(kThreads) + threadIdx.x; k < count; k += int64_t(gridDim.x) * kThreads) {
    int64_t flat = positions[k];
    for (int d = nd - 1; d >= 0; --d) {
      res[k * nd + d] = flat % g.sizes[d];
      flat /= g.sizes[d];
    }
  }
}

// ---- advanced indexing ------------------------------------------------------------------------

// The four offset tables of an advanced index on the device: lin, rest_off, b_off, r_off.
struct IndexTables {
  Tensor data;
  int64_t nb, nr;
  IndexTables(const AdvancedIndex& a, IntArrayRef result_strides, Device device) {
    const auto [b_off, r_off] = a.result_offsets(result_strides);
    nb = static_cast<int64_t>(b_off.size());
    nr = static_cast<int64_t>(r_off.size());
    const std::vector<int64_t> shape{2 * (nb + nr)};
    Tensor host = empty_tensor(shape, TensorOptions(ScalarType::Long, Device(DeviceType::CPU)));
    int64_t* p = static_cast<int64_t*>(host.data_ptr());
    std::memcpy(p, a.lin.data(), sizeof(int64_t) * static_cast<size_t>(nb));
    std::memcpy(p + nb, b_off.data(), sizeof(int64_t) * static_cast<size_t>(nb));
    std::memcpy(p + 2 * nb, a.rest_off.data(), sizeof(int64_t) * static_cast<size_t>(nr));
    std::memcpy(p + 2 * nb + nr, r_off.data(), sizeof(int64_t) * static_cast<size_t>(nr));
    data = host.to(device);
  }
  const int64_t* ptr() const { return static_cast<const int64_t*>(data.data_ptr()); }
};

// Element i = (b, k) of the index: self offset lin[b] + rest_off[k], result offset b_off[b] + r_off[k].
__device__ void index_offsets(int64_t i, int64_t nb, int64_t nr, const int64_t* t, int64_t& so, int64_t& ro) {
  const int64_t b = i / nr, k = i % nr;
  so = t[b] + t[2 * nb + k];
  ro = t[nb + b] + t[2 * nb + nr + k];
}

// T: an unsigned integer of the element size (values are only moved).
template <typename T>
__global__ void index_kernel(int64_t nb, int64_t nr, const int64_t* tables, const T* self, T* res) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < nb * nr; i += int64_t(gridDim.x) * kThreads) {
    int64_t so, ro;
    index_offsets(i, nb, nr, tables, so, ro);
    res[ro] = self[so];
  }
}

template <typename T>
__global__ void index_put_kernel(int64_t nb, int64_t nr, const int64_t* tables, T* self, const T* values,
                                 bool accumulate) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < nb * nr; i += int64_t(gridDim.x) * kThreads) {
    int64_t so, ro;
    index_offsets(i, nb, nr, tables, so, ro);
    const T v = values[ro];
    if (!accumulate) {
      self[so] = v;
      continue;
    }
    atomic_update(self + so, [v](T cur) {
      scatter_combine(cur, v, ScatterReduce::Sum);
      return cur;
    });
  }
}

void index_kernel_cuda(const Tensor& self, const AdvancedIndex& a, const Tensor& res) {
  const IndexTables t(a, res.strides(), self.device());
  const int device = self.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    index_kernel<T><<<grid_for(t.nb * t.nr), kThreads, 0, stream>>>(
        t.nb, t.nr, t.ptr(), static_cast<const T*>(self.data_ptr()), static_cast<T*>(res.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  };
  dispatch_by_element_size(self.element_size(), launch);
}

void index_put_kernel_cuda(const Tensor& self, const AdvancedIndex& a, const Tensor& values, bool accumulate) {
  const IndexTables t(a, values.strides(), self.device());
  const int device = self.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_all_types(self.dtype(), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_put_kernel<T><<<grid_for(t.nb * t.nr), kThreads, 0, stream>>>(
        t.nb, t.nr, t.ptr(), static_cast<T*>(self.data_ptr()), static_cast<const T*>(values.data_ptr()), accumulate);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

TL_REGISTER_STUB(gather_stub, CUDA, &gather_kernel_cuda);
TL_REGISTER_STUB(scatter_stub, CUDA, &scatter_kernel_cuda);
TL_REGISTER_STUB(index_stub, CUDA, &index_kernel_cuda);
TL_REGISTER_STUB(index_put_stub, CUDA, &index_put_kernel_cuda);

Tensor nonzero_out_cuda(const Tensor& self, const Tensor& out) {
  if (out.defined()) {
    TL_CHECK(out.dtype() == ScalarType::Long, "nonzero: Expected out tensor to have scalar type Long but got scalar type",
             dtype_name(out.dtype()));
  }
  const int nd = static_cast<int>(self.dim());
  const int64_t n = self.numel();
  TL_CHECK(n <= std::numeric_limits<int32_t>::max(), "nonzero on CUDA supports at most 2^31 - 1 elements, got ", n);
  const Tensor flags = self.ne(Scalar(0)).contiguous();
  const GatherGeometry g(self, 0, self, Tensor());  // only its sizes are read
  const int device = self.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const std::vector<int64_t> flat_shape{n}, one{1};
  Tensor positions = empty_tensor(flat_shape, TensorOptions(ScalarType::Long, self.device()));
  Tensor count = empty_tensor(one, TensorOptions(ScalarType::Long, self.device()));
  const thrust::counting_iterator<int64_t> iota(0);
  const bool* fp = static_cast<const bool*>(flags.data_ptr());
  int64_t* pp = static_cast<int64_t*>(positions.data_ptr());
  int64_t* cp = static_cast<int64_t*>(count.data_ptr());
  size_t temp_bytes = 0;
  TL_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, iota, fp, pp, cp, static_cast<int>(n), stream));
  const std::vector<int64_t> temp_shape{static_cast<int64_t>(std::max<size_t>(temp_bytes, 1))};
  Tensor temp = empty_tensor(temp_shape, TensorOptions(ScalarType::Byte, self.device()));
  TL_CUDA_CHECK(
      cub::DeviceSelect::Flagged(temp.data_ptr(), temp_bytes, iota, fp, pp, cp, static_cast<int>(n), stream));
  const int64_t hits = count.item().to_long();  // waits for the selection
  const std::vector<int64_t> res_shape{hits, static_cast<int64_t>(nd)};
  Tensor res = empty_tensor(res_shape, TensorOptions(ScalarType::Long, self.device()));
  if (hits > 0 && nd > 0) {
    unravel_kernel<<<grid_for(hits), kThreads, 0, stream>>>(hits, pp, nd, g, static_cast<int64_t*>(res.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  }
  if (!out.defined()) return res;
  resize_out(out, res.sizes());
  out.copy_(res);
  return out;
}

}  // namespace tl::native
