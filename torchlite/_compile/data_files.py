"""The files torchlite.compile reads at run time besides Python modules: the YAML its operator
table is derived from and the headers its fused loops include (the eager kernels' functors and
what those include). CMakeLists.txt runs this file to install them into torchlite/_data of a
wheel, and the kernel cache hashes the headers, so this list is the one place to extend when a
functor header includes a new file. It imports nothing from torchlite (CMake runs it before the
extension exists)."""

import glob
import os
import sys

__all__ = ["VECTOR_MATH_TABLE", "data_files", "header_files"]

_HEADER_PATTERNS = ("aten/native/*Functors.h", "aten/native/MakeFunctor.h", "aten/native/SpecialFunctions.h",
                    "aten/native/SpecialPolynomials.h", "aten/core/Exception.h", "aten/core/Half.h",
                    "aten/core/Macros.h", "aten/core/Scalar.h", "aten/core/ScalarType.h")


def header_files(root):
    """The headers under `root`, as paths relative to it, in a fixed order."""
    return [os.path.relpath(path, root) for pattern in _HEADER_PATTERNS
            for path in sorted(glob.glob(os.path.join(root, pattern)))]


# Read, not included: the functors whose eager float loops run on the vector math layer.
VECTOR_MATH_TABLE = "aten/native/cpu/VecMathLoops.h"


def data_files(root):
    return ["native_functions.yaml", VECTOR_MATH_TABLE, *header_files(root)]


if __name__ == "__main__":  # CMakeLists.txt: a CMake list of the files of the source tree `argv[1]`
    print(";".join(data_files(sys.argv[1])), end="")
