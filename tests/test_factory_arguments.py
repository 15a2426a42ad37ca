"""The ``dtype`` and the other options of tensor, zeros, ones and randn are
read as PyTorch's argument parser reads them (issue 24): a string is not a
dtype (NumPy would read ``dtype="float"`` as float64, torch raises), no
dtype is PyTorch's default float32 (NumPy's is float64, and
``zeros(2, dtype=None)`` was float64), an argument that matches none of
randn's overloads is its TypeError listing them, with the call's argument
types, and ``tensor(a_tensor)`` warns as PyTorch does.

toygrad's dtypes are NumPy's (``toygrad.float32`` is ``np.float32``), so
``M.float32`` below is each library's own float32."""

import warnings

import numpy as np
import pytest
import torch

import toygrad

DTYPES = ["'float'", "'float32'", "None", "float", "int", "bool",
          "M.float32", "M.float64", "M.int64", "M.ones(1)", "[1]", "3"]
FACTORIES = ["M.tensor([1.0])", "M.tensor([1, 2])", "M.tensor(2.5)",
             "M.zeros(2)", "M.ones(2, 3)", "M.randn(2)", "M.zeros(-1)",
             "M.ones(-1)", "M.zeros(2.0)", "M.randn(2.0)", "M.randn(-1)",
             "M.randn(2, 3.0)"]

CASES = [f"{factory[:-1]}, dtype={dtype})"
         for factory in FACTORIES for dtype in DTYPES] + [
    # randn's options, alone and together, in either order
    "M.randn(2, generator=1)", "M.randn(2, generator='seed')",
    "M.randn(2, requires_grad=1)", "M.randn(2.0, requires_grad=True)",
    "M.randn(2, requires_grad=1, dtype='x')",
    "M.randn(2, dtype='x', requires_grad=1)",
    "M.randn(2, dtype=M.float32, generator=1)",
    "M.randn(2, generator=1, dtype=M.float32)",
    "M.randn(2, requires_grad=1, dtype='x', generator=2)",
    "M.randn(2, dtype='x', generator=2, requires_grad=1)",
    "M.randn((2, 3), dtype='x')", "M.randn([2], dtype=float)",
    "M.randn(2, dtype=None, requires_grad=None, generator=None)",
    "M.randn(2, requires_grad=True, dtype=int)",
    "M.zeros(2, dtype=M.int64, requires_grad=True)",
    "M.ones(2, dtype='float', requires_grad=1)",
    "M.tensor([1.0], dtype=float, requires_grad=True)",
]


def outcome(M, case):
    """What ``case`` gives in library ``M``: its shape and dtype, or its
    error; and the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = eval(case)
            got = ("ok", tuple(result.shape),
                   str(result.dtype).replace("torch.", ""),
                   result.requires_grad)
        except Exception as error:  # noqa: BLE001 - the errors are compared
            got = (type(error).__name__, str(error))
    return got, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("case", CASES)
def test_factory_arguments_are_read_as_pytorch_reads_them(case):
    assert outcome(toygrad, case) == outcome(torch, case)


def test_no_dtype_is_float32_not_numpys_float64():
    for factory in (toygrad.zeros, toygrad.ones, toygrad.randn):
        assert factory(2, dtype=None).dtype == np.float32
        assert factory(2).dtype == np.float32


def test_randn_takes_a_numpy_generator():
    first = toygrad.randn(3, generator=np.random.default_rng(7))
    again = toygrad.randn(3, generator=np.random.default_rng(7))
    assert first.tolist() == again.tolist()


@pytest.mark.parametrize("source", [
    "M.ones(2)", "M.ones(2, requires_grad=True)", "M.tensor(1.0)",
    "M.ones(2, requires_grad=True) * 2"])
def test_copy_construct_warns_as_pytorch_does(source):
    """``tensor(a_tensor)``: the copy, cut from the graph, and PyTorch's
    UserWarning, pointing at the caller's line."""
    def run(M):
        made = eval(source)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            copy = M.tensor(made)
        return (copy.tolist(), copy.requires_grad, copy.is_leaf,
                [(w.category.__name__, str(w.message), w.filename)
                 for w in caught])
    assert run(toygrad) == run(torch)
    assert run(toygrad)[3][0][2] == __file__


def test_tensor_of_a_list_of_tensors_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert toygrad.tensor([toygrad.tensor(1.0), 2.0]).tolist() == [1, 2]


ORDER = ["M.ones(2.0, requires_grad=1)", "M.zeros(2.0, dtype='x')",
         "M.zeros(-1, requires_grad=1)", "M.ones(-1, dtype='x')",
         "M.tensor([1.0], requires_grad=1, dtype='x')",
         "M.zeros(2, requires_grad=1, dtype='x')",
         "M.ones(2, dtype='x', requires_grad=1)"]


@pytest.mark.parametrize("case", ORDER)
def test_arguments_are_parsed_in_pytorchs_order(case):
    """PyTorch's parser reads a signature's arguments in order (sizes,
    dtype, requires_grad) and checks the sizes' values after."""
    assert outcome(toygrad, case) == outcome(torch, case)
