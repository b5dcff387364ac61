#pragma once
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
// Binds Tensor.__getitem__ and Tensor.__setitem__.
void init_indexing(PyTensorClass& cls);
}  // namespace tl_python
