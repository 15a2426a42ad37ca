"""``a @ b`` of N-d operands is PyTorch's, node for node (issue 24).

PyTorch's ``_matmul_impl`` (aten/src/ATen/native/LinearAlgebra.cpp, at
https://github.com/pytorch/pytorch/blob/cf30153c4c131c8164ee7798e5022d810682e2cb/aten/src/ATen/native/LinearAlgebra.cpp)
folds the batch of the larger operand into the rows of one ``mm`` or ``mv``
when ``should_fold`` says so (the smaller operand requires grad, or the fold
needs no copy: it reads the strides), and otherwise expands both operands to
the broadcast batch and calls ``bmm``. The recorded graph (its nodes' names
and edges), the values, dtype and the gradients follow from that choice, so
they are compared with torch's over a sweep of shapes (1-D to 4-D on either
side, broadcast and size-1 dims, empty batches), layouts (contiguous,
transposed, batch dims out of order), and which operands require grad.

The default run takes a fixed sample of the sweep;
``TOYGRAD_MATMUL_FULL=1`` runs all of it.
"""

import itertools
import os
import random

import numpy as np
import pytest
import torch

import toygrad
from graphs import structure

pytestmark = pytest.mark.ch05

N, K, M = 2, 3, 4
BATCHES = {1: [()], 2: [()], 3: [(1,), (2,), (0,)],
           4: [(1, 2), (3, 1), (3, 2), (1, 1), (2, 0)]}


def operand_shapes(left):
    """Shapes of a left (rows N or 1, inner K) or right operand."""
    for ndim in (1, 2, 3, 4):
        for batch in BATCHES[ndim]:
            if ndim == 1:
                yield (K,)
            elif left:
                for rows in (N, 1):
                    yield batch + (rows, K)
            else:
                for cols in (M, 1):
                    yield batch + (K, cols)


def layouts(shape):
    """How the numbers lie in memory: in order, the last two dims swapped,
    or every dim reversed (batch dims out of order)."""
    out = ["contiguous"]
    if len(shape) >= 2:
        out.append("transposed")
    if len(shape) >= 3:
        out.append("reversed")
    return out


def make(lib, shape, layout, requires_grad, seed, dtype):
    numbers = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    order = list(range(len(shape)))
    if layout == "transposed":
        order[-2:] = order[:-3:-1]
    elif layout == "reversed":
        order = order[::-1]
    stored = numbers.transpose(order).copy(order="C")  # fresh strides
    inverse = [int(i) for i in np.argsort(order)]
    x = lib.tensor(stored)
    if len(shape) > 1:
        x = x.permute(*inverse)
    if requires_grad:
        x = x.detach().requires_grad_()  # a leaf laid out as permuted
    return x


def sweep():
    dtypes = [np.float32, np.float64]
    for sa, sb in itertools.product(list(operand_shapes(True)),
                                    list(operand_shapes(False))):
        for la, lb in itertools.product(layouts(sa), layouts(sb)):
            for ra, rb in itertools.product([False, True], repeat=2):
                yield sa, la, ra, sb, lb, rb, dtypes[(len(sa) + len(sb)) % 2]
    # mismatched inner dims and batches: the errors are compared
    for sa, sb in [((2, 3), (4, 5)), ((2, 2, 3), (3, 2, 3)), ((3,), (4,)),
                   ((2, 1, 3), (4, 5)), ((2, 3, 4), (5, 4, 2)),
                   ((5,), (2, 4, 3)), ((2, 2, 3), (3,))]:
        for ra, rb in [(False, False), (True, True), (False, True)]:
            yield sa, "contiguous", ra, sb, "contiguous", rb, np.float32


def outcome(lib, case):
    sa, la, ra, sb, lb, rb, dtype = case
    a = make(lib, sa, la, ra, 1, dtype)
    b = make(lib, sb, lb, rb, 2, dtype)
    try:
        out = a @ b
    except RuntimeError as error:
        return ("error", str(error)), None
    result = (tuple(out.shape), str(out.dtype).rsplit(".")[-1],
              structure(out))
    grads = None
    if ra or rb:
        upstream = np.random.default_rng(3).standard_normal(
            tuple(out.shape)).astype(dtype)
        out.backward(lib.tensor(upstream))
        grads = [None if x.grad is None else np.array(x.grad.tolist())
                 for x in (a, b)]
    return result + (np.array(out.tolist()),), grads


def differences(case):
    (theirs, their_grads), (ours, our_grads) = (outcome(torch, case),
                                                outcome(toygrad, case))
    if theirs[0] == "error" or ours[0] == "error":
        return [] if ours == theirs else [f"{case}: {ours} != {theirs}"]
    found = []
    if ours[:3] != theirs[:3]:
        found.append(f"{case}: {ours[:3]} != {theirs[:3]}")
    elif not np.allclose(ours[3], theirs[3], rtol=1e-5, atol=1e-6):
        found.append(f"{case}: values")
    elif their_grads is not None:
        for mine, yours in zip(our_grads, their_grads):
            if (mine is None) != (yours is None) or (
                    mine is not None and not np.allclose(mine, yours,
                                                         rtol=1e-5,
                                                         atol=1e-6)):
                found.append(f"{case}: gradients")
    return found


CASES = list(sweep())


def test_the_sweep_is_wide():
    assert len(CASES) > 10000


def test_matmul_agrees_with_pytorch_over_the_sweep():
    cases = CASES
    if not os.environ.get("TOYGRAD_MATMUL_FULL"):
        cases = random.Random(24).sample(CASES, 1500)
    found = [d for case in cases for d in differences(case)]
    assert not found, f"{len(found)} of {len(cases)}:\n" + "\n".join(
        found[:20])


@pytest.mark.parametrize("sa, ra, sb, rb", [
    ((2, 3, 4), False, (4, 5), True), ((4,), True, (2, 4, 5), False),
    ((3, 4), True, (2, 4, 5), False), ((1, 3, 4), True, (2, 4, 5), False)])
def test_the_folded_product_is_one_mm(sa, ra, sb, rb):
    """The smaller operand requires grad (a batch of one that requires grad
    is squeezed first): PyTorch folds into one mm or mv, not a bmm."""
    case = (sa, "contiguous", ra, sb, "contiguous", rb, np.float32)
    names = [name for name, _, _ in outcome(toygrad, case)[0][2]]
    assert ("MmBackward0" in names or "MvBackward0" in names)
    assert "BmmBackward0" not in names
    assert not differences(case)


def error_of(lib, sa, da, sb, db):
    a = lib.ones(*sa, dtype=getattr(lib, da))
    b = lib.ones(*sb, dtype=getattr(lib, db))
    try:
        a @ b
    except RuntimeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("sa, sb", [((2,), (4,)), ((3,), (3,)), ((2, 3), (4,)),
                                    ((3,), (4, 2)), ((2, 3), (4, 5)),
                                    ((2, 2, 3), (3, 2, 3)), ((5,), (2, 4, 3))])
def test_mixed_dtypes_are_checked_in_pytorch_s_order(sa, sb):
    """Of two operands of other dtypes (and maybe of sizes that do not
    multiply), torch names the error its kernel checks first: dot's
    dot_check tests the dtypes before the sizes."""
    for da, db in [("float32", "float64"), ("float64", "float32"),
                   ("float32", "float32")]:
        assert error_of(toygrad, sa, da, sb, db) == error_of(
            torch, sa, da, sb, db), (sa, da, sb, db)
