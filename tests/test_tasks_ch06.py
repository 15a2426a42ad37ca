"""Chapter 6's tasks: a saved tensor's version check, and a gradient's shape check."""

import numpy as np
import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch06


@pytest.mark.task6_1
def test_a_saved_tensor_comes_back_unchanged():
    x = toygrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x.exp()
    (saved,) = y.grad_fn.saved_tensors  # exp saves its result
    assert np.array_equal(saved.data, y.data) and saved.grad_fn is y.grad_fn


@pytest.mark.task6_1
def test_a_saved_tensor_changed_in_place_is_refused_with_pytorch_s_error():
    errors = []
    for lib in (toygrad, torch):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x.exp()
        node = y.grad_fn
        y.mul_(2)  # exp's backward needs y as it was
        with pytest.raises(RuntimeError) as error:
            if lib is torch:
                node(torch.ones(3, dtype=torch.float64))
            else:
                node.apply(toygrad.ones(3, dtype=toygrad.float64))
        errors.append(str(error.value))
    assert errors[0] == errors[1]
    assert "modified by an inplace operation" in errors[0]


def broadcasting_function(lib, grad_shape):
    """A Function whose backward returns a gradient of ``grad_shape``."""
    class Returns(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return lib.ones(grad_shape, dtype=lib.float64)

    return Returns.apply


def run_node(lib, grad_shape):
    """x of shape (1, 3) through the Function: what its node sends back to x.

    toygrad's node is called by hand (no engine needed); PyTorch checks a node's
    gradients in its engine (validate_outputs), so its backward runs.
    """
    x = lib.tensor(np.ones((1, 3)), requires_grad=True)
    y = broadcasting_function(lib, grad_shape)(x)
    if lib is torch:
        y.backward(torch.ones(1, 3, dtype=torch.float64))
        return x.grad.numpy()
    (grad,) = y.grad_fn.apply(toygrad.ones((1, 3), dtype=toygrad.float64))
    return grad.data


@pytest.mark.task6_2
@pytest.mark.parametrize("grad_shape", [(2, 3), (5, 1, 3), (2, 4, 3)])
def test_a_gradient_that_broadcasts_is_summed_down_as_pytorch_does(grad_shape):
    # The input has shape (1, 3): a larger gradient it broadcasts to is summed down.
    ours, theirs = run_node(toygrad, grad_shape), run_node(torch, grad_shape)
    assert ours.shape == theirs.shape and np.array_equal(ours, theirs)


@pytest.mark.task6_2
@pytest.mark.parametrize("grad_shape", [(3,), (2, 2), (1, 4), ()])
def test_a_gradient_of_the_wrong_shape_is_refused_with_pytorch_s_error(grad_shape):
    errors = []
    for lib in (toygrad, torch):
        with pytest.raises(RuntimeError) as error:
            run_node(lib, grad_shape)
        errors.append(str(error.value))
    assert errors[0] == errors[1]
    assert "returned an invalid gradient at index 0" in errors[0]
