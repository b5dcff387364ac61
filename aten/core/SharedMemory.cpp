#include "aten/core/SharedMemory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "aten/core/Exception.h"

namespace tl {
namespace {

struct SharedMapping {
  int fd;
  void* ptr;
  size_t mapped;  // at least one byte: mmap refuses empty mappings
};

void release_shared(void* ctx) {
  auto* m = static_cast<SharedMapping*>(ctx);
  munmap(m->ptr, m->mapped);
  close(m->fd);
  delete m;
}

DataPtr map_shared(int fd, size_t nbytes) {
  const size_t mapped = nbytes ? nbytes : 1;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    close(fd);
    TL_CHECK(false, "unable to mmap ", nbytes, " bytes of shared memory: ", std::strerror(err), " (", err, ")");
  }
  return DataPtr(p, new SharedMapping{fd, p, mapped}, &release_shared, Device(DeviceType::CPU));
}

}  // namespace

std::shared_ptr<StorageImpl> new_shared_storage(size_t nbytes) {
  const int fd = memfd_create("torchlite_shm", MFD_CLOEXEC);
  TL_CHECK(fd >= 0, "unable to create shared memory: ", std::strerror(errno), " (", errno, ")");
  if (ftruncate(fd, static_cast<off_t>(nbytes ? nbytes : 1)) != 0) {
    const int err = errno;
    close(fd);
    TL_CHECK(false, "unable to resize shared memory to ", nbytes, " bytes: ", std::strerror(err), " (", err, ")");
  }
  return std::make_shared<StorageImpl>(map_shared(fd, nbytes), nbytes);
}

std::shared_ptr<StorageImpl> shared_storage_from_fd(int fd, size_t nbytes) {
  return std::make_shared<StorageImpl>(map_shared(fd, nbytes), nbytes);
}

void move_storage_to_shared(StorageImpl& storage) {
  if (is_shared_storage(storage)) return;
  TL_CHECK(storage.device().is_cpu(), "share_memory_: only CPU storages can be moved to shared memory here, got one on ",
           storage.device());
  auto shared = new_shared_storage(storage.nbytes);
  if (storage.nbytes) std::memcpy(shared->data.ptr, storage.data.ptr, storage.nbytes);
  std::swap(storage.data, shared->data);  // the old memory is freed with `shared`
}

bool is_shared_storage(const StorageImpl& storage) { return storage.data.deleter == &release_shared; }

int shared_storage_fd(const StorageImpl& storage) {
  TL_CHECK(is_shared_storage(storage), "the storage is not in shared memory");
  return static_cast<SharedMapping*>(storage.data.ctx)->fd;
}

}  // namespace tl
