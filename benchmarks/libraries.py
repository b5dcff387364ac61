"""The libraries a benchmark compares: torchlite, and PyTorch when installed, both on one thread."""


def single_thread_libraries():
    import torchlite

    libs = {"torchlite": torchlite}
    try:
        import torch

        libs["torch"] = torch
    except ImportError:
        pass
    for lib in libs.values():
        lib.set_num_threads(1)
    return libs
