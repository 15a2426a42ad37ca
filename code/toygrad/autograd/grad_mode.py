"""Grad mode: the switch that decides whether operations are recorded.

As in PyTorch, an operation records a node only when grad mode is on *and* one
of its inputs requires grad. ``Function.apply`` turns grad mode off while a
forward runs, and ``no_grad`` turns it off for a block of code (an optimizer's
update, say).
"""

import functools


class _GradMode:
    enabled = True


state = _GradMode()


def is_grad_enabled():
    """Whether operations are currently recorded."""
    return state.enabled


class _SwitchGradMode:
    """Set grad mode to ``mode`` in a ``with`` block or decorated function."""

    mode = None

    def __enter__(self):
        self.previous = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc_info):
        state.enabled = self.previous

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with type(self)():
                return function(*args, **kwargs)
        return wrapper


class no_grad(_SwitchGradMode):
    """Record nothing inside the block: ``with toygrad.no_grad(): ...``."""

    mode = False


class enable_grad(_SwitchGradMode):
    """Record again inside the block, even within ``no_grad``."""

    mode = True


class set_grad_enabled:
    """Set grad mode now; used in a ``with`` block, restore it afterwards."""

    def __init__(self, mode):
        self.previous = state.enabled
        state.enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        state.enabled = self.previous
