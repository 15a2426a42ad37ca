"""Chapter 4's tasks: the engine's loop, and accumulation into a leaf's .grad.

Each check runs a probe of tests/probes_ch04.py (the student's code, observed) and compares
what it returns with what PyTorch does, or with the rule the chapter states
(tests/verdict.py)."""

import importlib.util
import math

import pytest
import torch

import probes_ch04 as probes
import verdict
from verdict import Check, holds, same

pytestmark = pytest.mark.ch04


def pytorch_s_gradient(seed=0):
    (start,) = verdict.vary(seed, 2.0)
    tx = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    tu = tx * tx
    (tu * tu + tu).backward()
    return tx.grad.item()


def every_node_once_newest_first(ran):
    # add, mul, mul, AccumulateGrad: each once; sequence numbers from the largest down;
    # u's node runs once, with the sum of its three gradients: 1 + u + u (u = x * x;
    # 9 for x = 2), whichever order the engine adds them in
    u = ran["x"] * ran["x"]
    (grad_of_u,) = ran["grads_in"][2]
    return (ran["nodes"] == [0, 1, 2, 3] and ran["numbers"] == sorted(ran["numbers"],
                                                                      reverse=True)
            and math.isclose(grad_of_u, 1.0 + 2 * u, rel_tol=1e-15))


def pytorch_s_accumulation(seed=0):
    theirs = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    node = (theirs * 1).grad_fn.next_functions[0][0]
    assert node.name() == "torch::autograd::AccumulateGrad"
    seen = []
    for g in verdict.vary(seed, 2.0, 3.0, -0.5):
        node(torch.tensor(g, dtype=torch.float64))
        seen.append(theirs.grad.item())
    return seen


def pytorch_s_second_pass(retain_graph, seed=0):
    """What a second backward through u = x * x; out = u * u + u does in PyTorch: the
    error, or the gradient the second pass gives x."""
    (start,) = verdict.vary(seed, 2.0)
    tx = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    tu = tx * tx
    out = tu * tu + tu
    out.backward(retain_graph=retain_graph)
    tx.grad = None  # the second pass alone (not what accumulation across passes adds)
    try:
        out.backward()
    except RuntimeError as error:
        return str(error)
    return tx.grad.item()


def pytorch_s_tensor_accumulation(seed=0):
    theirs = torch.tensor([1.0, 2.0], requires_grad=True)
    node = (theirs * 1).grad_fn.next_functions[0][0]
    first_value, second_value = verdict.vary(seed, 2.0, 3.0)
    with torch.no_grad():
        node(torch.tensor([first_value, first_value]))
        first = theirs.grad
        node(torch.tensor([second_value, second_value]))
    return [theirs.grad is first, theirs.grad.tolist()]


CHECKS = [
    Check("task4_1", "the_engine_gives_pytorch_s_gradient_when_a_value_is_reused",
          probes.gradient_when_a_value_is_reused, pytorch_s_gradient, same),
    Check("task4_1", "the_engine_runs_every_node_once_newest_first_with_all_its_gradients",
          probes.what_runs, None, holds(every_node_once_newest_first,
                                        "each node once, newest first, with all its "
                                        "gradients added")),
    Check("task4_1", "a_deep_graph_needs_no_recursion", probes.deep_graph, None,
          holds(lambda seen: seen[1] == seen[0] + 1.0, "x.grad = the additions + 1")),
    # An engine that never frees the graph gives every number right and this wrong: a
    # second pass must fail as PyTorch's does, unless the first kept the graph.
    Check("task4_1", "the_engine_frees_what_the_nodes_saved_unless_retain_graph",
          probes.second_pass, pytorch_s_second_pass, same, [(False,), (True,)]),
    Check("task4_2", "a_leaf_adds_up_what_its_accumulate_grad_receives_as_pytorch_s_does",
          probes.accumulated, pytorch_s_accumulation, same),
]
if importlib.util.find_spec("toygrad.tensor"):  # chapter 5's tensors: not in chapter 4's
    # snapshot. Outside create_graph, the second gradient is added into the first in place.
    CHECKS.append(Check("task4_2", "a_tensor_leaf_accumulates_in_place_as_pytorch_s_does",
                        probes.tensor_accumulation, pytorch_s_tensor_accumulation, same))


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
