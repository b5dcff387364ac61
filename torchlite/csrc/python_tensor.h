#pragma once
#include <pybind11/numpy.h>

#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
// Adds metadata accessors and NumPy interop to the Tensor class; binds from_numpy.
void init_tensor_class(py::module_& m, PyTensorClass& cls);
// Zero-copy tensor over a NumPy array's memory (the tensor keeps the array alive).
Tensor tensor_from_numpy(py::array arr);
}  // namespace tl_python
