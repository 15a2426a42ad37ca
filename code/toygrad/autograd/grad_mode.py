"""Grad mode: the switch that decides whether operations are recorded.

As in PyTorch, an operation records a node only when grad mode is on *and* one
of its inputs requires grad. ``Function.apply`` turns grad mode off while a
forward runs, and ``no_grad`` turns it off for a block of code (an optimizer's
update, say).

The switches work as PyTorch's (``torch/autograd/grad_mode.py`` and
``torch/utils/_contextlib.py``): each is a context manager and a decorator.
"""

import functools
import inspect
import threading

from toygrad.dtypes import type_name


class _GradMode(threading.local):
    # Per thread, as in PyTorch: every thread starts with grad mode on, and
    # a no_grad block in one thread does not affect another.
    grad = True  # the grad mode, as is_grad_enabled() reports it
    inference = False  # chapter 10: inference mode
    # Whether operations are recorded: grad mode on and inference mode off
    # (inside inference mode, enable_grad turns grad mode on but records
    # nothing, as in PyTorch). The one flag the operations read.
    enabled = True


state = _GradMode()


def _set_grad(mode):
    """Set grad mode; operations record if it is on outside inference mode."""
    state.grad = mode
    state.enabled = mode and not state.inference


def is_grad_enabled():
    """Whether grad mode is on (operations then record, outside inference
    mode)."""
    return state.grad


def is_inference_mode_enabled():
    """Whether inference mode is on (chapter 10)."""
    return state.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions."""

    def __call__(self, function):
        if inspect.isclass(function):
            # PyTorch warns that this is deprecated and wraps the class.
            raise NotImplementedError(
                f"toygrad's {type(self).__name__} decorates functions, "
                "not classes")
        if inspect.isgeneratorfunction(function):
            return _wrap_generator(self.clone, function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            # A fresh context manager per call, so that recursive calls
            # each restore their own previous mode.
            with self.clone():
                return function(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


def _wrap_generator(make_context, function):
    """Set the mode each time the generator runs, not while it waits.

    A ``with`` around the whole generator would leave the mode set in the
    caller's code between two ``yield``s.
    """
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        generator = function(*args, **kwargs)
        try:
            with make_context():
                response = generator.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        generator.close()
                    raise
                except BaseException as error:  # thrown in by the caller
                    with make_context():
                        response = generator.throw(error)
                else:
                    with make_context():
                        response = generator.send(request)
        except StopIteration as stop:  # the generator returned
            return stop.value
    return wrapper


class _SwitchGradMode(_DecoratorContextManager):
    """Set grad mode to ``mode`` in a ``with`` block or decorated function.

    Used bare (``@no_grad``) it decorates at once; called (``no_grad()``)
    it gives a context manager or decorator.
    """

    mode = None

    def __new__(cls, function=None):
        if function is None:
            return super().__new__(cls)
        return cls()(function)

    def __enter__(self):
        self.previous = state.grad
        _set_grad(self.mode)

    def __exit__(self, *exc_info):
        # Grad mode only, as PyTorch's: inference mode stays as it is now.
        _set_grad(self.previous)


class no_grad(_SwitchGradMode):
    """Record nothing inside the block: ``with toygrad.no_grad(): ...``."""

    mode = False


class enable_grad(_SwitchGradMode):
    """Record again inside the block, even within ``no_grad``."""

    mode = True


def _check_bool(mode):
    """PyTorch's refusal of a mode that is not a bool (0, 1 or None)."""
    if not isinstance(mode, bool):
        raise TypeError(
            "set_grad_enabled(): argument 'enabled' (position 1) must "
            f"be bool, not {type_name(mode)}")


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode`` now; a ``with`` block restores it after.

    As a decorator, ``@set_grad_enabled(False)`` leaves the mode as it was
    and sets it only while the function runs.
    """

    def __init__(self, mode):
        _check_bool(mode)
        self.previous, self.mode = state.grad, mode
        _set_grad(mode)

    def __call__(self, function):
        # PyTorch's order: creating the decorator set the mode; undo that.
        _set_grad(self.previous)
        return super().__call__(function)

    def __enter__(self):
        _set_grad(self.mode)

    def __exit__(self, *exc_info):
        _set_grad(self.previous)

    def __repr__(self):
        return f"{__name__}.set_grad_enabled(mode={self.mode})"

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_DecoratorContextManager):
    """Grad mode off, and every tensor made inside an *inference tensor*.

    ``inference_mode(False)`` switches it off again, and grad mode on. An
    inference tensor cannot be saved for backward, nor changed in place,
    outside inference mode (see ``toygrad.autograd.function.SavedTensor``
    and ``toygrad.views.inplace``): inside, nothing is recorded, so nothing
    needs a version counter.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used bare as a decorator: mode is the function

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.previous = state.grad, state.inference
        # Inference mode on means grad mode off, and off means on.
        state.inference = self.mode
        _set_grad(not self.mode)

    def __exit__(self, *exc_info):
        # Both flags back as they were.
        grad, state.inference = self.previous
        _set_grad(grad)

    def clone(self):
        return type(self)(self.mode)
