// Note [CUDA libraries] (CUDALibraries.h): find and dlopen a CUDA math library once per process.
#include "aten/cuda/CUDALibraries.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

namespace tl::cuda {

namespace {

std::function<std::string(const std::string&)>& resolver() {
  static std::function<std::string(const std::string&)> r;
  return r;
}

}  // namespace

void set_library_resolver(std::function<std::string(const std::string& soname)> r) { resolver() = std::move(r); }

void* cuda_library(const char* name, const char* soname) {
  static std::mutex mutex;
  static std::map<std::string, void*> loaded;  // a failed load is kept too (nullptr): asked once
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = loaded.find(soname); it != loaded.end()) return it->second;
  }
  // The resolver takes the GIL: call it with no lock of ours held.
  std::string path;
  const std::string env = std::string("TORCHLITE_") + name + "_LIBRARY";
  if (const char* p = std::getenv(env.c_str()); p && *p) path = p;
  else if (resolver()) path = resolver()(soname);
  void* handle = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = loaded.emplace(soname, handle);
  if (!inserted && handle) dlclose(handle);  // another thread loaded it first
  return it->second;
}

}  // namespace tl::cuda
