"""torchlite.utils: data loading (torchlite.utils.data)."""

from torchlite.utils import data  # noqa: F401
