#pragma once
// Note [Stubs]: a stub is the one per-device seam of a structured kernel. The
// device-independent part of an op (argument checks, output shape and dtype, out= rules,
// building the TensorIterator) is written once and ends by calling its stub:
//
//     abs_stub(iter.device().type, iter);
//
// and each device registers only the loop behind the stub. Elementwise stubs are declared in
// native_functions.yaml (`stubs:`) over a functor shared by all devices
// (ElementwiseFunctors.h); the generator writes every device's registration from that one
// line, so no kernel is written twice. Hand-written stubs (reductions) are declared in their
// family's header and registered per device with TL_REGISTER_STUB.
#include <utility>

#include "aten/core/Device.h"
#include "aten/core/Exception.h"

namespace tl::native {

template <typename Fn>
class DispatchStub;

template <typename... Args>
class DispatchStub<void(Args...)> {
 public:
  using Fn = void (*)(Args...);

  // constexpr: stubs are constant-initialised, so registrations made while other
  // translation units are initialised always find them ready.
  constexpr explicit DispatchStub(const char* name) : name_(name) {}

  void operator()(DeviceType device, Args... args) const {
    Fn fn = fns_[static_cast<int>(device)];
    TL_CHECK(fn != nullptr, "'", name_, "' has no kernel for device ", Device(device));
    fn(std::forward<Args>(args)...);
  }
  bool set(DeviceType device, Fn fn) {
    fns_[static_cast<int>(device)] = fn;
    return true;
  }

 private:
  const char* name_;
  Fn fns_[kNumDeviceTypes] = {};
};

}  // namespace tl::native

// Registers `fn` as `stub`'s kernel on `device` (CPU, CUDA) when the extension loads.
#define TL_REGISTER_STUB(stub, device, fn) \
  static const bool stub##_##device##_registered = (stub).set(::tl::DeviceType::device, fn)
