"""Chapter 13's tasks: tangents through Function.apply, and jacfwd."""

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as fwAD

import toygrad
import toygrad.func
from toygrad.autograd import forward_ad

pytestmark = pytest.mark.ch13


def tangent_of(lib, f, x, v):
    fw = fwAD if lib is torch else forward_ad
    with fw.dual_level():
        out = f(fw.make_dual(lib.tensor(x), lib.tensor(v)))
        tangent = fw.unpack_dual(out).tangent
    return np.array(tangent.tolist())


def functional(x):
    return (torch.nn.functional if isinstance(x, torch.Tensor)
            else toygrad.nn.functional)


@pytest.mark.task13_1
@pytest.mark.parametrize("f", [
    lambda x: x * x,
    lambda x: (x * 3.0).exp(),
    lambda x: (x.exp() * x[0]).sum(),
    lambda x: x.t() @ x if x.ndim == 2 else x @ x,
    lambda x: functional(x).log_softmax(x.tanh(), -1),
], ids=["x*x", "exp(3x)", "sum(exp(x)*x[0])", "x.T@x", "log_softmax"])
def test_tangents_flow_through_every_operation_as_in_pytorch(f):
    rng = np.random.default_rng(1)
    for shape in [(3,), (2, 3)]:
        x, v = rng.standard_normal(shape), rng.standard_normal(shape)
        np.testing.assert_allclose(tangent_of(toygrad, f, x, v),
                                   tangent_of(torch, f, x, v), rtol=1e-10)


@pytest.mark.task13_1
def test_an_input_without_a_tangent_counts_as_zeros_and_none_as_none():
    seen = []
    for lib in (torch, toygrad):
        fw = fwAD if lib is torch else forward_ad

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                return a * b * k

            @staticmethod
            def backward(ctx, grad):
                return grad, grad, None

            @staticmethod
            def jvp(ctx, ta, tb, tk):
                seen.append((ta.tolist(), tb.tolist(), tk))
                return ta * 2.0

        with fw.dual_level():
            x = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 0.25]))
            out = Scale.apply(x, lib.tensor([3.0, 4.0]), 2.0)
            seen.append(fw.unpack_dual(out).tangent.tolist())
    assert seen[:2] == seen[2:]


@pytest.mark.task13_1
def test_a_wrong_number_of_tangents_is_refused_as_pytorch_does():
    errors = []
    for lib in (torch, toygrad):
        fw = fwAD if lib is torch else forward_ad

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
            with pytest.raises(RuntimeError) as info:
                Pair.apply(fw.make_dual(lib.tensor([1.0]), lib.tensor([1.0])))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.task13_2
@pytest.mark.parametrize("shape", [(1,), (4,), (2, 3)])
def test_jacfwd_is_torch_funcs(shape):
    x = np.random.default_rng(2).standard_normal(shape)

    def f(lib):
        return lambda t: (t.exp() * t.sum()).tanh()
    theirs = torch.func.jacfwd(f(torch))(torch.tensor(x)).numpy()
    ours = toygrad.func.jacfwd(f(toygrad))(toygrad.tensor(x))
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours.data, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.task13_2
def test_jacfwd_of_a_function_to_fewer_outputs():
    x = np.random.default_rng(3).standard_normal(5)

    def f(t):
        return (t * t).sum(0)
    theirs = torch.func.jacfwd(f)(torch.tensor(x)).numpy()
    ours = toygrad.func.jacfwd(f)(toygrad.tensor(x))
    assert ours.shape == theirs.shape == (5,)
    np.testing.assert_allclose(ours.data, theirs, rtol=1e-10)
