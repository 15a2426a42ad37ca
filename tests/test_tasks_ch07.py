"""Chapter 7's tasks: the walker and the comparable structure, tried on PyTorch's graphs
(the walker works on both engines; these tests need nothing else of toygrad's). The
expected orders follow from the walk's definition: depth first, a node's inputs in the
order of its ``next_functions``, each node once, where it is first met."""

import pytest
import torch

from toygrad.viz import graph_structure, walk

pytestmark = pytest.mark.ch07


def reuse():
    """u = x * x; out = (u * u + u).sum(), and its nodes in the walk's order."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = x * x
    out = (u * u + u).sum()
    add = out.grad_fn.next_functions[0][0]
    u_times_u, u_node = (node for node, _ in add.next_functions)
    accumulate = u_node.next_functions[0][0]
    return out, [out.grad_fn, add, u_times_u, u_node, accumulate]


def two_paths():
    """out = (w @ x).tanh().sum() + (w * 2).sum(): w's node is met on the first path."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    out = torch.tanh(w @ x).sum() + (w * 2).sum()
    add = out.grad_fn
    first, second = (node for node, _ in add.next_functions)
    tanh = first.next_functions[0][0]
    mv = tanh.next_functions[0][0]
    w_node, x_node = (node for node, _ in mv.next_functions)
    times_two = second.next_functions[0][0]
    return out, [add, first, tanh, mv, w_node, x_node, second, times_two]


@pytest.mark.task7_1
@pytest.mark.parametrize("graph", [reuse, two_paths])
def test_walk_meets_every_node_once_depth_first(graph):
    output, expected = graph()
    assert walk(output) == expected


@pytest.mark.task7_1
def test_walk_needs_no_recursion():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(5_000):
        y = y * 1.0
    assert len(walk(y)) == 5_001  # 5,000 MulBackward0 and one AccumulateGrad


@pytest.mark.task7_2
def test_graph_structure_numbers_the_nodes_in_the_walk_s_order():
    output, _ = reuse()
    assert graph_structure(output) == [
        ("SumBackward0", ((1, 0),), None),
        ("AddBackward0", ((2, 0), (3, 0)), None),
        ("MulBackward0", ((3, 0), (3, 0)), None),
        ("MulBackward0", ((4, 0), (4, 0)), None),
        ("AccumulateGrad", (), (2,)),
    ]


@pytest.mark.task7_2
def test_graph_structure_marks_inputs_that_need_no_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    output = (x * torch.tensor([3.0, 4.0])).sum()  # the constant gets no node
    assert graph_structure(output) == [
        ("SumBackward0", ((1, 0),), None),
        ("MulBackward0", ((2, 0), (None, 0)), None),
        ("AccumulateGrad", (), (2,)),
    ]
