#pragma once
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
// Binds Generator, manual_seed, allocator statistics and torchlite._C._cuda.
void init_runtime(py::module_& m);
}  // namespace tl_python
