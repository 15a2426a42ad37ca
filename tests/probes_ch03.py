"""Chapter 3's probes: what recording makes (task 3.1) and what a product's node sends
back (task 3.2), on scalar Values. tests/test_tasks_ch03.py says what they must return."""

from graphs import structure
from toygrad.scalar import MulBackward0, Value
from verdict import vary

OPERATIONS = {"x * y": lambda x, y: x * y, "x + y": lambda x, y: x + y,
              "(x * y + y) * x": lambda x, y: (x * y + y) * x}


def recorded(operation, a, b, a_grad, b_grad, seed=0):
    """``operation`` on two Values: whether the result requires grad, its graph (as
    tests/graphs.py writes it) and its number."""
    a, b = vary(seed, a, b)
    out = OPERATIONS[operation](Value(a, requires_grad=a_grad), Value(b, requires_grad=b_grad))
    return [out.requires_grad, structure(out), out.data]


def nothing_recorded(seed=0):
    out = Value(*vary(seed, 1.5)) * Value(*vary(seed, -2.0))
    return [out.grad_fn is None, out.requires_grad]


def mul_backward(a, b, g, seed=0):
    """What a MulBackward0 made by hand (no recording needed) sends back for ``g``."""
    a, b, g = vary(seed, a, b, g)
    return list(MulBackward0((None, None), (a, b)).apply(g))
