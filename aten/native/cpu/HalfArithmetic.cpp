// Note [Half arithmetic in registers] (cpu/HalfArithmetic.h), compiled once per CPU capability.
#include "aten/native/cpu/HalfArithmetic.h"

#include <algorithm>
#include <cstring>

#include "aten/native/cpu/SimdHalf.h"

namespace tl::native::cpu::CPU_CAPABILITY {

namespace {

using simd::VF;

// An input read at lane offset i: the array's vector, or the broadcast value.
template <typename T, bool Broadcast>
struct Input {
  const T* p;
  VF value;
  explicit Input(const T* data) : p(data), value(simd::splat(Broadcast ? static_cast<float>(*data) : 0.f)) {}
  VF at(int64_t i) const {
    if constexpr (Broadcast) return value;
    else return simd::load(p + i);
  }
  // The vector at i of an array that ends at i + rest (rest < kLanes), through a zero-padded copy.
  VF tail(int64_t i, int64_t rest) const {
    if constexpr (Broadcast) return value;
    T buf[simd::kLanes];
    std::fill(buf, buf + simd::kLanes, T(0.f));
    std::memcpy(buf, p + i, static_cast<size_t>(rest) * sizeof(T));
    return simd::load(buf);
  }
};

template <typename T, typename Op, typename... In>
void loop(Op op, T* out, int64_t n, In... in) {
  int64_t i = 0;
  for (; i + simd::kLanes <= n; i += simd::kLanes) simd::store(out + i, op(in.at(i)...));
  if (i == n) return;
  // The tail through kLanes-wide buffers: one more vector instead of a scalar copy of op.
  const int64_t rest = n - i;
  T obuf[simd::kLanes];
  simd::store(obuf, op(in.tail(i, rest)...));
  std::memcpy(out + i, obuf, static_cast<size_t>(rest) * sizeof(T));
}

template <typename T, typename Op>
void dispatch_broadcast(Op op, const T* a, bool a_broadcast, const T* b, bool b_broadcast, T* out, int64_t n) {
  if (a_broadcast) loop(op, out, n, Input<T, true>(a), Input<T, false>(b));
  else if (b_broadcast) loop(op, out, n, Input<T, false>(a), Input<T, true>(b));
  else loop(op, out, n, Input<T, false>(a), Input<T, false>(b));
}

}  // namespace

template <typename T>
void half_binary(HalfBinary op, float alpha, const T* a, bool a_broadcast, const T* b, bool b_broadcast, T* out,
                 int64_t n) {
  auto run = [&](auto f) { dispatch_broadcast(f, a, a_broadcast, b, b_broadcast, out, n); };
  const VF scale = simd::splat(op == HalfBinary::Sub ? -alpha : alpha);
  switch (op) {
    case HalfBinary::Add:
    case HalfBinary::Sub:
      // a - alpha * b is a + (-alpha) * b exactly; alpha == 1 is one add or sub without the product.
      if (alpha != 1.f) run([scale](VF x, VF y) { return simd::fma(scale, y, x); });
      else if (op == HalfBinary::Add) run([](VF x, VF y) { return x + y; });
      else run([](VF x, VF y) { return x - y; });
      return;
    case HalfBinary::Mul:
      run([](VF x, VF y) { return x * y; });
      return;
    case HalfBinary::Div:
      run([](VF x, VF y) { return x / y; });
      return;
  }
}

template <typename T>
void half_unary(HalfUnary op, const T* x, T* out, int64_t n) {
  const Input<T, false> in(x);
  switch (op) {
    case HalfUnary::Neg:
      loop([](VF v) { return -v; }, out, n, in);
      return;
    case HalfUnary::Abs:
      loop([](VF v) { return simd::abs(v); }, out, n, in);
      return;
    case HalfUnary::Sqrt:
      loop([](VF v) { return simd::sqrt(v); }, out, n, in);
      return;
    case HalfUnary::Relu:  // x where x > 0 or NaN, else +0 (as ReluFunctor)
      loop([](VF v) { return simd::select((v > 0.f) | !(v == v), v, 0.f); }, out, n, in);
      return;
  }
}

template void half_unary<Half>(HalfUnary, const Half*, Half*, int64_t);
template void half_unary<BFloat16>(HalfUnary, const BFloat16*, BFloat16*, int64_t);
template void half_binary<Half>(HalfBinary, float, const Half*, bool, const Half*, bool, Half*, int64_t);
template void half_binary<BFloat16>(HalfBinary, float, const BFloat16*, bool, const BFloat16*, bool, BFloat16*,
                                    int64_t);

}  // namespace tl::native::cpu::CPU_CAPABILITY
