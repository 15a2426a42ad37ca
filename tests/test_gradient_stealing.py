"""A gradient that nobody else holds becomes a leaf's ``.grad`` without a copy (chapter 9).

PyTorch's AccumulateGrad "steals" the incoming gradient when nothing else holds it
(accumulate_grad.h), and the engine moves each gradient on rather than keeping it; toygrad
does the same from chapter 9 on (the ``#> ch09`` lines of ``execute``). Moved here from
test_never_silently_different.py (chapter 6), whose snapshot copies every gradient.
"""

import weakref

import numpy as np
import pytest
import torch

import toygrad
from toygrad.autograd import engine

pytestmark = pytest.mark.ch09


# AccumulateGrad keeps the incoming gradient itself ("steals" it) when nothing
# else holds it, as PyTorch does (accumulate_grad.h), and copies it otherwise:
# a leaf's .grad never shares memory with anything a reader can reach.

def _memory(lib, tensor):
    return tensor.numpy() if lib is torch else tensor.data


def _fresh_gradient_function(lib):
    """x * 2 whose backward returns a new tensor; returns (f, made): made()
    is the array of the last gradient it returned, watched without holding
    on to it (toygrad counts references to the array, PyTorch to the
    tensor)."""
    made = lambda: made.array()  # noqa: E731

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            fresh = grad * 2
            array = _memory(lib, fresh)
            made.array = (lambda: array) if lib is torch else weakref.ref(
                array)
            return fresh

    return Double.apply, made


def test_a_gradient_nobody_else_holds_becomes_the_leaf_s_grad():
    for lib in (torch, toygrad):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        double, made = _fresh_gradient_function(lib)
        double(x).sum().backward()
        # PyTorch and toygrad both keep the very array: no copy
        first = _memory(lib, x.grad)
        assert np.shares_memory(first, made()), lib.__name__
        double(x).sum().backward()  # then add into it in place
        assert np.shares_memory(_memory(lib, x.grad), first), lib.__name__
        assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_a_gradient_sent_to_two_leaves_is_copied_for_one_of_them():
    results = []
    for lib in (torch, toygrad):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        for _ in range(2):  # the second pass adds into .grad in place
            (a + b).sum().backward()
        assert not np.shares_memory(_memory(lib, a.grad),
                                    _memory(lib, b.grad))
        results.append((a.grad.tolist(), b.grad.tolist()))
    assert results[0] == results[1]


def test_a_gradient_the_caller_holds_is_copied():
    for lib in (torch, toygrad):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        g = lib.tensor([0.5, 0.25])
        (x + 0).backward(g)  # AddBackward0 passes g on unchanged
        assert not np.shares_memory(_memory(lib, x.grad), _memory(lib, g))
        x.backward(g)
        assert g.tolist() == [0.5, 0.25] and x.grad.tolist() == [1.0, 0.5]


def test_a_gradient_that_is_also_saved_is_copied():
    for lib in (torch, toygrad):
        class Saved(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x * 3)
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                (kept,) = ctx.saved_tensors
                Saved.kept = kept
                return kept  # the gradient is a saved tensor

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        Saved.apply(x).sum().backward()
        assert not np.shares_memory(_memory(lib, x.grad),
                                    _memory(lib, Saved.kept))
        x.grad.add_(1)
        assert Saved.kept.tolist() == [3.0, 6.0]


def test_a_gradient_the_stepper_shows_is_copied():
    x = toygrad.tensor([1.0, 2.0], requires_grad=True)
    double, made = _fresh_gradient_function(toygrad)
    y = double(x).sum()
    with toygrad.no_grad():
        steps = list(engine.execute(y.grad_fn, toygrad.tensor(1.0)))
    shown = [g.data for _, _, grads_out in steps for g in grads_out
             if g is not None]
    assert any(np.shares_memory(array, made()) for array in shown)
    assert not any(np.shares_memory(x.grad.data, array) for array in shown)
