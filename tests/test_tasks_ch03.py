"""Chapter 3's tasks: recording a node, and a node's local derivatives (no engine yet)."""

import pytest
import torch

from graphs import structure
from toygrad.scalar import MulBackward0, Value

pytestmark = pytest.mark.ch03


def both(a, b, a_grad, b_grad, operation):
    """The result of ``operation`` on two scalars, in toygrad and in torch."""
    ours = operation(Value(a, requires_grad=a_grad), Value(b, requires_grad=b_grad))
    theirs = operation(torch.tensor(a, dtype=torch.float64, requires_grad=a_grad),
                       torch.tensor(b, dtype=torch.float64, requires_grad=b_grad))
    return ours, theirs


@pytest.mark.task3_1
@pytest.mark.parametrize("operation", [lambda x, y: x * y, lambda x, y: x + y,
                                       lambda x, y: (x * y + y) * x])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_an_operation_records_the_node_pytorch_records(operation, needs):
    ours, theirs = both(1.5, -2.0, *needs, operation)
    assert ours.requires_grad and theirs.requires_grad
    assert structure(ours) == structure(theirs)
    assert ours.data == theirs.item()


@pytest.mark.task3_1
def test_nothing_is_recorded_when_nothing_requires_grad():
    ours, theirs = both(1.5, -2.0, False, False, lambda x, y: x * y)
    assert ours.grad_fn is None and theirs.grad_fn is None
    assert not ours.requires_grad and not theirs.requires_grad


@pytest.mark.task3_2
@pytest.mark.parametrize("a, b, g", [(1.5, -2.0, 1.0), (0.25, 4.0, -3.0), (0.0, 2.0, 0.5)])
def test_a_product_sends_back_what_pytorch_s_mul_backward_sends(a, b, g):
    node = MulBackward0((None, None), (a, b))  # made by hand: no recording needed
    x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    theirs = (x * y).grad_fn(torch.tensor(g, dtype=torch.float64))
    assert node.apply(g) == tuple(t.item() for t in theirs)
