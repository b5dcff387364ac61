"""The list and dict types of a Node's args and kwargs: edits must go through the Node so its
users stay right, so in-place mutation raises (as in torch.fx)."""

__all__ = ["immutable_dict", "immutable_list"]


def _no_mutation(self, *args, **kwargs):
    raise TypeError(f"'{type(self).__name__}' object does not support mutation. Update a Node's args "
                    "through node.args = ..., node.update_arg or node.replace_input_with")


class immutable_list(list):  # noqa: N801  (torch.fx's name)
    __delitem__ = __iadd__ = __imul__ = __setitem__ = append = clear = extend = insert = pop = remove = \
        reverse = sort = _no_mutation

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(self),))


class immutable_dict(dict):  # noqa: N801
    __delitem__ = __setitem__ = __ior__ = clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (tuple(self.items()),))
