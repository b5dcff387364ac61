// Tells aten's LAPACK loader where scipy-openblas32 keeps its library (Note [LAPACK source],
// aten/native/Lapack.h). Asked once, at the first linalg call, possibly from a kernel that runs
// with the GIL released.
#include <pybind11/pybind11.h>

#include "aten/core/Exception.h"
#include "aten/native/Lapack.h"

namespace py = pybind11;

namespace {

std::string scipy_openblas_path() {
  py::gil_scoped_acquire gil;
  try {
    py::module_ pkg = py::module_::import("scipy_openblas32");
    auto dir = pkg.attr("get_lib_dir")().cast<std::string>();
    auto name = pkg.attr("get_library")().cast<std::string>();
    return dir + "/lib" + name + ".so";
  } catch (py::error_already_set& e) {
    std::string why = e.what();
    TL_ERROR("torchlite.linalg needs LAPACK from the scipy-openblas32 package, which could not be used (", why,
             "); install it with `pip install scipy-openblas32`, or set TORCHLITE_LAPACK_LIBRARY to a "
             "scipy-openblas32 library");
  }
}

const bool registered = [] {
  tl::native::lapack::set_library_resolver(scipy_openblas_path);
  return true;
}();

}  // namespace
