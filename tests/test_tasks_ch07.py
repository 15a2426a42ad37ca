"""Chapter 7's tasks: the walker and the comparable structure, tried on PyTorch's graphs.

Each check runs a probe of tests/probes_ch07.py (the student's code, observed) and compares
what it returns with the walk's definition (tests/verdict.py): depth first, a node's inputs
in the order of its ``next_functions``, each node once, where it is first met."""

import pytest

import probes_ch07 as probes
import verdict
from verdict import Check, same

pytestmark = pytest.mark.ch07


def reuse_order(output):
    add = output.grad_fn.next_functions[0][0]
    u_times_u, u_node = (node for node, _ in add.next_functions)
    accumulate = u_node.next_functions[0][0]
    return [output.grad_fn, add, u_times_u, u_node, accumulate]


def two_paths_order(output):
    add = output.grad_fn
    first, second = (node for node, _ in add.next_functions)
    tanh = first.next_functions[0][0]
    mv = tanh.next_functions[0][0]
    w_node, x_node = (node for node, _ in mv.next_functions)
    times_two = second.next_functions[0][0]
    return [add, first, tanh, mv, w_node, x_node, second, times_two]


def depth_first_order(graph, seed=0):
    output = probes.GRAPHS[graph]()
    order = {"reuse": reuse_order, "two_paths": two_paths_order}[graph](output)
    number = probes.breadth_first(output)
    return [number[node] for node in order]


CHECKS = [
    Check("task7_1", "walk_meets_every_node_once_depth_first", probes.walked,
          depth_first_order, same, [("reuse",), ("two_paths",)]),
    # the multiplications and one AccumulateGrad
    Check("task7_1", "walk_needs_no_recursion", probes.chain_length,
          lambda seed: 5_001 + seed % 1000, same),
    Check("task7_2", "graph_structure_numbers_the_nodes_in_the_walk_s_order",
          probes.structure_of_reuse, lambda seed: [
              ("SumBackward0", ((1, 0),), None),
              ("AddBackward0", ((2, 0), (3, 0)), None),
              ("MulBackward0", ((3, 0), (3, 0)), None),
              ("MulBackward0", ((4, 0), (4, 0)), None),
              ("AccumulateGrad", (), (2,)),
          ], same),
    Check("task7_2", "graph_structure_marks_inputs_that_need_no_gradient",
          probes.structure_with_a_constant, lambda seed: [
              ("SumBackward0", ((1, 0),), None),
              ("MulBackward0", ((2, 0), (None, 0)), None),
              ("AccumulateGrad", (), (2,)),
          ], same),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
