// Tells aten's CUDA library loader where the NVIDIA wheels keep their libraries (Note [CUDA
// libraries], aten/cuda/CUDALibraries.h). Asked once per library, at its first use, possibly from
// a kernel that runs with the GIL released.
#if TL_WITH_CUDA
#include <pybind11/pybind11.h>

#include <filesystem>
#include <string>

#include "aten/cuda/CUDALibraries.h"

namespace py = pybind11;

namespace {

// The `nvidia` namespace package's folders hold cu13/lib/<soname> (CUDA 13 wheels) or
// <library>/lib/<soname> (earlier layouts).
std::string nvidia_wheel_library(const std::string& soname) {
  py::gil_scoped_acquire gil;
  try {
    py::object spec = py::module_::import("importlib.util").attr("find_spec")("nvidia");
    if (spec.is_none() || spec.attr("submodule_search_locations").is_none()) return "";
    for (py::handle folder : spec.attr("submodule_search_locations")) {
      const std::filesystem::path root(folder.cast<std::string>());
      std::error_code ec;
      for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
        const auto candidate = entry.path() / "lib" / soname;
        if (std::filesystem::exists(candidate, ec)) return candidate.string();
      }
    }
  } catch (py::error_already_set&) {  // no usable Python environment: as if not installed
  }
  return "";
}

const bool registered = [] {
  tl::cuda::set_library_resolver(nvidia_wheel_library);
  return true;
}();

}  // namespace
#endif
