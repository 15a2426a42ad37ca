"""Chapter 11's tasks: a saved tensor through the pack hook, and checkpoint.

Each check runs a probe of tests/probes_ch11.py on toygrad (the student's code, observed)
and compares what it returns with the same probe run on PyTorch (tests/verdict.py)."""

import pytest
import torch

import probes_ch11 as probes
import verdict
from verdict import Check, close, holds, on_torch, same

pytestmark = pytest.mark.ch11



def pytorch_s_refusal(seed=0):
    error = probes.pack_hook_that_changes_its_input(torch, seed)
    assert "pack hook is modifying its input in place" in error[1]  # the check checks
    return error


# exp's numbers: NumPy's and PyTorch's exp may differ in the last bit (rtol 1e-15).
CHECKS = [
    Check("task11_2", "the_pack_hook_sees_each_saved_tensor_and_its_result_is_kept",
          probes.pack_hook_toygrad, on_torch(probes.pack_hook), close(rtol=1e-15)),
    Check("task11_2", "a_pack_hook_that_changes_its_input_is_refused_with_pytorch_s_error",
          probes.pack_hook_that_changes_its_input_toygrad, pytorch_s_refusal, same),
    # one call in forward, one more when backward needs the saved tensor
    Check("task11_1", "checkpoint_runs_the_function_again_when_a_saved_tensor_is_needed",
          probes.recomputed_toygrad, on_torch(probes.recomputed), close(rtol=1e-15)),
    Check("task11_1", "checkpoint_keeps_only_its_inputs",
          probes.kept_by_checkpoint_toygrad, on_torch(probes.kept_by_checkpoint), same),
    Check("task11_1", "checkpoint_refuses_the_reentrant_variant_by_name",
          probes.reentrant_refused, None, holds(bool, "a NotImplementedError naming "
                                                      "use_reentrant=True")),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
