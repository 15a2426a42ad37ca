"""Chapter 2: our gradcheck gives the same verdicts as torch.autograd.gradcheck."""

import math

import numpy as np
import pytest
import torch

from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

from toygrad.autograd import GradcheckError, gradcheck
from toygrad.autograd.gradcheck import numerical_jacobian

pytestmark = pytest.mark.ch02


def make_function(forward, derivative):
    """A custom torch Function y = forward(x), elementwise, whose backward uses ``derivative``."""

    class Elementwise(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return forward(x)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * derivative(x)

    return Elementwise.apply


CASES = {
    "sin, right": (torch.sin, torch.cos, True),
    "sin, wrong sign": (torch.sin, lambda x: -torch.cos(x), False),
    "x^3, right": (lambda x: x ** 3, lambda x: 3 * x ** 2, True),
    "x^3, off by one power": (lambda x: x ** 3, lambda x: 3 * x ** 3, False),
    "softplus, right": (torch.nn.functional.softplus, torch.sigmoid, True),
    "softplus, tiny error": (torch.nn.functional.softplus, lambda x: torch.sigmoid(x) * 1.01, False),
}


@pytest.mark.parametrize("name", CASES)
def test_same_verdict_as_torch(name):
    forward, derivative, correct = CASES[name]
    function = make_function(forward, derivative)
    x = torch.randn(5, dtype=torch.float64, generator=torch.Generator().manual_seed(0), requires_grad=True)
    ours = gradcheck(function, (x,), raise_exception=False)
    theirs = torch.autograd.gradcheck(function, (x,), raise_exception=False)
    assert ours == theirs == correct


def test_two_inputs_and_a_mismatch_message_like_torch():
    class WrongSecondInput(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * torch.sin(b)

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * torch.sin(b), g * a * torch.sin(b)  # should be cos(b)

    a = torch.randn(3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(TorchGradcheckError) as theirs:
        torch.autograd.gradcheck(WrongSecondInput.apply, (a, b))
    with pytest.raises(GradcheckError) as ours:
        gradcheck(WrongSecondInput.apply, (a, b))
    first_line = "Jacobian mismatch for output 0 with respect to input 1,"
    assert str(theirs.value).splitlines()[0] == str(ours.value).splitlines()[0] == first_line


def test_numerical_jacobian_matches_calculus():
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    (jacobian,) = numerical_jacobian(torch.exp, (x,))
    np.testing.assert_allclose(jacobian, np.diag(np.exp(x.detach().numpy())), rtol=1e-8)


def test_central_difference_error_shrinks_like_h_squared():
    errors = []
    for h in (1e-2, 1e-3):
        x = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        (jacobian,) = numerical_jacobian(torch.sin, (x,), eps=h)
        errors.append(abs(jacobian[0, 0] - math.cos(1.0)))
    assert 80 < errors[0] / errors[1] < 120  # h ten times smaller, error about 100 times smaller


def test_inputs_that_need_no_grad_are_skipped_and_inputs_are_restored():
    a = torch.randn(4, dtype=torch.float64)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    before = (a.clone(), b.detach().clone())
    assert gradcheck(lambda a, b: (a * b).sum(), (a, b))
    assert torch.equal(a, before[0]) and torch.equal(b.detach(), before[1])
    assert b.grad is None


def test_needs_an_input_that_requires_grad():
    # PyTorch's message, word for word.
    with pytest.raises(ValueError) as theirs:
        torch.autograd.gradcheck(torch.sin, (torch.randn(2, dtype=torch.float64),))
    with pytest.raises(ValueError) as ours:
        gradcheck(torch.sin, (torch.randn(2, dtype=torch.float64),))
    assert str(ours.value) == str(theirs.value)


def test_an_input_s_grad_is_left_as_it_was_as_torch_leaves_it():
    def leaf():
        x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
        x.grad = torch.tensor([7.0, 8.0], dtype=torch.float64)
        return x

    theirs, ours = leaf(), leaf()
    assert torch.autograd.gradcheck(lambda t: (t * t).sum(), (theirs,))
    assert gradcheck(lambda t: (t * t).sum(), (ours,))
    assert torch.equal(ours.grad, theirs.grad)
