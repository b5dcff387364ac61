// Note [CUDA libraries] (CUDALibraries.h): find and dlopen a CUDA math library once per process.
#include "aten/cuda/CUDALibraries.h"

#include "aten/core/Exception.h"
#include "aten/cuda/CUDAHooks.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

namespace tl::cuda {

namespace {

std::mutex candidates_mutex;
std::map<std::string, std::vector<std::string>> candidates_by_soname;

void add_error(std::string& error, const std::string& why) { error += (error.empty() ? "" : "; ") + why; }

// {name, soname} of each library loaded this way.
const std::vector<std::pair<std::string, std::string>> kLibraries{
    {"CUBLAS", "libcublas.so.13"}, {"CUSOLVER", "libcusolver.so.12"}, {"CUFFT", "libcufft.so.12"}};

}  // namespace

std::vector<std::string> cuda_library_sonames() {
  std::vector<std::string> sonames;
  for (const auto& library : kLibraries) sonames.push_back(library.second);
  return sonames;
}

void set_library_candidates(const std::map<std::string, std::vector<std::string>>& candidates) {
  std::lock_guard<std::mutex> lock(candidates_mutex);
  candidates_by_soname = candidates;
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

namespace {

// The library `name`, searched once per process (Note [CUDA libraries]).
const CudaLibrary& cuda_library(const std::string& name, const std::vector<std::string>& required) {
  static std::mutex mutex;
  static std::map<std::string, CudaLibrary> loaded;  // a failed load is kept too: searched once
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;
  std::string soname;
  for (const auto& [n, s] : kLibraries)
    if (n == name) soname = s;
  TL_CHECK(!soname.empty(), "cuda_library: unknown library ", name);
  std::vector<std::string> paths{soname};
  const std::string env = "TORCHLITE_" + name + "_LIBRARY";
  if (const char* p = std::getenv(env.c_str()); p && *p) {
    paths = {p};
  } else {
    std::lock_guard<std::mutex> candidates_lock(candidates_mutex);
    if (auto it = candidates_by_soname.find(soname); it != candidates_by_soname.end()) paths = it->second;
  }
  return loaded.emplace(name, open_first_library(paths, required)).first->second;
}

}  // namespace

const CudaLibrary& load_library_functions(const std::string& name, const std::vector<LibraryFunction>& functions) {
  std::vector<std::string> required;
  for (const LibraryFunction& f : functions) required.push_back(f.symbol);
  const CudaLibrary& lib = cuda_library(name, required);
  if (lib.handle)
    for (const LibraryFunction& f : functions) f.set(dlsym(lib.handle, f.symbol.c_str()));
  return lib;
}

std::pair<std::string, std::string> library_probe(const std::vector<std::string>& paths,
                                                  const std::vector<std::string>& required) {
  CudaLibrary lib = open_first_library(paths, required);
  if (lib.handle) dlclose(lib.handle);
  return {lib.path, lib.error};
}

}  // namespace tl::cuda
