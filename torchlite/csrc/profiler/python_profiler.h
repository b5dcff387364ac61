#pragma once
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
// Binds the profiler's sessions and record_function scopes for torchlite.profiler
// (Note [Profiler hook]) and gives the profiler the Python call stack (with_stack).
void init_profiler(py::module_& m);
}  // namespace tl_python
