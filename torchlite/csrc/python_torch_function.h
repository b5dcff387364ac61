#pragma once
// The __torch_function__ protocol for the C++-bound functions (Note [__torch_function__] in
// python_torch_function.cpp).
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {

// Binds the protocol's state and checks: DisableTorchFunction(Subclass), the mode stack,
// _has_torch_function*, _disabled_torch_function_impl.
void init_torch_function(py::module_& m, PyTensorClass& cls);

// Routes every call of the pybind11 function `scope.name` (a module function or a Tensor method,
// all its overloads defined) through the __torch_function__ check. `qualified_name` is the name
// error messages give it (torchlite.add, torchlite.Tensor.add). A binary operator slot returns
// NotImplemented where the override raises TypeError, so that Python tries the reflected operator.
// Handlers receive `scope.reported` as the function (default: `scope.name`). A generated binding
// (Note [Argument parser]) checks for itself (`pybind11_function` false): only its route is kept.
void route_torch_function(py::handle scope, const char* name, const char* qualified_name,
                          bool binary_operator = false, const char* reported = nullptr,
                          bool pybind11_function = true);

// What the gate runs before a routed pybind11 function, for the generated bindings: whether the
// call dispatches, and the dispatch (`self`: the function's self, which keys its route).
bool needs_torch_function(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
PyObject* dispatch_torch_function(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

}  // namespace tl_python
