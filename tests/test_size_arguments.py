"""Sizes given to expand, reshape, view, permute, sum_to_size, ones, zeros
and randn are parsed as PyTorch's argument parser parses an int list
(torch/csrc/utils/python_arg_parser.cpp, issue 24): no sizes, or sizes that
are not ints, are PyTorch's TypeError with its message, where toygrad took
``x.expand()`` of a 0-dim tensor, ``x.expand(2.0)`` or ``ones(2, 3.0)``."""

import warnings

import numpy as np
import pytest
import torch

import toygrad

CASES = [
    "x.expand()", "x.reshape()", "x.view()", "x.permute()",
    "x.sum_to_size()", "M.ones()", "M.zeros()", "M.randn()", "s.expand()",
    "s.reshape()", "s.view()", "s.permute()",
    "x.expand(2, 2.0)", "x.reshape(2, 2.0)", "x.view(2, 2.0)",
    "x.reshape(2.0)", "x.view(4.0)", "x.expand(4.0)", "x.reshape((2, 2.0))",
    "x.expand((4.0,))", "x.reshape(True)", "x.reshape([2, True])",
    "x.reshape((2.0, 2))", "x.expand((2, 2.0))", "x.reshape((4.0,))",
    "x.reshape(2.0, 2)", "x.expand(2.0, 2)", "x.view(2.0, 2)",
    "x.view((2.0, 2))", "x.view((2, 2.0))", "x.reshape([True])",
    "x.expand(True, 4)", "x.reshape(np.float64(4))", "x.sum_to_size(2, 2.0)",
    "x.sum_to_size(2.0)", "x.permute(0, 1.0)", "y.permute((0, 1.0))",
    "y.permute(True, 0)", "y.permute(0.0)", "x.expand(2, True)",
    "M.ones(2, 2.0)", "M.ones(2.0)", "M.zeros(True)", "M.ones((2, 2.0))",
    "M.ones(2.0, 2)", "M.randn(2.0)", "M.zeros(2, None)",
    # and what is allowed
    "M.ones(())", "x.reshape(np.int64(4))", "x.expand(np.int64(4))",
    "x.reshape(-1)", "x.view(-1)", "y.permute(1, 0)", "y.permute([1, 0])",
    "x.expand(2, 4)", "x.expand([2, 4])", "x.view(2, -1)", "M.ones(2, 3)",
    "M.ones([2])", "s.expand(())", "s.reshape(())", "x.sum_to_size(4)",
    "x.view(np.int64(4))",
]


def outcome(M, case):
    x, y, s = M.ones(4), M.ones(4, 4), M.tensor(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", tuple(eval(case).shape)
        except Exception as error:  # noqa: BLE001 - the errors are compared
            return type(error).__name__, str(error)


@pytest.mark.parametrize("case", CASES)
def test_sizes_are_parsed_as_pytorch_parses_them(case):
    assert outcome(toygrad, case) == outcome(torch, case)
