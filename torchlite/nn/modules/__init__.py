from torchlite.nn.modules.module import Module  # noqa: F401
