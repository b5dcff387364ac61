#pragma once
// How a stub's arguments become its functor (Note [Stubs]): make_functor<Functor, T>(args...).
// Kept apart from ElementwiseStub.h so that code outside the build (torchlite.compile's
// generated loops) can build functors exactly as the eager kernels do without the iterator.
#include <type_traits>

#include "aten/core/Scalar.h"
#include "aten/core/ScalarType.h"

namespace tl::native {

// A stub argument as a functor field: Scalars in the compute type, other values as they are.
template <typename OpT, typename A>
auto functor_field(const A& a) {
  if constexpr (std::is_same_v<A, Scalar>) return a.template to<OpT>();
  else return a;
}

// Functor<T>::make(args...) when the functor needs more than conversions (bounds that
// saturate, replacements rounded to T); otherwise its fields in order. Chosen by overload
// (int beats long) rather than a requires-expression, which nvcc's front end misjudges.
template <typename F, typename OpT, typename... Args>
auto make_functor_from(int, const Args&... args) -> decltype(F::make(args...)) {
  return F::make(args...);
}
template <typename F, typename OpT, typename... Args>
F make_functor_from(long, const Args&... args) {
  return F{functor_field<OpT>(args)...};
}
template <template <class> class Functor, typename T, typename... Args>
Functor<T> make_functor(const Args&... args) {
  return make_functor_from<Functor<T>, opmath_t<T>>(0, args...);
}

}  // namespace tl::native
