"""The elementwise backward formulas, bit for bit PyTorch's (issue 24).

The table's harness (test_differential_special.py) compares gradients at
special points to a relative 1e-10; here the formulas that are products,
quotients and sums of the inputs are compared bit for bit: every input of
SPECIAL_POINTS meets every special upstream gradient, and the sign of every
zero, every infinity and every nan must be PyTorch's, every other number
identical. Then what a relative comparison misses: the sign of relu's zero
and the last bit of tanh's and sigmoid's backward kernels.
"""

import numpy as np
import pytest
import torch

import optable
from graphs import structure
import toygrad
from test_differential_special import SPECIAL

pytestmark = pytest.mark.ch12  # autograd.grad; optable needs the whole package

LIBS = (optable.TORCH, optable.TOYGRAD)


def numbers(t):
    return (t.detach().numpy() if isinstance(t, torch.Tensor)
            else np.asarray(t.data))


def assert_same_bits(ours, theirs):
    ours, theirs = numbers(ours), numbers(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan), (ours, theirs)
    kind = {4: np.int32, 8: np.int64}[ours.dtype.itemsize]
    differ = ours.view(kind) != theirs.view(kind)
    assert not (differ & ~nan).any(), (ours[differ], theirs[differ])


def special_grid(dtype, inputs):
    """``inputs`` arrays of special points (every combination of them),
    repeated so that each meets every special upstream number; and that
    upstream gradient."""
    points = np.array(optable.SPECIAL_POINTS[dtype], dtype)
    grids = np.meshgrid(*([points] * inputs), indexing="ij")
    columns = [g.reshape(-1, 1) for g in grids]
    upstream = np.array(SPECIAL[dtype], dtype)
    shape = (columns[0].shape[0], upstream.size)
    return ([np.ascontiguousarray(np.broadcast_to(c, shape)) for c in columns],
            np.ascontiguousarray(np.broadcast_to(upstream, shape)))


UNARY = {
    "-x": lambda lib, x: -x,
    "x.reciprocal()": lambda lib, x: x.reciprocal(),
    "x.relu()": lambda lib, x: x.relu(),
    "x * 2.5": lambda lib, x: x * 2.5,
    "x / -3.0": lambda lib, x: x / -3.0,
    "2.5 / x": lambda lib, x: 2.5 / x,
    "1 - x": lambda lib, x: 1 - x,
    "x ** 0": lambda lib, x: x ** 0,
    "x ** 1": lambda lib, x: x ** 1,
    "x ** 2": lambda lib, x: x ** 2,
    "x ** 3": lambda lib, x: x ** 3,
    "x ** -1": lambda lib, x: x ** -1,
    "x ** -2": lambda lib, x: x ** -2,
    # (Not x ** 0.5: PyTorch's sqrt is not NumPy's to the last bit; the
    # table's harness compares its special values.)
    "0.0 ** x": lambda lib, x: 0.0 ** x,
    "1.0 ** x": lambda lib, x: 1.0 ** x,
    "x.clone().zero_()": lambda lib, x: x.clone().zero_(),
    "x.clone().copy_(x * 2)": lambda lib, x: x.clone().copy_(x * 2),
    "x.clone().add_(x, alpha=2)": lambda lib, x: x.clone().add_(x, alpha=2),
    "x.clone().sub_(x, alpha=2)": lambda lib, x: x.clone().sub_(x, alpha=2),
    "x.clone().add_(x, alpha=0.1)": lambda lib, x: x.clone().add_(
        x, alpha=0.1),
}

BINARY = {
    "a + b": lambda lib, a, b: a + b,
    "a - b": lambda lib, a, b: a - b,
    "a * b": lambda lib, a, b: a * b,
    "a / b": lambda lib, a, b: a / b,
    "a.clone().mul_(b)": lambda lib, a, b: a.clone().mul_(b),
    "a.clone().div_(b)": lambda lib, a, b: a.clone().div_(b),
    "a.clone().add_(b, alpha=0.3)": lambda lib, a, b: a.clone().add_(
        b, alpha=0.3),
    "a.clone().sub_(b, alpha=-3)": lambda lib, a, b: a.clone().sub_(
        b, alpha=-3),
}


def gradients(lib, fn, arrays, upstream, create_graph=False):
    inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
    with optable.quiet():
        out = fn(lib, *inputs)
        grads = lib.autograd.grad(out, inputs, lib.tensor(upstream),
                                  allow_unused=True,
                                  create_graph=create_graph)
    return out, grads


@pytest.mark.parametrize("dtype", optable.FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY) + sorted(BINARY))
def test_gradients_at_special_points_are_torchs_bit_for_bit(name, dtype):
    fn = UNARY.get(name) or BINARY[name]
    arrays, upstream = special_grid(dtype, 1 if name in UNARY else 2)
    theirs = gradients(optable.TORCH, fn, arrays, upstream)
    ours = gradients(optable.TOYGRAD, fn, arrays, upstream)
    assert_same_bits(ours[0], theirs[0])
    for a, b in zip(ours[1], theirs[1]):
        assert (a is None) == (b is None)
        if b is not None:
            assert_same_bits(a, b)


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(BINARY))
def test_recorded_gradients_at_special_points_are_torchs(name):
    """The same under create_graph, where the formulas are recorded."""
    fn = UNARY.get(name) or BINARY[name]
    arrays, upstream = special_grid("float64", 1 if name in UNARY else 2)
    theirs = gradients(optable.TORCH, fn, arrays, upstream, True)[1]
    ours = gradients(optable.TOYGRAD, fn, arrays, upstream, True)[1]
    for a, b in zip(ours, theirs):
        if b is not None:
            assert_same_bits(a, b)
            assert a.requires_grad == b.requires_grad


@pytest.mark.parametrize("dtype", optable.FLOATS)
@pytest.mark.parametrize("method", ["add_", "sub_"])
def test_add_with_alpha_rounds_once_as_torchs_kernel(method, dtype):
    """x.add_(y, alpha=a) is fma(a, y, x) in PyTorch: the last bit of one
    number in ten differs from x + a * y's."""
    rng = np.random.default_rng(24)
    x, y = (rng.standard_normal(20000).astype(dtype) for _ in range(2))
    ours, theirs = (getattr(lib.tensor(x), method)(lib.tensor(y), alpha=0.1)
                    for lib in (optable.TOYGRAD, optable.TORCH))
    assert_same_bits(ours, theirs)


@pytest.mark.parametrize("relu", [
    lambda lib, x: x.relu(), lambda lib, x: lib.F.relu(x),
    lambda lib, x: lib.nn.ReLU()(x)])
@pytest.mark.parametrize("dtype", optable.FLOATS)
def test_relu_keeps_the_sign_of_zero_and_nan(relu, dtype):
    points = np.array([-0.0, 0.0, -1.0, np.nan, -np.inf, 3.0], dtype)
    ours, theirs = (relu(lib, lib.tensor(points)) for lib in (
        optable.TOYGRAD, optable.TORCH))
    assert_same_bits(ours, theirs)
    assert np.signbit(numbers(ours)[0])  # relu(-0.0) is -0.0


@pytest.mark.parametrize("dtype", optable.FLOATS)
@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_tanh_and_sigmoid_backward_kernels_are_torchs_bit_for_bit(op, dtype):
    """tanh_backward rounds 1 - out ** 2 once (a fused multiply-add);
    sigmoid_backward computes (grad * (1 - out)) * out."""
    rng = np.random.default_rng(24)
    out = rng.uniform(-1, 1, 20000).astype(dtype)
    if op == "sigmoid":
        out = np.abs(out)
    grad = (rng.standard_normal(20000) * 3).astype(dtype)
    kernel = getattr(torch.ops.aten, f"{op}_backward")
    theirs = kernel(torch.from_numpy(grad), torch.from_numpy(out))
    node = {"tanh": toygrad.ops.TanhBackward,
            "sigmoid": toygrad.ops.SigmoidBackward}[op]
    ours = node.apply(toygrad.tensor(grad), toygrad.tensor(out))
    assert_same_bits(ours, theirs)


THIRD_ORDER = {
    "x.tanh()": lambda x: x.tanh(), "x.sigmoid()": lambda x: x.sigmoid(),
    "x.exp()": lambda x: x.exp(), "x.log()": lambda x: x.log(),
    "x.reciprocal()": lambda x: x.reciprocal(), "x ** 3": lambda x: x ** 3,
    "x.relu()": lambda x: x.relu(), "1.5 / x": lambda x: 1.5 / x,
    "2.0 ** x": lambda x: 2.0 ** x, "x * x": lambda x: x * x,
}


def _gradient_of_gradient(lib, fn):
    x = lib.tensor(np.array([0.3, -0.7, 1.2]), requires_grad=True)
    upstream = lib.tensor(np.array([1.0, 2.0, -1.0]), requires_grad=True)
    (g,) = lib.autograd.grad(fn(x), x, upstream, create_graph=True)
    return lib.autograd.grad(g, (x, upstream), lib.tensor(
        np.array([0.5, 1.5, 2.0])), create_graph=True)


@pytest.mark.parametrize("name", sorted(THIRD_ORDER))
def test_graphs_of_second_order_gradients_are_torchs(name):
    """The backward of the backward, recorded: the nodes of PyTorch's
    double-backward formulas (MulBackward1 and AddBackward1 for their
    numbers), and the same numbers."""
    ours = _gradient_of_gradient(optable.TOYGRAD, THIRD_ORDER[name])
    theirs = _gradient_of_gradient(optable.TORCH, THIRD_ORDER[name])
    for a, b in zip(ours, theirs):
        assert structure(a) == structure(b)
        np.testing.assert_allclose(numbers(a), numbers(b), rtol=1e-12)


def _in_place_under_pack_hook(lib, method):
    x = lib.tensor(np.array([2.0, -1.0, 0.5]), requires_grad=True)
    w = lib.tensor(np.array([3.0, 1.5, -2.0]), requires_grad=True)
    seen = []

    def pack(t):
        seen.append(None if t.grad_fn is None else t.grad_fn.name())
        return t
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = x.clone()
        getattr(y, method)(w)
    grads = lib.autograd.grad(y, (x, w), lib.tensor(np.ones(3)),
                              create_graph=True)
    return seen, structure(y), [structure(g) for g in grads]


@pytest.mark.parametrize("method", ["mul_", "div_"])
def test_in_place_saves_a_recorded_clone_of_self_under_a_pack_hook(method):
    """PyTorch's original_self is ``self.clone()``: the pack hook sees it
    with its CloneBackward0, and a recorded gradient goes through it; the
    in-place node's own edge still leads to self's history."""
    assert (_in_place_under_pack_hook(optable.TOYGRAD, method)
            == _in_place_under_pack_hook(optable.TORCH, method))
