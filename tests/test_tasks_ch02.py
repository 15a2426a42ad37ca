"""Chapter 2's tasks, checked against PyTorch's own Jacobians."""

import pytest
import torch
from torch.autograd.functional import jacobian

from toygrad.autograd.gradcheck import analytical_jacobian, numerical_jacobian

pytestmark = pytest.mark.ch02


def f(x, y):
    return torch.tanh(x * y + y) * x.sum()


def inputs():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(3, dtype=torch.float64, generator=generator, requires_grad=True)
    y = torch.randn(3, dtype=torch.float64, generator=generator, requires_grad=True)
    return x, y


def pytorchs(func, args):
    """torch's Jacobians, transposed to gradcheck's layout (input, output)."""
    return [j.reshape(-1, args[i].numel()).T.numpy()
            for i, j in enumerate(jacobian(func, args))]


@pytest.mark.task2_1
def test_numerical_jacobian_is_pytorch_s_jacobian():
    args = inputs()
    ours = numerical_jacobian(f, args)
    for mine, theirs in zip(ours, pytorchs(f, args), strict=True):
        assert mine.shape == theirs.shape
        assert abs(mine - theirs).max() < 1e-8  # central differences: error ~ eps**2


@pytest.mark.task2_1
def test_numerical_jacobian_skips_inputs_that_need_no_gradient():
    x, y = inputs()
    y.requires_grad_(False)
    (only,) = numerical_jacobian(f, (x, y))
    assert only.shape == (3, 3)


@pytest.mark.task2_2
def test_analytical_jacobian_is_pytorch_s_jacobian():
    args = inputs()
    ours = analytical_jacobian(f, args)
    for mine, theirs in zip(ours, pytorchs(f, args), strict=True):
        assert mine.shape == theirs.shape
        assert abs(mine - theirs).max() < 1e-12  # the same backward, one row at a time


@pytest.mark.task2_2
def test_analytical_jacobian_leaves_no_gradient_behind():
    args = inputs()
    analytical_jacobian(f, args)
    assert all(x.grad is None for x in args)
