"""Chapter 5's tasks: broadcasting's gradient, and a matrix product's two gradients."""

import numpy as np
import pytest
import torch

import toygrad
from toygrad import ops

pytestmark = pytest.mark.ch05

SHAPES = [((2, 3, 4), (3, 1)), ((2, 3, 4), (4,)), ((2, 3, 4), ()), ((5, 1), (1, 1)),
          ((2, 3), (2, 3)), ((4, 2, 3), (1, 2, 1))]


@pytest.mark.task5_1
@pytest.mark.parametrize("big, small", SHAPES)
def test_unbroadcast_is_pytorch_s_sum_to_size(big, small):
    grad = np.arange(np.prod(big), dtype=np.float64).reshape(big) - 3.5
    with toygrad.no_grad():
        ours = ops.unbroadcast(toygrad.tensor(grad), small)
    theirs = torch.tensor(grad).sum_to_size(small)
    assert ours.shape == tuple(theirs.shape)
    assert np.array_equal(ours.data, theirs.numpy())


@pytest.mark.task5_1
def test_unbroadcast_records_its_sum_under_create_graph_as_pytorch_does():
    grad = toygrad.tensor(np.ones((2, 3, 4)), requires_grad=True)
    tgrad = torch.ones(2, 3, 4, dtype=torch.float64, requires_grad=True)
    ours, theirs = ops.unbroadcast(grad, (3, 1)), tgrad.sum_to_size((3, 1))
    assert ours.grad_fn.name() == theirs.grad_fn.name()


class AsStored:
    """A node whose ``saved_tensors`` are the tensors its forward saved, as they were
    stored: without the version check of ``SavedTensor.unpack`` (Task 6.1)."""

    def __init__(self, node):
        self._node = node

    def __getattr__(self, name):
        return getattr(self._node, name)

    @property
    def saved_tensors(self):
        return tuple(None if saved is None else saved.tensor for saved in self._node._saved)


def matrices(lib, n=3, k=4, m=2):
    rng = np.random.default_rng(0)
    return (lib.tensor(rng.standard_normal((n, k)), requires_grad=True),
            lib.tensor(rng.standard_normal((k, m)), requires_grad=True),
            rng.standard_normal((n, m)))


@pytest.mark.task5_2
@pytest.mark.parametrize("transpose", [False, True])
def test_a_matrix_product_sends_back_pytorch_s_two_gradients(transpose):
    a, b, g = matrices(toygrad)
    ta, tb, _ = matrices(torch)
    if transpose:  # a weight used as w.t(), as nn.Linear does
        a, ta = a.t().t(), ta.t().t()
    node = ops.Mm.apply(a, b).grad_fn
    # Called by hand as the engine calls it, under no_grad (no engine needed), with what
    # forward saved as it was stored (no SavedTensor.unpack, which is Task 6.1)
    with toygrad.no_grad():
        ours = ops.Mm.backward(AsStored(node), toygrad.tensor(g))
    theirs = torch.mm(ta, tb).grad_fn(torch.tensor(g))
    for mine, their in zip(ours, theirs, strict=True):
        assert mine.shape == tuple(their.shape)
        assert np.allclose(mine.data, their.detach().numpy(), rtol=0, atol=1e-12)
