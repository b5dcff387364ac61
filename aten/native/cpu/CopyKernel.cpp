// copy_ on CPU: broadcasts src to self's shape and converts between any two dtypes.
// Copies that involve a CUDA tensor are handed to the CUDA kernel.
#include <cstring>

#include "aten/native/Copy.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/copy.h"
#include "generated/ops/copy_native.h"

namespace tl::native {

Tensor copy_cpu_(const Tensor& self, const Tensor& src, bool non_blocking) {
  if (src.is_cuda()) {
    auto k = ops::copy_::kernels[static_cast<int>(DeviceType::CUDA)];
    TL_CHECK(k != nullptr, "Torchlite not compiled with CUDA enabled: cannot copy from ", src.device());
    return k(self, src, non_blocking);
  }
  if (self.is_same(src) || self.numel() == 0) return self;
  if (self.dtype() == src.dtype() && self.is_contiguous() && src.is_contiguous() &&
      self.sizes().equals(src.sizes())) {
    char* dst = static_cast<char*>(self.data_ptr());
    const char* from = static_cast<const char*>(src.data_ptr());
    int64_t nbytes = self.numel() * static_cast<int64_t>(self.element_size());
    constexpr int64_t kChunk = int64_t(1) << 20;
#pragma omp parallel for if (nbytes > 4 * kChunk) schedule(static)
    for (int64_t off = 0; off < nbytes; off += kChunk) std::memcpy(dst + off, from + off, std::min(kChunk, nbytes - off));
    return self;
  }
  TensorIterator iter = copy_iter(self, src);
  if (is_complex(src.dtype()) && !is_complex(self.dtype()))
    warn("Casting complex values to real discards the imaginary part");
  dispatch_all_types_and_complex(self.dtype(), "copy_", [&](auto dst_tag) {
    using D = typename decltype(dst_tag)::type;
    dispatch_all_types_and_complex(src.dtype(), "copy_", [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      cpu_kernel(iter, CastFunctor<S, D>{});
    });
  });
  return self;
}

}  // namespace tl::native
