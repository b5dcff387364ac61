// CUDA kernels of the scans (cumsum, cumprod, logcumsumexp, cummax, cummin; the CPU's are in
// ScanOps.cpp, whose dtype and out= rules these follow). The input is made contiguous and
// viewed as [outer, n, inner]; each thread runs one column (o, :, j) start to end, and
// neighbouring threads take neighbouring j, so their reads coalesce.
#include <tuple>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/cummax_native.h"
#include "generated/ops/cummin_native.h"
#include "generated/ops/cumprod_native.h"
#include "generated/ops/cumsum_native.h"
#include "generated/ops/logcumsumexp_native.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

constexpr int kScanThreads = 256;

struct ScanShape {
  int64_t outer = 1, n = 1, inner = 1;
  ScanShape(const Tensor& self, int64_t d) {
    for (int64_t i = 0; i < d; ++i) outer *= self.size(i);
    for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.size(i);
    n = self.dim() == 0 ? 1 : self.size(d);
  }
  unsigned grid() const {
    return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((outer * inner + kScanThreads - 1) / kScanThreads, 65535)));
  }
};

struct AddOp {
  template <typename A>
  TL_HOST_DEVICE A operator()(A a, A b) const { return a + b; }
};
struct MulOp {
  template <typename A>
  TL_HOST_DEVICE A operator()(A a, A b) const { return a * b; }
};
// log(e^a + e^b) = max + log1p(e^-|a - b|); equal infinities would give inf - inf.
struct LogAddExpOp {
  template <typename A>
  TL_HOST_DEVICE A operator()(A a, A b) const {
    if (a == b && (a == std::numeric_limits<A>::infinity() || a == -std::numeric_limits<A>::infinity())) return a;
    const A hi = a > b ? a : b;
    const A diff = a > b ? a - b : b - a;
    return hi + std::log1p(std::exp(-diff));
  }
};

template <typename T, typename Op>
__global__ void __launch_bounds__(kScanThreads)
    scan_columns_kernel(const T* src, T* dst, int64_t outer, int64_t n, int64_t inner, Op op) {
  using acc_t = opmath_t<T>;
  const int64_t cols = outer * inner;
  for (int64_t c = blockIdx.x * int64_t(kScanThreads) + threadIdx.x; c < cols; c += int64_t(gridDim.x) * kScanThreads) {
    const int64_t base = (c / inner) * n * inner + c % inner;
    acc_t acc = static_cast<acc_t>(src[base]);
    dst[base] = static_cast<T>(acc);
    for (int64_t i = 1; i < n; ++i) {
      acc = op(acc, static_cast<acc_t>(src[base + i * inner]));
      dst[base + i * inner] = static_cast<T>(acc);
    }
  }
}

// A tie moves the index forward and a NaN, once seen, stays the extreme (as the CPU's).
template <typename T, bool IsMax>
__global__ void __launch_bounds__(kScanThreads)
    cum_extreme_kernel(const T* src, T* vals, int64_t* idx, int64_t outer, int64_t n, int64_t inner) {
  using acc_t = opmath_t<T>;
  const int64_t cols = outer * inner;
  for (int64_t c = blockIdx.x * int64_t(kScanThreads) + threadIdx.x; c < cols; c += int64_t(gridDim.x) * kScanThreads) {
    const int64_t base = (c / inner) * n * inner + c % inner;
    T best = src[base];
    int64_t bi = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T xv = src[base + i * inner];
      const acc_t x = static_cast<acc_t>(xv), b = static_cast<acc_t>(best);
      if (x != x || (b == b && (IsMax ? x >= b : x <= b))) {
        best = xv;
        bi = i;
      }
      vals[base + i * inner] = best;
      idx[base + i * inner] = bi;
    }
  }
}

// PyTorch's rule: an explicit dtype wins, then out's dtype, then integral inputs scan in Long.
ScalarType scan_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (dtype) return *dtype;
  if (out.defined()) return out.dtype();
  return is_floating_point(self.dtype()) || is_complex(self.dtype()) ? self.dtype() : ScalarType::Long;
}

template <typename Op>
Tensor scan_out_cuda(const char* what, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype,
                     const Tensor& out, Op op, bool floating_only = false) {
  const ScalarType dt = scan_dtype(self, dtype, out);
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor x = self.to(dt).contiguous();
  Tensor res = empty_tensor(self.sizes(), TensorOptions(dt, self.device()));
  const ScanShape s(self, d);
  if (self.numel() > 0) {
    const int device = self.device().index;
    cuda::CUDAGuard guard(device);
    cudaStream_t stream = cuda::current_cuda_stream(device);
    auto launch = [&](auto tag) {
      using T = typename decltype(tag)::type;
      scan_columns_kernel<T><<<s.grid(), kScanThreads, 0, stream>>>(static_cast<const T*>(x.data_ptr()),
                                                                     static_cast<T*>(res.data_ptr()), s.outer, s.n,
                                                                     s.inner, op);
      TL_CUDA_KERNEL_LAUNCH_CHECK();
    };
    if (floating_only) dispatch_floating_types(dt, what, launch);
    else dispatch_numeric_types(dt, what, launch);
  }
  if (!out.defined()) return res;
  TL_CHECK(out.dtype() == dt, "Expected out tensor to have dtype ", dtype_name(dt), ", but got ",
           dtype_name(out.dtype()), " instead");
  resize_out(out, res.sizes());
  out.copy_(res);
  return out;
}

template <bool IsMax>
std::tuple<Tensor, Tensor> cum_extreme_cuda(const char* what, const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor x = self.contiguous();
  Tensor values = empty_tensor(self.sizes(), self.options());
  Tensor indices = empty_tensor(self.sizes(), TensorOptions(ScalarType::Long, self.device()));
  const ScanShape s(self, d);
  if (self.numel() == 0) return {values, indices};
  const int device = self.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_all_types(self.dtype(), what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cum_extreme_kernel<T, IsMax><<<s.grid(), kScanThreads, 0, stream>>>(
        static_cast<const T*>(x.data_ptr()), static_cast<T*>(values.data_ptr()),
        static_cast<int64_t*>(indices.data_ptr()), s.outer, s.n, s.inner);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return {values, indices};
}

}  // namespace

Tensor cumsum_out_cuda(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  return scan_out_cuda("cumsum", self, dim, dtype, out, AddOp{});
}

Tensor cumprod_out_cuda(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  return scan_out_cuda("cumprod", self, dim, dtype, out, MulOp{});
}

Tensor logcumsumexp_cuda(const Tensor& self, int64_t dim) {
  TL_CHECK(is_floating_point(self.dtype()), "\"logcumsumexp_out_cuda\" not implemented for '",
           scalar_type_cpp_name(self.dtype()), "'");
  return scan_out_cuda("logcumsumexp", self, dim, std::nullopt, Tensor(), LogAddExpOp{}, true);
}

std::tuple<Tensor, Tensor> cummax_cuda(const Tensor& self, int64_t dim) {
  return cum_extreme_cuda<true>("cummax", self, dim);
}
std::tuple<Tensor, Tensor> cummin_cuda(const Tensor& self, int64_t dim) {
  return cum_extreme_cuda<false>("cummin", self, dim);
}

}  // namespace tl::native
