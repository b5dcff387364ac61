// Tensor.__getitem__ / __setitem__ for basic indexing: ints, slices, None, Ellipsis and
// tuples of them. Every step is a view op from the YAML (select, slice, unsqueeze), so the
// result shares storage with the indexed tensor, and setitem writes through copy_/fill_.
#include "torchlite/csrc/python_indexing.h"

namespace tl_python {

namespace {

bool is_int(PyObject* o) { return PyLong_Check(o) && !PyBool_Check(o); }

int64_t count_consumed_dims(PyObject* index) {
  // Entries that consume a dimension: ints and slices (None and Ellipsis do not).
  int64_t n = 0;
  Py_ssize_t len = PyTuple_GET_SIZE(index);
  for (Py_ssize_t i = 0; i < len; ++i) {
    PyObject* it = PyTuple_GET_ITEM(index, i);
    if (is_int(it) || PySlice_Check(it) || (PyIndex_Check(it) && !PyBool_Check(it) && it != Py_None)) ++n;
  }
  return n;
}

Tensor apply_one(const Tensor& t, PyObject* it, int64_t& dim) {
  if (is_int(it) || (PyIndex_Check(it) && !PyBool_Check(it) && !py::isinstance<TensorImpl>(it))) {
    int64_t i = py::cast<int64_t>(py::handle(it));
    TL_CHECK_INDEX(t.dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    TL_CHECK_INDEX(dim < t.dim(), "too many indices for tensor of dimension ", t.dim());
    return t.select(dim, i);  // select checks the bounds
  }
  if (PySlice_Check(it)) {
    TL_CHECK_INDEX(dim < t.dim(), "too many indices for tensor of dimension ", t.dim());
    auto* s = reinterpret_cast<PySliceObject*>(it);
    auto opt = [](PyObject* o) -> std::optional<int64_t> {
      if (o == Py_None) return std::nullopt;
      return py::cast<int64_t>(py::handle(o));
    };
    int64_t step = s->step == Py_None ? 1 : py::cast<int64_t>(py::handle(s->step));
    TL_CHECK_VALUE(step > 0, "step must be greater than zero");
    Tensor r = t.slice(dim, opt(s->start), opt(s->stop), step);
    ++dim;
    return r;
  }
  if (it == Py_None) {
    Tensor r = t.unsqueeze(dim);
    ++dim;
    return r;
  }
  TL_CHECK_INDEX(false, "only integers, slices (`:`), ellipsis (`...`) and None are valid indices (got ",
                 Py_TYPE(it)->tp_name, "); tensor and list indices are not supported yet");
}

Tensor index_view(const Tensor& self, py::handle index) {
  PyObject* o = index.ptr();
  if (is_int(o)) {  // fast path: a[i]
    TL_CHECK_INDEX(self.dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` to convert a 0-dim "
                                   "tensor to a number");
    return self.select(0, PyLong_AsLongLong(o));
  }
  py::tuple tup = PyTuple_Check(o) ? py::reinterpret_borrow<py::tuple>(index) : py::make_tuple(index);
  Tensor t = self;
  int64_t dim = 0;
  int64_t consumed = count_consumed_dims(tup.ptr());
  bool seen_ellipsis = false;
  for (py::handle h : tup) {
    PyObject* it = h.ptr();
    if (it == Py_Ellipsis) {
      TL_CHECK_INDEX(!seen_ellipsis, "an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
      dim += self.dim() - consumed;  // skip the dims the rest of the index does not name
      continue;
    }
    if (is_int(it)) {
      t = apply_one(t, it, dim);  // select removes `dim`; the next index applies to the same position
      continue;
    }
    t = apply_one(t, it, dim);
  }
  return t;
}

}  // namespace

void init_indexing(PyTensorClass& cls) {
  cls.def("__getitem__", [](const Tensor& self, py::handle index) { return index_view(self, index); });
  cls.def("__setitem__", [](const Tensor& self, py::handle index, py::handle value) {
    Tensor view = index_view(self, index);
    if (py::isinstance<TensorImpl>(value)) {
      view.copy_(value.cast<Tensor>());
    } else {
      view.fill_(value.cast<Scalar>());
    }
  });
}

}  // namespace tl_python
