"""Chapter 15's probes: SGD's update with momentum and weight decay (task 15.1) and Adam's
step (task 15.2). The gradients are written into ``.grad`` by hand, so only the optimizer
runs: no backward pass, no other task. tests/test_tasks_ch15.py says what they must
return."""

import numpy as np

import toygrad
from toygrad import nn, optim


def numbers(dtype, steps=20, seed=0):
    """The starting parameters and each step's gradients, drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal(shape).astype(dtype) for shape in ((3, 4), (4,))]
    grads = [[rng.standard_normal(a.shape).astype(dtype) for a in start]
             for _ in range(steps)]
    return start, grads


def trajectory(lib, name, kwargs, dtype, seed=0):
    """The parameters after each step of optimizer ``name`` (lib: toygrad, or torch)."""
    start, grads = numbers(dtype, seed=seed)
    if lib is toygrad:
        params = [nn.Parameter(a.copy()) for a in start]
        opt = getattr(optim, name)(params, **kwargs)
    else:
        params = [lib.nn.Parameter(lib.tensor(a)) for a in start]
        opt = getattr(lib.optim, name)(params, foreach=False, **kwargs)
    history = []
    for step in grads:
        for p, g in zip(params, step):
            p.grad = lib.tensor(g)
        opt.step()
        history.append([np.array(p.tolist(), dtype=dtype) for p in params])
    return history


def trajectory_toygrad(name, kwargs, dtype, seed=0):
    return trajectory(toygrad, name, dict(kwargs), dtype, seed)


def a_param_without_grad(seed=0):
    """SGD with momentum over two parameters, one without a gradient: the version the
    other's update counts, both parameters after one step."""
    p, q = nn.Parameter(np.ones(2)), nn.Parameter(np.ones(2))
    opt = optim.SGD([p, q], lr=0.5, momentum=0.9)
    p.grad = toygrad.tensor(np.array([1.0, 2.0]))
    version = p._version
    opt.step()
    return [p._version - version, q.data, p.data]
