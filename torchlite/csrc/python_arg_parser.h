#pragma once
// Note [Argument parser]: every generated binding is a plain C function (METH_FASTCALL |
// METH_KEYWORDS) over a table of its overloads, not a pybind11 function: pybind11 instantiates a
// dispatcher and an argument-caster tuple per overload, which made the binding shards the
// slowest files of the build. parse_arguments, compiled once, picks the overload as pybind11
// did, so that calls resolve as before:
//  - overloads are tried in table order, first with no argument conversion (an int parameter
//    takes only a Python int, a float only a float...), then with conversion, where only
//    overloads with positional parameters are tried again;
//  - positional arguments fill the positional parameters in order (too many: not this
//    overload); a keyword that names a parameter given by position, or no parameter, rules the
//    overload out; an omitted parameter takes its default, and without one the overload fails;
//  - an overload taking *args (zeros(2, 3)) gets every positional argument as a tuple.
// The generated function then switches on the overload index and converts the arguments with
// the same pybind11 casters (`parsed<T>`). A call that no overload takes raises PyTorch's
// TypeError (Note [Argument errors]); a binary operator slot returns NotImplemented instead.
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {

// Whether the caster for T takes `h`, with or without conversion; may raise as the caster does
// (an int too large for int64).
template <typename T>
bool loads(py::handle h, bool convert) {
  py::detail::make_caster<T> c;
  return c.load(h, convert);
}
// A Tensor parameter: its type check alone (the caster converts after the match).
template <>
bool loads<const Tensor&>(py::handle h, bool convert);
// The *args of zeros(2, 3) or x.view(2, 3): one int list (int_list_from_args).
bool loads_int_args(py::handle args, bool convert);

// One parameter of an overload, as the parser and PyTorch's messages need it.
struct ArgSpec {
  const char* name;
  const char* type;  // as PyTorch's messages spell it: Tensor, Number, tuple of ints, torch.dtype
  bool (*loads)(py::handle, bool convert);
  const char* default_text;  // as messages show it; nullptr: required
  bool kw_only;
  PyObject* default_value = nullptr;  // what an omitted argument takes; nullptr: required
  PyObject* key = nullptr;            // the interned name (set when the table is registered)
};
struct OverloadSpec {
  std::vector<ArgSpec> args;
  bool varargs = false;    // its int list may also be given as *args (zeros(2, 3)): for messages
  bool star_args = false;  // the overload that takes that *args: its first parameter
  size_t positional = 0;   // parameters that take a positional argument (set at registration)
};

// All the overloads of one Python name, in the order they are tried.
struct Signatures {
  std::string name;
  std::vector<OverloadSpec> overloads;
  bool is_method = false;        // the first positional argument is the Tensor itself
  bool binary_operator = false;  // __add__, ...: NotImplemented when no overload takes the call
};

// The largest parameter count of an overload (checked when a table is registered).
constexpr size_t kMaxParsedArgs = 24;

// The arguments of the overload that took the call, one Python object per parameter in table
// order, defaults filled in (borrowed from the call or the table).
struct ParsedArgs {
  std::array<PyObject*, kMaxParsedArgs> values;
  py::object star_args;  // the tuple an overload taking *args gets
};

// The index of the overload that takes this vectorcall, `out` filled. A call that none takes
// raises TypeError (thrown as py::type_error), or returns -1 for a binary operator slot.
int parse_arguments(const Signatures& s, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& out);

// The C++ value of a parsed argument, converted by the binding type's caster.
template <typename T>
std::remove_cvref_t<T> parsed(PyObject* o) {
  using V = std::remove_cvref_t<T>;
  py::detail::make_caster<V> c;
  c.load(o, true);
  return py::detail::cast_op<V&&>(std::move(c));
}

// A binding's result as a new reference.
PyObject* to_python(const Tensor& t);
inline PyObject* to_python(py::object o) { return o.release().ptr(); }
template <typename T>
  requires(!std::is_base_of_v<py::handle, T>)
PyObject* to_python(const T& v) {
  return py::cast(v).release().ptr();
}

// Sets the Python error for the C++ exception being handled (pybind11's translators: TL_CHECK's
// errors become RuntimeError, IndexError, ...) and returns nullptr.
PyObject* raise_current_exception();

// Binds `def` as m.<name> or Tensor.<name> over `overloads`, routed through __torch_function__
// (route_torch_function's arguments); returns the table its function parses with. `def` and the
// strings must outlive the module.
const Signatures* def_function(py::module_& m, PyMethodDef* def, const char* qualified_name,
                               std::vector<OverloadSpec> overloads);
const Signatures* def_method(PyTensorClass& cls, PyMethodDef* def, const char* qualified_name, const char* reported,
                             std::vector<OverloadSpec> overloads);

// Note [Argument errors]: PyTorch's TypeError for a call that no overload accepts: "add() got an
// unexpected keyword argument 'dimm'", "relu(): argument 'input' (position 1) must be Tensor,
// not str", "sum() received an invalid combination of arguments - got (...), but expected one
// of: ...". `args` are the positional arguments (a method's self excluded); overloads taking
// *args are left out of the message.
[[noreturn]] void raise_argument_error(const std::string& name, const std::vector<OverloadSpec>& overloads,
                                       const std::vector<py::object>& args, const py::dict& kwargs);

}  // namespace tl_python
