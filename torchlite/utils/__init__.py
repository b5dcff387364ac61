"""torchlite.utils: data loading (torchlite.utils.data) and hook handles (torchlite.utils.hooks)."""

from torchlite.utils import data, hooks  # noqa: F401
