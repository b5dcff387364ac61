#pragma once
// int64 arithmetic on user-given sizes, strides, paddings and kernel sizes that raises a
// RuntimeError naming the operator instead of wrapping (padding=2**63-1 and the like). The
// products of whole size lists go through checked_numel & co. (Note [Checked sizes]).
#include <cstdint>

#include "aten/core/Exception.h"

namespace tl {

[[noreturn]] inline void size_arithmetic_overflow(const char* op) {
  TL_ERROR(op, ": the sizes, stride, padding and dilation overflow int64");
}
inline int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) size_arithmetic_overflow(op);
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) size_arithmetic_overflow(op);
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) size_arithmetic_overflow(op);
  return r;
}

}  // namespace tl
