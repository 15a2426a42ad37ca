"""Chapter 4's tasks: the engine's loop, and accumulation into a leaf's .grad.

The graphs are built node by node, so that the engine is tried on its own."""

import collections

import pytest
import torch

from toygrad.autograd.engine import execute
from toygrad.autograd.graph import grad_accumulator
from toygrad.scalar import AddBackward0, MulBackward0, Value

pytestmark = pytest.mark.ch04


def reused_by_hand(x):
    """The graph of u = x * x; out = u * u + u, built node by node (no recording needed)."""
    accumulate = grad_accumulator(x)
    u = MulBackward0((accumulate, accumulate), (x.data, x.data))
    u_times_u = MulBackward0((u, u), (x.data ** 2, x.data ** 2))
    return AddBackward0((u_times_u, u), ())


@pytest.mark.task4_1
def test_the_engine_gives_pytorch_s_gradient_when_a_value_is_reused():
    x = Value(2.0, requires_grad=True)
    collections.deque(execute(reused_by_hand(x), 1.0), maxlen=0)
    tx = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    tu = tx * tx
    (tu * tu + tu).backward()
    assert x.grad == tx.grad.item()


@pytest.mark.task4_1
def test_the_engine_runs_every_node_once_newest_first_with_all_its_gradients():
    x = Value(2.0, requires_grad=True)
    ran = [(node, grads_in) for node, grads_in, _ in execute(reused_by_hand(x), 1.0)]
    nodes = [node for node, _ in ran]
    assert len(nodes) == len(set(nodes)) == 4  # add, mul, mul, AccumulateGrad
    numbers = [node.sequence_nr for node in nodes]
    assert numbers == sorted(numbers, reverse=True)
    # u's node runs once, with the sum of its three gradients: 1 + 4 + 4
    assert ran[2][1] == (9.0,)


@pytest.mark.task4_1
def test_a_deep_graph_needs_no_recursion():
    x = Value(1.0, requires_grad=True)
    accumulate = grad_accumulator(x)
    node = accumulate
    for _ in range(20_000):  # y = y + x, far beyond Python's recursion limit
        node = AddBackward0((node, accumulate), ())
    collections.deque(execute(node, 1.0), maxlen=0)
    assert x.grad == 20_001.0


@pytest.mark.task4_2
def test_a_leaf_adds_up_what_its_accumulate_grad_receives_as_pytorch_s_does():
    ours = Value(1.0, requires_grad=True)
    theirs = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    node = grad_accumulator(ours)  # called by hand: no engine needed
    their_node = (theirs * 1).grad_fn.next_functions[0][0]
    assert their_node.name() == "torch::autograd::AccumulateGrad"
    for g in (2.0, 3.0, -0.5):
        node.apply(g)
        their_node(torch.tensor(g, dtype=torch.float64))
        assert ours.grad == theirs.grad.item()
