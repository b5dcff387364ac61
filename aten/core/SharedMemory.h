#pragma once
// Note [Shared memory storages]: a CPU storage in shared memory is a MAP_SHARED mapping of an
// anonymous memfd. The storage keeps the fd open so that it can be handed to another process
// (torchlite.multiprocessing pickles a duplicate of it), which maps the same pages: tensors
// cross processes by handle, not by their bytes. Such storages cannot grow (resize would
// silently leave the shared pages).
#include <cstddef>
#include <memory>

#include "aten/core/Storage.h"

namespace tl {

// A fresh storage of `nbytes` uninitialised bytes in shared memory.
std::shared_ptr<StorageImpl> new_shared_storage(size_t nbytes);
// Maps the shared memory behind `fd` (`nbytes` long); the storage takes ownership of the fd.
std::shared_ptr<StorageImpl> shared_storage_from_fd(int fd, size_t nbytes);
// Moves a CPU storage's bytes into shared memory in place: every tensor viewing it follows.
void move_storage_to_shared(StorageImpl& storage);
bool is_shared_storage(const StorageImpl& storage);
// The fd behind a shared storage.
int shared_storage_fd(const StorageImpl& storage);

}  // namespace tl
