// CUDA recursions of ctc_loss (LossCTC.h): a block per sample, its threads over the extended
// states; each time step waits for the one before it (__syncthreads). The backward keeps beta in
// a (N, T, Smax) buffer, then a thread per (time, class) sums alpha * beta over the states of its
// class, as the CPU does.
#include <algorithm>
#include <limits>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/LossCTC.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

constexpr int kThreads = 256;

// Per-sample arguments, on the device: input and target lengths, where each target starts.
struct CtcSamples {
  const int64_t* input_lengths;
  const int64_t* target_lengths;
  const int64_t* target_start;
  const int64_t* labels;
};

template <typename T>
__global__ void ctc_alpha_kernel(int64_t Tmax, int64_t N, int64_t C, int64_t Smax, CtcSamples smp, int64_t blank,
                                 const T* x, T* nll, T* log_alpha) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int64_t n = blockIdx.x;
  const int64_t Tn = smp.input_lengths[n], L = smp.target_lengths[n], S = 2 * L + 1;
  const ctc::Extended label{smp.labels + smp.target_start[n], blank};
  auto lp = [&](int64_t t, int64_t c) { return x[(t * N + n) * C + c]; };
  T* la = log_alpha + n * Tmax * Smax;
  for (int64_t i = threadIdx.x; i < Tmax * Smax; i += blockDim.x) la[i] = kNegInf;
  __syncthreads();
  if (Tn == 0) {  // no frames: only the empty target has an alignment
    if (threadIdx.x == 0) nll[n] = L == 0 ? T(0) : std::numeric_limits<T>::infinity();
    return;
  }
  if (threadIdx.x == 0) {
    la[0] = lp(0, blank);
    if (L > 0) la[1] = lp(0, label(1));
  }
  __syncthreads();
  for (int64_t t = 1; t < Tn; ++t) {
    const T* prev = la + (t - 1) * Smax;
    T* cur = la + t * Smax;
    for (int64_t s = threadIdx.x; s < S; s += blockDim.x) {
      const T stay = prev[s], step = s > 0 ? prev[s - 1] : kNegInf;
      const T skip = s > 1 && label(s) != label(s - 2) ? prev[s - 2] : kNegInf;
      cur[s] = ctc::log_sum3(stay, step, skip) + lp(t, label(s));
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const T* last = la + (Tn - 1) * Smax;
    nll[n] = -(S > 1 ? ctc::log_add(last[S - 1], last[S - 2]) : last[0]);
  }
}

template <typename T>
__global__ void ctc_gradient_kernel(int64_t Tmax, int64_t N, int64_t C, int64_t Smax, CtcSamples smp, int64_t blank,
                                    bool zero_infinity, const T* x, const T* grad, const T* nll, const T* log_alpha,
                                    T* log_beta, T* result) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int64_t n = blockIdx.x;
  const int64_t Tn = smp.input_lengths[n], L = smp.target_lengths[n], S = 2 * L + 1;
  const T loss = nll[n];
  if (Tn == 0 || (zero_infinity && loss == std::numeric_limits<T>::infinity())) return;
  const ctc::Extended label{smp.labels + smp.target_start[n], blank};
  auto lp = [&](int64_t t, int64_t c) { return x[(t * N + n) * C + c]; };
  T* lb = log_beta + n * Tmax * Smax;
  const T* la = log_alpha + n * Tmax * Smax;
  for (int64_t s = threadIdx.x; s < S; s += blockDim.x)
    lb[(Tn - 1) * Smax + s] = s + 2 >= S ? lp(Tn - 1, label(s)) : kNegInf;
  __syncthreads();
  for (int64_t t = Tn - 2; t >= 0; --t) {
    const T* next = lb + (t + 1) * Smax;
    T* cur = lb + t * Smax;
    for (int64_t s = threadIdx.x; s < S; s += blockDim.x) {
      const T stay = next[s], step = s + 1 < S ? next[s + 1] : kNegInf;
      const T skip = s + 2 < S && label(s + 2) != label(s) ? next[s + 2] : kNegInf;
      cur[s] = ctc::log_sum3(stay, step, skip) + lp(t, label(s));
    }
    __syncthreads();
  }
  const T gn = grad[n];
  for (int64_t i = threadIdx.x; i < Tn * C; i += blockDim.x) {
    const int64_t t = i / C, c = i % C;
    T occupancy = kNegInf;
    for (int64_t s = 0; s < S; ++s)
      if (label(s) == c) occupancy = ctc::log_add(occupancy, la[t * Smax + s] + lb[t * Smax + s]);
    const T v = lp(t, c);
    result[(t * N + n) * C + c] = (std::exp(v) - std::exp(occupancy + loss - v)) * gn;
  }
}

// The per-sample arguments copied to the device (kept alive by `buffers`).
CtcSamples upload_samples(const CtcGeom& g, IntArrayRef input_lengths, IntArrayRef target_lengths, Device device,
                          std::vector<Tensor>& buffers) {
  auto upload = [&](IntArrayRef values) {
    const int64_t size[] = {static_cast<int64_t>(values.size())};
    Tensor host = empty_tensor(IntArrayRef(size, 1), TensorOptions(ScalarType::Long));
    std::copy(values.begin(), values.end(), host.data_ptr<int64_t>());
    buffers.push_back(host.to(device));
    return static_cast<const int64_t*>(buffers.back().data_ptr());
  };
  CtcSamples smp{};
  smp.input_lengths = upload(input_lengths);
  smp.target_lengths = upload(target_lengths);
  smp.target_start = upload(IntArrayRef(g.target_start.data(), g.target_start.size()));
  buffers.push_back(g.labels.to(device));
  smp.labels = static_cast<const int64_t*>(buffers.back().data_ptr());
  return smp;
}

void ctc_loss_cuda(const CtcGeom& g, const Tensor& x, IntArrayRef input_lengths, IntArrayRef target_lengths,
                   int64_t blank, const Tensor& nll, const Tensor& log_alpha) {
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  std::vector<Tensor> buffers;
  const CtcSamples smp = upload_samples(g, input_lengths, target_lengths, x.device(), buffers);
  const int64_t Smax = 2 * g.max_target + 1;
  dispatch_float_double(x.dtype(), "ctc_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ctc_alpha_kernel<T><<<static_cast<unsigned>(g.N), kThreads, 0, stream>>>(
        g.T, g.N, g.C, Smax, smp, blank, static_cast<const T*>(x.data_ptr()), static_cast<T*>(nll.data_ptr()),
        static_cast<T*>(log_alpha.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void ctc_loss_backward_cuda(const CtcGeom& g, const Tensor& grad, const Tensor& x, IntArrayRef input_lengths,
                            IntArrayRef target_lengths, const Tensor& nll, const Tensor& log_alpha, int64_t blank,
                            bool zero_infinity, const Tensor& result) {
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  std::vector<Tensor> buffers;
  const CtcSamples smp = upload_samples(g, input_lengths, target_lengths, x.device(), buffers);
  const int64_t Smax = 2 * g.max_target + 1;
  Tensor log_beta = empty_tensor(log_alpha.sizes(), log_alpha.options());
  dispatch_float_double(x.dtype(), "ctc_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ctc_gradient_kernel<T><<<static_cast<unsigned>(g.N), kThreads, 0, stream>>>(
        g.T, g.N, g.C, Smax, smp, blank, zero_infinity, static_cast<const T*>(x.data_ptr()),
        static_cast<const T*>(grad.data_ptr()), static_cast<const T*>(nll.data_ptr()),
        static_cast<const T*>(log_alpha.data_ptr()), static_cast<T*>(log_beta.data_ptr()),
        static_cast<T*>(result.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

TL_REGISTER_STUB(ctc_loss_stub, CUDA, &ctc_loss_cuda);
TL_REGISTER_STUB(ctc_loss_backward_stub, CUDA, &ctc_loss_backward_cuda);

}  // namespace tl::native
