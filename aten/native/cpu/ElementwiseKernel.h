#pragma once
// Note [Elementwise kernel helper]: most elementwise CPU kernels are "pick T from the
// iterator's compute dtype, run Functor<T> with cpu_kernel". elementwise_kernel<Functor, Set>
// does that once: Set restricts the dtypes (others raise PyTorch's NotImplementedError), and
// the Scalars passed after the name are converted to opmath_t<T> and become the functor's
// fields in order (alpha, exponent...).
#include "aten/native/BinaryOps.h"
#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {

enum class Types { All, NoBool, Integral, Floating };

template <Types S, typename F>
void dispatch_types(ScalarType t, const char* name, F&& f) {
#define TL_CASE(cpp, st)     \
  case ScalarType::st:       \
    return f(TypeTag<cpp>{});
  if constexpr (S == Types::Integral) {
    switch (t) {
      TL_CASE(bool, Bool)
      TL_CASE(uint8_t, Byte)
      TL_CASE(int8_t, Char)
      TL_CASE(int16_t, Short)
      TL_CASE(int32_t, Int)
      TL_CASE(int64_t, Long)
      default:
        break;
    }
  } else if constexpr (S == Types::Floating) {
    switch (t) {
      TL_CASE(::tl::Half, Half)
      TL_CASE(::tl::BFloat16, BFloat16)
      TL_CASE(float, Float)
      TL_CASE(double, Double)
      default:
        break;
    }
  } else {
    switch (t) {
#define TL_CASE_ALL(cpp, st)                                           \
  case ScalarType::st:                                                 \
    if constexpr (S == Types::NoBool && std::is_same_v<cpp, bool>) {   \
      break;                                                           \
    } else {                                                           \
      return f(TypeTag<cpp>{});                                        \
    }
      TL_FORALL_SCALAR_TYPES(TL_CASE_ALL)
#undef TL_CASE_ALL
    }
  }
#undef TL_CASE
  dtype_not_implemented(name, t);
}

template <template <class> class Functor, Types S = Types::All, typename... Scalars>
void elementwise_kernel(TensorIterator& iter, const char* name, const Scalars&... s) {
  dispatch_types<S>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu_kernel(iter, Functor<T>{s.template to<opmath_t<T>>()...});
  });
}

// Runs elementwise_kernel on an iterator built by the caller and returns its output.
template <template <class> class Functor, Types S = Types::All, typename... Scalars>
Tensor run_kernel(TensorIterator iter, const char* name, const Scalars&... s) {
  elementwise_kernel<Functor, S>(iter, name, s...);
  return iter.output();
}

}  // namespace tl::native
