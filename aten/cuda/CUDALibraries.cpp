// Note [CUDA libraries] (CUDALibraries.h): find and dlopen a CUDA math library once per process.
#include "aten/cuda/CUDALibraries.h"

#include "aten/cuda/CUDAHooks.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace tl::cuda {

namespace {

std::function<std::vector<std::string>(const std::string&)>& resolver() {
  static std::function<std::vector<std::string>(const std::string&)> r;
  return r;
}

void add_error(std::string& error, const std::string& why) { error += (error.empty() ? "" : "; ") + why; }

}  // namespace

void set_library_resolver(std::function<std::vector<std::string>(const std::string& soname)> r) {
  resolver() = std::move(r);
}

CudaLibrary open_first_library(const std::vector<std::string>& paths, const std::vector<std::string>& required) {
  CudaLibrary lib;
  for (const std::string& path : paths) {
    void* dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
      const char* why = dlerror();
      add_error(lib.error, why ? why : path + ": cannot be loaded");
      continue;
    }
    const std::string* missing = nullptr;
    for (const std::string& symbol : required)
      if (!dlsym(dl, symbol.c_str())) {
        missing = &symbol;
        break;
      }
    if (!missing) {
      lib.handle = dl;
      lib.path = path;
      return lib;
    }
    add_error(lib.error, path + ": no " + *missing);
    dlclose(dl);
  }
  if (paths.empty()) lib.error = "no candidate path";
  return lib;
}

const CudaLibrary& cuda_library(const std::string& name, const std::string& soname,
                                const std::vector<std::string>& required) {
  static std::mutex mutex;
  static std::map<std::string, CudaLibrary> loaded;  // a failed load is kept too: searched once
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = loaded.find(soname); it != loaded.end()) return it->second;
  }
  // The resolver takes the GIL: call it with no lock of ours held.
  std::vector<std::string> paths;
  const std::string env = "TORCHLITE_" + name + "_LIBRARY";
  if (const char* p = std::getenv(env.c_str()); p && *p) paths = {p};
  else if (resolver()) paths = resolver()(soname);
  else paths = {soname};
  CudaLibrary lib = open_first_library(paths, required);
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = loaded.emplace(soname, lib);
  if (!inserted && lib.handle) dlclose(lib.handle);  // another thread loaded it first
  return it->second;
}

std::pair<std::string, std::string> library_probe(const std::vector<std::string>& paths,
                                                  const std::vector<std::string>& required) {
  CudaLibrary lib = open_first_library(paths, required);
  if (lib.handle) dlclose(lib.handle);
  return {lib.path, lib.error};
}

}  // namespace tl::cuda
