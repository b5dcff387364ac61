#pragma once
// Pieces of copy_ shared by the CPU and CUDA kernels.
#include <type_traits>

#include "aten/native/TensorIterator.h"

namespace tl::native {

// Iterator for self.copy_(src): src broadcast to self's shape (never resized), any dtype pair.
TensorIterator copy_iter(const Tensor& self, const Tensor& src);

// One element's conversion: through the source's compute type; to bool as "!= 0".
template <typename S, typename D>
struct CastFunctor {
  TL_HOST_DEVICE D operator()(S v) const {
    if constexpr (std::is_same_v<D, bool>) return static_cast<opmath_t<S>>(v) != opmath_t<S>(0);
    else if constexpr (is_complex_v<S> && !is_complex_v<D>) return static_cast<D>(v.real());  // warned by copy_
    else if constexpr (is_complex_v<D> && !is_complex_v<S>)
      return D(static_cast<typename D::value_type>(static_cast<opmath_t<S>>(v)));
    else return static_cast<D>(static_cast<opmath_t<S>>(v));
  }
};

}  // namespace tl::native
