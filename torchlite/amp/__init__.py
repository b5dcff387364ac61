"""torchlite.amp: automatic mixed precision (autocast) and loss scaling (GradScaler)."""

from torchlite.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from torchlite.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
