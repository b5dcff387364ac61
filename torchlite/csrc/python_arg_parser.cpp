// The generated bindings' argument parser; see Note [Argument parser].
#include "torchlite/csrc/python_arg_parser.h"

#include "torchlite/csrc/python_torch_function.h"

namespace tl_python {

namespace {

PyTypeObject* tensor_type() {
  static PyTypeObject* type = py::detail::get_type_info(typeid(TensorImpl))->type;
  return type;
}

// The position of `key` among the call's keywords, or -1. Keywords are compared by identity
// first: the compiler interns the names a call spells out, as the tables intern theirs.
Py_ssize_t keyword_index(PyObject* kwnames, Py_ssize_t nkw, PyObject* key) {
  for (Py_ssize_t i = 0; i < nkw; ++i)
    if (PyTuple_GET_ITEM(kwnames, i) == key) return i;
  for (Py_ssize_t i = 0; i < nkw; ++i)
    if (PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, i), key) == 0) return i;
  return -1;
}

// Whether overload `o` takes the call, loading every argument with or without conversion.
bool matches(const Signatures& s, const OverloadSpec& o, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
             Py_ssize_t nkw, bool convert, ParsedArgs& out) {
  const Py_ssize_t first = s.is_method ? 1 : 0;
  if (nargs < first) return false;
  const size_t given = static_cast<size_t>(nargs - first);
  size_t i = 0;
  if (o.star_args) {
    out.star_args = py::reinterpret_steal<py::object>(PyTuple_New(static_cast<Py_ssize_t>(given)));
    for (size_t j = 0; j < given; ++j)
      PyTuple_SET_ITEM(out.star_args.ptr(), static_cast<Py_ssize_t>(j), Py_NewRef(args[first + j]));
    out.values[0] = out.star_args.ptr();
    i = 1;
  } else {
    if (given > o.positional) return false;
    for (; i < given; ++i) {
      if (nkw > 0 && keyword_index(kwnames, nkw, o.args[i].key) >= 0) return false;
      out.values[i] = args[first + static_cast<Py_ssize_t>(i)];
    }
  }
  Py_ssize_t used = 0;
  for (; i < o.args.size(); ++i) {
    const ArgSpec& a = o.args[i];
    const Py_ssize_t k = nkw > 0 ? keyword_index(kwnames, nkw, a.key) : -1;
    if (k >= 0) {
      out.values[i] = args[nargs + k];
      ++used;
    } else if (a.default_value != nullptr) {
      out.values[i] = a.default_value;
    } else {
      return false;
    }
  }
  if (used < nkw) return false;
  if (s.is_method && !loads<const Tensor&>(args[0], convert)) return false;
  for (size_t j = 0; j < o.args.size(); ++j)
    if (!o.args[j].loads(out.values[j], convert)) return false;
  return true;
}

[[noreturn]] void raise_no_match(const Signatures& s, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                                 Py_ssize_t nkw) {
  std::vector<py::object> positional;
  for (Py_ssize_t i = s.is_method ? 1 : 0; i < nargs; ++i)
    positional.push_back(py::reinterpret_borrow<py::object>(args[i]));
  py::dict kwargs;
  for (Py_ssize_t i = 0; i < nkw; ++i) kwargs[PyTuple_GET_ITEM(kwnames, i)] = py::handle(args[nargs + i]);
  std::vector<OverloadSpec> listed;
  for (const OverloadSpec& o : s.overloads)
    if (!o.star_args) listed.push_back(o);
  raise_argument_error(s.name, listed, positional, kwargs);
}

// The table as the parser reads it: interned names, positional counts.
Signatures* make_signatures(const char* name, std::vector<OverloadSpec> overloads, bool is_method,
                            bool binary_operator) {
  for (OverloadSpec& o : overloads) {
    TL_CHECK(o.args.size() <= kMaxParsedArgs, name, ": more parameters than kMaxParsedArgs");
    o.positional = 0;
    for (ArgSpec& a : o.args) {
      a.key = PyUnicode_InternFromString(a.name);
      if (a.key == nullptr) throw py::error_already_set();
      o.positional += (a.kw_only || o.star_args) ? 0 : 1;
    }
  }
  // Never destroyed, as the functions that parse with it.
  return new Signatures{name, std::move(overloads), is_method, binary_operator};
}

// The function object for `def`: its self is a capsule of its table, the key its
// __torch_function__ route is found by.
py::object make_function(PyMethodDef* def, const Signatures* s, py::handle module_name) {
  py::capsule self(static_cast<const void*>(s), "torchlite.Signatures");
  PyObject* f = PyCFunction_NewEx(def, self.ptr(), module_name.ptr());
  if (f == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(f);
}

}  // namespace

template <>
bool loads<const Tensor&>(py::handle h, bool) {
  return PyObject_TypeCheck(h.ptr(), tensor_type());
}

bool loads_int_args(py::handle args, bool) {
  try {
    int_list_from_args(py::reinterpret_borrow<py::args>(args));
    return true;
  } catch (const py::reference_cast_error&) {
    return false;
  }
}

int parse_arguments(const Signatures& s, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& out) {
  const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  const int n = static_cast<int>(s.overloads.size());
  for (int k = 0; k < n; ++k)
    if (matches(s, s.overloads[k], args, nargs, kwnames, nkw, false, out)) return k;
  for (int k = 0; k < n; ++k)
    if (s.overloads[k].positional > 0 && matches(s, s.overloads[k], args, nargs, kwnames, nkw, true, out)) return k;
  if (s.binary_operator) return -1;
  raise_no_match(s, args, nargs, kwnames, nkw);
}

PyObject* to_python(const Tensor& t) {
  return py::detail::make_caster<Tensor>::cast(t, py::return_value_policy::move, py::handle()).ptr();
}

PyObject* raise_current_exception() {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return nullptr;
}

const Signatures* def_function(py::module_& m, PyMethodDef* def, const char* qualified_name,
                               std::vector<OverloadSpec> overloads) {
  const Signatures* s = make_signatures(def->ml_name, std::move(overloads), false, false);
  m.attr(def->ml_name) = make_function(def, s, m.attr("__name__"));
  route_torch_function(m, def->ml_name, qualified_name, false, nullptr, false);
  return s;
}

const Signatures* def_method(PyTensorClass& cls, PyMethodDef* def, const char* qualified_name, const char* reported,
                             std::vector<OverloadSpec> overloads) {
  const bool binary_operator = def->ml_name[0] == '_' && def->ml_name[1] == '_';
  const Signatures* s = make_signatures(def->ml_name, std::move(overloads), true, binary_operator);
  py::object f = make_function(def, s, cls.attr("__module__"));
  cls.attr(def->ml_name) = py::reinterpret_steal<py::object>(PyInstanceMethod_New(f.ptr()));
  route_torch_function(cls, def->ml_name, qualified_name, binary_operator, reported, false);
  return s;
}

}  // namespace tl_python
