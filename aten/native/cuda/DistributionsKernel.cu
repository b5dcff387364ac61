// CUDA kernels of the Gamma and Dirichlet reparameterisation gradients (DistributionGradients.h,
// the CPU's element functions): one thread per element, in double, on contiguous operands.
#include <algorithm>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/DistributionGradients.h"
#include "aten/native/cuda/GridStride.cuh"

namespace tl::native {

namespace {

using grid_stride::kThreads;

__global__ void standard_gamma_grad_kernel(int64_t n, const double* a, const double* x, double* out) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    out[i] = standard_gamma_grad_one(a[i], x[i]);
}

__global__ void dirichlet_grad_kernel(int64_t n, const double* x, const double* alpha, const double* total,
                                      double* out) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    out[i] = dirichlet_grad_one(x[i], alpha[i], total[i]);
}

using grid_stride::grid_for;

const double* in(const Tensor& t) { return static_cast<const double*>(t.data_ptr()); }

void standard_gamma_grad_cuda(const Tensor& a, const Tensor& x, const Tensor& out) {
  const int device = out.device().index;
  cuda::CUDAGuard guard(device);
  const int64_t n = out.numel();
  standard_gamma_grad_kernel<<<grid_for(n), kThreads, 0, cuda::current_cuda_stream(device)>>>(
      n, in(a), in(x), static_cast<double*>(out.data_ptr()));
  TL_CUDA_KERNEL_LAUNCH_CHECK();
}

void dirichlet_grad_cuda(const Tensor& x, const Tensor& alpha, const Tensor& total, const Tensor& out) {
  const int device = out.device().index;
  cuda::CUDAGuard guard(device);
  const int64_t n = out.numel();
  dirichlet_grad_kernel<<<grid_for(n), kThreads, 0, cuda::current_cuda_stream(device)>>>(
      n, in(x), in(alpha), in(total), static_cast<double*>(out.data_ptr()));
  TL_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace

TL_REGISTER_STUB(standard_gamma_grad_stub, CUDA, &standard_gamma_grad_cuda);
TL_REGISTER_STUB(dirichlet_grad_stub, CUDA, &dirichlet_grad_cuda);

}  // namespace tl::native
