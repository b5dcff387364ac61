#pragma once
#include <cstdint>
#include <memory>

#include "aten/core/Allocator.h"

namespace tl {

// Note [Version counter]: the counter that detects in-place modification of tensors saved
// for backward lives on the storage, so every view of the same memory (and detach(), as in
// PyTorch) shares it without an extra allocation per tensor.
struct StorageImpl {
  DataPtr data;
  size_t nbytes = 0;
  uint32_t version = 0;

  StorageImpl(DataPtr d, size_t n) : data(std::move(d)), nbytes(n) {}
  Device device() const { return data.device; }

  static std::shared_ptr<StorageImpl> allocate(size_t nbytes, Device device) {
    return std::make_shared<StorageImpl>(allocator_for(device)->allocate(nbytes, device), nbytes);
  }
};

}  // namespace tl
