#pragma once
// The body of every elementwise stub kernel (Note [Stubs]), for any device: pick T from the
// iterator's compute dtype (Note [Dtype dispatch]), build Functor<T> from the stub's
// arguments, and hand it to the device's loop (cpu_kernel / gpu_kernel).
#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/MakeFunctor.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

template <template <class> class Functor, TypeSet S, typename Loop, typename... Args>
void run_elementwise(TensorIterator& iter, const char* name, const Loop& loop, const Args&... args) {
  dispatch_types<S>(iter.common_dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    loop(iter, make_functor<Functor, T>(args...));
  });
}

}  // namespace tl::native
