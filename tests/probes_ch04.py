"""Chapter 4's probes: the engine's loop (task 4.1) and accumulation into a leaf's .grad
(task 4.2). The graphs are built node by node, so that the engine is tried on its own.
tests/test_tasks_ch04.py says what they must return."""

import collections

from toygrad.autograd.engine import execute
from toygrad.autograd.graph import grad_accumulator
from toygrad.scalar import AddBackward0, MulBackward0, Value
from verdict import error_of, vary


def reused_by_hand(x):
    """The graph of u = x * x; out = u * u + u, built node by node (no recording needed)."""
    accumulate = grad_accumulator(x)
    u = MulBackward0((accumulate, accumulate), (x.data, x.data))
    u_value = x.data * x.data  # u's value, as x * x computes it (pow can round apart)
    u_times_u = MulBackward0((u, u), (u_value, u_value))
    return AddBackward0((u_times_u, u), ())


def gradient_when_a_value_is_reused(seed=0):
    (start,) = vary(seed, 2.0)
    x = Value(start, requires_grad=True)
    collections.deque(execute(reused_by_hand(x), 1.0), maxlen=0)
    return x.grad


def what_runs(seed=0):
    """Each node the engine runs: which one (numbered as first met), its sequence number,
    the gradients it ran with."""
    (start,) = vary(seed, 2.0)
    x = Value(start, requires_grad=True)
    ran = [(node, list(grads_in)) for node, grads_in, _ in execute(reused_by_hand(x), 1.0)]
    first_met = {}
    for node, _ in ran:
        first_met.setdefault(node, len(first_met))
    return {"nodes": [first_met[node] for node, _ in ran],
            "numbers": [node.sequence_nr for node, _ in ran],
            "grads_in": [grads for _, grads in ran], "x": start}


def deep_graph(seed=0):
    x = Value(1.0, requires_grad=True)
    accumulate = grad_accumulator(x)
    node = accumulate
    length = 20_000 + seed % 1000  # far beyond Python's recursion limit
    for _ in range(length):  # y = y + x
        node = AddBackward0((node, accumulate), ())
    collections.deque(execute(node, 1.0), maxlen=0)
    return [length, x.grad]


def accumulated(seed=0):
    """A leaf's AccumulateGrad node, called by hand (no engine needed) three times: the
    leaf's .grad after each."""
    ours = Value(1.0, requires_grad=True)
    node = grad_accumulator(ours)
    seen = []
    for g in vary(seed, 2.0, 3.0, -0.5):
        node.apply(g)
        seen.append(ours.grad)
    return seen


def second_pass(retain_graph, seed=0):
    """Two passes through one graph, the first with ``retain_graph``: x's gradient from the
    second pass alone, or the error it raises."""
    (start,) = vary(seed, 2.0)
    x = Value(start, requires_grad=True)
    root = reused_by_hand(x)
    collections.deque(execute(root, 1.0, retain_graph), maxlen=0)
    x.grad = None
    error = error_of(lambda: collections.deque(execute(root, 1.0), maxlen=0))
    return x.grad if error is None else error[1]


def tensor_accumulation(seed=0):
    """From chapter 5 on a leaf's .grad is a tensor: outside create_graph, the second
    gradient goes into the first, the same tensor (AccumulateGrad called by hand)."""
    import toygrad  # chapter 5's tensors: not in chapter 4's snapshot

    ours = toygrad.tensor([1.0, 2.0], requires_grad=True)
    node = grad_accumulator(ours)
    first_value, second_value = vary(seed, 2.0, 3.0)
    with toygrad.no_grad():
        node.apply(toygrad.tensor([first_value, first_value]))
        first = ours.grad
        node.apply(toygrad.tensor([second_value, second_value]))
    return [ours.grad is first, ours.grad.tolist()]
