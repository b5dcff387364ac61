// torchlite.profiler's view of the C++ profiler (Note [Profiler hook]).
#include "torchlite/csrc/profiler/python_profiler.h"

#include <Python.h>

#include "torchlite/csrc/profiler/profiler.h"

namespace tl_python {

namespace {

// "file(line): function" per Python frame of this thread, innermost first; nothing where the
// thread does not hold the GIL (a backward pass runs without it).
std::vector<std::string> python_stack() {
  std::vector<std::string> frames;
  if (!PyGILState_Check()) return frames;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    const char* function = PyUnicode_AsUTF8(code->co_name);
    frames.push_back(std::string(file ? file : "?") + "(" + std::to_string(PyFrame_GetLineNumber(frame)) +
                     "): " + (function ? function : "?"));
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  return frames;
}

py::object input_shape(const tl::profiler::InputInfo& in) {
  if (!in.is_list) return py::cast(in.sizes);
  return py::cast(in.list_sizes);
}

}  // namespace

void init_profiler(py::module_& m) {
  tl::profiler::set_stack_provider(&python_stack);
  m.def("_profiler_enable", [](bool record_shapes, bool with_stack) {
    tl::profiler::enable(tl::profiler::Config{record_shapes, with_stack});
  }, py::arg("record_shapes"), py::arg("with_stack"));
  // The events as tuples (name, kind, start_ns, end_ns, thread id, sequence nr, parent index,
  // input shapes, input types, stack); kind: 0 operator, 1 autograd Node, 2 record_function.
  m.def("_profiler_disable", []() {
    std::vector<tl::profiler::Event> events = tl::profiler::disable();
    py::list out;
    for (const tl::profiler::Event& e : events) {
      py::list shapes, types;
      for (const tl::profiler::InputInfo& in : e.inputs) {
        shapes.append(input_shape(in));
        types.append(in.type);
      }
      out.append(py::make_tuple(e.name, static_cast<int>(e.kind), e.start_ns, e.end_ns, e.thread_id, e.sequence_nr,
                                e.parent, shapes, types, py::cast(e.stack)));
    }
    return out;
  });
  m.def("_profiler_enabled_on_this_thread", &tl::profiler::is_enabled_on_this_thread);
  // torchlite.profiler.record_function: a handle to end the event with (-1: not recording).
  m.def("_record_function_enter", [](std::string name) {
    return tl::profiler::begin(std::move(name), tl::profiler::EventKind::UserScope, -1);
  }, py::arg("name"));
  m.def("_record_function_exit", &tl::profiler::end, py::arg("handle"));
}

}  // namespace tl_python
