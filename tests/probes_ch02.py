"""Chapter 2's probes: the two Jacobians of tasks 2.1 and 2.2 on one function of two
tensors (PyTorch's: chapter 2 checks gradients before toygrad has tensors).
tests/test_tasks_ch02.py says what they must return."""

import torch

from toygrad.autograd.gradcheck import analytical_jacobian, numerical_jacobian


def f(x, y):
    return torch.tanh(x * y + y) * x.sum()


def inputs(seed=0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(3, dtype=torch.float64, generator=generator, requires_grad=True)
    y = torch.randn(3, dtype=torch.float64, generator=generator, requires_grad=True)
    return x, y


def numerical(seed=0):
    return numerical_jacobian(f, inputs(seed))


def numerical_shapes_when_y_needs_no_gradient(seed=0):
    x, y = inputs(seed)
    y.requires_grad_(False)
    return [list(jacobian.shape) for jacobian in numerical_jacobian(f, (x, y))]


def analytical(seed=0):
    return analytical_jacobian(f, inputs(seed))


def gradients_left_behind(seed=0):
    args = inputs(seed)
    analytical_jacobian(f, args)
    return [x.grad is not None for x in args]
