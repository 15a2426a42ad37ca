"""Chapter 13's probes: tangents through Function.apply (task 13.1), and jacfwd (task
13.2). Each is written for either library (``lib``: toygrad here, torch for the
expectations in tests/test_tasks_ch13.py)."""

import numpy as np

import toygrad
import toygrad.func
from toygrad.autograd import forward_ad


def forward(lib):
    if lib is toygrad:
        return forward_ad
    import torch.autograd.forward_ad
    return torch.autograd.forward_ad


def functional(x):
    if isinstance(x, toygrad.Tensor):
        return toygrad.nn.functional
    import torch.nn.functional
    return torch.nn.functional


FUNCTIONS = {
    "x*x": lambda x: x * x,
    "exp(3x)": lambda x: (x * 3.0).exp(),
    "sum(exp(x)*x[0])": lambda x: (x.exp() * x[0]).sum(),
    "x.T@x": lambda x: x.t() @ x if x.ndim == 2 else x @ x,
    "log_softmax": lambda x: functional(x).log_softmax(x.tanh(), -1),
}


def tangents(lib, name, seed=0):
    """The output's tangent of FUNCTIONS[name] at x with tangent v, for two shapes."""
    fw, rng, seen = forward(lib), np.random.default_rng(1 + seed), []
    for shape in [(3,), (2, 3)]:
        x, v = rng.standard_normal(shape), rng.standard_normal(shape)
        with fw.dual_level():
            out = FUNCTIONS[name](fw.make_dual(lib.tensor(x), lib.tensor(v)))
            seen.append(np.array(fw.unpack_dual(out).tangent.tolist()))
    return seen


def missing_tangents(lib, seed=0):
    """A Function's jvp with an input that has no tangent (zeros) and a number (None)."""
    fw, seen = forward(lib), []

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            return a * b * k

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, None

        @staticmethod
        def jvp(ctx, ta, tb, tk):
            seen.append([ta.tolist(), tb.tolist(), tk])
            return ta * 2.0

    with fw.dual_level():
        x = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.25]))
        out = Scale.apply(x, lib.tensor([3.0, 4.0]), 2.0)
        seen.append(fw.unpack_dual(out).tangent.tolist())
    return seen


def wrong_number_of_tangents(lib, seed=0):
    fw = forward(lib)

    class Pair(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g, h):
            return g

        @staticmethod
        def jvp(ctx, ta):
            return ta * 2

    with fw.dual_level():
        try:
            Pair.apply(fw.make_dual(lib.tensor([1.0]), lib.tensor([1.0])))
        except RuntimeError as error:
            if isinstance(error, NotImplementedError):
                raise
            return str(error)
    return None


def jacfwd_at(shape, seed=0):
    x = np.random.default_rng(2 + seed).standard_normal(shape)
    return toygrad.func.jacfwd(lambda t: (t.exp() * t.sum()).tanh())(toygrad.tensor(x))


def jacfwd_to_fewer_outputs(seed=0):
    x = np.random.default_rng(3 + seed).standard_normal(5)
    return toygrad.func.jacfwd(lambda t: (t * t).sum(0))(toygrad.tensor(x))


# What the sandbox runs: each probe on toygrad.

def tangents_toygrad(name, seed=0):
    return tangents(toygrad, name, seed)


def missing_tangents_toygrad(seed=0):
    return missing_tangents(toygrad, seed)


def wrong_number_of_tangents_toygrad(seed=0):
    return wrong_number_of_tangents(toygrad, seed)
