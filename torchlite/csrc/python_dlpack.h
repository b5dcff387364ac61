#pragma once
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
// Whether the storage wraps memory imported through DLPack (its producer owns it: it cannot grow).
bool is_dlpack_storage(const StorageImpl& storage);
// Binds torchlite._C._to_dlpack, _to_dlpack_versioned and _from_dlpack.
void init_dlpack(py::module_& m);
}  // namespace tl_python
