#pragma once
// The ops of the value reductions, shared by the CPU engine (Note [Reduction engine]) and the
// CUDA launcher (Note [CUDA reductions]): acc_t and out_t, identity(), reduce(acc, x),
// combine(a, b) for partial results, project(acc) for the final value.
#include <limits>
#include <type_traits>

#include "aten/core/Macros.h"
#include "aten/core/ScalarType.h"

namespace tl::native {

template <typename T> struct SumAcc { using type = opmath_t<T>; };
template <> struct SumAcc<float> { using type = double; };  // 16M-element float sums stay exact to ~1e-7
template <> struct SumAcc<std::complex<float>> { using type = std::complex<double>; };

template <typename T>
struct SumOp {
  using acc_t = typename SumAcc<T>::type;
  using out_t = T;
  acc_t scale = acc_t(1);  // mean: 1/N applied once, in acc_t
  TL_HOST_DEVICE acc_t identity() const { return acc_t(0); }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x) const { return a + static_cast<acc_t>(x); }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return a + b; }
  TL_HOST_DEVICE T project(acc_t a) const {
    if constexpr (std::is_same_v<T, bool>) return a != acc_t(0);
    else return static_cast<T>(a * scale);
  }
};

// nansum: a NaN adds nothing. Floating types only (an integer has no NaN: nansum is sum).
template <typename T>
struct NanSumOp : SumOp<T> {
  using typename SumOp<T>::acc_t;
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x) const {
    // Select the addend, then add: vectorised where the file is built with -fno-trapping-math
    // (cpu/ReduceOpsKernel.cpp, see CMakeLists.txt).
    return a + static_cast<acc_t>(x != x ? T(0) : x);
  }
};

template <typename T>
struct ProdOp {
  using acc_t = opmath_t<T>;
  using out_t = T;
  TL_HOST_DEVICE acc_t identity() const { return acc_t(1); }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x) const {
    if constexpr (std::is_same_v<T, bool>) return a && x;
    else return a * static_cast<acc_t>(x);
  }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return a * b;
  }
  TL_HOST_DEVICE T project(acc_t a) const { return static_cast<T>(a); }
};

// max/min propagate NaN like PyTorch.
template <typename T, bool IsMax>
struct MinMaxOp {
  using acc_t = opmath_t<T>;
  using out_t = T;
  TL_HOST_DEVICE acc_t identity() const {
    if constexpr (std::numeric_limits<acc_t>::has_infinity)
      return IsMax ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else
      return IsMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T xv) const {
    acc_t x = static_cast<acc_t>(xv);
    // Branch-free so the contiguous loops vectorise (max/min + unordered-compare blend).
    bool take = (IsMax ? (x > a) : (x < a)) | (x != x);
    return take ? x : a;
  }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (a != a) return a;
    if constexpr (IsMax) return (b > a || b != b) ? b : a;
    else return (b < a || b != b) ? b : a;
  }
  TL_HOST_DEVICE T project(acc_t a) const { return static_cast<T>(a); }
};

template <typename T, bool IsAll>
struct AllAnyOp {
  using acc_t = bool;
  using out_t = bool;
  TL_HOST_DEVICE acc_t identity() const { return IsAll; }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x) const {
    bool nz = static_cast<opmath_t<T>>(x) != opmath_t<T>(0);
    return IsAll ? (a && nz) : (a || nz);
  }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const { return IsAll ? (a && b) : (a || b); }
  TL_HOST_DEVICE bool project(acc_t a) const { return a; }
};

}  // namespace tl::native
