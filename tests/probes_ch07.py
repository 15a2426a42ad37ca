"""Chapter 7's probes: the walker (task 7.1) and the comparable structure (task 7.2), tried
on PyTorch's graphs (the walker works on both engines; these need nothing else of
toygrad's). tests/test_tasks_ch07.py says what they must return."""

import collections

import torch

from toygrad.viz import graph_structure, walk


def reuse():
    """u = x * x; out = (u * u + u).sum()."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = x * x
    return (u * u + u).sum()


def two_paths():
    """out = (w @ x).tanh().sum() + (w * 2).sum(): w's node is met on the first path."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    return torch.tanh(w @ x).sum() + (w * 2).sum()


GRAPHS = {"reuse": reuse, "two_paths": two_paths}


def breadth_first(output):
    """Each node of ``output``'s graph numbered breadth first: a name for every node that
    the walk's own order does not give."""
    number = {output.grad_fn: 0}
    queue = collections.deque([output.grad_fn])
    while queue:
        for node, _ in queue.popleft().next_functions:
            if node is not None and node not in number:
                number[node] = len(number)
                queue.append(node)
    return number


def walked(graph, seed=0):
    """The nodes ``walk`` meets, in its order, each by its breadth-first number (None for
    anything that is not a node of the graph)."""
    output = GRAPHS[graph]()
    number = breadth_first(output)
    return [number.get(node) for node in walk(output)]


def chain_length(seed=0):
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(5_000 + seed % 1000):
        y = y * 1.0
    return len(walk(y))


def structure_of_reuse(seed=0):
    return graph_structure(reuse())


def structure_with_a_constant(seed=0):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return graph_structure((x * torch.tensor([3.0, 4.0])).sum())  # the constant: no node
