#pragma once
// torch.linalg.LinAlgError: a matrix a factorization or solver cannot handle (singular, not
// positive-definite, no convergence). A RuntimeError subclass in Python; the extension's error
// translator (torchlite/csrc/module.cpp) maps this type to it.
#include "aten/core/Exception.h"

namespace tl {

class LinAlgError : public Error {
 public:
  explicit LinAlgError(const std::string& msg) : Error(ErrorKind::Runtime, msg) {}
};

template <typename... Args>
[[noreturn]] void linalg_error(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  throw LinAlgError(os.str());
}

}  // namespace tl
