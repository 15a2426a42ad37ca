"""Chapter 12's tasks: autograd.grad, and the Jacobians gradgradcheck checks."""

import numpy as np
import pytest
import torch

import toygrad
from toygrad.autograd.gradgradcheck import jacobians

pytestmark = pytest.mark.ch12

RNG = np.random.default_rng(1212)
X, W = RNG.standard_normal((2, 3)), RNG.standard_normal(3)


def numbers(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.data


def pair(lib):
    return (lib.tensor(X.copy(), requires_grad=True),
            lib.tensor(W.copy(), requires_grad=True))


@pytest.mark.task12_1
def test_grad_returns_the_gradients_and_touches_no_grad():
    results = {}
    for lib in (torch, toygrad):
        x, w = pair(lib)
        y = ((x * w).tanh() * x).sum()
        results[lib] = lib.autograd.grad(y, [x, w]), x.grad, w.grad
    (ours, ox, ow), (theirs, tx, tw) = results[toygrad], results[torch]
    assert ox is ow is tx is tw is None
    for a, b in zip(ours, theirs):
        assert np.allclose(numbers(a), numbers(b), rtol=1e-10, atol=1e-12)


@pytest.mark.task12_1
def test_grad_of_a_non_leaf_and_an_unused_input():
    for lib in (torch, toygrad):
        x, w = pair(lib)
        z = x * w
        loss = (z * z).sum()
        gz, gx, unused = lib.autograd.grad(
            loss, [z, x, lib.tensor(W.copy(), requires_grad=True)],
            allow_unused=True)
        assert unused is None
        assert np.allclose(numbers(gz), 2 * X * W)
        assert np.allclose(numbers(gx), 2 * X * W * W)
        with pytest.raises(RuntimeError, match="index 1 appears to not have"):
            lib.autograd.grad((x * 2).sum(), [x, w])


@pytest.mark.task12_1
def test_grad_runs_only_what_leads_to_the_inputs():
    # grad(y, x) must not run w's ExpBackward0: it keeps what it saved.
    x, w = pair(toygrad)
    y = (x * 2).sum() + w.exp().sum()
    toygrad.autograd.grad(y, x)
    (gw,) = toygrad.autograd.grad(y, w)
    assert np.allclose(gw.data, np.exp(W))


@pytest.mark.task12_1
def test_grad_with_create_graph_differentiates_again():
    seconds = []
    for lib in (torch, toygrad):
        x, w = pair(lib)
        (g,) = lib.autograd.grad((x * x * x * w).sum(), x, create_graph=True)
        seconds.append(lib.autograd.grad(g.sum(), [x, w]))
    for a, b in zip(*seconds):
        assert np.allclose(numbers(a), numbers(b), rtol=1e-10, atol=1e-12)


@pytest.mark.task12_2
def test_jacobians_of_two_outputs_match_both_ways():
    x, w = pair(toygrad)

    def f(a, b):
        return (a * b).tanh(), (a * a).sum(1)

    numerical, analytical, differentiable = jacobians(f, (x, w))
    assert differentiable == [True, True]
    assert [[m.shape for m in row] for row in analytical] == [
        [(6, 6), (3, 6)], [(6, 2), (3, 2)]]
    for nums, anas in zip(numerical, analytical):
        for num, ana in zip(nums, anas):
            assert np.allclose(num, ana, rtol=1e-6, atol=1e-7)
    # The layout is torch's: rows index the input, columns the output.
    expected = torch.autograd.functional.jacobian(
        lambda a: (a * torch.tensor(W)).tanh(), torch.tensor(X))
    assert np.allclose(analytical[0][0],
                       expected.reshape(6, 6).numpy().T, rtol=1e-10)


@pytest.mark.task12_2
def test_gradgradcheck_agrees_with_pytorch_on_a_wrong_second_derivative():
    verdicts = []
    for lib in (torch, toygrad):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, grad):
                (a,) = ctx.saved_tensors
                # right first derivative, but detached: its own derivative
                # is lost, so the second derivative is wrong
                return grad * 2 * a.detach()
        x = lib.tensor(W.copy(), requires_grad=True)
        v = lib.tensor(X[0].copy(), requires_grad=True)
        verdicts.append(lib.autograd.gradgradcheck(
            Square.apply, (x,), (v,), raise_exception=False))
        assert lib.autograd.gradgradcheck(lambda a: a * a, (x,), (v,))
    assert verdicts == [False, False]
