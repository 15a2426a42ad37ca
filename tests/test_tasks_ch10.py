"""Chapter 10's tasks: ``call_function`` runs a node's hooks in PyTorch's order, and a
non-leaf keeps its gradient when asked.

Each check runs a probe of tests/probes_ch10.py (the student's code, called by hand, node
by node, as the engine would) and compares what it returns with PyTorch's backward
(tests/verdict.py)."""

import pytest
import torch

import probes_ch10 as probes
import verdict
from verdict import Check, same

pytestmark = pytest.mark.ch10


def pytorch_s_hooks(seed=0):
    order = []
    x, y, _ = probes.hooked(torch, order, seed)
    y.backward(torch.ones(2, dtype=torch.float64))
    return {"order": order, "to the number": None, "from the leaf": [],
            "x.grad": x.grad.tolist()}


def pytorch_s_pre_and_post_hooks(seed=0):
    t = torch.tensor(list(verdict.vary(seed, 1.0, 2.0)), dtype=torch.float64,
                     requires_grad=True)
    y = t * 3
    y.grad_fn.register_prehook(lambda gout: (gout[0] * 10,))
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, gin[1]))
    y.sum().backward()
    # the pre-hook's gradients reach the node (10 each), the post-hook's go on
    return {"in": [[10.0, 10.0]], "out": t.grad.tolist(), "to the number": None}


def pytorch_s_refusal_of_the_wrong_size(seed=0):
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    t.register_hook(lambda g: g.sum())
    return verdict.error_of(lambda: (t * 1).sum().backward())


CHECKS = [
    Check("task10_1", "hooks_run_in_pytorch_s_order_with_pytorch_s_gradients",
          probes.hooks_in_order, pytorch_s_hooks, same),
    Check("task10_1", "a_pre_hook_s_gradients_reach_the_node_and_a_post_hook_s_go_on",
          probes.pre_and_post_hooks, pytorch_s_pre_and_post_hooks, same),
    Check("task10_1", "a_hook_returning_the_wrong_size_is_refused_as_in_pytorch",
          probes.hook_of_the_wrong_size, pytorch_s_refusal_of_the_wrong_size, same),
    Check("task10_2", "a_retained_gradient_is_kept_then_added_into_a_new_tensor",
          probes.retained_by_toygrad, lambda seed: probes.retained(torch, seed), same),
    Check("task10_2", "retain_grad_refuses_a_tensor_without_grad_and_skips_a_leaf",
          probes.refusals_of_toygrad, lambda seed: probes.refusals(torch, seed), same),
    Check("task10_2", "a_retained_gradient_is_read_without_a_warning",
          probes.read_without_a_warning, lambda seed: [[1.0, 1.0], []], same),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
