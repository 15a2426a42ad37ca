"""Chapter 3's tasks: recording a node, and a node's local derivatives (no engine yet).

Each check runs a probe of tests/probes_ch03.py (the student's code, observed) and compares
what it returns with what PyTorch does (tests/verdict.py)."""

import pytest
import torch

import probes_ch03 as probes
import verdict
from graphs import structure
from verdict import Check, same

pytestmark = pytest.mark.ch03


def pytorch_records(operation, a, b, a_grad, b_grad, seed=0):
    a, b = verdict.vary(seed, a, b)
    theirs = probes.OPERATIONS[operation](
        torch.tensor(a, dtype=torch.float64, requires_grad=a_grad),
        torch.tensor(b, dtype=torch.float64, requires_grad=b_grad))
    return [theirs.requires_grad, structure(theirs), theirs.item()]


def pytorch_s_mul_backward(a, b, g, seed=0):
    a, b, g = verdict.vary(seed, a, b, g)
    x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    return [t.item() for t in (x * y).grad_fn(torch.tensor(g, dtype=torch.float64))]


CHECKS = [
    Check("task3_1", "an_operation_records_the_node_pytorch_records", probes.recorded,
          pytorch_records, same,
          [(operation, 1.5, -2.0, *needs) for operation in probes.OPERATIONS
           for needs in ((True, True), (True, False), (False, True))]),
    Check("task3_1", "nothing_is_recorded_when_nothing_requires_grad",
          probes.nothing_recorded, lambda seed: [True, False], same),
    Check("task3_2", "a_product_sends_back_what_pytorch_s_mul_backward_sends",
          probes.mul_backward, pytorch_s_mul_backward, same,
          [(1.5, -2.0, 1.0), (0.25, 4.0, -3.0), (0.0, 2.0, 0.5)]),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
