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


def pytorch_s_second_backward(retain_graph):
    """What a second backward through u = x * x; out = u * u + u does in PyTorch: the
    error, or the gradient the second pass gives x."""
    tx = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    tu = tx * tx
    out = tu * tu + tu
    out.backward(retain_graph=retain_graph)
    tx.grad = None  # the second pass alone (not what accumulation across passes adds)
    try:
        out.backward()
    except RuntimeError as error:
        return str(error)
    return tx.grad.item()


@pytest.mark.task4_1
@pytest.mark.parametrize("retain_graph", [False, True])
def test_the_engine_frees_what_the_nodes_saved_unless_retain_graph(retain_graph):
    # An engine that never frees the graph gives every number right and this wrong: a
    # second pass must fail as PyTorch's does, unless the first kept the graph.
    x = Value(2.0, requires_grad=True)
    root = reused_by_hand(x)
    collections.deque(execute(root, 1.0, retain_graph), maxlen=0)
    x.grad = None
    try:
        collections.deque(execute(root, 1.0), maxlen=0)
        ours = x.grad
    except RuntimeError as error:
        ours = str(error)
    assert ours == pytorch_s_second_backward(retain_graph)


@pytest.mark.task4_2
def test_a_tensor_leaf_accumulates_in_place_as_pytorch_s_does():
    # From chapter 5 on, a leaf's .grad is a tensor: outside create_graph, the second
    # gradient is added into the first in place (the same tensor), not into a new one.
    # The node is called by hand, as above, so that no other task's code runs.
    pytest.importorskip("toygrad.tensor")  # chapter 5's tensors: not in chapter 4's snapshot
    import toygrad

    ours = toygrad.tensor([1.0, 2.0], requires_grad=True)
    theirs = torch.tensor([1.0, 2.0], requires_grad=True)
    node, their_node = grad_accumulator(ours), (theirs * 1).grad_fn.next_functions[0][0]
    seen = []
    for leaf, apply, lib in ((ours, node.apply, toygrad), (theirs, their_node, torch)):
        with lib.no_grad():
            apply(lib.tensor([2.0, 2.0]))
            first = leaf.grad
            apply(lib.tensor([3.0, 3.0]))
        seen.append((leaf.grad is first, leaf.grad.tolist()))
    assert seen[0] == seen[1] == (True, [5.0, 5.0])
