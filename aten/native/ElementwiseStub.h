#pragma once
// The body of every elementwise stub kernel (Note [Stubs]), for any device: pick T from the
// iterator's compute dtype (Note [Dtype dispatch]), build Functor<T> from the stub's
// arguments, and hand it to the device's loop (cpu_kernel / gpu_kernel).
#include <type_traits>
#include <utility>

#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/FunctionTraits.h"
#include "aten/native/MakeFunctor.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

namespace detail {

// Whether Functor<T> of a float16 / bfloat16 T is Functor<float> with its result rounded once to
// T, so that a loop may compute it in float (Note [Half elementwise in float]): it maps T
// operands to T, is built from plain conversions (make() rounds bounds and replacements to T),
// and is not one of the functors that step T's own bits.
template <typename F, typename... Args>
constexpr auto built_by_make(int) -> decltype(F::make(std::declval<const Args&>()...), true) {
  return true;
}
template <typename F, typename... Args>
constexpr bool built_by_make(long) {
  return false;
}
template <typename F, typename T, size_t... I>
constexpr bool maps_to_itself(std::index_sequence<I...>) {
  using traits = function_traits<F>;
  return std::is_same_v<typename traits::result_type, T> &&
         (std::is_same_v<typename traits::template arg<I>, T> && ...);
}
template <template <class> class Functor, typename T, typename... Args>
constexpr bool computes_in_float() {
  if constexpr (!std::is_same_v<T, Half> && !std::is_same_v<T, BFloat16>) {
    return false;
  } else {
    using F = Functor<T>;
    return !std::is_same_v<F, NextafterFunctor<T>> && !built_by_make<F, Args...>(0) &&
           maps_to_itself<F, T>(std::make_index_sequence<function_traits<F>::arity>{});
  }
}

// Loops whose kComputesHalfInFloat is true (the CPU's) have in_float<T>(iter, f32) for those.
template <typename Loop, template <class> class Functor, typename T, typename... Args>
constexpr bool loop_in_float() {
  if constexpr (!Loop::kComputesHalfInFloat) return false;
  else return computes_in_float<Functor, T, Args...>();
}

// A function template of its own, not inline in run_elementwise's generic lambda: there the loop's
// type is already known, and nvcc rejects the discarded in_float call of a Loop that lacks it.
template <template <class> class Functor, typename T, typename Loop, typename... Args>
void run_loop(TensorIterator& iter, const Loop& loop, const Args&... args) {
  if constexpr (loop_in_float<Loop, Functor, T, Args...>())
    loop.template in_float<T>(iter, make_functor<Functor, float>(args...));
  else
    loop(iter, make_functor<Functor, T>(args...));
}

}  // namespace detail

template <template <class> class Functor, TypeSet S, typename Loop, typename... Args>
void run_elementwise(TensorIterator& iter, const char* name, const Loop& loop, const Args&... args) {
  dispatch_types<S>(iter.common_dtype(), name, [&](auto tag) {
    detail::run_loop<Functor, typename decltype(tag)::type>(iter, loop, args...);
  });
}

}  // namespace tl::native
