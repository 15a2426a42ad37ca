"""Chapter 16's task: the gradient-averaging hook of toygrad's DistributedDataParallel.

The probe (tests/probes_ch16.py) trains in two processes with the student's hook; every
process must end each backward with the gradient PyTorch computes in one process on the
whole batch (tests/verdict.py)."""

import numpy as np
import pytest
import torch

import probes_ch16 as probes
import verdict
from toygrad.examples import data_parallel
from verdict import Check, close

pytestmark = pytest.mark.ch16


def whole_batch_gradients(seed=0):
    """PyTorch, one process, the whole batches: the gradients before each SGD step, once
    for each of the two ranks (each must have them)."""
    state, batches = probes.inputs(seed)
    model = data_parallel.mlp(torch).double()
    model.load_state_dict({name: torch.tensor(value) for name, value in state.items()})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    steps = []
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(torch.tensor(x)), torch.tensor(y)).backward()
        steps.append({name: p.grad.numpy().copy()
                      for name, p in sorted(model.named_parameters())})
        optimizer.step()
    assert np.abs(steps[0]["2.bias"]).max() > 1e-3  # the check checks something
    return [steps, steps]


def mean_of_the_ranks(seed=0):
    """Each rank's gradient after the hook: the mean of the two."""
    mean = (probes.drawn_gradients(seed)[0] + probes.drawn_gradients(seed)[1]) / 2
    return [mean.tolist(), mean.tolist()]


CHECKS = [
    Check("task16_1", "the_hook_alone_leaves_every_process_the_mean",
          probes.hook_alone, mean_of_the_ranks, close(atol=1e-15)),
    # the mean of two half-batch means is the whole batch's, up to the order of the sums
    Check("task16_1", "every_process_ends_with_the_whole_batch_gradient",
          probes.averaged_gradients, whole_batch_gradients, close(atol=1e-15)),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
