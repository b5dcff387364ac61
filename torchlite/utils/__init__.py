"""torchlite.utils: data loading (torchlite.utils.data), hook handles (torchlite.utils.hooks) and DLPack
interchange (torchlite.utils.dlpack)."""

from torchlite.utils import data, dlpack, hooks  # noqa: F401
