#pragma once
// The data of a tensor that may be undefined (an optional argument left out), for kernels that
// take raw pointers: nullptr when it is absent.
#include "aten/core/Tensor.h"

namespace tl::native {

template <typename T>
T* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace tl::native
