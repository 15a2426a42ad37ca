"""Chapter 13's tasks: tangents through Function.apply, and jacfwd.

Each check runs a probe of tests/probes_ch13.py on toygrad (the student's code, observed)
and compares what it returns with PyTorch's (tests/verdict.py)."""

import numpy as np
import pytest
import torch

import probes_ch13 as probes
import verdict
from verdict import Check, close, same

pytestmark = pytest.mark.ch13


def pytorch_s_tangents(name, seed=0):
    return probes.tangents(torch, name, seed)


def pytorch_s_jacfwd(shape, seed=0):
    x = np.random.default_rng(2 + seed).standard_normal(shape)
    return torch.func.jacfwd(lambda t: (t.exp() * t.sum()).tanh())(torch.tensor(x))


def pytorch_s_jacfwd_to_fewer_outputs(seed=0):
    x = np.random.default_rng(3 + seed).standard_normal(5)
    return torch.func.jacfwd(lambda t: (t * t).sum(0))(torch.tensor(x))


CHECKS = [
    Check("task13_1", "tangents_flow_through_every_operation_as_in_pytorch",
          probes.tangents_toygrad, pytorch_s_tangents, close(rtol=1e-10),
          [(name,) for name in probes.FUNCTIONS]),
    Check("task13_1", "an_input_without_a_tangent_counts_as_zeros_and_none_as_none",
          probes.missing_tangents_toygrad,
          lambda seed: probes.missing_tangents(torch, seed), same),
    Check("task13_1", "a_wrong_number_of_tangents_is_refused_as_pytorch_does",
          probes.wrong_number_of_tangents_toygrad,
          lambda seed: probes.wrong_number_of_tangents(torch, seed), same),
    Check("task13_2", "jacfwd_is_torch_funcs", probes.jacfwd_at, pytorch_s_jacfwd,
          close(rtol=1e-10, atol=1e-12), [((1,),), ((4,),), ((2, 3),)]),
    Check("task13_2", "jacfwd_of_a_function_to_fewer_outputs",
          probes.jacfwd_to_fewer_outputs, pytorch_s_jacfwd_to_fewer_outputs,
          close(rtol=1e-10)),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
