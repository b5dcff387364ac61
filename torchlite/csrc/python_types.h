#pragma once
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
// Registers torchlite._C.dtype and its instances, device, layout, memory_format.
void init_types(py::module_& m);
}  // namespace tl_python
