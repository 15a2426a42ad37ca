"""Chapter 6's probes: a saved tensor's version check (task 6.1) and a gradient's shape
check (task 6.2). tests/test_tasks_ch06.py says what they must return."""

import numpy as np

import toygrad
from verdict import error_of, vary


def numbers(seed=0):
    return list(vary(seed, 0.5, -1.0, 2.0))


def saved_tensor_unchanged(seed=0):
    x = toygrad.tensor(numbers(seed), requires_grad=True)
    y = x.exp()
    (saved,) = y.grad_fn.saved_tensors  # exp saves its result
    return [bool(np.array_equal(saved.data, y.data)), saved.grad_fn is y.grad_fn]


def saved_tensor_changed_in_place(seed=0):
    """exp's node called after its result was changed in place: the error it raises."""
    x = toygrad.tensor(numbers(seed), dtype=toygrad.float64, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    y.mul_(2)  # exp's backward needs y as it was
    return error_of(node.apply, toygrad.ones(3, dtype=toygrad.float64))


def returning(lib, grad_shape):
    """A Function whose backward returns a gradient of ``grad_shape`` (lib: toygrad or,
    for the expectations, torch)."""
    class Returns(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return lib.ones(grad_shape, dtype=lib.float64)

    return Returns.apply


def gradient_sent_back(grad_shape, seed=0):
    """x of shape (1, 3) through the Function: what its node sends back to x (the node
    called by hand, no engine needed), or the error it raises."""
    x = toygrad.tensor(np.ones((1, 3)), requires_grad=True)
    y = returning(toygrad, tuple(grad_shape))(x)
    error = error_of(y.grad_fn.apply, toygrad.ones((1, 3), dtype=toygrad.float64))
    if error is not None:
        return error
    (grad,) = y.grad_fn.apply(toygrad.ones((1, 3), dtype=toygrad.float64))
    return grad.data
