// The CUDA loops of batch norm (Note [Batch norm stubs] in BatchNorm.h): one block per channel,
// so a forward or a backward is one launch. The forward sums the channel, then its squared
// deviations from the mean (two passes in double, as on the CPU); thread 0 saves the statistics
// and moves the running ones; then the block writes the normalised channel. The backward sums
// grad and grad * (x - mean), then writes grad_input. A channel's element i is plane i / S,
// offset i % S. With fewer channels than the GPU has multiprocessors, some of them idle.
#include "aten/cuda/CUDAContext.h"
#include "aten/native/BatchNorm.h"
#include "aten/native/OptionalTensor.h"

namespace tl::native {

namespace {

constexpr int kThreads = 512;

// The sum of every thread's v, returned to all of them; `shared` holds a value per warp. The first
// barrier keeps a previous call's result from being overwritten before everyone has read it.
__device__ double block_sum(double v, double* shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kThreads / 32 ? shared[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  return shared[0];
}

__device__ __forceinline__ int64_t channel_offset(const BatchNormPlanes& p, int64_t c, int64_t i) {
  const int64_t n = i / p.S;
  return (n * p.C + c) * p.S + (i - n * p.S);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    batch_norm_forward_kernel(BatchNormPlanes p, bool training, double momentum, double eps, const T* x, const T* w,
                              const T* b, T* rm, T* rv, T* y, T* save_mean, T* save_invstd) {
  __shared__ double shared[kThreads / 32];
  const int64_t c = blockIdx.x, count = p.N * p.S;
  T mu, invstd;
  if (training) {
    double sum = 0;
    for (int64_t i = threadIdx.x; i < count; i += kThreads) sum += double(x[channel_offset(p, c, i)]);
    mu = static_cast<T>(block_sum(sum, shared) / count);
    double ss = 0;
    for (int64_t i = threadIdx.x; i < count; i += kThreads) {
      const double d = double(x[channel_offset(p, c, i)] - mu);
      ss += d * d;
    }
    ss = block_sum(ss, shared);
    invstd = static_cast<T>(1.0 / sqrt(ss / count + eps));
    if (threadIdx.x == 0) {
      const T mom = static_cast<T>(momentum);
      if (rm) rm[c] = (1 - mom) * rm[c] + mom * mu;
      if (rv) rv[c] = (1 - mom) * rv[c] + mom * static_cast<T>(ss / double(count - 1));
    }
  } else {
    mu = rm[c];
    invstd = T(1) / sqrt(rv[c] + static_cast<T>(eps));
  }
  if (threadIdx.x == 0) {
    save_mean[c] = mu;
    save_invstd[c] = invstd;
  }
  const T scale = w ? w[c] * invstd : invstd, shift = (b ? b[c] : T(0)) - mu * scale;
  for (int64_t i = threadIdx.x; i < count; i += kThreads) {
    const int64_t o = channel_offset(p, c, i);
    y[o] = x[o] * scale + shift;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    batch_norm_backward_kernel(BatchNormPlanes p, bool train, const T* g, const T* x, const T* w, const T* mean,
                               const T* invstd, T* gx, T* gw, T* gb) {
  __shared__ double shared[kThreads / 32];
  const int64_t c = blockIdx.x, count = p.N * p.S;
  const T m = mean[c], r = invstd[c], wc = w ? w[c] : T(1);
  double partial_g = 0, partial_gxmu = 0;
  for (int64_t i = threadIdx.x; i < count; i += kThreads) {
    const int64_t o = channel_offset(p, c, i);
    partial_g += double(g[o]);
    partial_gxmu += double(g[o]) * double(x[o] - m);
  }
  const T sum_g = static_cast<T>(block_sum(partial_g, shared));
  const T sum_gxh = static_cast<T>(block_sum(partial_gxmu, shared)) * r;  // the sum of grad * xhat
  if (threadIdx.x == 0) {
    if (gw) gw[c] = sum_gxh;
    if (gb) gb[c] = sum_g;
  }
  if (!gx) return;
  const T a = train && count > 0 ? sum_g / static_cast<T>(count) : T(0);
  const T k = train && count > 0 ? sum_gxh * r / static_cast<T>(count) : T(0);
  for (int64_t i = threadIdx.x; i < count; i += kThreads) {
    const int64_t o = channel_offset(p, c, i);
    gx[o] = wc * r * (g[o] - a - (x[o] - m) * k);
  }
}

// Calls launch(tag, stream) for x's dtype with x's device current: a launch of one block per channel.
template <typename F>
void launch_per_channel(const Tensor& x, const char* what, F&& launch) {
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  const cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_float_double(x.dtype(), what, [&](auto tag) {
    launch(tag, stream);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void batch_norm_cuda(const BatchNormForward& a) {
  launch_per_channel(a.x, "native_batch_norm", [&](auto tag, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    batch_norm_forward_kernel<T><<<static_cast<unsigned>(a.p.C), kThreads, 0, stream>>>(
        a.p, a.training, a.momentum, a.eps, a.x.data_ptr<T>(), ptr_or_null<T>(a.weight), ptr_or_null<T>(a.bias),
        ptr_or_null<T>(a.running_mean), ptr_or_null<T>(a.running_var), a.y.data_ptr<T>(), a.save_mean.data_ptr<T>(),
        a.save_invstd.data_ptr<T>());
  });
}

void batch_norm_backward_cuda(const BatchNormBackward& a) {
  launch_per_channel(a.x, "native_batch_norm_backward", [&](auto tag, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    batch_norm_backward_kernel<T><<<static_cast<unsigned>(a.p.C), kThreads, 0, stream>>>(
        a.p, a.train, a.grad_out.data_ptr<T>(), a.x.data_ptr<T>(), ptr_or_null<T>(a.weight), a.mean.data_ptr<T>(),
        a.invstd.data_ptr<T>(), ptr_or_null<T>(a.grad_input), ptr_or_null<T>(a.grad_weight),
        ptr_or_null<T>(a.grad_bias));
  });
}

}  // namespace

TL_REGISTER_STUB(batch_norm_stub, CUDA, &batch_norm_cuda);
TL_REGISTER_STUB(batch_norm_backward_stub, CUDA, &batch_norm_backward_cuda);

}  // namespace tl::native
