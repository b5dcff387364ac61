// DLPack interchange (https://dmlc.github.io/dlpack/latest/): tensors leave as PyCapsules over
// a DLManagedTensor (capsule "dltensor") or, for consumers that ask for DLPack 1.x, a
// DLManagedTensorVersioned ("dltensor_versioned"), sharing the tensor's memory; foreign capsules
// become tensors over the producer's memory. The argument rules of the Python protocol
// (__dlpack__'s stream, requires_grad) live in torchlite/utils/dlpack.py.
#include "torchlite/csrc/python_dlpack.h"

#include "aten/cuda/CUDAHooks.h"
#include "generated/ops/to.h"

namespace tl_python {

namespace {

// ---- the DLPack ABI (dlpack.h, version 1.x), declared here since it is a C ABI, not a library --

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL: compact row-major
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

constexpr uint32_t kDLPackMajorVersion = 1;
constexpr uint32_t kDLPackMinorVersion = 0;
constexpr uint64_t kFlagIsCopied = 1ULL << 1;

// The capsule names of each struct: a consumer renames the capsule when it takes ownership.
template <typename M>
struct CapsuleNames;
template <>
struct CapsuleNames<DLManagedTensor> {
  static constexpr const char* fresh = "dltensor";
  static constexpr const char* used = "used_dltensor";
};
template <>
struct CapsuleNames<DLManagedTensorVersioned> {
  static constexpr const char* fresh = "dltensor_versioned";
  static constexpr const char* used = "used_dltensor_versioned";
};

// ---- export -------------------------------------------------------------------------------

DLDataType dl_dtype(ScalarType t) {
  const auto bits = static_cast<uint8_t>(element_size(t) * 8);
  switch (t) {
    case ScalarType::Bool: return {kDLBool, bits, 1};
    case ScalarType::Byte: return {kDLUInt, bits, 1};
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long: return {kDLInt, bits, 1};
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double: return {kDLFloat, bits, 1};
    case ScalarType::BFloat16: return {kDLBfloat, bits, 1};
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: return {kDLComplex, bits, 1};
  }
  TL_ERROR("DLPack: unsupported dtype ", t);
}

// What an exported capsule owns: the tensor (so its storage outlives every consumer's use, until
// the consumer calls the deleter) and the shape and strides arrays the DLTensor points into.
template <typename M>
struct ExportContext {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  M managed{};
};

template <typename M>
void delete_export(M* managed) {
  delete static_cast<ExportContext<M>*>(managed->manager_ctx);
}

// An unconsumed capsule still owns its tensor when it is garbage collected.
template <typename M>
void destroy_capsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, CapsuleNames<M>::fresh)) return;
  auto* managed = static_cast<M*>(PyCapsule_GetPointer(capsule, CapsuleNames<M>::fresh));
  managed->deleter(managed);
}

// dl_device: the (device_type, device_id) a consumer asks for; the tensor's own device when None.
Device target_device(const Tensor& t, const std::optional<std::pair<int32_t, int32_t>>& dl_device) {
  if (!dl_device) return t.device();
  switch (dl_device->first) {
    case kDLCPU: return Device(DeviceType::CPU);
    case kDLCUDA: return Device(DeviceType::CUDA, dl_device->second);
    default: throw py::buffer_error("Unsupported device_type: " + std::to_string(dl_device->first));
  }
}

template <typename M>
py::capsule export_tensor(const Tensor& self, std::optional<std::pair<int32_t, int32_t>> dl_device,
                          std::optional<bool> copy) {
  Device device = target_device(self, dl_device);
  Tensor t = self;
  bool copied = false;
  if (!(device == self.device())) {
    TL_CHECK_VALUE(copy != false, "cannot move (i.e. copy=False) tensor from ", self.device(), " to ", device,
                   " without copying.");
    t = self.to(device, self.dtype(), /*non_blocking=*/false, /*copy=*/true);
    copied = true;
  } else if (copy == true) {
    t = self.to(device, self.dtype(), /*non_blocking=*/false, /*copy=*/true);
    copied = true;
  }
  auto* ctx = new ExportContext<M>{t, t.sizes().vec(), t.strides().vec()};
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = t.data_ptr();
  dl.device = {t.is_cuda() ? kDLCUDA : kDLCPU, t.is_cuda() ? static_cast<int32_t>(t.device().index) : 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dl_dtype(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = &delete_export<M>;
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    ctx->managed.version = {kDLPackMajorVersion, kDLPackMinorVersion};
    ctx->managed.flags = copied ? kFlagIsCopied : 0;
  }
  PyObject* capsule = PyCapsule_New(&ctx->managed, CapsuleNames<M>::fresh, &destroy_capsule<M>);
  if (capsule == nullptr) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

// ---- import -------------------------------------------------------------------------------

ScalarType scalar_type_from_dl(const DLDataType& dt) {
  TL_CHECK(dt.lanes == 1, "DLPack: vector dtypes (lanes=", dt.lanes, ") are not supported");
  switch (dt.code) {
    case kDLBool:
      if (dt.bits == 8) return ScalarType::Bool;
      break;
    case kDLUInt:
      if (dt.bits == 8) return ScalarType::Byte;
      break;
    case kDLInt:
      switch (dt.bits) {
        case 8: return ScalarType::Char;
        case 16: return ScalarType::Short;
        case 32: return ScalarType::Int;
        case 64: return ScalarType::Long;
      }
      break;
    case kDLFloat:
      switch (dt.bits) {
        case 16: return ScalarType::Half;
        case 32: return ScalarType::Float;
        case 64: return ScalarType::Double;
      }
      break;
    case kDLBfloat:
      if (dt.bits == 16) return ScalarType::BFloat16;
      break;
    case kDLComplex:
      switch (dt.bits) {
        case 64: return ScalarType::ComplexFloat;
        case 128: return ScalarType::ComplexDouble;
      }
      break;
  }
  TL_ERROR("DLPack: unsupported dtype (type code ", static_cast<int>(dt.code), ", ", static_cast<int>(dt.bits),
           " bits); torchlite has bool, uint8, int8/16/32/64, float16/32/64, bfloat16 and complex64/128");
}

Device device_from_dl(const DLDevice& d) {
  switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: return Device(DeviceType::CPU);
    case kDLCUDA:
    case kDLCUDAManaged:
      TL_CHECK(tl::cuda::is_built(), "DLPack: the tensor is on a CUDA device, but Torchlite was not compiled with "
                                     "CUDA enabled");
      return Device(DeviceType::CUDA, d.device_id);
  }
  TL_ERROR("DLPack: unsupported device type ", d.device_type, " (torchlite has CPU and CUDA tensors)");
}

template <typename M>
void release_import(void* managed) {
  auto* m = static_cast<M*>(managed);
  if (m->deleter != nullptr) m->deleter(m);
}

// A tensor over the memory `managed` describes (writable even when the producer flags it read-only,
// as PyTorch's); its storage calls the producer's deleter when the
// last tensor viewing it goes. Checks everything before taking ownership: on an error the capsule
// keeps it (and frees it when collected).
template <typename M>
Tensor import_tensor(M* managed) {
  const DLTensor& dl = managed->dl_tensor;
  TL_CHECK(dl.ndim >= 0, "DLPack: negative ndim ", dl.ndim);
  ScalarType dtype = scalar_type_from_dl(dl.dtype);
  Device device = device_from_dl(dl.device);
  std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  std::vector<int64_t> strides = dl.strides ? std::vector<int64_t>(dl.strides, dl.strides + dl.ndim)
                                            : contiguous_strides(sizes);
  for (int64_t s : strides) {
    TL_CHECK_VALUE(s >= 0, "DLPack: the tensor has negative strides ", IntArrayRef(strides),
                   ", which torchlite tensors cannot represent; copy it first (e.g. numpy.ascontiguousarray)");
  }
  const int64_t elements = checked_storage_elements(sizes, strides, 0);
  auto* data = static_cast<char*>(dl.data) + dl.byte_offset;
  DataPtr ptr(data, managed, &release_import<M>, device);
  auto storage = std::make_shared<StorageImpl>(std::move(ptr), static_cast<size_t>(elements) * element_size(dtype));
  return Tensor::make(std::move(storage), dtype, std::move(sizes), std::move(strides), 0);
}

template <typename M>
Tensor consume_capsule(PyObject* capsule) {
  auto* managed = static_cast<M*>(PyCapsule_GetPointer(capsule, CapsuleNames<M>::fresh));
  if (managed == nullptr) throw py::error_already_set();
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    if (managed->version.major > kDLPackMajorVersion) {
      throw py::buffer_error("DLPack tensor is of unsupported version " + std::to_string(managed->version.major) +
                             "." + std::to_string(managed->version.minor) + " (torchlite reads 1.x)");
    }
  }
  Tensor t = import_tensor(managed);
  if (PyCapsule_SetName(capsule, CapsuleNames<M>::used) != 0) throw py::error_already_set();
  return t;
}

bool is_import_deleter(void (*deleter)(void*)) {
  return deleter == &release_import<DLManagedTensor> || deleter == &release_import<DLManagedTensorVersioned>;
}

}  // namespace

bool is_dlpack_storage(const StorageImpl& storage) { return is_import_deleter(storage.data.deleter); }

void init_dlpack(py::module_& m) {
  // torchlite.utils.dlpack.to_dlpack, as PyTorch's.
  m.def("_to_dlpack", &export_tensor<DLManagedTensor>,
        "to_dlpack(tensor) -> PyCapsule\n\nA DLPack capsule (\"dltensor\") sharing tensor's memory, for a consumer's "
        "from_dlpack. It can be consumed once; the memory stays alive until the consumer releases it.",
        py::arg("tensor"), py::kw_only(), py::arg("dl_device") = py::none(), py::arg("copy") = py::none());
  m.def("_to_dlpack_versioned", &export_tensor<DLManagedTensorVersioned>, py::arg("tensor"), py::kw_only(),
        py::arg("dl_device") = py::none(), py::arg("copy") = py::none());
  m.def("_from_dlpack", [](py::handle capsule) {
    PyObject* o = capsule.ptr();
    if (PyCapsule_IsValid(o, CapsuleNames<DLManagedTensorVersioned>::fresh)) {
      return consume_capsule<DLManagedTensorVersioned>(o);
    }
    if (PyCapsule_IsValid(o, CapsuleNames<DLManagedTensor>::fresh)) return consume_capsule<DLManagedTensor>(o);
    TL_CHECK(!PyCapsule_CheckExact(o), "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                                       "consumed only once, so you might have already constructed a tensor from it "
                                       "once.");
    TL_CHECK_TYPE(false, "from_dlpack: expected a DLPack capsule or an object with __dlpack__, got ",
                  Py_TYPE(o)->tp_name);
  }, py::arg("data"));
}

}  // namespace tl_python
