"""torchlite's operator generator: native_functions.yaml (+ derivatives.yaml) -> C++ and Python glue."""
