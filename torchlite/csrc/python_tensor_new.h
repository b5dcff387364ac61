#pragma once
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device);
// Binds torchlite._C.tensor.
void init_tensor_new(py::module_& m);
}  // namespace tl_python
