// Tensor.__getitem__ / __setitem__: ints, slices, None, Ellipsis, bools, tensors, lists and
// tuples of them. Basic items are view ops from the YAML (select, slice, unsqueeze), so without
// a tensor or list index the result shares storage (and the version counter) with the indexed
// tensor and setitem writes through copy_/fill_. Tensor and list indices (advanced indexing)
// then go, at the dims they index in that view, to index.Tensor / index_put_
// (Note [Advanced index layout] in aten/native/AdvancedIndexing.cpp).
//
// Differences from PyTorch: a second Ellipsis raises IndexError, as in NumPy (PyTorch ignores it).
#include "torchlite/csrc/python_indexing.h"

#include <utility>

#include "aten/native/ShapeUtils.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/expand.h"
#include "generated/ops/fill.h"
#include "generated/ops/index.h"
#include "generated/ops/index_put.h"
#include "generated/ops/select.h"
#include "generated/ops/slice.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/zeros.h"

namespace tl_python {

namespace {

enum class Kind { Int, Slice, None, Ellipsis, Bool, Tensor };

struct Item {
  Kind kind;
  int64_t value = 0;        // Int: the index; Bool: 0/1
  PyObject* obj = nullptr;  // Slice: the slice object
  Tensor tensor;            // Tensor: the index tensor (long/int, or a bool/uint8 mask)
  explicit Item(Kind k, int64_t v = 0) : kind(k), value(v) {}
  static Item slice(PyObject* s) {
    Item it(Kind::Slice);
    it.obj = s;
    return it;
  }
  static Item index(Tensor t) {
    Item it(Kind::Tensor);
    it.tensor = std::move(t);
    return it;
  }
  // The dims of self an item consumes: a mask one per dim, an int, slice or index tensor one.
  int64_t consumes() const {
    if (kind == Kind::Tensor) return is_mask() ? tensor.dim() : 1;
    return kind == Kind::Int || kind == Kind::Slice ? 1 : 0;
  }
  bool is_mask() const { return tensor.dtype() == ScalarType::Bool || tensor.dtype() == ScalarType::Byte; }
};

int64_t int_from_pylong(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0) throw py::value_error("Overflow when unpacking long long");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(v);
}

[[noreturn]] void bad_index(PyObject* it) {
  TL_CHECK_INDEX(false, "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                        "indices (got ", Py_TYPE(it)->tp_name, ")");
}

Item classify(PyObject* it) {
  if (it == Py_None) return Item(Kind::None);
  if (it == Py_Ellipsis) return Item(Kind::Ellipsis);
  if (PyBool_Check(it)) return Item(Kind::Bool, it == Py_True ? 1 : 0);
  if (PyLong_Check(it)) return Item(Kind::Int, int_from_pylong(it));
  if (PySlice_Check(it)) return Item::slice(it);
  py::handle h(it);
  if (py::isinstance<TensorImpl>(h)) {
    Tensor t = h.cast<Tensor>();
    TL_CHECK_INDEX(is_integral(t.dtype(), /*include_bool=*/true),
                   "tensors used as indices must be long, int, byte or bool tensors");
    if (t.dim() > 0) return Item::index(t);
    if (t.dtype() == ScalarType::Bool) return Item(Kind::Bool, t.item().to<bool>() ? 1 : 0);
    return Item(Kind::Int, t.item().to_long());
  }
  // A list, nested tuple or array (NumPy) is an index tensor, as in PyTorch.
  if (PyList_Check(it) || PyTuple_Check(it) || (PySequence_Check(it) && PyObject_HasAttrString(it, "__array__"))) {
    py::module_ tl_mod = py::module_::import("torchlite");
    py::object t = PySequence_Size(it) == 0 ? tl_mod.attr("tensor")(h, py::arg("dtype") = tl_mod.attr("int64"))
                                            : tl_mod.attr("tensor")(h);
    return classify(t.ptr());
  }
  if (PyIndex_Check(it) && !PySequence_Check(it)) {  // NumPy integers and other __index__ objects
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(it));
    if (!i) throw py::error_already_set();
    return Item(Kind::Int, int_from_pylong(i.ptr()));
  }
  bad_index(it);
}

// The view of `self` that the basic items select, and the advanced indices on that view's dims
// (empty when there are none).
struct Indexed {
  Tensor view;
  std::vector<std::optional<Tensor>> indices;
};

Indexed apply_index(const Tensor& self, const std::vector<Item>& items) {
  int64_t consumed = 0, ellipses = 0;
  bool has_int = false, has_slice = false;
  for (const Item& it : items) {
    consumed += it.consumes();
    if (it.kind == Kind::Int) has_int = true;
    if (it.kind == Kind::Slice) has_slice = true;
    if (it.kind == Kind::Ellipsis) ++ellipses;
  }
  TL_CHECK_INDEX(!(has_int && self.dim() == 0), "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  TL_CHECK_INDEX(!(has_slice && self.dim() == 0), "slice() cannot be applied to a 0-dim tensor.");
  TL_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  TL_CHECK_INDEX(ellipses <= 1, "an index can only have a single ellipsis ('...')");

  Tensor t = self;
  int64_t dim = 0;       // the dim of `t` the next item applies to
  int64_t self_dim = 0;  // the same dim counted in `self`, for messages (as PyTorch reports it)
  std::vector<std::optional<Tensor>> indices;
  int64_t covered = 0;  // the dims of `t` that `indices` spans (a mask spans its dims)
  for (const Item& it : items) {
    switch (it.kind) {
      case Kind::Tensor:
        for (; covered < dim; ++covered) indices.emplace_back(std::nullopt);  // dims taken whole
        indices.emplace_back(it.tensor);
        covered += it.consumes();
        dim += it.consumes();
        self_dim += it.consumes();
        break;
      case Kind::Int: {
        const int64_t size = t.sizes()[dim];
        TL_CHECK_INDEX(it.value >= -size && it.value < size, "index ", it.value, " is out of bounds for dimension ",
                       self_dim, " with size ", size);
        t = t.select(dim, it.value);  // removes `dim`
        ++self_dim;
        break;
      }
      case Kind::Slice: {
        Py_ssize_t start, stop, step;
        auto* s = reinterpret_cast<PySliceObject*>(it.obj);
        if (s->step != Py_None) {
          // Checked before PySlice_Unpack, whose clamping would hide negative steps.
          Py_ssize_t raw = PyNumber_AsSsize_t(s->step, nullptr);  // clamps huge steps
          if (raw == -1 && PyErr_Occurred()) throw py::error_already_set();
          if (raw == 0) throw py::value_error("slice step cannot be zero");
          TL_CHECK_VALUE(raw > 0, "step must be greater than zero");
        }
        if (PySlice_Unpack(it.obj, &start, &stop, &step) < 0) throw py::error_already_set();
        t = t.slice(dim, start, stop, step);  // clamps start/stop to the size like Python
        ++dim;
        ++self_dim;
        break;
      }
      case Kind::None:
        t = t.unsqueeze(dim);
        ++dim;
        break;
      case Kind::Bool:
        // As in PyTorch: a new dim of size 1, indexed by [0] for True and by nothing for False
        // (size 1 or 0, as a boolean mask would give), an advanced index that broadcasts with
        // the others: x[True, 1, idx] has idx's shape.
        t = t.unsqueeze(dim);
        for (; covered < dim; ++covered) indices.emplace_back(std::nullopt);
        indices.emplace_back(tl::zeros({it.value ? 1 : 0}, ScalarType::Long, std::nullopt, t.device()));
        ++covered;
        ++dim;
        break;
      case Kind::Ellipsis:
        dim += self.dim() - consumed;  // the dims the rest of the index does not name
        self_dim += self.dim() - consumed;
        break;
    }
  }
  // Indexing always returns a new tensor object (x[...] is not x), viewing the same memory.
  if (t.is_same(self)) t = self.view(self.sizes());
  return {t, std::move(indices)};
}

Indexed index_view(const Tensor& self, py::handle index) {
  PyObject* o = index.ptr();
  if (PyLong_CheckExact(o)) {  // fast path: a[i]
    TL_CHECK_INDEX(self.dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                   "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    return {self.select(0, int_from_pylong(o)), {}};
  }
  std::vector<Item> items;
  if (PyTuple_Check(o)) {
    Py_ssize_t n = PyTuple_GET_SIZE(o);
    items.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) items.push_back(classify(PyTuple_GET_ITEM(o, i)));
  } else {
    items.push_back(classify(o));
  }
  return apply_index(self, items);
}

}  // namespace

void init_indexing(PyTensorClass& cls) {
  cls.def("__getitem__", [](const Tensor& self, py::handle index) {
    Indexed r = index_view(self, index);
    return r.indices.empty() ? r.view : tl::index(r.view, r.indices);
  });
  cls.def("__setitem__", [](const Tensor& self, py::handle index, py::handle value) {
    PyObject* v = value.ptr();
    const bool is_tensor = py::isinstance<TensorImpl>(value);
    const bool is_number = !is_tensor && (PyBool_Check(v) || PyLong_Check(v) || PyFloat_Check(v) ||
                                          (PyNumber_Check(v) && !PySequence_Check(v)));
    if (!is_tensor && !is_number) {
      throw py::type_error(std::string("can't assign a ") + Py_TYPE(v)->tp_name + " to a " +
                           tl::native::legacy_type_name(self));
    }
    auto [view, indices] = index_view(self, index);
    if (!indices.empty()) {
      Tensor src = is_number ? scalar_to_tensor(value.cast<Scalar>(), view.dtype(), view.device())
                             : value.cast<Tensor>();
      if (src.dtype() != view.dtype()) src = src.to(view.dtype());
      tl::index_put_(view, indices, src, false);
      return;
    }
    if (is_number) {
      view.fill_(value.cast<Scalar>());
      return;
    }
    // Like PyTorch: drop the value's leading size-1 dims, then broadcast it to the view.
    Tensor src = value.cast<Tensor>();
    while (src.dim() > view.dim() && src.sizes()[0] == 1) src = src.select(0, 0);
    if (!src.sizes().equals(view.sizes())) src = src.expand(view.sizes());
    view.copy_(src);
  });
}

}  // namespace tl_python
