// copy_ on CUDA. It handles every direction: host -> device, device -> host
// (reached through the CPU copy_ kernel, which forwards copies whose source is CUDA),
// device -> device on one GPU (a cast kernel, or cudaMemcpyAsync when nothing changes) and
// across GPUs. Transfers between host and device go through a dense staging buffer with the
// destination's dtype and shape, so conversion, broadcasting and arbitrary strides reuse
// the CPU and GPU cast kernels and every cudaMemcpy is one contiguous block on the current
// stream. From pageable host memory cudaMemcpyAsync returns once the host side is consumed
// (host -> device); device -> host copies synchronise the stream before returning, except a
// non_blocking copy straight into pinned memory (Tensor.pin_memory), which, as in PyTorch,
// the caller orders with a synchronize or an event.
#include "aten/cuda/CUDAContext.h"
#include "aten/cuda/CUDAHooks.h"
#include "aten/native/Copy.h"
#include "aten/native/cuda/Loops.cuh"
#include "generated/ops/copy.h"
#include "generated/ops/copy_native.h"
#include "generated/ops/view_as_real.h"

namespace tl::native {

namespace {

int64_t nbytes_of(const Tensor& t) { return t.numel() * static_cast<int64_t>(t.element_size()); }

// self and src dense, same dtype and shape: one memcpy does it.
bool plain_copy(const Tensor& self, const Tensor& src) {
  return self.dtype() == src.dtype() && self.is_contiguous() && src.is_contiguous() && self.sizes().equals(src.sizes());
}

// Both on the same CUDA device: cast/broadcast/strided kernel, or a memcpy.
void copy_same_device(const Tensor& self, const Tensor& src) {
  const int device = self.device().index;
  cuda::CUDAGuard guard(device);
  if (plain_copy(self, src)) {
    TL_CUDA_CHECK(cudaMemcpyAsync(self.data_ptr(), src.data_ptr(), nbytes_of(self), cudaMemcpyDeviceToDevice,
                                  cuda::current_cuda_stream(device)));
    return;
  }
  TensorIterator iter = copy_iter(self, src);
  dispatch_all_types(iter.dtype(0), "copy_", [&](auto dst_tag) {
    using D = typename decltype(dst_tag)::type;
    dispatch_all_types(iter.dtype(1), "copy_", [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      gpu_kernel(iter, CastFunctor<S, D>{});
    });
  });
  iter.output();
}

// A dense tensor with self's dtype and shape holding src (broadcast and converted), on
// src's device; src itself when it already is one.
Tensor dense_like_self_on_src_device(const Tensor& self, const Tensor& src) {
  if (plain_copy(self, src)) return src;
  Tensor tmp = empty_tensor(self.sizes(), TensorOptions(self.dtype(), src.device()));
  tmp.copy_(src);
  return tmp;
}

void copy_host_to_device(const Tensor& self, const Tensor& src) {
  const int device = self.device().index;
  cuda::CUDAGuard guard(device);
  Tensor host = dense_like_self_on_src_device(self, src);  // CPU kernels: cast, broadcast, gather
  Tensor dst = self.is_contiguous() ? self : empty_tensor(self.sizes(), TensorOptions(self.dtype(), self.device()));
  TL_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), host.data_ptr(), nbytes_of(dst), cudaMemcpyHostToDevice,
                                cuda::current_cuda_stream(device)));
  if (!dst.is_same(self)) copy_same_device(self, dst);
}

void copy_device_to_host(const Tensor& self, const Tensor& src, bool non_blocking) {
  const int device = src.device().index;
  cuda::CUDAGuard guard(device);
  Tensor dev = dense_like_self_on_src_device(self, src);  // GPU kernels: cast, broadcast, gather
  Tensor dst = self.is_contiguous() ? self : empty_tensor(self.sizes(), TensorOptions(self.dtype(), self.device()));
  cudaStream_t stream = cuda::current_cuda_stream(device);
  TL_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), dev.data_ptr(), nbytes_of(dst), cudaMemcpyDeviceToHost, stream));
  if (non_blocking && dst.is_same(self) && cuda::is_pinned_storage(*self.impl()->storage())) return;
  TL_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!dst.is_same(self)) self.copy_(dst);  // CPU strided copy
}

void copy_device_to_device(const Tensor& self, const Tensor& src) {
  if (self.device() == src.device()) return copy_same_device(self, src);
  // Across GPUs: make a dense copy on the source GPU, move the bytes, scatter on the target.
  Tensor from = dense_like_self_on_src_device(self, src);
  Tensor dst = self.is_contiguous() ? self : empty_tensor(self.sizes(), TensorOptions(self.dtype(), self.device()));
  {
    // Order the transfer after the work that produced `from` on the source device.
    cuda::CUDAGuard g(src.device().index);
    TL_CUDA_CHECK(cudaStreamSynchronize(cuda::current_cuda_stream(src.device().index)));
  }
  cuda::CUDAGuard guard(self.device().index);
  cudaStream_t stream = cuda::current_cuda_stream(self.device().index);
  TL_CUDA_CHECK(cudaMemcpyPeerAsync(dst.data_ptr(), self.device().index, from.data_ptr(), src.device().index,
                                    nbytes_of(dst), stream));
  // Wait before `from` (a temporary, or the caller's src) can return to the source pool:
  // the source device's streams do not order after this transfer.
  TL_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!dst.is_same(self)) copy_same_device(self, dst);
}

}  // namespace

Tensor copy_cuda_(const Tensor& self, const Tensor& src, bool non_blocking) {
  if (self.is_same(src) || self.numel() == 0) return self;
  // Shape check up front, with the same message for every direction.
  TL_CHECK(broadcast_shapes(self.sizes(), src.sizes()) == self.sizes().vec(), "copy_: the source of shape ",
           src.sizes(), " cannot be broadcast to the destination of shape ", self.sizes());
  // Complex values move as their (real, imaginary) pairs: the cast kernels are real-only.
  if (is_complex(self.dtype()) && is_complex(src.dtype())) {
    copy_cuda_(tl::view_as_real(self), tl::view_as_real(src), non_blocking);
    return self;
  }
  if (self.is_cuda() && src.is_cuda()) copy_device_to_device(self, src);
  else if (self.is_cuda()) copy_host_to_device(self, src);
  else copy_device_to_host(self, src, non_blocking);
  return self;
}

}  // namespace tl::native
