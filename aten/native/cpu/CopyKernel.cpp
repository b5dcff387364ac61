// copy_ on CPU: broadcasts src to self's shape and converts between any two dtypes.
// Copies that involve a CUDA tensor are handed to the CUDA kernel.
#include <cstring>

#include "aten/native/Copy.h"
#include "aten/native/cpu/HalfConvert.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/copy.h"
#include "generated/ops/copy_native.h"

namespace tl::native {

namespace {

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// float <-> float16/bfloat16: contiguous runs take the bulk conversions (Note [Half conversions]).
template <typename S, typename D>
void convert_loop(TensorIterator& iter) {
  iter.for_each(
      [](char** data, const int64_t* strides, int64_t n) {
        if (strides[0] == sizeof(D) && strides[1] == sizeof(S)) {
          cpu::convert(reinterpret_cast<const S*>(data[1]), reinterpret_cast<D*>(data[0]), n);
        } else {
          CastFunctor<S, D> f;
          detail::strided_loop(data, strides, n, f, std::make_index_sequence<1>{});
        }
      });
}

}  // namespace

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
    const bool stream = nbytes >= detail::kStreamBytes;  // Note [Streaming stores]
#pragma omp parallel for if (nbytes > 4 * kChunk) schedule(static)
    for (int64_t off = 0; off < nbytes; off += kChunk) {
      if (stream) {
        detail::stream_copy(dst + off, from + off, std::min(kChunk, nbytes - off));
        detail::stream_fence();  // by the thread that stored
      } else {
        std::memcpy(dst + off, from + off, std::min(kChunk, nbytes - off));
      }
    }
    return self;
  }
  TensorIterator iter = copy_iter(self, src);
  if (is_complex(src.dtype()) && !is_complex(self.dtype()))
    warn("Casting complex values to real discards the imaginary part");
  dispatch_all_types_and_complex(self.dtype(), "copy_", [&](auto dst_tag) {
    using D = typename decltype(dst_tag)::type;
    dispatch_all_types_and_complex(src.dtype(), "copy_", [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      if constexpr ((std::is_same_v<S, float> && is_half_v<D>) || (is_half_v<S> && std::is_same_v<D, float>))
        convert_loop<S, D>(iter);
      else
        cpu_kernel(iter, CastFunctor<S, D>{});
    });
  });
  return self;
}

}  // namespace tl::native
