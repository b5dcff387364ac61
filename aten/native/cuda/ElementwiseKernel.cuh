#pragma once
// CUDA twin of aten/native/cpu/ElementwiseKernel.h (Note [Elementwise kernel helper]):
// gpu_elementwise_kernel<Functor, Set> / run_gpu_kernel<Functor, Set> pick T from the
// iterator's compute dtype (same dtype sets, dispatch_types, as the CPU) and run Functor<T>
// with gpu_kernel. The Scalars after the name become the functor's fields, as opmath_t<T>.
#include "aten/native/cpu/ElementwiseKernel.h"
#include "aten/native/cuda/Loops.cuh"

namespace tl::native {

template <template <class> class Functor, Types S = Types::All, typename... Scalars>
void gpu_elementwise_kernel(TensorIterator& iter, const char* name, const Scalars&... s) {
  dispatch_types<S>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel(iter, Functor<T>{s.template to<opmath_t<T>>()...});
  });
}

template <template <class> class Functor, Types S = Types::All, typename... Scalars>
Tensor run_gpu_kernel(TensorIterator iter, const char* name, const Scalars&... s) {
  gpu_elementwise_kernel<Functor, S>(iter, name, s...);
  return iter.output();
}

}  // namespace tl::native
