#pragma once
// What the bindings need from pybind11: type casters between Python objects and torchlite's C++
// types, and helpers to convert arguments and results. The generated bindings use the casters
// through the argument parser (python_arg_parser.h).
//
// Note [Tensor identity]: Python's Tensor class wraps TensorImpl held by shared_ptr, and C++
// code passes tl::Tensor handles. Returning a handle whose TensorImpl already has a Python
// object gives back that same object (pybind11 keeps a registry), so `a.add_(b) is a`.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "aten/core/Tensor.h"
#include "torchlite/csrc/autograd/variable.h"

namespace py = pybind11;

namespace tl_python {

using namespace tl;
using PyTensorClass = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;

// Note [Strict scalars]
// An int argument takes a Python int, or with conversion anything with __index__ (a NumPy
// integer, a one-element integer tensor), but not a bool, a float or a float tensor; a bool
// argument takes only True or False. That is how PyTorch parses them. pybind11's own casters
// take far more: any object with __int__ (a float tensor becomes a dim) and, for bool, None as
// False or anything with __bool__. Generated bindings take these wrappers instead.
struct IntArg {
  int64_t value = 0;
};
struct BoolArg {
  bool value = false;
  operator bool() const { return value; }  // NOLINT: wrap_factory(call, requires_grad)
};
template <typename T>
auto unwrap(const std::optional<T>& v) -> std::optional<decltype(v->value)> {
  if (!v) return std::nullopt;
  return v->value;
}

// An int[] argument: a sequence of ints, or one int (`sum(dim=1)`, `int[2] stride=2`).
struct IntList {
  mutable std::vector<int64_t> values;
  bool from_scalar = false;
  // int[N] given a single int repeats it N times.
  IntArrayRef expanded(size_t n) const {
    if (from_scalar && n > 1) values.assign(n, values[0]);
    return values;
  }
};

// A bool[N] argument (output_mask): a list or tuple of exactly N bools, each True or False as for
// a bool argument (Note [Strict scalars]).
template <size_t N>
struct BoolList {
  std::array<bool, N> value{};
};

inline std::optional<IntArrayRef> optional_int_list(const std::optional<IntList>& l, size_t n) {
  if (!l) return std::nullopt;
  return l->expanded(n);
}

std::vector<int64_t> int_list_from_args(const py::args& args);
// One size from a Python int or an object with __index__ (an integer tensor); false, with no
// Python error set, for anything else (bool, float, a float tensor).
bool size_from_index(PyObject* o, int64_t& out);

// Python-side device object (torchlite.device); tl::Device itself converts through a caster.
struct PyDevice {
  Device device;
};

// The Python object for a dtype (torchlite.float32, ...).
py::object dtype_object(ScalarType t);
bool is_dtype_object(py::handle h);
ScalarType dtype_from_object(py::handle h);

// Note [GIL]: a generated binding runs an op over a large tensor with the GIL released, so
// other Python threads run meanwhile (what runs below it never touches Python objects; hooks and
// Python autograd Functions take the GIL back themselves). Small ops keep it: releasing and
// taking it back costs more than they do.
constexpr int64_t kReleaseGilNumel = int64_t{1} << 15;
inline bool is_long(const Tensor& t) { return t.defined() && t.numel() >= kReleaseGilNumel; }
inline bool is_long(const std::optional<Tensor>& t) { return t && is_long(*t); }
template <typename T>
bool is_long(const std::vector<T>& ts) {
  for (const T& t : ts)
    if (is_long(t)) return true;
  return false;
}
class ReleaseGilIfLong {
 public:
  template <typename... Ts>
  explicit ReleaseGilIfLong(const Ts&... tensors) {
    if ((is_long(tensors) || ...)) state_ = PyEval_SaveThread();
  }
  ~ReleaseGilIfLong() {
    if (state_ != nullptr) PyEval_RestoreThread(state_);
  }
  ReleaseGilIfLong(const ReleaseGilIfLong&) = delete;
  ReleaseGilIfLong& operator=(const ReleaseGilIfLong&) = delete;

 private:
  PyThreadState* state_ = nullptr;
};

// Results: tensors as themselves, Tensor[] as a tuple (as PyTorch returns), tuples as tuples.
inline Tensor wrap(Tensor t) { return t; }
// The Python-only `requires_grad=` keyword of factory functions (zeros(..., requires_grad=True)).
inline Tensor wrap_factory(Tensor t, bool requires_grad) {
  if (requires_grad) tl::autograd::set_requires_grad(t, true);
  return t;
}
inline py::tuple wrap(const std::vector<Tensor>& ts) {
  py::tuple out(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) out[i] = py::cast(ts[i]);
  return out;
}
template <typename... Ts>
py::tuple wrap(const std::tuple<Ts...>& t) {
  return py::cast(t);
}
inline Scalar wrap(const Scalar& s) { return s; }
inline bool wrap(bool b) { return b; }
inline int64_t wrap(int64_t v) { return v; }
inline double wrap(double v) { return v; }
inline ScalarType wrap(ScalarType t) { return t; }

// Output `i` of `n` from an out= argument: a Tensor when n == 1, else a sequence of n tensors.
Tensor out_tensor(py::handle out, size_t i, size_t n);
// Note [Factory out=]: a factory function given out= writes it, so the dtype and device asked
// for, where given, must be out's: "dtype Long does not match dtype of out parameter (Float)".
void check_out_options(const Tensor& out, std::optional<ScalarType> dtype, std::optional<Device> device);

// torchlite.return_types.<name>(values, indices) for ops with named returns.
py::object named_tuple_type(const char* name, std::initializer_list<const char*> fields);
template <typename Tuple>
py::object named_tuple(const char* name, std::initializer_list<const char*> fields, const Tuple& t) {
  return named_tuple_type(name, fields)(*py::cast(t));
}

}  // namespace tl_python

namespace pybind11::detail {

// The Tensor class's pybind11 record, looked up once (not cached while the class is not yet
// registered). Every conversion used to look it up by typeid in pybind11's registries: a tenth
// of a small op's time.
inline const type_info* tensor_type_info() {
  static const type_info* info = nullptr;
  if (info == nullptr) info = get_type_info(typeid(tl::TensorImpl));
  return info;
}

template <>
struct type_caster<tl::Tensor> {
 public:
  PYBIND11_TYPE_CASTER(tl::Tensor, const_name("Tensor"));
  bool load(handle src, bool convert) {
    // A Tensor or a Python subclass of it (Parameter) holds its shared_ptr in pybind11's
    // simple layout: read the holder directly.
    const type_info* info = tensor_type_info();
    if (info != nullptr && PyObject_TypeCheck(src.ptr(), info->type)) {
      value_and_holder vh = reinterpret_cast<instance*>(src.ptr())->get_value_and_holder(info);
      if (vh.holder_constructed()) {
        value = tl::Tensor(vh.holder<std::shared_ptr<tl::TensorImpl>>());
        return true;
      }
    }
    copyable_holder_caster<tl::TensorImpl, std::shared_ptr<tl::TensorImpl>> c;
    if (src.is_none() || !c.load(src, convert)) return false;
    value = tl::Tensor(static_cast<std::shared_ptr<tl::TensorImpl>&>(c));
    return true;
  }
  static handle cast(const tl::Tensor& t, return_value_policy, handle parent) {
    if (!t.defined()) return none().release();
    const std::shared_ptr<tl::TensorImpl>& holder = t.impl_ptr();
    return type_caster_generic::cast(holder.get(), return_value_policy::take_ownership, parent, tensor_type_info(),
                                     nullptr, nullptr, &holder);
  }
};

// Tensor[]: a list or tuple of tensors, but not a Tensor (which is a sequence too), as in
// PyTorch: cat(t) is a TypeError, not a concatenation of t's rows.
template <>
struct type_caster<std::vector<tl::Tensor>> : list_caster<std::vector<tl::Tensor>, tl::Tensor> {
  bool load(handle src, bool convert) {
    if (isinstance<tl::TensorImpl>(src)) return false;
    return list_caster<std::vector<tl::Tensor>, tl::Tensor>::load(src, convert);
  }
};

template <>
struct type_caster<tl::Scalar> {
 public:
  PYBIND11_TYPE_CASTER(tl::Scalar, const_name("Number"));
  bool load(handle src, bool convert);
  static handle cast(const tl::Scalar& s, return_value_policy, handle) {
    if (s.is_bool()) return PyBool_FromLong(s.to<bool>());
    if (s.is_integral()) return PyLong_FromLongLong(s.to_long());
    if (s.is_complex()) {
      std::complex<double> c = s.to_complex_double();
      return PyComplex_FromDoubles(c.real(), c.imag());
    }
    return PyFloat_FromDouble(s.to_double());
  }
};

template <>
struct type_caster<tl::ScalarType> {
 public:
  PYBIND11_TYPE_CASTER(tl::ScalarType, const_name("dtype"));
  bool load(handle src, bool convert);
  static handle cast(tl::ScalarType t, return_value_policy, handle) { return tl_python::dtype_object(t).release(); }
};

template <>
struct type_caster<tl::Device> {
 public:
  PYBIND11_TYPE_CASTER(tl::Device, const_name("device"));
  bool load(handle src, bool convert);
  static handle cast(const tl::Device& d, return_value_policy, handle parent);
};

template <>
struct type_caster<tl_python::IntArg> {
 public:
  PYBIND11_TYPE_CASTER(tl_python::IntArg, const_name("int"));
  bool load(handle src, bool convert) {
    // The first (no-conversion) pass takes only Python ints, so that an overload taking a Tensor
    // gets a one-element tensor before an int overload does.
    if (!convert && !PyLong_Check(src.ptr())) return false;
    return tl_python::size_from_index(src.ptr(), value.value);
  }
  static handle cast(tl_python::IntArg v, return_value_policy, handle) { return PyLong_FromLongLong(v.value); }
};

template <>
struct type_caster<tl_python::BoolArg> {
 public:
  PYBIND11_TYPE_CASTER(tl_python::BoolArg, const_name("bool"));
  bool load(handle src, bool) {
    if (src.ptr() != Py_True && src.ptr() != Py_False) return false;
    value.value = src.ptr() == Py_True;
    return true;
  }
  static handle cast(tl_python::BoolArg v, return_value_policy, handle) { return py::bool_(v.value).release(); }
};

template <size_t N>
struct type_caster<tl_python::BoolList<N>> {
 public:
  PYBIND11_TYPE_CASTER(tl_python::BoolList<N>, const_name("tuple of bools"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    if ((!PyList_Check(o) && !PyTuple_Check(o)) || PySequence_Fast_GET_SIZE(o) != static_cast<Py_ssize_t>(N))
      return false;
    for (size_t i = 0; i < N; ++i) {
      PyObject* item = PySequence_Fast_GET_ITEM(o, static_cast<Py_ssize_t>(i));
      if (item != Py_True && item != Py_False) return false;
      value.value[i] = item == Py_True;
    }
    return true;
  }
  static handle cast(const tl_python::BoolList<N>& l, return_value_policy policy, handle parent) {
    return make_caster<std::array<bool, N>>::cast(l.value, policy, parent);
  }
};

template <>
struct type_caster<tl_python::IntList> {
 public:
  PYBIND11_TYPE_CASTER(tl_python::IntList, const_name("Sequence[int] | int"));
  bool load(handle src, bool convert);
  static handle cast(const tl_python::IntList& l, return_value_policy, handle) {
    return py::cast(l.values).release();
  }
};

}  // namespace pybind11::detail
