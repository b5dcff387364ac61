#pragma once
// Note [CPU elementwise loops]: cpu_kernel(iter, f) runs a scalar functor over a built
// TensorIterator (one output, N inputs; operand types are the functor's argument and
// result types). The inner loop has three shapes, chosen per call of the 1-D loop:
// all operands contiguous, one input a broadcast scalar (stride 0) with the rest
// contiguous, and the general strided case. The first two are written so the compiler
// vectorises them; the contiguous one calls the vector math layer for the functors that
// cpu/VecMathLoops.h names.
#include <cstring>
#include <utility>

#include "aten/native/FunctionTraits.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/VecMathLoops.h"

namespace tl::native {

namespace detail {

template <typename F, size_t... I>
inline void contiguous_loop(char** data, int64_t n, F& f, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  R* __restrict out = reinterpret_cast<R*>(data[0]);
  std::tuple<const typename traits::template arg<I>* __restrict...> in{
      reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1])...};
  for (int64_t i = 0; i < n; ++i) out[i] = f(std::get<I>(in)[i]...);
}

// Input S is a broadcast scalar; the other inputs and the output are contiguous.
template <size_t S, typename F, size_t... I>
inline void scalar_loop(char** data, int64_t n, F& f, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  R* __restrict out = reinterpret_cast<R*>(data[0]);
  const auto s = *reinterpret_cast<const typename traits::template arg<S>*>(data[S + 1]);
  std::tuple<const typename traits::template arg<I>* __restrict...> in{
      reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1])...};
  for (int64_t i = 0; i < n; ++i) out[i] = f((I == S ? s : std::get<I>(in)[i])...);
}

template <typename F, size_t... I>
inline void strided_loop(char** data, const int64_t* strides, int64_t n, F& f, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<R*>(data[0] + i * strides[0]) =
        f(*reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1] + i * strides[I + 1])...);
  }
}

template <typename F, size_t... S>
inline bool try_scalar_loops(char** data, const int64_t* strides, int64_t n, F& f, std::index_sequence<S...> seq) {
  using traits = function_traits<F>;
  constexpr size_t N = traits::arity;
  bool done = false;
  [[maybe_unused]] auto attempt = [&](auto s_const) {  // unused for a nullary functor (fill)
    constexpr size_t SI = decltype(s_const)::value;
    if (done || strides[SI + 1] != 0) return;
    if (strides[0] != sizeof(typename traits::result_type)) return;
    bool ok = true;
    auto check = [&](auto i_const) {
      constexpr size_t II = decltype(i_const)::value;
      if (II != SI && strides[II + 1] != sizeof(typename traits::template arg<II>)) ok = false;
    };
    (check(std::integral_constant<size_t, S>{}), ...);
    if (!ok) return;
    scalar_loop<SI>(data, n, f, std::make_index_sequence<N>{});
    done = true;
  };
  (attempt(std::integral_constant<size_t, S>{}), ...);
  (void)seq;
  return done;
}

}  // namespace detail

template <typename F>
void cpu_kernel(TensorIterator& iter, F f, int64_t grain_size = 32768) {
  using traits = function_traits<F>;
  constexpr size_t N = traits::arity;
  TL_CHECK(iter.noutputs() == 1 && iter.ninputs() == static_cast<int>(N), "cpu_kernel: functor arity ", N,
           " does not match the iterator's ", iter.ninputs(), " inputs");
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        bool contiguous = strides[0] == sizeof(typename traits::result_type);
        auto check = [&](auto i_const) {
          constexpr size_t II = decltype(i_const)::value;
          if (strides[II + 1] != sizeof(typename traits::template arg<II>)) contiguous = false;
        };
        [&]<size_t... I>(std::index_sequence<I...>) { (check(std::integral_constant<size_t, I>{}), ...); }(
            std::make_index_sequence<N>{});
        if (contiguous) {
          if constexpr (VecMathOp<F>::value) VecMathOp<F>::run(data, n);
          else detail::contiguous_loop(data, n, f, std::make_index_sequence<N>{});
        } else if (!detail::try_scalar_loops(data, strides, n, f, std::make_index_sequence<N>{})) {
          detail::strided_loop(data, strides, n, f, std::make_index_sequence<N>{});
        }
      },
      grain_size);
}

}  // namespace tl::native
