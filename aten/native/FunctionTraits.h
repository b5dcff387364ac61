#pragma once
// Argument and result types of a callable, for kernels that read their operand types off
// the functor they are given.
#include <cstddef>
#include <tuple>
#include <type_traits>

namespace tl {

template <typename T>
struct function_traits : function_traits<decltype(&T::operator())> {};

template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...) const> {
  using result_type = R;
  static constexpr size_t arity = sizeof...(Args);
  template <size_t I>
  using arg = std::decay_t<std::tuple_element_t<I, std::tuple<Args...>>>;
};

template <typename C, typename R, typename... Args>
struct function_traits<R (C::*)(Args...)> : function_traits<R (C::*)(Args...) const> {};

template <typename R, typename... Args>
struct function_traits<R (*)(Args...)> {
  using result_type = R;
  static constexpr size_t arity = sizeof...(Args);
  template <size_t I>
  using arg = std::decay_t<std::tuple_element_t<I, std::tuple<Args...>>>;
};

}  // namespace tl
