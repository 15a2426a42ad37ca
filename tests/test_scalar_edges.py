"""Chapters 3 and 4 (the gradients need chapter 4's engine): at the edges of their
domains (zeros, infinities, nan, overflow), Value's operations compute what 0-dim
float64 torch tensors compute: the value and each input's gradient, with nan, the same
infinities and the same signs of zero, and never a Python exception. Torch is the
oracle: no expected number is written down here."""

import math
import operator

import pytest
import torch

from toygrad.scalar import Value

pytestmark = pytest.mark.ch04

inf, nan = math.inf, math.nan

# The grid of the brief, and a few more where an operation has an edge of its own.
EDGES = (0.0, -0.0, 1.0, -1.0, 1e-300, 1e300, 700.0, 710.0, -750.0, inf, -inf, nan)
UNARY_EDGES = EDGES + (1000.0, -1000.0, -710.0, -709.0, 20.0, -20.0, 0.5, 5e-324, -1e-310)
# ``**``: negative bases, fractional and odd or even integer exponents, and the
# exponents PyTorch computes in a way of its own (.5, -.5, -1, 2, 3, -2).
BASES = EDGES + (-8.0, -2.0, 2.0, 10.0, -10.0, 0.25)
EXPONENTS = EDGES + (0.5, -0.5, 1.5, -1.5, 2.0, 3.0, -2.0, -3.0, 1 / 3, -1 / 3,
                     400.0, 401.0, -401.0, 0.1)
# Gradients arriving at the output: backward(gradient=...) with each of them.
UPSTREAM = (1.0, -2.0, 0.0, -0.0, inf, nan, 1e300, 1e-300)

RTOL = 1e-13  # rounding: PyTorch's exp, log, tanh, sqrt are not always libm's
ATOL = 4 * 5e-324  # a few steps of the subnormal range


def tensor(x):
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


def value(x):
    return Value(x, requires_grad=True)


def run(make, f, operands, kinds, upstream):
    """The output and each input's gradient of ``f`` on ``operands``.

    ``kinds[i]`` says whether operand i is a leaf of the engine (made by ``make``)
    or a plain number.
    """
    args = [make(x) if is_leaf else x for x, is_leaf in zip(operands, kinds)]
    out = f(*args)
    if isinstance(out, torch.Tensor):
        out.backward(torch.tensor(upstream, dtype=torch.float64))
        return out.item(), [a.grad.item() for a, k in zip(args, kinds) if k]
    out.backward(upstream)
    return out.data, [a.grad for a, k in zip(args, kinds) if k]


def differs(ours, theirs):
    """Why the number ``ours`` is not torch's ``theirs`` (empty if it is)."""
    if type(ours) is not float:
        return f"a {type(ours).__name__}, not a float"
    if math.isnan(theirs) or math.isnan(ours):
        return "" if math.isnan(theirs) and math.isnan(ours) else "nan"
    if math.isinf(theirs) or theirs == 0:
        same_sign = math.copysign(1, ours) == math.copysign(1, theirs)
        if ours == theirs and same_sign:
            return ""
        if theirs == 0 and abs(ours) <= ATOL:
            return "" if same_sign else "sign of zero"
        return "value"
    return "" if abs(ours - theirs) <= RTOL * abs(theirs) + ATOL else "value"


def mismatches(f, operands, kinds, upstream):
    """What differs between Value and torch on one input, as text lines."""
    theirs = run(tensor, f, operands, kinds, upstream)
    ours = run(value, f, operands, kinds, upstream)
    pairs = [("value", ours[0], theirs[0])]
    pairs += [(f"grad {i}", o, t) for i, (o, t) in enumerate(zip(ours[1], theirs[1]))]
    return [f"{operands} (upstream {upstream}) {what}: ours {o!r}, torch {t!r} ({why})"
            for what, o, t in pairs if (why := differs(o, t))]


def check(f, grid, kinds, upstream=UPSTREAM):
    problems = []
    for operands in grid:
        for g in upstream:
            problems += mismatches(f, operands, kinds, g)
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:30])


UNARY = {
    "-a": operator.neg,
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "tanh": lambda a: a.tanh(),
    "relu": lambda a: a.relu(),
    "sigmoid": lambda a: a.sigmoid(),
    "reciprocal": lambda a: a.reciprocal(),
}


@pytest.mark.parametrize("name", UNARY)
def test_unary_operations_match_pytorch_at_the_edges(name):
    check(UNARY[name], [(x,) for x in UNARY_EDGES], (True,))


# Each binary operation in three forms: Value op Value, Value op number (the
# number is no leaf) and number op Value (the reflected form).
BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul,
          "/": operator.truediv, "**": operator.pow}
FORMS = {"value op value": (True, True), "value op number": (True, False),
         "number op value": (False, True)}


def grid(name):
    if name == "**":
        return [(a, b) for a in BASES for b in EXPONENTS]
    return [(a, b) for a in EDGES for b in EDGES]


# Value's a / b has a node of its own, DivBackward0, as PyTorch's; number / b is
# b.reciprocal() * number, as PyTorch computes it (chapter 3).


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_operations_match_pytorch_at_the_edges(name, form):
    check(BINARY[name], grid(name), FORMS[form])


@pytest.mark.parametrize("form", FORMS)
def test_division_by_a_number_whose_square_is_not_normal_is_pytorchs(form):
    """Divisors where b * b overflows or underflows: PyTorch's answers."""
    divisors = (1e-300, -1e-300, 1e300, -1e300, 5e-324, 2.0 ** 511, 2.0 ** 520,
                2.0 ** -520, 1e-155)
    check(operator.truediv, [(a, b) for a in (1.0, 0.0, 1e300) for b in divisors],
          FORMS[form])


def test_division_is_pytorchs_to_the_last_bit():
    """a / b, and both gradients, equal torch's exactly for random a, b, g: a
    node of its own, computing a / b, not a * b ** -1 (which differs from a / b
    in the last bit for about a quarter of random pairs, chapter 3)."""
    generator = torch.Generator().manual_seed(0)
    a, b, g = (torch.empty(2000, dtype=torch.float64).uniform_(-10, 10, generator=generator)
               .tolist() for _ in range(3))
    differ = 0
    for case in zip(a, b, g):
        ours = run(value, operator.truediv, case[:2], (True, True), case[2])
        theirs = run(tensor, operator.truediv, case[:2], (True, True), case[2])
        assert ours == theirs, (case, ours, theirs)
        differ += case[0] * case[1] ** -1 != case[0] / case[1]
    assert differ > 100  # the pairs where a * b ** -1 would not do


def test_a_number_divided_by_a_value_is_pytorchs_to_the_last_bit():
    """number / b is reciprocal(b) * number in both: value and gradient equal."""
    generator = torch.Generator().manual_seed(1)
    numbers, b, g = (torch.empty(1000, dtype=torch.float64)
                     .uniform_(-10, 10, generator=generator).tolist() for _ in range(3))
    for case in zip(numbers, b, g):
        ours = run(value, operator.truediv, case[:2], (False, True), case[2])
        theirs = run(tensor, operator.truediv, case[:2], (False, True), case[2])
        assert ours == theirs, (case, ours, theirs)
