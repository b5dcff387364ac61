// Tells aten's CUDA library loader where to look (Note [CUDA libraries], aten/cuda/CUDALibraries.h):
// the candidates come from torchlite.cuda._library_candidates, since the NVIDIA wheels may sit on
// PYTHONPATH rather than beside torchlite. Asked once per library, at its first use, possibly from
// a kernel that runs with the GIL released.
#if TL_WITH_CUDA
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "aten/cuda/CUDALibraries.h"

namespace py = pybind11;

namespace {

std::vector<std::string> library_candidates(const std::string& soname) {
  py::gil_scoped_acquire gil;
  try {
    return py::module_::import("torchlite.cuda").attr("_library_candidates")(soname).cast<std::vector<std::string>>();
  } catch (py::error_already_set&) {  // no usable Python environment: the system loader's search
    return {soname};
  }
}

const bool registered = [] {
  tl::cuda::set_library_resolver(library_candidates);
  return true;
}();

}  // namespace
#endif
