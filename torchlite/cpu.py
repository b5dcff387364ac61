"""torchlite.cpu: the CPU as a device module, like torchlite.cuda (what get_device_module returns)."""

__all__ = ["current_device", "device_count", "is_available", "synchronize"]


def is_available():
    """is_available(): always True."""
    return True


def device_count():
    """device_count(): always 1."""
    return 1


def current_device():
    """current_device(): 'cpu'."""
    return "cpu"


def synchronize(device=None):
    """synchronize(device=None): CPU operators finish before they return, so there is nothing to wait for."""
