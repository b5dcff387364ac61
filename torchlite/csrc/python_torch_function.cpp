// Note [__torch_function__]
// PyTorch lets a Tensor subclass, or any object whose type defines __torch_function__, take over
// a call of a torch function it is passed to (torchlite.overrides documents the protocol). Every
// generated binding, and the Tensor methods bound by hand that PyTorch also routes, run through
// torch_function_gate below before pybind11 resolves overloads. The gate is swapped in for
// pybind11's dispatcher as the function object's C entry point (route_torch_function), so a call
// costs one more C call and a scan of its arguments: a plain Tensor is recognised by its exact
// type, and ints, floats, None and strings likewise, before any attribute lookup. Only a call
// that has to dispatch (an argument, or an element of a list argument, overrides the protocol,
// or a TorchFunctionMode is active) builds Python arguments and goes to
// torchlite.overrides._handle_binding, which runs the handlers in PyTorch's order.
//
// A Tensor subclass overrides the protocol unless its __torch_function__ is
// _disabled_torch_function_impl (nn.Parameter): the default Tensor.__torch_function__ is what
// makes subclasses survive operations. DisableTorchFunctionSubclass turns the check off for
// arguments (the default handler calls the function under it); DisableTorchFunction also for modes.
#include "torchlite/csrc/python_torch_function.h"

#include <structmember.h>

#include <unordered_map>
#include <utility>

namespace tl_python {
namespace {

enum class TorchFunctionState { Enabled, SubclassesDisabled, AllDisabled };

thread_local TorchFunctionState state = TorchFunctionState::Enabled;
// Modes pushed on this thread (strong references), innermost last.
thread_local std::vector<PyObject*> mode_stack;

PyTypeObject* tensor_type = nullptr;
PyObject* torch_function_name = nullptr;  // interned "__torch_function__"
PyObject* disabled_impl = nullptr;        // _C._disabled_torch_function_impl

bool modes_active() { return state != TorchFunctionState::AllDisabled && !mode_stack.empty(); }

// Whether `o` takes part in dispatch, torch function being enabled.
bool overrides(PyObject* o) {
  PyTypeObject* tp = Py_TYPE(o);
  if (tp == tensor_type || o == Py_None || tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyBool_Type ||
      tp == &PyUnicode_Type)
    return false;
  PyObject* attr = _PyType_Lookup(tp, torch_function_name);
  return attr != nullptr && attr != disabled_impl;
}

bool is_sequence_arg(PyObject* o) { return PyList_CheckExact(o) || PyTuple_CheckExact(o); }

// Calls `visit` with each argument that overrides the protocol, list and tuple elements included
// (Tensor[] arguments), in argument order; stops where `visit` returns true.
template <typename Visit>
bool find_overrides(PyObject* const* args, Py_ssize_t n, Visit visit) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = args[i];
    if (Py_TYPE(o) == tensor_type) continue;
    if (is_sequence_arg(o)) {
      PyObject** items = PySequence_Fast_ITEMS(o);
      for (Py_ssize_t j = 0, m = PySequence_Fast_GET_SIZE(o); j < m; ++j)
        if (overrides(items[j]) && visit(items[j])) return true;
    } else if (overrides(o) && visit(o)) {
      return true;
    }
  }
  return false;
}

bool any_overrides(PyObject* const* args, Py_ssize_t n) {
  return find_overrides(args, n, [](PyObject*) { return true; });
}

// Whether a call with these arguments dispatches.
bool needs_dispatch(PyObject* const* args, Py_ssize_t n) {
  if (state != TorchFunctionState::Enabled) return modes_active();
  return !mode_stack.empty() || any_overrides(args, n);
}

struct Route {
  py::object func;     // the routed object: torchlite._C.add, Tensor.add
  py::object scope;    // the module or Tensor
  py::str reported;    // the name of what handlers receive as `func` (Tensor.add for __add__)
  py::str qualified_name;
  bool binary_operator;
};
// Keyed by the pybind11 function's self (its overload chain); never destroyed, as the functions.
auto& routes = *new std::unordered_map<PyObject*, Route>();

using FastcallWithKeywords = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
FastcallWithKeywords pybind11_dispatcher = nullptr;

// A vectorcall's arguments as Python's (args, kwargs).
std::pair<py::tuple, py::dict> call_arguments(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  py::tuple positional(nargs);
  for (Py_ssize_t i = 0; i < nargs; ++i) positional[i] = py::handle(args[i]);
  py::dict kwargs;
  const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) kwargs[py::handle(PyTuple_GET_ITEM(kwnames, i))] = py::handle(args[nargs + i]);
  return {std::move(positional), std::move(kwargs)};
}

PyObject* dispatch(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const Route& route = routes.at(self);
  try {
    auto [positional, kwargs] = call_arguments(args, nargs, kwnames);
    const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
    py::list overloaded;
    if (state == TorchFunctionState::Enabled) {
      find_overrides(args, nargs + nkw, [&](PyObject* o) {
        overloaded.append(o);
        return false;
      });
    }
    static py::handle handler = py::object(py::module_::import("torchlite.overrides").attr("_handle_binding")).release();
    py::object func = route.scope.attr(route.reported);
    return handler(func, route.qualified_name, overloaded, positional, kwargs).release().ptr();
  } catch (py::error_already_set& e) {
    if (route.binary_operator && e.matches(PyExc_TypeError)) return Py_NewRef(Py_NotImplemented);
    e.restore();
    return nullptr;
  } catch (const std::exception& e) {  // C++ must not unwind into the interpreter
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

PyObject* torch_function_gate(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const Py_ssize_t n = nargs + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0);
  if (needs_dispatch(args, n)) return dispatch(self, args, nargs, kwnames);
  return pybind11_dispatcher(self, args, nargs, kwnames);
}

// _C._has_torch_function(iterable), _has_torch_function_unary(obj), _has_torch_function_variadic(*args):
// PyTorch's checks, which look at the arguments themselves (not inside lists).
bool has_torch_function_in(PyObject* const* args, Py_ssize_t n) {
  if (modes_active()) return true;
  if (state != TorchFunctionState::Enabled) return false;
  for (Py_ssize_t i = 0; i < n; ++i)
    if (overrides(args[i])) return true;
  return false;
}

PyObject* has_torch_function(PyObject*, PyObject* arg) {
  PyObject* seq = PySequence_Fast(arg, "expected a sequence");
  if (seq == nullptr) return nullptr;
  const bool found = has_torch_function_in(PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq));
  Py_DECREF(seq);
  return PyBool_FromLong(found);
}

PyObject* has_torch_function_unary(PyObject*, PyObject* arg) { return PyBool_FromLong(has_torch_function_in(&arg, 1)); }

PyObject* has_torch_function_variadic(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return PyBool_FromLong(has_torch_function_in(args, nargs));
}

PyMethodDef check_methods[] = {
    {"_has_torch_function", has_torch_function, METH_O,
     "Whether an element of the iterable overrides __torch_function__, or a mode is active."},
    {"_has_torch_function_unary", has_torch_function_unary, METH_O,
     "Whether the argument overrides __torch_function__, or a mode is active."},
    {"_has_torch_function_variadic", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(
                                         has_torch_function_variadic)),
     METH_FASTCALL, "Whether an argument overrides __torch_function__, or a mode is active."},
    {nullptr, nullptr, 0, nullptr}};

// Sets the state for the extent of a `with` block (DisableTorchFunction, DisableTorchFunctionSubclass).
template <TorchFunctionState Target>
struct StateGuard {
  TorchFunctionState saved = TorchFunctionState::Enabled;
};

template <TorchFunctionState Target>
void bind_state_guard(py::module_& m, const char* name, const char* doc) {
  py::class_<StateGuard<Target>>(m, name, doc)
      .def(py::init<>())
      .def("__enter__", [](StateGuard<Target>& g) {
        g.saved = state;
        // DisableTorchFunctionSubclass inside DisableTorchFunction keeps everything off.
        if (state != TorchFunctionState::AllDisabled) state = Target;
      })
      .def("__exit__", [](StateGuard<Target>& g, const py::args&) { state = g.saved; });
}

// Note [Tensor method objects]: pybind11 puts a Tensor method in the class as an instancemethod,
// which is not hashable, so `func in HANDLED_FUNCTIONS` (the protocol's usual dispatch table)
// would raise for every Tensor method a handler receives. A routed method is put there as a
// TensorMethod instead: hashable, bound by __get__ as before, and a method descriptor, so that
// `x.add(y)` and `x + y` call it with x as first argument without making a bound method.
struct TensorMethod {
  PyObject_HEAD
  PyObject* func;  // the pybind11 function
  vectorcallfunc vectorcall;
};

PyTypeObject* tensor_method_type = nullptr;

PyObject* tensor_method_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  return PyObject_Vectorcall(reinterpret_cast<TensorMethod*>(self)->func, args, nargsf, kwnames);
}

PyObject* tensor_method_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(reinterpret_cast<TensorMethod*>(self)->func, obj);
}

void tensor_method_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  Py_XDECREF(reinterpret_cast<TensorMethod*>(self)->func);
  tp->tp_free(self);
  Py_DECREF(tp);
}

// __doc__, __name__, __text_signature__ are the function's (help() and the API coverage tool read them).
PyObject* tensor_method_forward(PyObject* self, void* name) {
  return PyObject_GetAttrString(reinterpret_cast<TensorMethod*>(self)->func, static_cast<const char*>(name));
}

// `format` with the method's name in place of %U.
PyObject* format_with_name(PyObject* self, const char* format) {
  py::object name = py::reinterpret_steal<py::object>(tensor_method_forward(self, const_cast<char*>("__name__")));
  if (!name) return nullptr;
  return PyUnicode_FromFormat(format, name.ptr());
}
PyObject* tensor_method_repr(PyObject* self) {
  return format_with_name(self, "<method '%U' of 'torchlite.Tensor' objects>");
}
PyObject* tensor_method_qualname(PyObject* self, void*) { return format_with_name(self, "Tensor.%U"); }
PyObject* tensor_method_func(PyObject* self, void*) { return Py_NewRef(reinterpret_cast<TensorMethod*>(self)->func); }

PyGetSetDef tensor_method_getset[] = {
    {"__doc__", tensor_method_forward, nullptr, nullptr, const_cast<char*>("__doc__")},
    {"__name__", tensor_method_forward, nullptr, nullptr, const_cast<char*>("__name__")},
    {"__text_signature__", tensor_method_forward, nullptr, nullptr, const_cast<char*>("__text_signature__")},
    {"__qualname__", tensor_method_qualname, nullptr, nullptr, nullptr},
    {"__func__", tensor_method_func, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef tensor_method_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(TensorMethod, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyTypeObject* make_tensor_method_type() {
  static PyType_Slot slots[] = {{Py_tp_descr_get, reinterpret_cast<void*>(&tensor_method_get)},
                                {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
                                {Py_tp_dealloc, reinterpret_cast<void*>(&tensor_method_dealloc)},
                                {Py_tp_repr, reinterpret_cast<void*>(&tensor_method_repr)},
                                {Py_tp_getset, tensor_method_getset},
                                {Py_tp_members, tensor_method_members},
                                {0, nullptr}};
  static PyType_Spec spec = {"torchlite._C._TensorMethod", sizeof(TensorMethod), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR, slots};
  auto* type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (type == nullptr) throw py::error_already_set();
  return type;
}

py::object tensor_method(PyObject* func) {
  if (tensor_method_type == nullptr) tensor_method_type = make_tensor_method_type();
  auto* m = PyObject_New(TensorMethod, tensor_method_type);
  if (m == nullptr) throw py::error_already_set();
  m->func = Py_NewRef(func);
  m->vectorcall = &tensor_method_call;
  return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(m));
}


// Note [Overridable Python functions]: torchlite's functions written in Python (F.relu, F.gelu,
// torchlite.fft.*) are wrapped in an OverridableFunction (torchlite.overrides._overridable). Its
// vectorcall entry point runs the gate's check and then vectorcalls the function with the same
// argument array, so a call that does not dispatch costs one C call and the argument scan, not
// a Python frame with *args/**kwargs repacking. It binds as a method and pickles by name as a
// function does; functools.update_wrapper fills its __dict__ (__name__, __doc__, __wrapped__).
struct OverridableFunction {
  PyObject_HEAD
  PyObject* func;
  PyObject* dict;
  PyObject* weakrefs;
  vectorcallfunc vectorcall;
};

OverridableFunction* as_overridable(PyObject* self) { return reinterpret_cast<OverridableFunction*>(self); }

PyObject* overridable_dispatch(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    auto [positional, kwargs] = call_arguments(args, nargs, kwnames);
    static py::handle handler =
        py::object(py::module_::import("torchlite.overrides").attr("_handle_overridable")).release();
    return handler(py::handle(self), positional, kwargs).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

PyObject* overridable_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (needs_dispatch(args, nargs + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0)))
    return overridable_dispatch(self, args, nargs, kwnames);
  return PyObject_Vectorcall(as_overridable(self)->func, args, nargsf, kwnames);
}

PyObject* overridable_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject* func = nullptr;
  if ((kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0) || !PyArg_UnpackTuple(args, "_OverridableFunction", 1, 1, &func))
    return nullptr;
  if (!PyCallable_Check(func)) {
    PyErr_Format(PyExc_TypeError, "_OverridableFunction: expected a callable, got %R", func);
    return nullptr;
  }
  auto* self = as_overridable(type->tp_alloc(type, 0));
  if (self == nullptr) return nullptr;
  self->func = Py_NewRef(func);
  self->vectorcall = &overridable_call;
  return reinterpret_cast<PyObject*>(self);
}

int overridable_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(as_overridable(self)->func);
  Py_VISIT(as_overridable(self)->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int overridable_clear(PyObject* self) {
  Py_CLEAR(as_overridable(self)->func);
  Py_CLEAR(as_overridable(self)->dict);
  return 0;
}

void overridable_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  if (as_overridable(self)->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  overridable_clear(self);
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyObject* overridable_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

PyObject* overridable_repr(PyObject* self) {
  PyObject* name = PyObject_GetAttrString(self, "__qualname__");
  if (name == nullptr) return nullptr;
  PyObject* out = PyUnicode_FromFormat("<function %S at %p>", name, self);
  Py_DECREF(name);
  return out;
}

// Pickled (and copied) by reference, as functions are: `module.name`.
PyObject* overridable_reduce(PyObject* self, PyObject*) { return PyObject_GetAttrString(self, "__name__"); }

PyMethodDef overridable_methods[] = {
    {"__reduce__", overridable_reduce, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};

PyMemberDef overridable_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(OverridableFunction, vectorcall), READONLY, nullptr},
    {"__dictoffset__", T_PYSSIZET, offsetof(OverridableFunction, dict), READONLY, nullptr},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(OverridableFunction, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyGetSetDef overridable_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

void bind_overridable_function(py::module_& m) {
  static PyType_Slot slots[] = {{Py_tp_new, reinterpret_cast<void*>(&overridable_new)},
                                {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
                                {Py_tp_descr_get, reinterpret_cast<void*>(&overridable_get)},
                                {Py_tp_traverse, reinterpret_cast<void*>(&overridable_traverse)},
                                {Py_tp_clear, reinterpret_cast<void*>(&overridable_clear)},
                                {Py_tp_dealloc, reinterpret_cast<void*>(&overridable_dealloc)},
                                {Py_tp_repr, reinterpret_cast<void*>(&overridable_repr)},
                                {Py_tp_methods, overridable_methods},
                                {Py_tp_members, overridable_members},
                                {Py_tp_getset, overridable_getset},
                                {Py_tp_doc, const_cast<char*>(
                                    "A Python function that honours __torch_function__ (torchlite.overrides).")},
                                {0, nullptr}};
  static PyType_Spec spec = {"torchlite._C._OverridableFunction", sizeof(OverridableFunction), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                                 Py_TPFLAGS_METHOD_DESCRIPTOR,
                             slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw py::error_already_set();
  m.attr("_OverridableFunction") = py::reinterpret_steal<py::object>(type);
}
}  // namespace

void route_torch_function(py::handle scope, const char* name, const char* qualified_name, bool binary_operator,
                          const char* reported, bool pybind11_function) {
  py::object func = scope.attr(name);
  if (tensor_method_type != nullptr && Py_TYPE(func.ptr()) == tensor_method_type) return;  // routed already
  PyObject* cfunc = func.ptr();
  if (PyInstanceMethod_Check(cfunc)) {
    cfunc = PyInstanceMethod_GET_FUNCTION(cfunc);
    func = tensor_method(cfunc);  // Note [Tensor method objects]
    scope.attr(name) = func;
  }
  TL_CHECK(PyCFunction_Check(cfunc) && (PyCFunction_GET_FLAGS(cfunc) & METH_FASTCALL),
           "route_torch_function: ", name, " is not a vectorcall function");
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(cfunc)->m_ml;
  auto gate = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&torch_function_gate));
  if (pybind11_function && def->ml_meth != gate) {
    // Every pybind11 function has the same dispatcher.
    pybind11_dispatcher = reinterpret_cast<FastcallWithKeywords>(reinterpret_cast<void (*)()>(def->ml_meth));
    def->ml_meth = gate;
  }
  routes[PyCFunction_GET_SELF(cfunc)] = Route{func, py::reinterpret_borrow<py::object>(scope),
                                              py::str(reported != nullptr ? reported : name),
                                              py::str(qualified_name), binary_operator};
}

bool needs_torch_function(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return needs_dispatch(args, nargs + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0));
}

PyObject* dispatch_torch_function(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return dispatch(self, args, nargs, kwnames);
}

void init_torch_function(py::module_& m, PyTensorClass& cls) {
  tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  torch_function_name = PyUnicode_InternFromString("__torch_function__");
  if (PyModule_AddFunctions(m.ptr(), check_methods) < 0) throw py::error_already_set();
  bind_overridable_function(m);

  // A builtin, so that a class attribute set to it (Parameter.__torch_function__) stays unbound.
  m.def(
      "_disabled_torch_function_impl",
      [](py::handle func, py::handle, const py::tuple& args, const py::object& kwargs) {
        const TorchFunctionState saved = state;
        if (state == TorchFunctionState::Enabled) state = TorchFunctionState::SubclassesDisabled;
        try {
          py::object out = kwargs.is_none() ? func(*args) : func(*args, **kwargs);
          state = saved;
          return out;
        } catch (...) {
          state = saved;
          throw;
        }
      },
      py::arg("func"), py::arg("types"), py::arg("args") = py::tuple(), py::arg("kwargs") = py::none());
  disabled_impl = m.attr("_disabled_torch_function_impl").ptr();

  bind_state_guard<TorchFunctionState::SubclassesDisabled>(
      m, "DisableTorchFunctionSubclass", "Within the block, arguments' __torch_function__ are not called (modes are).");
  bind_state_guard<TorchFunctionState::AllDisabled>(
      m, "DisableTorchFunction", "Within the block, neither arguments' __torch_function__ nor modes are called.");
  m.def("_is_torch_function_enabled", [] { return state == TorchFunctionState::Enabled; });
  m.def("_is_torch_function_all_disabled", [] { return state == TorchFunctionState::AllDisabled; });
  m.def("_is_torch_function_mode_enabled", &modes_active);

  m.def("_routed_bindings", [] {
    py::list out;
    for (const auto& [self, route] : routes) out.append(py::make_tuple(route.func, route.qualified_name));
    return out;
  }, "(function, qualified name) of every binding that checks for __torch_function__ (torchlite.overrides).");
  m.def("_push_on_torch_function_stack", [](py::object mode) { mode_stack.push_back(mode.release().ptr()); },
        py::arg("mode"));
  m.def("_pop_torch_function_stack", []() -> py::object {
    TL_CHECK(!mode_stack.empty(), "Trying to pop from an empty mode stack");
    PyObject* mode = mode_stack.back();
    mode_stack.pop_back();
    return py::reinterpret_steal<py::object>(mode);
  });
  m.def("_len_torch_function_stack", [] { return mode_stack.size(); });
  m.def("_get_function_stack_at", [](int64_t i) -> py::object {
    TL_CHECK_INDEX(i >= 0 && i < static_cast<int64_t>(mode_stack.size()), "Index ", i,
                   " out of range of the mode stack (size ", mode_stack.size(), ")");
    return py::reinterpret_borrow<py::object>(mode_stack[static_cast<size_t>(i)]);
  }, py::arg("level"));
}

}  // namespace tl_python
