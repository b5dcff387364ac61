#pragma once
// Note [CPU elementwise loops]: cpu_kernel(iter, f) runs a scalar functor over a built
// TensorIterator (one output, N inputs; operand types are the functor's argument and
// result types). The inner loop has three shapes, chosen per call of the 1-D loop:
// all operands contiguous, one input a broadcast scalar (stride 0) with the rest
// contiguous, and the general strided case. The first two are written so the compiler
// vectorises them; the contiguous one calls the vector math layer for the functors that
// cpu/VecMathLoops.h names. cpu_kernel_in_float computes float16 and bfloat16 through the
// float functor (Note [Half elementwise in float]; the arithmetic in registers, Note [Half
// arithmetic in registers]). Large outputs are written with streaming stores (Note [Streaming
// stores]).
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/FunctionTraits.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/HalfArithmetic.h"
#include "aten/native/cpu/HalfConvert.h"
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

inline void check_arity(const TensorIterator& iter, size_t arity) {
  TL_CHECK(iter.noutputs() == 1 && iter.ninputs() == static_cast<int>(arity), "cpu_kernel: functor arity ", arity,
           " does not match the iterator's ", iter.ninputs(), " inputs");
}

// One call of the 1-D loop: contiguous (through the vector math layer where it has f), one
// broadcast scalar input, or strided. Not inlined: cpu_kernel's plain and streamed loops and
// cpu_kernel_in_float's float16 and bfloat16 loops call one copy per functor instead of each
// compiling its own. A stub shard then compiles in 15-20% less CPU time and copy_'s casts in 35%
// less; the cost is one call per 1-D row.
template <typename F>
[[gnu::noinline]] void loop_1d(F& f, char** data, const int64_t* strides, int64_t n) {
  using traits = function_traits<F>;
  constexpr size_t N = traits::arity;
  bool contiguous = strides[0] == sizeof(typename traits::result_type);
  auto check = [&](auto i_const) {
    constexpr size_t II = decltype(i_const)::value;
    if (strides[II + 1] != sizeof(typename traits::template arg<II>)) contiguous = false;
  };
  [&]<size_t... I>(std::index_sequence<I...>) { (check(std::integral_constant<size_t, I>{}), ...); }(
      std::make_index_sequence<N>{});
  if (contiguous) {
    if constexpr (VecMathOp<F>::value) VecMathOp<F>::run(data, n);
    else contiguous_loop(data, n, f, std::make_index_sequence<N>{});
  } else if (!try_scalar_loops(data, strides, n, f, std::make_index_sequence<N>{})) {
    strided_loop(data, strides, n, f, std::make_index_sequence<N>{});
  }
}

// Note [Streaming stores]: an output of at least kStreamBytes is computed a block at a time into
// an L1 buffer and copied out with non-temporal stores. A plain store first reads the line it
// writes (a fourth memory stream for a + b); a streaming store skips that read and the cache.
// Measured on the development machine (2 cores, 4 MiB L2 each, a virtualised 504 MiB L3), one
// thread, float32 a + b and -a: 16M elements (64 MiB out) 10-20% faster; 8M (32 MiB) and
// smaller 2-4% slower (the operands stay in cache, where a streaming store evicts its line).
// Outputs this large are not in any cache when the next op reads them either. Only inner rows of
// at least kStreamRowBytes stream: a short row (a per-channel bias added to small planes) would
// end in partly written lines and a fence each, 10-20x slower than plain stores. copy_'s
// contiguous path (cpu/CopyKernel.cpp) streams its chunks the same way.
constexpr int64_t kStreamBytes = int64_t{48} << 20;
constexpr int64_t kStreamRowBytes = int64_t{64} << 10;

#if defined(__SSE2__)
inline constexpr bool kHaveStreamingStores = true;

// Copies `bytes` from src to dst with non-temporal stores (plain ones for dst's unaligned head
// and tail). The caller fences (stream_fence) before the data is read by another thread.
inline void stream_copy(char* __restrict dst, const char* __restrict src, int64_t bytes) {
  const int64_t head = std::min<int64_t>(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, static_cast<size_t>(head));
  int64_t i = head;
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  std::memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
}

inline void stream_fence() { _mm_sfence(); }
#else
inline constexpr bool kHaveStreamingStores = false;
inline void stream_copy(char* dst, const char* src, int64_t bytes) { std::memcpy(dst, src, static_cast<size_t>(bytes)); }
inline void stream_fence() {}
#endif

// loop_1d with a contiguous output written by streaming stores: each block is computed into an
// L1 buffer by loop_1d (inputs in any layout) and then streamed out.
template <typename F>
inline void streamed_loop_1d(F& f, char** data, const int64_t* strides, int64_t n) {
  using R = typename function_traits<F>::result_type;
  constexpr size_t N = function_traits<F>::arity;
  constexpr int64_t kBlock = 8192 / sizeof(R);
  alignas(64) R buf[kBlock];
  char* block[N + 1];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    block[0] = reinterpret_cast<char*>(buf);
    for (size_t k = 1; k <= N; ++k) block[k] = data[k] + i * strides[k];
    loop_1d(f, block, strides, len);
    stream_copy(data[0] + i * strides[0], reinterpret_cast<const char*>(buf), len * static_cast<int64_t>(sizeof(R)));
  }
  stream_fence();
}

}  // namespace detail

template <typename F>
void cpu_kernel(TensorIterator& iter, F f, int64_t grain_size = 32768) {
  using R = typename function_traits<F>::result_type;
  detail::check_arity(iter, function_traits<F>::arity);
  if (detail::kHaveStreamingStores && iter.numel() * static_cast<int64_t>(sizeof(R)) >= detail::kStreamBytes) {
    iter.for_each(
        [&](char** data, const int64_t* strides, int64_t n) {
          if (strides[0] == sizeof(R) && n * static_cast<int64_t>(sizeof(R)) >= detail::kStreamRowBytes)
            detail::streamed_loop_1d(f, data, strides, n);
          else detail::loop_1d(f, data, strides, n);
        },
        grain_size);
    return;
  }
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) { detail::loop_1d(f, data, strides, n); },
                grain_size);
}

namespace detail {

// The float functors of cpu::half_binary and cpu::half_unary (Note [Half arithmetic in registers]).
template <typename G>
constexpr bool has_half_binary() {
  return std::is_same_v<G, AddFunctor<float>> || std::is_same_v<G, SubFunctor<float>> ||
         std::is_same_v<G, MulFunctor<float>> || std::is_same_v<G, DivFunctor<float>>;
}
template <typename G>
constexpr bool has_half_unary() {
  return std::is_same_v<G, NegFunctor<float>> || std::is_same_v<G, AbsFunctor<float>> ||
         std::is_same_v<G, SqrtFunctor<float>> || std::is_same_v<G, ReluFunctor<float>>;
}

// One 1-D loop of cpu_kernel_in_float through cpu::half_binary, where the output and the
// inputs are contiguous but for at most one broadcast input; false (nothing done) otherwise.
template <typename T, typename G>
bool try_half_binary(const G& f32, char** data, const int64_t* strides, int64_t n) {
  constexpr int64_t s = sizeof(T);
  const bool a_broadcast = strides[1] == 0, b_broadcast = strides[2] == 0;
  if (strides[0] != s || (strides[1] != s && !a_broadcast) || (strides[2] != s && !b_broadcast) ||
      (a_broadcast && b_broadcast))
    return false;
  using cpu::HalfBinary;
  constexpr HalfBinary op = std::is_same_v<G, AddFunctor<float>>   ? HalfBinary::Add
                            : std::is_same_v<G, SubFunctor<float>> ? HalfBinary::Sub
                            : std::is_same_v<G, MulFunctor<float>> ? HalfBinary::Mul
                                                                   : HalfBinary::Div;
  float alpha = 1.f;
  if constexpr (requires { f32.alpha; }) alpha = f32.alpha;
  cpu::half_binary<T>(op, alpha, reinterpret_cast<const T*>(data[1]),
                      a_broadcast, reinterpret_cast<const T*>(data[2]), b_broadcast, reinterpret_cast<T*>(data[0]), n);
  return true;
}

// Likewise through cpu::half_unary, where the output and the input are contiguous.
template <typename T, typename G>
bool try_half_unary(char** data, const int64_t* strides, int64_t n) {
  if (strides[0] != sizeof(T) || strides[1] != sizeof(T)) return false;
  using cpu::HalfUnary;
  constexpr HalfUnary op = std::is_same_v<G, NegFunctor<float>>   ? HalfUnary::Neg
                           : std::is_same_v<G, AbsFunctor<float>> ? HalfUnary::Abs
                           : std::is_same_v<G, SqrtFunctor<float>> ? HalfUnary::Sqrt
                                                                   : HalfUnary::Relu;
  cpu::half_unary<T>(op, reinterpret_cast<const T*>(data[1]), reinterpret_cast<T*>(data[0]), n);
  return true;
}

}  // namespace detail

// Note [Half elementwise in float]: computes an elementwise op on T (float16 or bfloat16) with
// f32, its functor for float, whose result rounded once to T is the op's. Each block of the 1-D loop is
// converted to float in buffers (cpu/HalfConvert.h: F16C for float16, strided operands gathered,
// broadcast ones converted once), computed by the float loop (vector math included), and rounded
// back: the per-element scalar conversions made float16 add several times slower than PyTorch.
// add, sub, mul, div, neg, abs, sqrt and relu skip the buffers where the layout allows (Note [Half
// arithmetic in registers]).
template <typename T, typename G>
void cpu_kernel_in_float(TensorIterator& iter, G f32, int64_t grain_size = 32768) {
  constexpr size_t N = function_traits<G>::arity;
  detail::check_arity(iter, N);
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if constexpr (detail::has_half_binary<G>()) {
          if (detail::try_half_binary<T>(f32, data, strides, n)) return;
        } else if constexpr (detail::has_half_unary<G>()) {
          if (detail::try_half_unary<T, G>(data, strides, n)) return;
        }
        constexpr int64_t kBlock = 1024;  // floats per operand buffer: all of them stay in L1
        alignas(64) float buf[N + 1][kBlock];
        char* fdata[N + 1];
        int64_t fstrides[N + 1];
        for (size_t k = 0; k <= N; ++k) {
          fdata[k] = reinterpret_cast<char*>(buf[k]);
          fstrides[k] = sizeof(float);
        }
        for (size_t k = 1; k <= N; ++k) {
          if (strides[k] != 0) continue;
          buf[k][0] = static_cast<float>(*reinterpret_cast<const T*>(data[k]));
          fstrides[k] = 0;
        }
        for (int64_t i = 0; i < n; i += kBlock) {
          const int64_t len = std::min(kBlock, n - i);
          for (size_t k = 1; k <= N; ++k) {
            if (strides[k] == sizeof(T)) {
              cpu::convert(reinterpret_cast<const T*>(data[k]) + i, buf[k], len);
            } else if (strides[k] != 0) {
              for (int64_t j = 0; j < len; ++j)
                buf[k][j] = static_cast<float>(*reinterpret_cast<const T*>(data[k] + (i + j) * strides[k]));
            }
          }
          detail::loop_1d(f32, fdata, fstrides, len);
          if (strides[0] == sizeof(T)) {
            cpu::convert(buf[0], reinterpret_cast<T*>(data[0]) + i, len);
          } else {
            for (int64_t j = 0; j < len; ++j) *reinterpret_cast<T*>(data[0] + (i + j) * strides[0]) = T(buf[0][j]);
          }
        }
      },
      grain_size);
}

}  // namespace tl::native
