"""Writes through an expand of a 0-dim tensor are PyTorch's (issue 24).

Every element of ``x.expand(3)`` is ``x``'s one number. PyTorch's ``zero_``
writes through it (only ``zero_`` and ``fill_`` may write to an internally
overlapping tensor); a 0-dim base has no positions to index, and toygrad
crashed with NumPy's ValueError where PyTorch succeeds.
"""

import pytest
import torch

import toygrad


def zero_all(m):
    x = m.tensor(1.5)
    x.expand(3).zero_()
    return x


def zero_one_element(m):
    x = m.tensor(1.5)
    x.expand(3)[1].zero_()
    return x


def zero_nothing(m):
    x = m.tensor(1.5)
    x.expand(0).zero_()
    return x


def zero_size_one(m):
    x = m.tensor(1.5)
    x.expand(1, 1).zero_()
    return x


def mul_size_one(m):
    x = m.tensor(1.5)
    x.expand(1).mul_(2)
    return x


def set_element(m):
    x = m.tensor(1.5)
    x.expand(3)[2] = 4.0
    return x


def zero_recorded(m):
    leaf = m.tensor(1.5, requires_grad=True)
    x = leaf.clone()
    view = x.expand(1, 1)
    view.zero_()
    (x * 3).backward()
    return x, view, leaf.grad.clone()  # its numbers only


def zero_recorded_repeated(m):
    leaf = m.tensor(1.5, requires_grad=True)
    x = leaf.clone()
    x.expand(3).zero_()
    return x


def mul_repeated(m):
    x = m.tensor(1.5)
    x.expand(3).mul_(2)
    return x


PROGRAMS = [zero_all, zero_one_element, zero_nothing, zero_size_one,
            mul_size_one, set_element, zero_recorded, zero_recorded_repeated,
            mul_repeated]


def outcome(m, program):
    try:
        out = program(m)
    except Exception as error:  # noqa: BLE001 - the error is compared
        return type(error).__name__, str(error)
    out = out if isinstance(out, tuple) else (out,)
    return [(t.tolist(), t._version, t.dtype.__str__().rsplit(".")[-1],
             None if t.grad_fn is None else t.grad_fn.name())
            for t in out]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_writes_through_a_0_dim_expand_are_pytorchs(program):
    assert outcome(toygrad, program) == outcome(torch, program)
