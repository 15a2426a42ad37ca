"""Chapter 12: the gradient given to ``backward``/``autograd.grad`` is
checked and cast to its output's dtype before any hook sees it, as torch
2.13's ``_make_grads`` and engine (``validate_outputs``) do; the errors for
a wrong kind of gradient are torch's."""

import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch12

LIBS = (torch, toygrad)


def outcome(action):
    try:
        return "ok", action()
    except Exception as error:  # noqa: BLE001  (compared with torch's)
        return type(error).__name__, str(error)


def dtype_name(lib, dtype):
    return str(dtype).replace("torch.", "")


GRADIENTS = {
    "float64": lambda lib: lib.tensor([1.0, 3.0], dtype=lib.float64),
    "int64": lambda lib: lib.tensor([1, 3]),
    "bool": lambda lib: lib.tensor([True, False]),
    "float32": lambda lib: lib.tensor([1.0, 3.0]),
    "a float": lambda lib: 2.0,
    "an int": lambda lib: 2,
    "a list of floats": lambda lib: [1.0, 3.0],
    "a list of a tensor": lambda lib: [lib.tensor([1.0, 3.0])],
    "an empty list": lambda lib: [],
    "[None]": lambda lib: [None],
    "a wrong shape": lambda lib: lib.tensor([[1.0, 3.0]]),
    "a 0-dim tensor": lambda lib: lib.tensor(2.0),
}


def hooked_backward(lib, make_gradient, how):
    """The dtype and numbers a hook on the output sees, and the leaf's."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(
        (dtype_name(lib, g.dtype), g.tolist())))
    gradient = make_gradient(lib)
    if how == "Tensor.backward":
        y.backward(gradient)
        result = x.grad
    elif how == "autograd.backward":
        lib.autograd.backward([y], [gradient])
        result = x.grad
    else:
        result, = lib.autograd.grad([y], [x], [gradient])
    return seen, dtype_name(lib, result.dtype), result.tolist()


@pytest.mark.parametrize("how", ["Tensor.backward", "autograd.backward",
                                 "autograd.grad"])
@pytest.mark.parametrize("gradient", GRADIENTS)
def test_the_starting_gradient_as_in_pytorch(gradient, how):
    seen = {lib: outcome(lambda: hooked_backward(lib, GRADIENTS[gradient],
                                                 how))
            for lib in LIBS}
    assert seen[toygrad] == seen[torch]


def test_more_gradients_than_outputs_are_ignored_fewer_refused():
    for action in (
            lambda lib, x: lib.autograd.backward(
                [x * 2], [lib.ones(2), lib.ones(2)]),
            lambda lib, x: lib.autograd.grad(
                [x * 2], [x], [lib.ones(2), lib.ones(2)]),
            lambda lib, x: lib.autograd.backward(
                [x * 2, x * 3], [lib.ones(2)])):
        seen = {}
        for lib in LIBS:
            x = lib.tensor([1.0, 2.0], requires_grad=True)
            kind, result = outcome(lambda: action(lib, x))
            seen[lib] = kind, None if kind != "ok" else (
                x.grad.tolist() if x.grad is not None
                else [r.tolist() for r in result])
            if kind != "ok":
                seen[lib] = kind, result
        assert seen[toygrad] == seen[torch]


def test_a_recorded_cast_is_refused_by_name():
    # PyTorch records the cast of a gradient that requires grad under
    # create_graph (ToCopyBackward0); toygrad has no such operation.
    x = toygrad.tensor([1.0, 2.0], requires_grad=True)
    gradient = toygrad.tensor([1.0, 1.0], dtype=toygrad.float64,
                              requires_grad=True)
    with pytest.raises(NotImplementedError, match="another dtype"):
        toygrad.autograd.grad(x * 2, x, gradient, create_graph=True)
    with pytest.warns(UserWarning), pytest.raises(NotImplementedError,
                                                  match="another dtype"):
        (x * 2).backward(gradient, create_graph=True)
