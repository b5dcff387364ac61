// Python objects for dtypes, devices, layouts and memory formats, and the casters that turn
// Python arguments (numbers, dtype objects, "cuda:0" strings, int sequences) into C++ values.
#include <array>

#include "aten/native/TensorIterator.h"
#include "torchlite/csrc/python_binding_utils.h"
#include "torchlite/csrc/python_types.h"

namespace tl_python {

namespace {
struct PyDType {
  ScalarType type;
};
std::array<py::object, kNumScalarTypes>& dtype_objects() {
  static auto* objs = new std::array<py::object, kNumScalarTypes>();  // leaked: lives with the interpreter
  return *objs;
}

// A Python int as int64: one that does not fit is a TypeError, as in PyTorch, not a wrapped
// value (and not a Python error left set for the interpreter to find).
int64_t unpack_long(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0) throw py::type_error("failed to unpack an int argument: Overflow when unpacking long");
  return static_cast<int64_t>(v);
}

}  // namespace

bool size_from_index(PyObject* o, int64_t& out) {
  if (PyBool_Check(o)) return false;
  if (PyLong_Check(o)) {
    out = unpack_long(o);
    return true;
  }
  if (!PyIndex_Check(o)) return false;
  // __index__ of a float tensor raises: not a size (PyTorch's TypeError comes from the caller).
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!index) {
    PyErr_Clear();
    return false;
  }
  out = unpack_long(index.ptr());
  return true;
}

py::object dtype_object(ScalarType t) { return dtype_objects()[static_cast<int>(t)]; }
bool is_dtype_object(py::handle h) { return py::isinstance<PyDType>(h); }
ScalarType dtype_from_object(py::handle h) { return h.cast<PyDType&>().type; }

std::vector<int64_t> int_list_from_args(const py::args& args) {
  // x.view(2, 3) or x.view((2, 3)): a single sequence argument is the list itself.
  // Anything else is not this overload's: reference_cast_error makes the argument parser try the
  // next one and, failing all, word PyTorch's TypeError (Note [Argument errors]).
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) {
    py::detail::make_caster<IntList> list;
    if (!list.load(args[0], true)) throw py::reference_cast_error();
    return py::detail::cast_op<IntList&>(list).values;
  }
  std::vector<int64_t> out;
  out.reserve(args.size());
  for (py::handle h : args) {
    int64_t v = 0;
    if (!size_from_index(h.ptr(), v)) throw py::reference_cast_error();
    out.push_back(v);
  }
  return out;
}

void check_out_options(const Tensor& out, std::optional<ScalarType> dtype, std::optional<Device> device) {
  TL_CHECK(!dtype || *dtype == out.dtype(), "dtype ", scalar_type_cpp_name(*dtype),
           " does not match dtype of out parameter (", scalar_type_cpp_name(out.dtype()), ")");
  // "cuda" names whichever CUDA device out is on.
  TL_CHECK(!device || (device->type == out.device().type && (device->index < 0 || *device == out.device())),
           "device ", *device, " does not match device of out parameter (", out.device(), ")");
}

Tensor out_tensor(py::handle out, size_t i, size_t n) {
  if (n == 1) {
    if (!py::isinstance<TensorImpl>(out))
      throw py::type_error(std::string("argument 'out' must be Tensor, not ") + Py_TYPE(out.ptr())->tp_name);
    return out.cast<Tensor>();
  }
  if (!py::isinstance<py::sequence>(out) || py::len(out) != n)
    throw py::type_error("argument 'out' must be a tuple of " + std::to_string(n) + " Tensors");
  py::object item = out[py::int_(i)];
  if (!py::isinstance<TensorImpl>(item))
    throw py::type_error("argument 'out' must be a tuple of " + std::to_string(n) + " Tensors");
  return item.cast<Tensor>();
}

py::object named_tuple_type(const char* name, std::initializer_list<const char*> fields) {
  static py::dict* cache = new py::dict();  // leaked: lives with the interpreter
  py::str key(name);
  if (cache->contains(key)) return (*cache)[key];
  py::list names;
  for (const char* f : fields) names.append(f);
  py::object t = py::module_::import("collections").attr("namedtuple")(name, names);
  t.attr("__module__") = "torchlite.return_types";
  // Printed as torch prints its return types, one field per line:
  // torchlite.return_types.max(\nvalues=...,\nindices=...).
  std::string prefix = std::string("torchlite.return_types.") + name + "(";
  t.attr("__repr__") = py::cpp_function([prefix](py::object self) {
    std::string s = prefix;
    py::tuple names = self.attr("_fields");
    for (size_t i = 0; i < names.size(); ++i) {
      s += (i ? ",\n" : "\n") + names[i].cast<std::string>() + "=" + py::repr(self.attr(names[i])).cast<std::string>();
    }
    return s + ")";
  }, py::is_method(t));
  (*cache)[key] = t;
  return t;
}

void init_types(py::module_& m) {
  py::class_<PyDType>(m, "dtype")
      .def_property_readonly("is_floating_point", [](const PyDType& d) { return is_floating_point(d.type); })
      .def_property_readonly("is_complex", [](const PyDType& d) { return is_complex(d.type); })
      .def("to_real", [](const PyDType& d) { return dtype_object(to_real_type(d.type)); })
      .def("to_complex", [](const PyDType& d) { return dtype_object(to_complex_type(d.type)); })
      .def_property_readonly("is_signed", [](const PyDType& d) {
        return d.type != ScalarType::Bool && d.type != ScalarType::Byte;
      })
      .def_property_readonly("itemsize", [](const PyDType& d) { return element_size(d.type); })
      .def("__repr__", [](const PyDType& d) { return std::string("torchlite.") + dtype_name(d.type); })
      .def("__reduce__", [](const PyDType& d) { return std::string(dtype_name(d.type)); });
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto t = static_cast<ScalarType>(i);
    dtype_objects()[i] = py::cast(PyDType{t});
    m.attr(dtype_name(t)) = dtype_objects()[i];
  }

  py::class_<PyDevice>(m, "device")
      .def(py::init([](const std::string& spec) { return PyDevice{Device(spec)}; }), py::arg("type"))
      .def(py::init([](const std::string& type, int index) {
             Device d(type);
             TL_CHECK(d.index < 0, "device(): type (string) must not include an index because index was passed "
                                   "explicitly: ", type);
             TL_CHECK(index >= 0, "Device index must not be negative, got ", index);
             return PyDevice{Device(d.type, index)};
           }),
           py::arg("type"), py::arg("index"))
      .def(py::init([](const PyDevice& d) { return d; }))
      .def_property_readonly("type", [](const PyDevice& d) { return d.device.is_cpu() ? "cpu" : "cuda"; })
      .def_property_readonly("index", [](const PyDevice& d) -> py::object {
        if (d.device.index < 0) return py::none();
        return py::int_(d.device.index);
      })
      .def("__str__", [](const PyDevice& d) { return d.device.str(); })
      .def("__repr__", [](const PyDevice& d) {
        std::string s = std::string("device(type='") + (d.device.is_cpu() ? "cpu" : "cuda") + "'";
        if (d.device.index >= 0) s += ", index=" + std::to_string(d.device.index);
        return s + ")";
      })
      .def("__eq__", [](const PyDevice& a, py::object b) {
        if (!py::isinstance<PyDevice>(b)) return false;
        return a.device == b.cast<PyDevice&>().device;
      })
      .def("__hash__", [](const PyDevice& d) {
        return static_cast<int>(d.device.type) * 1000 + d.device.index;
      })
      .def("__reduce__", [](const PyDevice& d) {
        return py::make_tuple(py::module_::import("torchlite").attr("device"), py::make_tuple(d.device.str()));
      });

  py::enum_<Layout>(m, "layout").value("strided", Layout::Strided);
  py::enum_<MemoryFormat>(m, "memory_format")
      .value("contiguous_format", MemoryFormat::Contiguous)
      .value("preserve_format", MemoryFormat::Preserve)
      .value("channels_last", MemoryFormat::ChannelsLast)
      .value("channels_last_3d", MemoryFormat::ChannelsLast3d);
  m.attr("strided") = py::cast(Layout::Strided);
  m.attr("contiguous_format") = py::cast(MemoryFormat::Contiguous);
  m.attr("preserve_format") = py::cast(MemoryFormat::Preserve);
  m.attr("channels_last") = py::cast(MemoryFormat::ChannelsLast);
  m.attr("channels_last_3d") = py::cast(MemoryFormat::ChannelsLast3d);
  // PyTorch's legacy_contiguous_format compares equal to contiguous_format; here it is the same value.
  m.attr("legacy_contiguous_format") = py::cast(MemoryFormat::Contiguous);

  m.def("get_default_dtype", []() { return default_dtype(); });
  m.def("set_default_dtype", [](ScalarType t) { set_default_dtype(t); }, py::arg("d"));
  m.def("promote_types", &promote_types, py::arg("type1"), py::arg("type2"));
  // torch.result_type: tensors or Python numbers (which are weak, see Note [Wrapped numbers]).
  m.def("result_type", [](py::handle a, py::handle b) {
    auto operand = [](py::handle h) {
      return py::isinstance<TensorImpl>(h) ? h.cast<Tensor>() : wrapped_scalar_tensor(h.cast<Scalar>());
    };
    return result_type({operand(a), operand(b)});
  }, py::arg("tensor1"), py::arg("tensor2"));
}

}  // namespace tl_python

namespace pybind11::detail {

bool type_caster<tl::Scalar>::load(handle src, bool convert) {
  PyObject* o = src.ptr();
  if (PyBool_Check(o)) {
    value = tl::Scalar(o == Py_True);
    return true;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) throw py::value_error("value cannot be converted to type int64 without overflow");
    value = tl::Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyFloat_Check(o)) {
    value = tl::Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyComplex_Check(o)) {
    value = tl::Scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
    return true;
  }
  if (!convert) return false;
  // NumPy scalars and other number-likes; a one-element Tensor goes through item().
  if (py::isinstance<tl::TensorImpl>(src)) {
    tl::Tensor t = src.cast<tl::Tensor>();
    if (t.numel() != 1) return false;
    value = t.item();
    return true;
  }
  if (PyIndex_Check(o)) {
    // NumPy arrays have __index__ but refuse it unless they are 0-d integers: NULL, then on.
    if (PyObject* index = PyNumber_Index(o)) {
      value = tl::Scalar(static_cast<int64_t>(py::cast<int64_t>(py::reinterpret_steal<py::object>(index))));
      return true;
    }
    PyErr_Clear();
  }
  if (PyFloat_Check(o) || PyNumber_Check(o)) {
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value = tl::Scalar(d);
    return true;
  }
  return false;
}

bool type_caster<tl::ScalarType>::load(handle src, bool) {
  if (tl_python::is_dtype_object(src)) {
    value = tl_python::dtype_from_object(src);
    return true;
  }
  // Python's own types name dtypes too: dtype=float -> float64, as in PyTorch.
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) {
    value = tl::ScalarType::Double;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) {
    value = tl::ScalarType::Long;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) {
    value = tl::ScalarType::Bool;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyComplex_Type)) {
    value = tl::ScalarType::ComplexDouble;
    return true;
  }
  return false;
}

bool type_caster<tl::Device>::load(handle src, bool) {
  if (py::isinstance<tl_python::PyDevice>(src)) {
    value = src.cast<tl_python::PyDevice&>().device;
    return true;
  }
  if (PyUnicode_Check(src.ptr())) {
    value = tl::Device(src.cast<std::string>());
    return true;
  }
  if (PyLong_Check(src.ptr())) {
    value = tl::Device(tl::DeviceType::CUDA, src.cast<int>());
    return true;
  }
  return false;
}

handle type_caster<tl::Device>::cast(const tl::Device& d, return_value_policy, handle) {
  return py::cast(tl_python::PyDevice{d}).release();
}

bool type_caster<tl_python::IntList>::load(handle src, bool convert) {
  PyObject* o = src.ptr();
  value.values.clear();
  value.from_scalar = false;
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    value.values.push_back(tl_python::unpack_long(o));
    value.from_scalar = true;
    return true;
  }
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    value.values.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* it = items[i];
      int64_t v = 0;
      // Without conversion only Python ints; with it, anything with __index__ (integer tensors).
      if (!(convert || PyLong_Check(it)) || !tl_python::size_from_index(it, v)) return false;
      value.values.push_back(v);
    }
    return true;
  }
  return false;
}

}  // namespace pybind11::detail
