#pragma once
// The body of every elementwise stub kernel (Note [Stubs]), for any device: pick T from the
// iterator's compute dtype (Note [Dtype dispatch]), build Functor<T> from the stub's
// arguments, and hand it to the device's loop (cpu_kernel / gpu_kernel).
#include <type_traits>

#include "aten/core/Scalar.h"
#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

// A stub argument as a functor field: Scalars in the compute type, other values as they are.
template <typename OpT, typename A>
auto functor_field(const A& a) {
  if constexpr (std::is_same_v<A, Scalar>) return a.template to<OpT>();
  else return a;
}

// Functor<T>::make(args...) when the functor needs more than conversions (bounds that
// saturate, replacements rounded to T); otherwise its fields in order.
template <template <class> class Functor, typename T, typename... Args>
Functor<T> make_functor(const Args&... args) {
  if constexpr (requires { Functor<T>::make(args...); }) return Functor<T>::make(args...);
  else return Functor<T>{functor_field<opmath_t<T>>(args)...};
}

template <template <class> class Functor, TypeSet S, typename Loop, typename... Args>
void run_elementwise(TensorIterator& iter, const char* name, const Loop& loop, const Args&... args) {
  dispatch_types<S>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    loop(iter, make_functor<Functor, T>(args...));
  });
}

}  // namespace tl::native
