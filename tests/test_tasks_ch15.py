"""Chapter 15's tasks: SGD's update (momentum, weight decay) and Adam's step.

The gradients are written into ``.grad`` by hand, the same numbers in both
libraries, so only the optimizer runs: no backward pass, no other task."""

import numpy as np
import pytest
import torch

import toygrad
from toygrad import nn, optim

pytestmark = pytest.mark.ch15


def run(name, kwargs, steps=20, dtype=np.float64, seed=0):
    """Parameters after each of ``steps`` steps, toygrad's and torch's."""
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal(shape).astype(dtype) for shape in ((3, 4), (4,))]
    ours = [nn.Parameter(a.copy()) for a in start]
    theirs = [torch.nn.Parameter(torch.tensor(a)) for a in start]
    our_opt = getattr(optim, name)(ours, **kwargs)
    their_opt = getattr(torch.optim, name)(theirs, foreach=False, **kwargs)
    history = []
    for _ in range(steps):
        for p, q in zip(ours, theirs):
            g = rng.standard_normal(p.shape).astype(dtype)
            p.grad, q.grad = toygrad.tensor(g), torch.tensor(g)
        our_opt.step()
        their_opt.step()
        history.append([(p.data.copy(), q.detach().numpy().copy())
                        for p, q in zip(ours, theirs)])
    return history


def assert_same(history, atol):
    moved = 0.0
    for pairs in history:
        for ours, theirs in pairs:
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=atol)
    for (first, _), (last, _) in zip(history[0], history[-1]):
        moved = max(moved, np.abs(first - last).max())
    assert moved > 1e-3  # the parameters did move


@pytest.mark.task15_1
@pytest.mark.parametrize("kwargs", [
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.1, momentum=0.9, dampening=0.5),
    dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.1, weight_decay=0.1),
    dict(lr=0.1, momentum=0.5, weight_decay=0.1, maximize=True),
], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sgd_step_follows_pytorch(kwargs, dtype):
    assert_same(run("SGD", kwargs, dtype=dtype),
                1e-12 if dtype == np.float64 else 1e-5)


@pytest.mark.task15_1
def test_sgd_step_leaves_params_without_grad_and_counts_versions():
    p, q = nn.Parameter(np.ones(2)), nn.Parameter(np.ones(2))
    opt = optim.SGD([p, q], lr=0.5, momentum=0.9)
    p.grad = toygrad.tensor(np.array([1.0, 2.0]))
    version = p._version
    opt.step()
    assert p._version == version + 1
    np.testing.assert_array_equal(q.data, np.ones(2))
    np.testing.assert_allclose(p.data, [0.5, 0.0])


@pytest.mark.task15_2
@pytest.mark.parametrize("kwargs", [
    dict(), dict(lr=0.05), dict(lr=0.05, weight_decay=0.1),
    dict(lr=0.05, amsgrad=True), dict(lr=0.05, betas=(0.2, 0.5)),
    dict(lr=0.05, maximize=True),
], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_adam_step_follows_pytorch(kwargs, dtype):
    assert_same(run("Adam", kwargs, dtype=dtype),
                1e-12 if dtype == np.float64 else 1e-5)
