"""Chapter 3: Value records the graph a 0-dim torch tensor records, and computes the same values."""

import math

import pytest
import torch

from toygrad.scalar import Value
from graphs import structure

pytestmark = pytest.mark.ch03


def pair(x, requires_grad=True):
    return Value(x, requires_grad=requires_grad), torch.tensor(x, dtype=torch.float64, requires_grad=requires_grad)


# Expressions built from primitive operations record exactly PyTorch's nodes.
PRIMITIVE = {
    "a + b": lambda a, b: a + b,
    "a * b": lambda a, b: a * b,
    "a / b": lambda a, b: a / b,
    "a / 2": lambda a, b: a / 2,
    "1 / a": lambda a, b: 1 / a,
    "reciprocal": lambda a, b: a.reciprocal(),
    "a + 2": lambda a, b: a + 2,
    "2 + a": lambda a, b: 2 + a,
    "3 * a": lambda a, b: 3 * a,
    "a ** 2": lambda a, b: a ** 2,
    "a ** b": lambda a, b: a ** b,
    "-a": lambda a, b: -a,
    "exp": lambda a, b: a.exp(),
    "log": lambda a, b: a.log(),
    "tanh": lambda a, b: a.tanh(),
    "relu": lambda a, b: a.relu(),
    "sigmoid": lambda a, b: a.sigmoid(),
    "a * a (reuse)": lambda a, b: a * a,
    "reused non-leaf": lambda a, b: (lambda c: c * c + c.exp())(a * b),
    "mixed": lambda a, b: ((a * b).tanh() + b.exp() * 2) ** 3,
}


@pytest.mark.parametrize("name", PRIMITIVE)
def test_primitive_graphs_match_pytorch(name):
    (a, ta), (b, tb) = pair(0.7), pair(1.3)
    ours, theirs = PRIMITIVE[name](a, b), PRIMITIVE[name](ta, tb)
    assert structure(ours) == structure(theirs)
    assert math.isclose(ours.data, theirs.item(), rel_tol=1e-12)


# Derived operations are built from primitives, so their graphs have more nodes than PyTorch's.
DERIVED = {
    "a - b": (lambda a, b: a - b, ["AddBackward0", "NegBackward0"], "SubBackward0"),
    "1 - a": (lambda a, b: 1 - a, ["AddBackward0", "NegBackward0"], "RsubBackward1"),
    "2 ** a": (lambda a, b: 2 ** a, ["PowBackward1"], "PowBackward2"),
}


@pytest.mark.parametrize("name", DERIVED)
def test_derived_operations_are_built_from_primitives(name):
    build, our_names, torch_root = DERIVED[name]
    (a, ta), (b, tb) = pair(0.7), pair(1.3)
    ours, theirs = build(a, b), build(ta, tb)
    names = [node for node, _, _ in structure(ours) if node != "AccumulateGrad"]
    assert names == our_names
    assert theirs.grad_fn.name() == torch_root
    assert math.isclose(ours.data, theirs.item(), rel_tol=1e-12)


def test_only_what_requires_grad_is_recorded():
    a, b = Value(2.0), Value(3.0, requires_grad=True)
    assert (a * a).grad_fn is None and not (a * a).requires_grad
    c = a * b
    assert c.requires_grad and c.grad_fn.name() == "MulBackward0"
    assert c.grad_fn.next_functions[0] == (None, 0)
    assert a.is_leaf and b.is_leaf and not c.is_leaf


def test_a_leaf_has_one_accumulate_grad_node_while_its_graph_lives():
    x = Value(1.5, requires_grad=True)
    y = x * x + x
    mul = y.grad_fn.next_functions[0][0]
    first, second = mul.next_functions[0][0], mul.next_functions[1][0]
    assert first is second is y.grad_fn.next_functions[1][0]
    assert first.name() == "torch::autograd::AccumulateGrad"  # PyTorch's
    assert first.variable is x


def test_nodes_apply_the_chain_rule_one_step_at_a_time():
    a, b = Value(2.0, requires_grad=True), Value(-3.0, requires_grad=True)
    out = (a * b).tanh()
    (d_mul,) = out.grad_fn.apply(1.0)
    assert math.isclose(d_mul, 1 - math.tanh(-6.0) ** 2)
    d_a, d_b = out.grad_fn.next_functions[0][0].apply(d_mul)
    assert (d_a, d_b) == (d_mul * -3.0, d_mul * 2.0)


def test_repr_reads_like_pytorch():
    a = Value(2.0, requires_grad=True)
    assert repr(a) == "Value(2.0, requires_grad=True)"
    assert repr(a * 3) == "Value(6.0, grad_fn=<MulBackward0>)"
    assert repr(Value(1)) == "Value(1.0)"
