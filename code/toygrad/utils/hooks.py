"""Handles that remove hooks, as ``torch.utils.hooks.RemovableHandle``.

Every ``register_*hook`` method keeps its hooks in a dict, in the order they
were registered, keyed by a number that no other hook ever gets; it returns a
handle that knows the dict (weakly: the handle does not keep the tensor's or
node's hooks alive) and the key.
"""

import itertools
import weakref


class RemovableHandle:
    """Removes one hook: ``handle.remove()``, or at the end of a ``with``."""

    _next_id = itertools.count().__next__

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id()

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()
