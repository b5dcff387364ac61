// PyTorch's TypeError for arguments no overload accepts; see Note [Argument errors].
#include <cstring>
#include <sstream>
#include <unordered_map>
#include <string>
#include <vector>

#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {

namespace {

std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

bool is_required(const ArgSpec& a) { return a.default_text == nullptr; }

size_t num_positional(const OverloadSpec& o) {
  size_t n = 0;
  for (const ArgSpec& a : o.args) n += a.kw_only ? 0 : 1;
  return n;
}

const ArgSpec* find_arg(const OverloadSpec& o, const std::string& name) {
  for (const ArgSpec& a : o.args) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

// `zeros(2, 3)` is `zeros((2, 3))` for an overload whose int list also comes as *args.
std::vector<py::object> positional_for(const OverloadSpec& o, const std::vector<py::object>& args) {
  if (!o.varargs || args.size() <= 1) return args;
  py::tuple t(args.size());
  for (size_t i = 0; i < args.size(); ++i) t[i] = args[i];
  return {t};
}

std::string signature_text(const OverloadSpec& o) {
  std::ostringstream os;
  os << "(";
  bool star = false;
  for (size_t i = 0; i < o.args.size(); ++i) {
    const ArgSpec& a = o.args[i];
    if (i > 0) os << ", ";
    if (a.kw_only && !star) {
      os << "*, ";
      star = true;
    }
    os << a.type << " " << a.name;
    if (a.default_text != nullptr) os << " = " << a.default_text;
  }
  os << ")";
  return os.str();
}

[[noreturn]] void raise(const std::string& msg) { throw py::type_error(msg); }

// The first thing wrong with this call for overload `o`, raised as PyTorch words it; returns
// when it finds nothing (the caller then lists the overloads).
void check_overload(const std::string& name, const OverloadSpec& o, const std::vector<py::object>& given,
                    const py::kwargs& kwargs) {
  std::vector<py::object> args = positional_for(o, given);
  const size_t max_pos = num_positional(o);
  if (args.size() > max_pos) {
    size_t min_args = 0;
    for (const ArgSpec& a : o.args) min_args += is_required(a) ? 1 : 0;
    std::ostringstream os;
    if (min_args != max_pos) {
      os << name << "() takes from " << min_args << " to " << max_pos << " positional arguments but " << args.size()
         << " were given";
    } else {
      os << name << "() takes " << max_pos << " positional argument" << (max_pos == 1 ? "" : "s") << " but "
         << args.size() << (args.size() == 1 ? " was" : " were") << " given";
    }
    raise(os.str());
  }
  std::vector<bool> filled(o.args.size(), false);
  size_t pos = 0;
  for (size_t i = 0; i < o.args.size() && pos < args.size(); ++i) {
    const ArgSpec& a = o.args[i];
    if (a.kw_only) continue;
    filled[i] = true;
    if (!a.accepts(args[pos])) {
      raise(name + "(): argument '" + a.name + "' (position " + std::to_string(pos + 1) + ") must be " + a.type +
            ", not " + type_name(args[pos]));
    }
    ++pos;
  }
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    const ArgSpec* a = find_arg(o, key);
    if (a == nullptr) raise(name + "() got an unexpected keyword argument '" + key + "'");
    const size_t i = static_cast<size_t>(a - o.args.data());
    if (filled[i]) raise(name + "() got multiple values for argument '" + key + "'");
    filled[i] = true;
    if (!a->accepts(item.second)) raise(name + "(): argument '" + key + "' must be " + a->type + ", not " + type_name(item.second));
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < o.args.size(); ++i) {
    if (!filled[i] && is_required(o.args[i])) missing.push_back(std::string("\"") + o.args[i].name + "\"");
  }
  if (!missing.empty()) {
    std::ostringstream os;
    os << name << "() missing " << missing.size() << " required positional arguments: ";
    for (size_t i = 0; i < missing.size(); ++i) os << (i ? ", " : "") << missing[i];
    raise(os.str());
  }
}

[[noreturn]] void raise_argument_error(const std::string& name, const std::vector<OverloadSpec>& overloads,
                                       const std::vector<py::object>& args, const py::kwargs& kwargs) {
  // A keyword no overload has: say so, whatever else is wrong.
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    bool known = false;
    for (const OverloadSpec& o : overloads) known = known || find_arg(o, key) != nullptr;
    if (!known) raise(name + "() got an unexpected keyword argument '" + key + "'");
  }
  // Overloads whose arity fits the call; with one candidate, its first problem is the message.
  const size_t n = args.size() + kwargs.size();
  std::vector<const OverloadSpec*> plausible;
  for (const OverloadSpec& o : overloads) {
    size_t min_args = 0;
    for (const ArgSpec& a : o.args) min_args += is_required(a) ? 1 : 0;
    if (n >= min_args && (n <= o.args.size() || o.varargs)) plausible.push_back(&o);
  }
  if (overloads.size() == 1) check_overload(name, overloads[0], args, kwargs);
  if (plausible.size() == 1) check_overload(name, *plausible[0], args, kwargs);
  std::ostringstream os;
  os << name << "() received an invalid combination of arguments - got (";
  bool first = true;
  for (const py::object& a : args) {
    os << (first ? "" : ", ") << type_name(a);
    first = false;
  }
  for (auto item : kwargs) {
    os << (first ? "" : ", ") << py::str(item.first).cast<std::string>() << "=" << type_name(item.second);
    first = false;
  }
  os << "), but expected one of:\n";
  for (const OverloadSpec& o : overloads) os << " * " << signature_text(o) << "\n";
  raise(os.str());
}

struct BoundName {
  std::string name;
  std::vector<OverloadSpec> overloads;
  bool is_method;
  bool binary_operator;
};

// pybind11's dispatcher (one function for every pybind11 function) and, per bound function
// object, what its errors need. Keyed by the object the dispatcher receives as `self`.
PyCFunctionWithKeywords pybind11_dispatcher = nullptr;
std::unordered_map<PyObject*, BoundName>& bound_names() {
  static auto* names = new std::unordered_map<PyObject*, BoundName>();
  return *names;
}

bool is_overload_mismatch(PyObject* value) {
  PyObject* s = PyObject_Str(value);
  if (s == nullptr) {
    PyErr_Clear();
    return false;
  }
  const char* text = PyUnicode_AsUTF8(s);
  const bool mismatch = text != nullptr && std::strstr(text, "(): incompatible function arguments.") != nullptr;
  Py_DECREF(s);
  return mismatch;
}

PyObject* dispatch_with_errors(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* result = pybind11_dispatcher(self, args, kwargs);
  if (result != nullptr || !PyErr_ExceptionMatches(PyExc_TypeError)) return result;
  auto it = bound_names().find(self);
  if (it == bound_names().end()) return nullptr;
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  PyErr_NormalizeException(&type, &value, &trace);
  if (!is_overload_mismatch(value)) {
    PyErr_Restore(type, value, trace);
    return nullptr;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(trace);
  const BoundName& bound = it->second;
  if (bound.binary_operator) return Py_NewRef(Py_NotImplemented);
  try {
    std::vector<py::object> given;
    const Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = bound.is_method ? 1 : 0; i < n; ++i) {
      given.push_back(py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(args, i)));
    }
    py::kwargs kw = kwargs ? py::reinterpret_borrow<py::kwargs>(kwargs) : py::kwargs();
    raise_argument_error(bound.name, bound.overloads, given, kw);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  }
  return nullptr;
}

void install(py::handle fn, const char* name, std::vector<OverloadSpec> overloads, bool is_method) {
  PyObject* f = fn.ptr();
  if (PyInstanceMethod_Check(f)) f = PyInstanceMethod_GET_FUNCTION(f);
  TL_CHECK(PyCFunction_Check(f), "def_argument_errors: ", name, " is not a pybind11 function");
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(f)->m_ml;
  auto meth = reinterpret_cast<PyCFunctionWithKeywords>(reinterpret_cast<void (*)()>(def->ml_meth));
  if (meth != &dispatch_with_errors) {
    TL_CHECK(pybind11_dispatcher == nullptr || pybind11_dispatcher == meth, "def_argument_errors: ", name,
             " has an unexpected dispatcher");
    pybind11_dispatcher = meth;
    def->ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&dispatch_with_errors));
  }
  const bool binary_operator = name[0] == '_' && name[1] == '_';
  bound_names()[PyCFunction_GET_SELF(f)] = BoundName{name, std::move(overloads), is_method, binary_operator};
}

}  // namespace

void def_argument_errors(py::module_& m, const char* name, std::vector<OverloadSpec> overloads) {
  install(m.attr(name), name, std::move(overloads), false);
}

void def_argument_errors(PyTensorClass& cls, const char* name, std::vector<OverloadSpec> overloads) {
  install(py::reinterpret_borrow<py::object>(cls.ptr()).attr("__dict__")[name], name, std::move(overloads), true);
}

}  // namespace tl_python
