#pragma once
// Note [Shared functors]: the math of every elementwise op, written once as a functor over
// its compute type and used by both the CPU loops (cpu/Loops.h) and the CUDA launcher
// (cuda/Loops.cuh). Half types compute in float (opmath_t) and round on store.
#include <cmath>

#include "aten/core/Macros.h"
#include "aten/core/ScalarType.h"

namespace tl::native {

template <typename T>
struct AddFunctor {
  using op_t = opmath_t<T>;
  op_t alpha;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a || (alpha && b);
    else return static_cast<T>(static_cast<op_t>(a) + alpha * static_cast<op_t>(b));
  }
};

}  // namespace tl::native
