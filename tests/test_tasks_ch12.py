"""Chapter 12's tasks: autograd.grad, and the Jacobians gradgradcheck checks.

Each check runs a probe of tests/probes_ch12.py on toygrad (the student's code, observed)
and compares what it returns with PyTorch's (tests/verdict.py)."""

import numpy as np
import pytest
import torch

import probes_ch12 as probes
import verdict
from verdict import Check, close, on_torch, same

pytestmark = pytest.mark.ch12



def pytorch_s_non_leaf_and_unused(seed=0):
    observed = probes.non_leaf_and_unused(torch, seed)
    assert "index 1 appears to not have" in observed[3]  # the check checks that
    return observed


def pytorch_s_two_output_jacobians(seed=0):
    x, w = probes.numbers_xw(seed)
    # The layout is torch's: rows index the input, columns the output.
    first = torch.autograd.functional.jacobian(
        lambda a: (a * torch.tensor(w)).tanh(), torch.tensor(x))
    return {"differentiable": [True, True], "shapes": [[[6, 6], [3, 6]], [[6, 2], [3, 2]]],
            "numerical vs analytical": 0.0, "first": first.reshape(6, 6).numpy().T}


def jacobians_agree(observed, expected):
    """The flags and shapes exactly; numerical and analytical within 1e-7 of each other
    (finite differences); the first Jacobian PyTorch's to 1e-10."""
    if observed["numerical vs analytical"] > 1e-7:
        return (f"numerical and analytical Jacobians differ by "
                f"{observed['numerical vs analytical']:.3g}")
    return verdict.close(rtol=1e-10, atol=1e-12)(
        {**observed, "numerical vs analytical": 0.0}, expected)


CHECKS = [
    Check("task12_1", "grad_returns_the_gradients_and_touches_no_grad",
          probes.gradients_toygrad, on_torch(probes.gradients), close(1e-10, 1e-12)),
    Check("task12_1", "grad_of_a_non_leaf_and_an_unused_input",
          probes.non_leaf_and_unused_toygrad, pytorch_s_non_leaf_and_unused,
          close(1e-10, 1e-12)),
    Check("task12_1", "grad_runs_only_what_leads_to_the_inputs",
          probes.runs_only_what_leads_to_the_inputs,
          lambda seed: np.exp(probes.numbers_xw(seed)[1]), close(1e-12, 0.0)),
    Check("task12_1", "grad_with_create_graph_differentiates_again",
          probes.second_derivatives_toygrad, on_torch(probes.second_derivatives),
          close(1e-10, 1e-12)),
    Check("task12_2", "jacobians_of_two_outputs_match_both_ways", probes.two_output_jacobians,
          pytorch_s_two_output_jacobians, jacobians_agree),
    Check("task12_2", "gradgradcheck_agrees_with_pytorch_on_a_wrong_second_derivative",
          probes.gradgradcheck_verdicts_toygrad, on_torch(probes.gradgradcheck_verdicts),
          same),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
