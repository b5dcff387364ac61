#pragma once
// Python surface of autograd: Tensor attributes (requires_grad, grad, grad_fn, hooks, ...),
// Node classes, grad mode, the engine entry points and custom Function support.
#include "torchlite/csrc/autograd/function.h"
#include "torchlite/csrc/autograd/saved_variable.h"
#include "torchlite/csrc/python_binding_utils.h"

namespace tl_python {
void init_autograd(py::module_& m, PyTensorClass& cls);
// Generated: one Python class per backward Node (python_autograd_functions.cpp).
void init_autograd_functions(py::module_& m);
// grad_fn._raw_saved_<name>: a SavedTensor handle on `var`, a member of `node`.
py::object raw_saved(const std::shared_ptr<tl::autograd::Node>& node, const tl::autograd::SavedVariable& var);
}  // namespace tl_python
