#pragma once
// The `int reduction` argument of the losses (PyTorch's at::Reduction; the YAML's `Mean` / `Sum`
// defaults, codegen/model.py).
#include <cstdint>

namespace tl::Reduction {

enum : int64_t { None = 0, Mean = 1, Sum = 2 };

}  // namespace tl::Reduction
