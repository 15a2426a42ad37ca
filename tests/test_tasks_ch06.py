"""Chapter 6's tasks: a saved tensor's version check, and a gradient's shape check.

Each check runs a probe of tests/probes_ch06.py (the student's code, observed) and compares
what it returns with what PyTorch does (tests/verdict.py)."""

import numpy as np
import pytest
import torch

import probes_ch06 as probes
import verdict
from verdict import Check, same

pytestmark = pytest.mark.ch06


def pytorch_s_error_for_a_changed_result(seed=0):
    x = torch.tensor(probes.numbers(seed), dtype=torch.float64, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    y.mul_(2)
    error = verdict.error_of(node, torch.ones(3, dtype=torch.float64))
    assert "modified by an inplace operation" in error[1]  # the check checks that
    return error


def pytorch_s_gradient(grad_shape, seed=0):
    """PyTorch checks a node's gradients in its engine (validate_outputs), so its
    backward runs: x's gradient, or the error."""
    x = torch.tensor(np.ones((1, 3)), requires_grad=True)
    y = probes.returning(torch, tuple(grad_shape))(x)
    try:
        y.backward(torch.ones(1, 3, dtype=torch.float64))
    except RuntimeError as error:
        assert "returned an invalid gradient at index 0" in str(error)
        return ["RuntimeError", str(error)]
    return x.grad


CHECKS = [
    Check("task6_1", "a_saved_tensor_comes_back_unchanged", probes.saved_tensor_unchanged,
          lambda seed: [True, True], same),
    Check("task6_1", "a_saved_tensor_changed_in_place_is_refused_with_pytorch_s_error",
          probes.saved_tensor_changed_in_place, pytorch_s_error_for_a_changed_result, same),
    # The input has shape (1, 3): a larger gradient it broadcasts to is summed down.
    Check("task6_2", "a_gradient_that_broadcasts_is_summed_down_as_pytorch_does",
          probes.gradient_sent_back, pytorch_s_gradient, same,
          [((2, 3),), ((5, 1, 3),), ((2, 4, 3),)]),
    Check("task6_2", "a_gradient_of_the_wrong_shape_is_refused_with_pytorch_s_error",
          probes.gradient_sent_back, pytorch_s_gradient, same,
          [((3,),), ((2, 2),), ((1, 4),), ((),)]),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
