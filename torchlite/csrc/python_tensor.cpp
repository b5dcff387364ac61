// The Tensor class as Python sees it: metadata accessors and NumPy interop. Operator methods
// (t.add, t.view, ...) are added by the generated bindings; Python-level conveniences
// (repr, operators) by torchlite/_tensor.py.
#include <pybind11/numpy.h>

#include "aten/core/SharedMemory.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/copy.h"
#include "generated/ops/t.h"
#include "generated/ops/to.h"
#include "generated/ops/view_as.h"
#include "torchlite/csrc/autograd/variable.h"
#include "torchlite/csrc/python_binding_utils.h"
#include "torchlite/csrc/python_dlpack.h"
#include "torchlite/csrc/python_tensor.h"

namespace tl_python {

namespace {

py::object size_object(IntArrayRef sizes) {
  static py::object* size_type = new py::object(py::module_::import("torchlite._size").attr("Size"));
  py::tuple t(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) t[i] = py::int_(sizes[i]);
  return (*size_type)(t);
}

py::dtype numpy_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return py::dtype("bool");
    case ScalarType::Byte: return py::dtype("uint8");
    case ScalarType::Char: return py::dtype("int8");
    case ScalarType::Short: return py::dtype("int16");
    case ScalarType::Int: return py::dtype("int32");
    case ScalarType::Long: return py::dtype("int64");
    case ScalarType::Half: return py::dtype("float16");
    case ScalarType::Float: return py::dtype("float32");
    case ScalarType::Double: return py::dtype("float64");
    case ScalarType::ComplexFloat: return py::dtype("complex64");
    case ScalarType::ComplexDouble: return py::dtype("complex128");
    case ScalarType::BFloat16: break;
  }
  TL_CHECK_TYPE(false, "Got unsupported ScalarType ", t, " (NumPy has no bfloat16)");
}

ScalarType scalar_type_from_numpy(const py::dtype& dt) {
  TL_CHECK_TYPE(dt.byteorder() != '>', "given numpy array has byte order different from the native byte order");
  char kind = dt.kind();
  size_t size = dt.itemsize();
  if (kind == 'b') return ScalarType::Bool;
  if (kind == 'u' && size == 1) return ScalarType::Byte;
  if (kind == 'i') {
    switch (size) {
      case 1: return ScalarType::Char;
      case 2: return ScalarType::Short;
      case 4: return ScalarType::Int;
      case 8: return ScalarType::Long;
    }
  }
  if (kind == 'f') {
    switch (size) {
      case 2: return ScalarType::Half;
      case 4: return ScalarType::Float;
      case 8: return ScalarType::Double;
    }
  }
  if (kind == 'c') {
    switch (size) {
      case 8: return ScalarType::ComplexFloat;
      case 16: return ScalarType::ComplexDouble;
    }
  }
  TL_CHECK_TYPE(false, "can't convert np.ndarray of type ", std::string(py::str(dt)),
                ". The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
                "int8, uint8, and bool.");
}

void release_pyobject(void* ctx) {
  py::gil_scoped_acquire gil;
  Py_DECREF(static_cast<PyObject*>(ctx));
}

// Grows a storage to `needed` bytes in place, keeping its bytes, so that every view of it sees the
// new memory (as PyTorch's storage resize). Memory lent by NumPy (from_numpy) or by a DLPack
// producer stays where it is.
void grow_storage(const std::shared_ptr<StorageImpl>& storage, size_t needed) {
  if (needed <= storage->nbytes) return;
  TL_CHECK(storage->data.deleter != &release_pyobject && !is_dlpack_storage(*storage) && !is_shared_storage(*storage),
           "Trying to resize storage that is not resizable");
  auto grown = StorageImpl::allocate(needed, storage->device());
  const auto old_bytes = static_cast<int64_t>(storage->nbytes);
  Tensor::make(grown, ScalarType::Byte, {old_bytes}, {1}, 0)
      .copy_(Tensor::make(storage, ScalarType::Byte, {old_bytes}, {1}, 0));
  std::swap(storage->data, grown->data);
  storage->nbytes = needed;
}

// Recursively converts to nested lists of Python numbers.
py::object to_list(const Tensor& t, int64_t d, const char* base) {
  if (d == t.dim()) {
    return dispatch_all_types_and_complex(t.dtype(), "tolist", [&](auto tag) -> py::object {
      using T = typename decltype(tag)::type;
      T v;
      std::memcpy(&v, base, sizeof(T));
      if constexpr (std::is_same_v<T, bool>) return py::bool_(v);
      else if constexpr (std::is_integral_v<T>) return py::int_(static_cast<int64_t>(v));
      else if constexpr (is_complex_v<T>) return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(v.real(), v.imag()));
      else return py::float_(static_cast<double>(static_cast<opmath_t<T>>(v)));
    });
  }
  int64_t n = t.sizes()[d];
  int64_t step = t.strides()[d] * static_cast<int64_t>(t.element_size());
  py::list out(n);
  for (int64_t i = 0; i < n; ++i) out[i] = to_list(t, d + 1, base + i * step);
  return out;
}

// A new Python object of the Tensor subclass `type` holding `t` (Note [Tensor subclasses]).
py::object new_subclass_instance(py::handle type, const Tensor& t) {
  const py::detail::type_info* tinfo = py::detail::get_type_info(typeid(TensorImpl));
  TL_CHECK_TYPE(PyType_Check(type.ptr()) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), tinfo->type),
                "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure "
                "your class inherits from Tensor.");
  auto obj = py::reinterpret_steal<py::object>(py::detail::make_new_instance(reinterpret_cast<PyTypeObject*>(type.ptr())));
  auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
  py::detail::value_and_holder v_h = inst->get_value_and_holder(tinfo);
  std::shared_ptr<TensorImpl> holder = t.impl_ptr();
  v_h.value_ptr() = holder.get();
  tinfo->init_instance(inst, &holder);
  return obj;
}

}  // namespace

Tensor tensor_from_numpy(py::array arr) {
  ScalarType dtype = scalar_type_from_numpy(arr.dtype());
  int64_t item = static_cast<int64_t>(arr.itemsize());
  std::vector<int64_t> sizes(arr.ndim()), strides(arr.ndim());
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) {
    sizes[i] = arr.shape(i);
    TL_CHECK_VALUE(arr.strides(i) >= 0, "At least one stride in the given numpy array is negative, and tensors with "
                                        "negative strides are not currently supported. (You can probably work around "
                                        "this by making a copy of your array with array.copy().)");
    TL_CHECK_VALUE(arr.strides(i) % item == 0, "given numpy array strides not a multiple of the element byte size. "
                                               "Copy the numpy array to reallocate the memory.");
    strides[i] = arr.strides(i) / item;
  }
  TL_CHECK_TYPE(arr.writeable(), "from_numpy: the given NumPy array is not writable; copy it first");
  PyObject* owner = arr.ptr();
  Py_INCREF(owner);
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) extent += sizes[i] == 0 ? 0 : (sizes[i] - 1) * strides[i];
  DataPtr data(const_cast<void*>(arr.data()), owner, &release_pyobject, Device(DeviceType::CPU));
  auto storage = std::make_shared<StorageImpl>(std::move(data), static_cast<size_t>(extent * item));
  return Tensor::make(std::move(storage), dtype, std::move(sizes), std::move(strides), 0);
}

void init_tensor_class(py::module_& m, PyTensorClass& cls) {
  // Python's own messages ("unsupported operand type(s) for +: 'Tensor' and 'str'") print
  // tp_name, which pybind11 sets to "torchlite._C.Tensor"; PyTorch's say 'Tensor'.
  reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_name = "Tensor";
  cls.def_property_readonly("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      // size(dim=None) / stride(dim=None): all of them as a Size / tuple, or one as an int
      .def("size", [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
        return dim ? py::object(py::int_(t.size(*dim))) : size_object(t.sizes());
      }, py::arg("dim") = py::none())
      .def("stride", [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
        return dim ? py::object(py::int_(t.stride(*dim))) : py::object(py::tuple(py::cast(t.strides().vec())));
      }, py::arg("dim") = py::none())
      .def_property_readonly("dtype", [](const Tensor& t) { return t.dtype(); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device(); })
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dim(); })
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.is_cuda(); })
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.is_cpu(); })
      .def_property_readonly("itemsize", [](const Tensor& t) { return t.element_size(); })
      .def_property_readonly("nbytes", [](const Tensor& t) { return t.numel() * static_cast<int64_t>(t.element_size()); })
      .def_property_readonly("_version", [](const Tensor& t) { return t._version(); })
      .def_property_readonly("layout", [](const Tensor&) { return Layout::Strided; })
      .def("dim", [](const Tensor& t) { return t.dim(); })
      .def("ndimension", [](const Tensor& t) { return t.dim(); })
      .def("numel", [](const Tensor& t) { return t.numel(); })
      .def("nelement", [](const Tensor& t) { return t.numel(); })
      .def("element_size", [](const Tensor& t) { return t.element_size(); })
      .def("storage_offset", [](const Tensor& t) { return t.storage_offset(); })
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("is_contiguous", [](const Tensor& t, MemoryFormat format) { return native::is_contiguous_in(t, format); },
           py::arg("memory_format") = MemoryFormat::Contiguous)
      .def("is_floating_point", [](const Tensor& t) { return t.is_floating_point(); })
      .def("get_device", [](const Tensor& t) { return t.is_cuda() ? static_cast<int>(t.device().index) : -1; })
      .def("item", [](const Tensor& t) { return t.item(); })
      .def("tolist", [](const Tensor& t) {
        Tensor c = t.is_cpu() ? t : t.to(Device(DeviceType::CPU));
        return to_list(c, 0, static_cast<const char*>(c.data_ptr()));
      })
      .def("_is_same", [](const Tensor& a, const Tensor& b) { return a.is_same(b); })
      .def("_shares_storage", [](const Tensor& a, const Tensor& b) {
        return a.impl()->storage() == b.impl()->storage();
      })
      // Storage identity and size, for save/load and pickling (shared storages are written once).
      .def("_storage_id", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()->storage().get()); })
      .def("_storage_nbytes", [](const Tensor& t) { return static_cast<int64_t>(t.impl()->storage()->nbytes); })
      // Shared memory (Note [Shared memory storages]), for torchlite.multiprocessing. A CUDA
      // storage counts as shared, as in PyTorch (other processes reach it through CUDA IPC).
      .def("share_memory_", [](py::object self) {
        Tensor t = self.cast<Tensor>();
        if (t.is_cpu()) move_storage_to_shared(*t.impl()->storage());
        return self;
      })
      .def("is_shared", [](const Tensor& t) { return !t.is_cpu() || is_shared_storage(*t.impl()->storage()); })
      .def("_shared_fd", [](const Tensor& t) { return shared_storage_fd(*t.impl()->storage()); })
      // In-place changes of a tensor's geometry, for the in-place view ops (t_, unsqueeze_,
      // as_strided_, ...) and resize_ of torchlite/_inplace_views.py, which do the argument checks
      // and the autograd rules. Both count as an in-place modification (the version bumps).
      .def("_set_geometry", [](const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                               int64_t storage_offset) {
        TL_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
        for (int64_t s : strides) {
          TL_CHECK(s >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ", IntArrayRef(strides));
        }
        TL_CHECK(storage_offset >= 0, "Tensor: invalid storage offset ", storage_offset);
        const int64_t needed = checked_storage_elements(sizes, strides, storage_offset);
        const int64_t available = static_cast<int64_t>(t.impl()->storage()->nbytes / t.element_size());
        TL_CHECK(needed <= available, "setStorage: sizes ", IntArrayRef(sizes), ", strides ", IntArrayRef(strides),
                 ", storage offset ", storage_offset, " require a storage of ", needed * t.element_size(),
                 " bytes, but the storage has ", t.impl()->storage()->nbytes, " bytes");
        t.impl()->set_sizes_and_strides(sizes, strides, storage_offset);
        t.impl()->bump_version();
      }, py::arg("size"), py::arg("stride"), py::arg("storage_offset"))
      // Contiguous sizes from the tensor's storage offset on; a storage too small grows in place.
      .def("_resize_contiguous", [](const Tensor& t, std::vector<int64_t> sizes) {
        grow_storage(t.impl()->storage(),
                     checked_nbytes(sizes, t.element_size()) + t.storage_offset() * t.element_size());
        t.impl()->set_sizes_and_strides(sizes, contiguous_strides(sizes), t.storage_offset());
        t.impl()->bump_version();
      }, py::arg("size"))
      // Tensor.set_(source, ...): t views source's storage with this geometry (the storage grows
      // when it is too small, as in PyTorch).
      .def("_set_source", [](const Tensor& t, const Tensor& source, int64_t storage_offset, std::vector<int64_t> sizes,
                             std::vector<int64_t> strides) {
        TL_CHECK(t.dtype() == source.dtype(), "Could not set tensor of type ", source.dtype(), " to a tensor of type ",
                 t.dtype());
        TL_CHECK(t.device() == source.device(), "Expected a tensor on ", t.device(), ", but got one on ",
                 source.device());
        TL_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
        TL_CHECK(storage_offset >= 0, "Tensor: invalid storage offset ", storage_offset);
        for (int64_t s : strides) {
          TL_CHECK(s >= 0, "set_: negative strides are not supported, got ", IntArrayRef(strides));
        }
        const std::shared_ptr<StorageImpl>& storage = source.impl()->storage();
        const int64_t elements = checked_storage_elements(sizes, strides, storage_offset);
        grow_storage(storage, static_cast<size_t>(elements) * t.element_size());
        t.impl()->set_storage(storage);
        t.impl()->set_sizes_and_strides(sizes, strides, storage_offset);
        t.impl()->bump_version();
      }, py::arg("source"), py::arg("storage_offset"), py::arg("size"), py::arg("stride"))
      .def("numpy", [](py::object self, bool force) -> py::object {
        Tensor t = self.cast<Tensor>();
        TL_CHECK(force || !tl::autograd::requires_grad(t),
                 "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
        if (force && !t.is_cpu()) t = t.to(Device(DeviceType::CPU));
        TL_CHECK_TYPE(t.is_cpu(), "can't convert ", t.device(), " device type tensor to numpy. Use Tensor.cpu() to "
                                  "copy the tensor to host memory first.");
        std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
        std::vector<py::ssize_t> strides;
        for (int64_t s : t.strides()) {
          // A stride too large to count in bytes can only belong to a dim of size 1 (as_strided
          // checks the storage holds every element), where NumPy ignores it.
          int64_t bytes = 0;
          if (__builtin_mul_overflow(s, static_cast<int64_t>(t.element_size()), &bytes)) bytes = 0;
          strides.push_back(bytes);
        }
        // The array keeps the Python tensor (and so its storage) alive: a zero-copy view.
        py::object base = t.is_same(self.cast<Tensor>()) ? self : py::cast(t);
        return py::array(numpy_dtype(t.dtype()), shape, strides, t.data_ptr(), base);
      }, py::arg("force") = false);

  // Note [Tensor subclasses]: Tensor._make_subclass(cls, data, requires_grad) makes an object of
  // the Python subclass `cls` (torchlite.nn.Parameter, ...) holding a detached alias of `data` (a
  // new TensorImpl over the same storage). The object is registered with pybind11 like any
  // tensor, so an op that returns that TensorImpl (an in-place op) gives back the subclass object.
  cls.def_static("_make_subclass", [](py::handle type, const Tensor& data, bool requires_grad) -> py::object {
    Tensor t = tl::autograd::make_detached(data);
    if (requires_grad) tl::autograd::set_requires_grad(t, true);
    return new_subclass_instance(type, t);
  }, py::arg("cls"), py::arg("data"), py::arg("requires_grad") = false);
  // x.as_subclass(cls): a `cls` object over an alias of x (same storage, still in x's autograd
  // graph), as PyTorch's; the default __torch_function__ converts results with it.
  cls.def("as_subclass", [](const Tensor& self, py::handle type) {
    return new_subclass_instance(type, self.view_as(self));
  }, py::arg("cls"));

  m.def("from_numpy", &tensor_from_numpy, py::arg("ndarray"));
  // A tensor over the shared memory behind `fd` (which it takes over), as another process's
  // shared tensor arrives; and a new contiguous tensor in shared memory, for DataLoader workers.
  m.def("_tensor_from_shared_fd", [](int fd, int64_t nbytes, ScalarType dtype, std::vector<int64_t> size,
                                     std::vector<int64_t> stride, int64_t storage_offset) {
    TL_CHECK(nbytes >= 0 && size.size() == stride.size(), "_tensor_from_shared_fd: bad geometry");
    auto storage = shared_storage_from_fd(fd, static_cast<size_t>(nbytes));
    const int64_t needed = checked_storage_elements(size, stride, storage_offset);
    TL_CHECK(needed * static_cast<int64_t>(element_size(dtype)) <= nbytes, "_tensor_from_shared_fd: a view of ",
             IntArrayRef(size), " needs more than the ", nbytes, " bytes shared");
    return Tensor::make(std::move(storage), dtype, std::move(size), std::move(stride), storage_offset);
  }, py::arg("fd"), py::arg("nbytes"), py::arg("dtype"), py::arg("size"), py::arg("stride"),
     py::arg("storage_offset"));
  m.def("_empty_shared", [](std::vector<int64_t> size, ScalarType dtype) {
    auto storage = new_shared_storage(checked_nbytes(size, element_size(dtype)));
    auto strides = contiguous_strides(size);
    return Tensor::make(std::move(storage), dtype, std::move(size), std::move(strides), 0);
  }, py::arg("size"), py::arg("dtype"));
}

}  // namespace tl_python
