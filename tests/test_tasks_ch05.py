"""Chapter 5's tasks: broadcasting's gradient, and a matrix product's two gradients.

Each check runs a probe of tests/probes_ch05.py (the student's code, observed) and compares
what it returns with what PyTorch does (tests/verdict.py)."""

import pytest
import torch

import probes_ch05 as probes
import verdict
from verdict import Check, close, same

pytestmark = pytest.mark.ch05

SHAPES = [((2, 3, 4), (3, 1)), ((2, 3, 4), (4,)), ((2, 3, 4), ()), ((5, 1), (1, 1)),
          ((2, 3), (2, 3)), ((4, 2, 3), (1, 2, 1))]


def pytorch_s_sum_to_size(big, small, seed=0):
    theirs = torch.tensor(probes.broadcast_gradient(big, seed)).sum_to_size(small)
    return [list(theirs.shape), theirs]


def pytorch_s_recorded_sum(seed=0):
    tgrad = torch.ones(2, 3, 4, dtype=torch.float64, requires_grad=True)
    return tgrad.sum_to_size((3, 1)).grad_fn.name()


def pytorch_s_mm_backward(transpose, seed=0):
    a_np, b_np, g = probes.matrices(seed)
    ta = torch.tensor(a_np, requires_grad=True)
    tb = torch.tensor(b_np, requires_grad=True)
    if transpose:
        ta = ta.t().t()
    return list(torch.mm(ta, tb).grad_fn(torch.tensor(g)))


CHECKS = [
    Check("task5_1", "unbroadcast_is_pytorch_s_sum_to_size", probes.unbroadcast,
          pytorch_s_sum_to_size, same, SHAPES),
    Check("task5_1", "unbroadcast_records_its_sum_under_create_graph_as_pytorch_does",
          probes.unbroadcast_under_create_graph, pytorch_s_recorded_sum, same),
    Check("task5_2", "a_matrix_product_sends_back_pytorch_s_two_gradients",
          probes.mm_backward, pytorch_s_mm_backward, close(atol=1e-12),
          [(False,), (True,)]),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
