"""torchlite.utils.hooks: the handle that every register_*hook returns (torch.utils.hooks)."""

import weakref


class RemovableHandle:
    """`handle.remove()` unregisters a hook; the handle is also a context manager. The hook is
    entry `id` of `hooks_dict` (and of each `extra_dict`), which are held weakly so that a handle
    does not keep a module or an optimizer alive."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [] if extra_dict is None else extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _NativeHookHandle(RemovableHandle):
    """A hook that the C++ autograd keeps (on a tensor or a graph node), under the id its
    `_register_hook` returned: removing it asks the owner."""

    def __init__(self, owner, hook_id):
        self._owner = owner
        self.id = hook_id

    def remove(self):
        if self._owner is not None:
            self._owner._remove_hook(self.id)
            self._owner = None
