"""Chapter 15's tasks: SGD's update (momentum, weight decay) and Adam's step.

Each check runs a probe of tests/probes_ch15.py (the student's optimizer, on gradients
written into ``.grad`` by hand) and compares the parameters after every step with
PyTorch's (tests/verdict.py)."""

import numpy as np
import pytest
import torch

import probes_ch15 as probes
import verdict
from verdict import Check, close

pytestmark = pytest.mark.ch15

SGD = [dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, dampening=0.5),
       dict(lr=0.1, momentum=0.9, nesterov=True), dict(lr=0.1, weight_decay=0.1),
       dict(lr=0.1, momentum=0.5, weight_decay=0.1, maximize=True)]
ADAM = [dict(), dict(lr=0.05), dict(lr=0.05, weight_decay=0.1),
        dict(lr=0.05, amsgrad=True), dict(lr=0.05, betas=(0.2, 0.5)),
        dict(lr=0.05, maximize=True)]


def pytorch_s_trajectory(name, kwargs, dtype, seed=0):
    history = probes.trajectory(torch, name, dict(kwargs), dtype, seed)
    moved = max(np.abs(first - last).max() for first, last in zip(history[0], history[-1]))
    assert moved > 1e-3  # the parameters do move: the check checks something
    return history


def trajectories(task, name, cases):
    # float64: the same operations in the same order; float32: each library's rounding
    return [Check(task, f"{name.lower()}_step_follows_pytorch_{dtype}",
                  probes.trajectory_toygrad, pytorch_s_trajectory,
                  close(atol=1e-12 if dtype == "float64" else 1e-5),
                  [(name, kwargs, dtype) for kwargs in cases])
            for dtype in ("float64", "float32")]


CHECKS = [
    *trajectories("task15_1", "SGD", SGD),
    Check("task15_1", "sgd_step_leaves_params_without_grad_and_counts_versions",
          probes.a_param_without_grad, lambda seed: [1, np.ones(2), np.array([0.5, 0.0])],
          close(atol=1e-15)),
    *trajectories("task15_2", "Adam", ADAM),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
