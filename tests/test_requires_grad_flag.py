"""``requires_grad`` must be a bool (issue 24), as PyTorch's argument parser
(``PyBool_Check``, torch/csrc/utils/python_arg_parser.cpp) and the
attribute's setter (THPVariable_set_requires_grad, python_variable.cpp) have
it: 1, 1.0, a NumPy bool or a tensor is torch's TypeError (RuntimeError for
the setter) with its message, where toygrad took it; None is a factory's
default (False) but an error for ``tensor`` and ``requires_grad_``."""

import numpy as np
import pytest
import torch

import toygrad

SETTER = "x.requires_grad = FLAG"
CASES = [
    "M.tensor([1.0], requires_grad=FLAG)", "M.zeros(2, requires_grad=FLAG)",
    "M.ones(2, requires_grad=FLAG)", "M.randn(2, requires_grad=FLAG)",
    "M.randn(2, 3, requires_grad=FLAG)", "M.randn((2,), requires_grad=FLAG)",
    "x.requires_grad_(FLAG)", "x.requires_grad_(requires_grad=FLAG)",
    "y.requires_grad_(FLAG)", "M.nn.Parameter(x, requires_grad=FLAG)",
    "M.nn.Parameter(x, FLAG)", "M.tensor([1], requires_grad=FLAG)", SETTER,
]
FLAGS = ["1", "0", "1.0", "None", "np.True_", "M.tensor(True)", "'yes'",
         "True", "False"]


def outcome(M, case, flag):
    x = M.ones(2)
    y = M.ones(2, requires_grad=True) * 2  # a non-leaf
    FLAG = eval(flag)  # noqa: F841 - read by the case
    try:
        if case == SETTER:
            exec(case)
            result = x
        else:
            result = eval(case)
    except Exception as error:  # noqa: BLE001 - the errors are compared
        return type(error).__name__, str(error)
    return "ok", result.requires_grad, result.is_leaf


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("case", CASES)
def test_requires_grad_is_a_bool_as_in_pytorch(case, flag):
    assert outcome(toygrad, case, flag) == outcome(torch, case, flag)
