"""Chapter 2's tasks, checked against PyTorch's own Jacobians.

Each check runs a probe of tests/probes_ch02.py (the student's code, observed) and compares
what it returns with PyTorch's answer (tests/verdict.py: make grade does the same, with the
probe in its sandbox and the comparison outside it)."""

import pytest
from torch.autograd.functional import jacobian

import probes_ch02 as probes
import verdict
from verdict import Check, close, same

pytestmark = pytest.mark.ch02


def pytorchs(seed=0):
    """torch's Jacobians of f, transposed to gradcheck's layout (input, output)."""
    args = probes.inputs(seed)
    return [j.reshape(-1, args[i].numel()).T.numpy()
            for i, j in enumerate(jacobian(probes.f, args))]


CHECKS = [
    # central differences: an error of about eps ** 2
    Check("task2_1", "numerical_jacobian_is_pytorch_s_jacobian", probes.numerical,
          pytorchs, close(atol=1e-8)),
    Check("task2_1", "numerical_jacobian_skips_inputs_that_need_no_gradient",
          probes.numerical_shapes_when_y_needs_no_gradient, lambda seed: [[3, 3]], same),
    # the same backward, one row at a time
    Check("task2_2", "analytical_jacobian_is_pytorch_s_jacobian", probes.analytical,
          pytorchs, close(atol=1e-12)),
    Check("task2_2", "analytical_jacobian_leaves_no_gradient_behind",
          probes.gradients_left_behind, lambda seed: [False, False], same),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
