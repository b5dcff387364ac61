#pragma once
// Note [Device errors]: failures of a device runtime get exception classes of their own, so that
// Python sees PyTorch's torch.OutOfMemoryError and torch.AcceleratorError (both RuntimeError
// subclasses) and programs can catch them apart from other errors. They are tl::Errors, so
// code that catches tl::Error still sees them; the extension's translator checks them first.
#include <sstream>
#include <string>

#include "aten/core/Exception.h"

namespace tl {

class OutOfMemoryError : public Error {
 public:
  explicit OutOfMemoryError(const std::string& msg) : Error(ErrorKind::Runtime, msg) {}
};

class AcceleratorError : public Error {
 public:
  explicit AcceleratorError(const std::string& msg) : Error(ErrorKind::Runtime, msg) {}
};

// Throws E with the arguments streamed into its message, as TL_ERROR does for tl::Error.
template <typename E, typename... Args>
[[noreturn]] void fail_with(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  throw E(os.str());
}

}  // namespace tl
