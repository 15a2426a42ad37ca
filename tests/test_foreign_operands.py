"""Objects that are not tensors where an operation takes one (issue 24, found by the
random search: a module assigned to a layer's ``weight`` went on into tensor operations).

PyTorch's answer is an error, and which one is part of its behaviour: a binary operator
gives Python ``NotImplemented`` (so Python raises "unsupported operand type(s)"), an
operation's argument parser names the argument ("mm(): argument 'mat2' (position 1) must be
Tensor, not list"), and a function that calls a method of its input raises that
AttributeError. toygrad must raise the same, word for word. NumPy's scalars and arrays,
which PyTorch converts and toygrad does not, are refused by name; on the left of an
operator they must not take over the operation (NumPy would otherwise return an array).
"""

import warnings

import numpy as np
import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch15  # nn's layers and functions take part

FOREIGN = {
    "None": lambda M: None,
    "a list": lambda M: [1.0, 2.0],
    "a str": lambda M: "x",
    "an object": lambda M: object(),
    "a module": lambda M: M.nn.ReLU(),
}


def x_of(M):
    return M.ones(2, 3, dtype=M.float64, requires_grad=True)


CALLS = {  # name: function(M, x, foreign)
    "x + f": lambda M, x, f: x + f, "f + x": lambda M, x, f: f + x,
    "x - f": lambda M, x, f: x - f, "f - x": lambda M, x, f: f - x,
    "x * f": lambda M, x, f: x * f, "f * x": lambda M, x, f: f * x,
    "x / f": lambda M, x, f: x / f, "f / x": lambda M, x, f: f / x,
    "x ** f": lambda M, x, f: x ** f, "f ** x": lambda M, x, f: f ** x,
    "x @ f": lambda M, x, f: x @ f, "f @ x": lambda M, x, f: f @ x,
    "y += f": lambda M, x, f: _augmented(x * 1, f, "+"),
    "y -= f": lambda M, x, f: _augmented(x * 1, f, "-"),
    "y *= f": lambda M, x, f: _augmented(x * 1, f, "*"),
    "y /= f": lambda M, x, f: _augmented(x * 1, f, "/"),
    "y.add_(f)": lambda M, x, f: (x * 1).add_(f),
    "y.sub_(f)": lambda M, x, f: (x * 1).sub_(f),
    "y.mul_(f)": lambda M, x, f: (x * 1).mul_(f),
    "y.div_(f)": lambda M, x, f: (x * 1).div_(f),
    "y.copy_(f)": lambda M, x, f: (x * 1).copy_(f),
    "y[0] = f": lambda M, x, f: (x * 1).__setitem__(0, f),
    "x.mm(f)": lambda M, x, f: x.mm(f),
    "x.mv(f)": lambda M, x, f: x.mv(f),
    "x.reshape(1, 2, 3).bmm(f)": lambda M, x, f: x.reshape(1, 2, 3).bmm(f),
    "F.relu(f)": lambda M, x, f: M.nn.functional.relu(f),
    "F.log_softmax(f, 1)": lambda M, x, f: M.nn.functional.log_softmax(f, 1),
    "F.linear(f, w)": lambda M, x, f: M.nn.functional.linear(f, x),
    "F.linear(x, f)": lambda M, x, f: M.nn.functional.linear(x, f),
    "F.nll_loss(f, t)": lambda M, x, f: M.nn.functional.nll_loss(f, M.tensor([0, 1])),
    "F.nll_loss(x, f)": lambda M, x, f: M.nn.functional.nll_loss(x, f),
    "F.cross_entropy(f, t)": lambda M, x, f: M.nn.functional.cross_entropy(
        f, M.tensor([0, 1])),
    "F.cross_entropy(x, f)": lambda M, x, f: M.nn.functional.cross_entropy(x, f),
    "nn.ReLU()(f)": lambda M, x, f: M.nn.ReLU()(f),
    "nn.Flatten()(f)": lambda M, x, f: M.nn.Flatten()(f),
    "nn.MaxPool2d(2)(f)": lambda M, x, f: M.nn.MaxPool2d(2)(f),
    "make_dual(x, f)": lambda M, x, f: _dual(M, x.detach(), f),
    "make_dual(f, x)": lambda M, x, f: _dual(M, f, x.detach()),
    "gradgradcheck(g, (x,), f)": lambda M, x, f: M.autograd.gradgradcheck(
        lambda t: t * t, (x,), (f,)),
}


def _dual(M, primal, tangent):
    with M.autograd.forward_ad.dual_level():
        return M.autograd.forward_ad.make_dual(primal, tangent)


def test_gradcheck_with_no_input_that_requires_grad_is_pytorch_s_error():
    said = []
    for M in (toygrad, torch):
        with pytest.raises(ValueError) as error:
            M.autograd.gradcheck(lambda t: t * 2, (M.ones(2, dtype=M.float64),))
        said.append(str(error.value))
    assert said[0] == said[1]


def _augmented(y, f, op):
    if op == "+":
        y += f
    elif op == "-":
        y -= f
    elif op == "*":
        y *= f
    else:
        y /= f
    return y


def outcome(M, call, foreign):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = CALLS[call](M, x_of(M), FOREIGN[foreign](M))
        except Exception as error:  # noqa: BLE001 - compared
            return type(error).__name__, str(error)
    return "ok", type(result).__name__


@pytest.mark.parametrize("foreign", sorted(FOREIGN))
@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_foreign_object_gets_pytorch_s_error(call, foreign):
    assert outcome(toygrad, call, foreign) == outcome(torch, call, foreign)


@pytest.mark.parametrize("left", ["np.float64(2)", "np.float32(2)", "np.int64(2)",
                                  "np.ones(3)"])
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
def test_numpy_on_the_left_does_not_take_over(left, op):
    """NumPy's scalars and arrays defer to a tensor on their right, as to PyTorch's
    (__array_priority__): the result is a tensor equal to PyTorch's, or toygrad refuses the
    NumPy operand by name; never a NumPy array."""
    number = eval(left)  # noqa: S307 - one of the literals above
    x = toygrad.tensor([1.0, 2.0, 3.0], dtype=toygrad.float64)
    t = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    outcomes = []
    for operand in (t, x):
        try:
            outcomes.append(("ok", eval(f"number {op} operand")))  # noqa: S307
        except Exception as error:  # noqa: BLE001 - compared
            outcomes.append((type(error).__name__, str(error)))
    (kind, expected), (our_kind, got) = outcomes
    if our_kind == "NotImplementedError":  # refused by name
        assert "toygrad does not support operands of type numpy" in got
        return
    if kind != "ok":  # PyTorch turns it down: the same error
        assert (our_kind, got) == (kind, expected)
        return
    assert isinstance(got, toygrad.Tensor), type(got)
    assert str(got.dtype) == str(expected.dtype).replace("torch.", "")
    np.testing.assert_array_equal(got.data, expected.numpy())
