// torchlite._C: module init. Registers error translation, the Python types, the Tensor
// class, and the generated operator bindings.
#include "aten/core/DeviceErrors.h"
#include "aten/native/LinAlgError.h"
#include "generated/python_bindings.h"
#include "torchlite/csrc/autograd/python_autograd.h"
#include "torchlite/csrc/profiler/python_profiler.h"
#include "torchlite/csrc/python_binding_utils.h"
#include "torchlite/csrc/python_dlpack.h"
#include "torchlite/csrc/python_indexing.h"
#include "torchlite/csrc/python_runtime.h"
#include "torchlite/csrc/python_tensor.h"
#include "torchlite/csrc/python_tensor_new.h"
#include "torchlite/csrc/python_torch_function.h"
#include "torchlite/csrc/python_types.h"

namespace {

// Module-local: pybind11's global translator list is shared with every other extension built
// with the same pybind11 internals (PyTorch's, for one), and a crash was seen on a GPU machine
// when both modules' translators saw torchlite's exceptions. Local translators see only ours.
void translate_errors(py::module_& m) {
  // torchlite.linalg.LinAlgError (exported there from _C).
  static PyObject* linalg_error = PyErr_NewException("torchlite.linalg.LinAlgError", PyExc_RuntimeError, nullptr);
  m.attr("_LinAlgError") = py::handle(linalg_error);
  // torchlite.OutOfMemoryError and torchlite.AcceleratorError (Note [Device errors]).
  static PyObject* oom_error = PyErr_NewException("torchlite.OutOfMemoryError", PyExc_RuntimeError, nullptr);
  static PyObject* accelerator_error = PyErr_NewException("torchlite.AcceleratorError", PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = py::handle(oom_error);
  m.attr("AcceleratorError") = py::handle(accelerator_error);
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tl::LinAlgError& e) {
      PyErr_SetString(linalg_error, e.what());
    } catch (const tl::OutOfMemoryError& e) {
      PyErr_SetString(oom_error, e.what());
    } catch (const tl::AcceleratorError& e) {
      PyErr_SetString(accelerator_error, e.what());
    } catch (const tl::Error& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.kind()) {
        case tl::ErrorKind::Index: type = PyExc_IndexError; break;
        case tl::ErrorKind::Type: type = PyExc_TypeError; break;
        case tl::ErrorKind::Value: type = PyExc_ValueError; break;
        case tl::ErrorKind::NotImplemented: type = PyExc_NotImplementedError; break;
        case tl::ErrorKind::Runtime: break;
      }
      PyErr_SetString(type, e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "out of memory");
    }
  });
}

// Note [Warnings]: C++ warnings become Python UserWarnings (an error when warnings are errors).
void warn_in_python(const std::string& msg) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw py::error_already_set();
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "torchlite's C++ core: tensors, operators (generated from native_functions.yaml), runtime";
  translate_errors(m);
  tl::set_warning_handler(&warn_in_python);
  tl_python::init_types(m);
  tl_python::PyTensorClass cls(m, "Tensor", py::dynamic_attr());
  tl_python::init_tensor_class(m, cls);
  tl_python::init_tensor_new(m);
  tl_python::init_dlpack(m);
  tl_python::init_autograd(m, cls);
  tl_python::init_indexing(cls);
  tl_python::init_runtime(m);
  tl_python::init_profiler(m);
  tl_python::init_generated_bindings(m, cls);
  tl_python::init_torch_function(m, cls);
  // The hand-bound Tensor methods that PyTorch routes through __torch_function__ too (the
  // generated ones route themselves).
  for (const char* name : {"size", "stride", "dim", "ndimension", "numel", "nelement", "element_size",
                           "storage_offset", "data_ptr", "is_contiguous", "is_floating_point", "get_device", "item",
                           "tolist", "numpy", "__getitem__", "__setitem__", "as_subclass", "requires_grad_",
                           "retain_grad", "detach_", "share_memory_", "is_shared"}) {
    tl_python::route_torch_function(cls, name, ("torchlite.Tensor." + std::string(name)).c_str());
  }
}
