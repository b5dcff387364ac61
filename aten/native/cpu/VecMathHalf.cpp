// Vector math for float16 and bfloat16 (Note [Vector math]) through the float routines.
#include <algorithm>

#include "aten/native/cpu/HalfConvert.h"
#include "aten/native/cpu/VecMath.h"

namespace tl::native::vecmath {

namespace {

constexpr int64_t kBlock = 512;  // floats per operand buffer: they stay in L1

template <typename T>
void unary_in_float(Unary f, const T* x, T* y, int64_t n) {
  float buf[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    cpu::convert(x + i, buf, len);
    unary<float>(f, buf, buf, len);
    cpu::convert(buf, y + i, len);
  }
}

template <typename T>
void binary_in_float(Binary f, const T* a, const T* b, T* y, int64_t n) {
  float abuf[kBlock], bbuf[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    cpu::convert(a + i, abuf, len);
    cpu::convert(b + i, bbuf, len);
    binary<float>(f, abuf, bbuf, abuf, len);
    cpu::convert(abuf, y + i, len);
  }
}

}  // namespace

template <> void unary<Half>(Unary f, const Half* x, Half* y, int64_t n) { unary_in_float(f, x, y, n); }
template <> void unary<BFloat16>(Unary f, const BFloat16* x, BFloat16* y, int64_t n) { unary_in_float(f, x, y, n); }
template <> void binary<Half>(Binary f, const Half* a, const Half* b, Half* y, int64_t n) {
  binary_in_float(f, a, b, y, n);
}
template <> void binary<BFloat16>(Binary f, const BFloat16* a, const BFloat16* b, BFloat16* y, int64_t n) {
  binary_in_float(f, a, b, y, n);
}

}  // namespace tl::native::vecmath
