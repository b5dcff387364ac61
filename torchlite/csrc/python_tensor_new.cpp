// torchlite.tensor(data): builds a tensor from nested Python sequences of numbers, NumPy
// arrays or tensors. `data` is an arbitrary Python object, which the schema language cannot
// describe, so (as in PyTorch) this constructor is written by hand rather than generated.
#include "torchlite/csrc/python_tensor_new.h"

#include "generated/ops/to.h"
#include "torchlite/csrc/autograd/variable.h"
#include "torchlite/csrc/python_tensor.h"

namespace tl_python {

namespace {

enum class Category { Bool = 0, Int = 1, Float = 2, Complex = 3 };

bool is_sequence(PyObject* o) { return PyList_Check(o) || PyTuple_Check(o); }

void infer_shape(PyObject* o, std::vector<int64_t>& shape) {
  while (is_sequence(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    shape.push_back(n);
    if (n == 0) return;
    o = PySequence_Fast_ITEMS(o)[0];
  }
}

Category leaf_category(PyObject* o) {
  if (PyBool_Check(o)) return Category::Bool;
  if (PyLong_Check(o)) return Category::Int;
  if (PyFloat_Check(o)) return Category::Float;
  if (PyComplex_Check(o)) return Category::Complex;
  py::handle h(o);
  if (py::isinstance<TensorImpl>(h)) {
    Tensor t = h.cast<Tensor>();
    TL_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
    ScalarType s = t.dtype();
    return s == ScalarType::Bool        ? Category::Bool
           : is_floating_point(s) ? Category::Float
           : is_complex(s)        ? Category::Complex
                                  : Category::Int;
  }
  if (PyIndex_Check(o)) return Category::Int;
  if (PyNumber_Check(o)) return Category::Float;
  TL_CHECK_TYPE(!PyUnicode_Check(o), "new(): invalid data type 'str'");
  TL_CHECK(false, "Could not infer dtype of ", Py_TYPE(o)->tp_name);
}

// Checks the nesting matches `shape` and finds the widest leaf category.
void scan(PyObject* o, const std::vector<int64_t>& shape, size_t d, Category& cat) {
  if (d == shape.size()) {
    TL_CHECK_TYPE(!is_sequence(o), "too many dimensions in nested sequence (expected ", shape.size(), ")");
    Category c = leaf_category(o);
    if (c > cat) cat = c;
    return;
  }
  TL_CHECK_VALUE(is_sequence(o), "expected sequence of length ", shape[d], " at dim ", d, " (got ",
                 Py_TYPE(o)->tp_name, ")");
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  TL_CHECK_VALUE(n == shape[d], "expected sequence of length ", shape[d], " at dim ", d, " (got ", n, ")");
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i) scan(items[i], shape, d + 1, cat);
}

template <typename T>
void fill(PyObject* o, size_t d, size_t ndim, T*& out) {
  if (d == ndim) {
    Scalar s = py::handle(o).cast<Scalar>();
    *out++ = s.to<T>();
    return;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i) fill(items[i], d + 1, ndim, out);
}

}  // namespace

Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Device dev = device.value_or(Device(DeviceType::CPU));
  if (py::isinstance<TensorImpl>(data)) {
    Tensor t = data.cast<Tensor>();
    return t.to(dev, dtype.value_or(t.dtype()), /*non_blocking=*/false, /*copy=*/true);
  }
  if (py::isinstance<py::array>(data)) {
    Tensor t = tensor_from_numpy(py::reinterpret_borrow<py::array>(data));
    return t.to(dev, dtype.value_or(t.dtype()), false, /*copy=*/true);
  }
  std::vector<int64_t> shape;
  infer_shape(data.ptr(), shape);
  Category cat = Category::Bool;
  scan(data.ptr(), shape, 0, cat);
  int64_t numel = checked_numel(shape);
  if (numel == 0 && !dtype) cat = Category::Float;  // torch.tensor([]) is float32
  ScalarType inferred = cat == Category::Bool ? ScalarType::Bool
                        : cat == Category::Int ? ScalarType::Long
                        : cat == Category::Complex ? default_complex_dtype()
                                               : default_dtype();
  ScalarType st = dtype.value_or(inferred);
  Tensor cpu = empty_tensor(shape, TensorOptions(st));
  dispatch_all_types_and_complex(st, "tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = cpu.data_ptr<T>();
    fill<T>(data.ptr(), 0, shape.size(), out);
  });
  return dev.is_cpu() ? cpu : cpu.to(dev, st, false, false);
}

void init_tensor_new(py::module_& m) {
  // pin_memory is accepted and ignored, as by the generated factories: memory is never page-locked.
  m.def("tensor", [](py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device,
                     bool requires_grad, bool /*pin_memory*/) {
    Tensor t = tensor_from_data(data, dtype, device);
    if (requires_grad) tl::autograd::set_requires_grad(t, true);
    return t;
  }, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false, py::arg("pin_memory") = false);
}

}  // namespace tl_python
