#pragma once
// Note [Errors]: every user-visible failure is a tl::Error carrying the Python exception
// kind it maps to. The extension's module init registers one translator, so C++ code never
// touches Python. Messages name the offending values (shapes, dims, dtypes).
#include <sstream>
#include <stdexcept>
#include <string>

#include "aten/core/Macros.h"

namespace tl {

enum class ErrorKind { Runtime, Index, Type, Value, NotImplemented };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& msg) : std::runtime_error(msg), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  append(os, rest...);
}
template <typename... Args>
[[noreturn]] void fail(ErrorKind kind, const Args&... args) {
  std::ostringstream os;
  append(os, args...);
  throw Error(kind, os.str());
}
}  // namespace detail

// Note [Warnings]: a UserWarning raised from C++ (PyTorch's TORCH_WARN). The extension
// installs a handler that hands it to Python's warnings module; without one it goes to stderr.
using WarningHandler = void (*)(const std::string& msg);
void set_warning_handler(WarningHandler h);
void warn(const std::string& msg);

}  // namespace tl

#define TL_CHECK_KIND(kind, cond, ...)                        \
  do {                                                        \
    if (TL_UNLIKELY(!(cond))) ::tl::detail::fail(kind, __VA_ARGS__); \
  } while (0)

#define TL_CHECK(cond, ...) TL_CHECK_KIND(::tl::ErrorKind::Runtime, cond, __VA_ARGS__)
#define TL_CHECK_INDEX(cond, ...) TL_CHECK_KIND(::tl::ErrorKind::Index, cond, __VA_ARGS__)
#define TL_CHECK_TYPE(cond, ...) TL_CHECK_KIND(::tl::ErrorKind::Type, cond, __VA_ARGS__)
#define TL_CHECK_VALUE(cond, ...) TL_CHECK_KIND(::tl::ErrorKind::Value, cond, __VA_ARGS__)
#define TL_ERROR(...) ::tl::detail::fail(::tl::ErrorKind::Runtime, __VA_ARGS__)
#define TL_NOT_IMPLEMENTED(...) ::tl::detail::fail(::tl::ErrorKind::NotImplemented, __VA_ARGS__)
