"""The backward formulas of reductions, matrix products and losses are
PyTorch's (issue 24, classes 4, 5 and 7).

For each operation, run beside PyTorch with the same numbers:

- upstream gradients that hold 0, -0.0, inf, -inf, NaN and extreme
  magnitudes, and inputs at the special points (ties, NaN), give the same
  gradient: the same NaNs, infinities and signs of zeros, and the same
  numbers (to the last bits where NumPy's and PyTorch's sums are rounded in
  another order);
- under ``create_graph=True`` (with an upstream gradient that requires grad
  or not) the gradient has PyTorch's graph, and its own gradient (second
  order) is PyTorch's;
- a saved-tensor pack hook sees the tensors PyTorch's nodes save, in
  PyTorch's order, for each pattern of inputs that require grad.
"""

import itertools

import numpy as np
import pytest
import torch

import toygrad
from graphs import structure

pytestmark = pytest.mark.ch12

LIBS = {"torch": torch, "toygrad": toygrad}


def functional(lib):
    return (torch.nn.functional if lib == "torch"
            else toygrad.nn.functional)


def _nll(lib, x):
    return functional(lib).nll_loss(x, LIBS[lib].tensor(np.array([0, 2])))


def _cross_entropy(lib, x):
    return functional(lib).cross_entropy(
        x, LIBS[lib].tensor(np.array([1, 1])))


def _rng():
    return np.random.default_rng(24)


def _inputs(*shapes):
    """The same numbers on every call."""
    return lambda dtype: [_rng().standard_normal(s).astype(dtype) * (i + 1)
                          for i, s in enumerate(shapes)]


def _fixed(*arrays):
    return lambda dtype: [np.array(a, dtype) for a in arrays]


TIES = [[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]]
NANS = [[1.0, np.nan, 3.0], [np.nan, 0.0, 3.0]]

# id: (f(lib, *inputs), inputs(dtype), whether it is a BLAS product)
OPS = {
    "x.sum()": (lambda lib, x: x.sum(), _inputs((2, 3)), False),
    "x.sum(1)": (lambda lib, x: x.sum(1), _inputs((2, 3)), False),
    "x.sum((0, 2))": (lambda lib, x: x.sum((0, 2)), _inputs((2, 3, 2)),
                      False),
    "x.sum(())": (lambda lib, x: x.sum(()), _inputs((2, 3)), False),
    "x.sum(0, keepdim=True)": (lambda lib, x: x.sum(0, keepdim=True),
                               _inputs((2, 3)), False),
    "x.mean()": (lambda lib, x: x.mean(), _inputs((2, 3)), False),
    "x.mean(1)": (lambda lib, x: x.mean(1), _inputs((2, 3)), False),
    "x.mean(())": (lambda lib, x: x.mean(()), _inputs((2, 3)), False),
    "x.mean(-1, keepdim=True)": (lambda lib, x: x.mean(-1, keepdim=True),
                                 _inputs((2, 3)), False),
    "x.max()": (lambda lib, x: x.max(), _inputs((2, 3)), False),
    "x.max() with ties": (lambda lib, x: x.max(), _fixed(TIES), False),
    "x.max() with NaNs": (lambda lib, x: x.max(), _fixed(NANS), False),
    "x.max() of 0-dim": (lambda lib, x: x.max(), _inputs(()), False),
    "x.max(1)": (lambda lib, x: x.max(1)[0], _fixed(TIES), False),
    "x.max(0) with NaNs": (lambda lib, x: x.max(0).values, _fixed(NANS),
                           False),
    "x.max(1, keepdim=True)": (lambda lib, x: x.max(1, keepdim=True)[0],
                               _inputs((2, 3)), False),
    "x.max(0) of 0-dim": (lambda lib, x: x.max(0)[0], _inputs(()), False),
    "a.mm(b)": (lambda lib, a, b: a.mm(b), _inputs((2, 3), (3, 4)), True),
    "a.mv(v)": (lambda lib, a, v: a.mv(v), _inputs((2, 3), (3,)), True),
    "v @ w": (lambda lib, v, w: v @ w, _inputs((3,), (3,)), True),
    "a.bmm(b)": (lambda lib, a, b: a.bmm(b), _inputs((2, 2, 3), (2, 3, 4)),
                 True),
    "a @ b, 3-D @ 2-D": (lambda lib, a, b: a @ b,
                         _inputs((2, 2, 3), (3, 4)), True),
    "F.linear(x, w, b)": (lambda lib, x, w, b: functional(lib).linear(
        x, w, b), _inputs((2, 3), (4, 3), (4,)), True),
    "F.linear(x, w)": (lambda lib, x, w: functional(lib).linear(x, w),
                       _inputs((2, 3), (4, 3)), True),
    "F.linear(x 3-D, w, b)": (lambda lib, x, w, b: functional(lib).linear(
        x, w, b), _inputs((2, 2, 3), (4, 3), (4,)), True),
    "F.log_softmax(x, 1)": (lambda lib, x: functional(lib).log_softmax(x, 1),
                            _inputs((2, 3)), False),
    "F.log_softmax(x, 0)": (lambda lib, x: functional(lib).log_softmax(x, 0),
                            _inputs((2, 3)), False),
    "F.nll_loss(x, target)": (_nll, _inputs((2, 3)), False),
    "F.cross_entropy(x, target)": (_cross_entropy, _inputs((2, 3)), False),
}

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300,
                    1e-300, 5e-324, 3.4028234663852886e38, 1.0, -2.5])


def _numbers(t):
    return None if t is None else np.array(
        t.detach().numpy() if isinstance(t, torch.Tensor) else t.data)


def _leaves(lib, arrays, needs=None):
    needs = needs or [True] * len(arrays)
    return [LIBS[lib].tensor(a.copy(), requires_grad=n)
            for a, n in zip(arrays, needs)]


def _upstreams(shape, dtype, blas=False):
    """Upstream gradients made of the special values, and of each alone.

    Not float32's max for a float32 BLAS product: whether its sums
    overflow to inf (then NaN) depends on the order and the fused
    multiply-adds of the BLAS kernel (MKL's in PyTorch, OpenBLAS's in
    NumPy), not on the formula.
    """
    rng = np.random.default_rng(7)
    special = SPECIAL
    if blas and dtype == np.float32:
        special = SPECIAL[SPECIAL != 3.4028234663852886e38]
    out = [rng.choice(special, size=shape) for _ in range(6)]
    out += [np.full(shape, value) for value in SPECIAL[:5]]
    with np.errstate(over="ignore"):
        return [u.astype(dtype) for u in out]


def assert_same_special_values(ours, theirs, dtype, zero_signs=True):
    """The same NaNs, infinities, zeros (with their signs) and numbers."""
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    a, b = ours.astype(np.float64).ravel(), theirs.astype(np.float64).ravel()
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b), "NaNs")
    np.testing.assert_array_equal(np.isposinf(a), np.isposinf(b), "inf")
    np.testing.assert_array_equal(np.isneginf(a), np.isneginf(b), "-inf")
    np.testing.assert_array_equal(a == 0, b == 0, "zeros")
    if zero_signs:
        np.testing.assert_array_equal(np.signbit(a[a == 0]),
                                      np.signbit(b[b == 0]), "signs of 0")
    finite = np.isfinite(b)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(a[finite], b[finite], rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", OPS)
def test_special_upstream_gradients(name, dtype):
    f, make, blas = OPS[name]
    arrays = make(dtype)
    with torch.no_grad():
        shape = tuple(f("torch", *[torch.tensor(a) for a in arrays]).shape)
    for upstream in _upstreams(shape, dtype, blas):
        grads = {}
        for lib in LIBS:
            xs = _leaves(lib, arrays)
            grads[lib] = LIBS[lib].autograd.grad(
                f(lib, *xs), xs, LIBS[lib].tensor(upstream.copy()))
        for ours, theirs in zip(grads["toygrad"], grads["torch"]):
            # The sign of a zero a BLAS product sums is its kernel's to say.
            assert_same_special_values(_numbers(ours), _numbers(theirs),
                                       dtype, zero_signs=not blas)


def _gradient_graphs(lib, name, upstream, upstream_needs_grad):
    """The graph of each gradient, and the gradients of a weighted sum of
    them (second order), for inputs and the upstream gradient."""
    f, make, _ = OPS[name]
    xs = _leaves(lib, make(np.float64))
    u = LIBS[lib].tensor(upstream.copy(), requires_grad=upstream_needs_grad)
    grads = LIBS[lib].autograd.grad(f(lib, *xs), xs, u, create_graph=True)
    graphs = [structure(g) for g in grads]
    total = sum((g * LIBS[lib].tensor(
        np.linspace(-1.0, 2.0, g.numel()).reshape(tuple(g.shape)))).sum()
        for g in grads if g.requires_grad)
    if not upstream_needs_grad and not isinstance(
            total, (torch.Tensor, toygrad.Tensor)):
        return graphs, None
    wrt = xs + ([u] if upstream_needs_grad else [])
    second = LIBS[lib].autograd.grad(total, wrt, allow_unused=True)
    return graphs, [_numbers(g) for g in second]


@pytest.mark.parametrize("upstream_needs_grad", [False, True])
@pytest.mark.parametrize("name", OPS)
def test_graph_of_the_gradient(name, upstream_needs_grad):
    f, make, _ = OPS[name]
    with torch.no_grad():
        shape = tuple(f("torch", *[torch.tensor(a)
                                   for a in make(np.float64)]).shape)
    upstream = np.random.default_rng(3).standard_normal(shape)
    theirs = _gradient_graphs("torch", name, upstream, upstream_needs_grad)
    ours = _gradient_graphs("toygrad", name, upstream, upstream_needs_grad)
    assert ours[0] == theirs[0]
    if theirs[1] is None:
        assert ours[1] is None
        return
    for a, b in zip(ours[1], theirs[1]):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def _saved(lib, name, needs):
    """What a pack hook sees while ``name`` runs: (which input or output,
    shape, dtype) for each tensor, in order."""
    f, make, _ = OPS[name]
    arrays = make(np.float64)
    xs = _leaves(lib, arrays, needs)
    hooks = (torch.autograd.graph.saved_tensors_hooks if lib == "torch"
             else toygrad.autograd.graph.saved_tensors_hooks)
    seen = []
    with hooks(lambda t: seen.append(t) or t, lambda t: t):
        out = f(lib, *xs)
    out = _numbers(out)
    described = []
    for t in seen:
        numbers = _numbers(t)
        what = "other"
        for i, a in enumerate(arrays):
            if numbers.shape == a.shape and np.array_equal(numbers, a):
                what = f"input {i}"
            elif numbers.shape == a.T.shape and np.array_equal(numbers, a.T):
                what = f"input {i}, transposed"
        if what == "other" and numbers.shape == out.shape and np.allclose(
                numbers, out):
            what = "output"
        if what == "other":  # say what it holds
            what = f"other {np.round(numbers.ravel(), 6).tolist()}"
        described.append((what, numbers.shape,
                          str(t.dtype).replace("torch.", "")))
    return described


def _patterns():
    for name, (f, make, _) in OPS.items():
        count = len(make(np.float64))
        for needs in itertools.product([False, True], repeat=count):
            if any(needs):
                yield pytest.param(name, needs, id=f"{name}: {needs}")


@pytest.mark.parametrize("name, needs", _patterns())
def test_pack_hooks_see_what_pytorch_saves(name, needs):
    assert _saved("toygrad", name, needs) == _saved("torch", name, needs)


def _second_gradient_graphs(lib, name):
    """The graphs and numbers of the gradients of the gradients (all
    recorded), with upstream gradients that require grad."""
    f, make, _ = OPS[name]
    xs = _leaves(lib, make(np.float64))
    y = f(lib, *xs)
    u = LIBS[lib].tensor(np.random.default_rng(1).standard_normal(
        tuple(y.shape)), requires_grad=True)
    grads = LIBS[lib].autograd.grad(y, xs, u, create_graph=True)
    weights = [LIBS[lib].tensor(np.random.default_rng(2).standard_normal(
        tuple(g.shape))) for g in grads]
    second = LIBS[lib].autograd.grad(grads, xs + [u], weights,
                                     create_graph=True, allow_unused=True)
    return ([None if g is None else structure(g) for g in second],
            [_numbers(g) for g in second])


@pytest.mark.parametrize("name", OPS)
def test_graph_of_the_second_gradient(name):
    ours = _second_gradient_graphs("toygrad", name)
    theirs = _second_gradient_graphs("torch", name)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def _saved_in_backward(lib, name):
    """What a pack hook sees during a create_graph backward pass."""
    f, make, _ = OPS[name]
    xs = _leaves(lib, make(np.float64))
    y = f(lib, *xs)
    u = LIBS[lib].tensor(np.random.default_rng(1).standard_normal(
        tuple(y.shape)), requires_grad=True)
    hooks = (torch.autograd.graph.saved_tensors_hooks if lib == "torch"
             else toygrad.autograd.graph.saved_tensors_hooks)
    seen = []
    with hooks(lambda t: seen.append(t) or t, lambda t: t):
        LIBS[lib].autograd.grad(y, xs, u, create_graph=True)
    return [(tuple(t.shape), str(t.dtype).replace("torch.", ""),
             np.round(np.nan_to_num(_numbers(t).astype(float)), 9).tolist())
            for t in seen]


@pytest.mark.parametrize("name", OPS)
def test_pack_hooks_in_a_create_graph_backward(name):
    assert _saved_in_backward("toygrad", name) == _saved_in_backward(
        "torch", name)


@pytest.mark.parametrize("picked", [[0.0], [-0.0], [0.0, -0.0], [-0.0, -0.0]])
def test_a_loss_of_zero_has_pytorch_s_sign(picked):
    # PyTorch sums -log_probs from a zero: the loss is +0.0, never -0.0.
    x = np.array([[value, 1.0] for value in picked])
    target = np.zeros(len(picked), np.int64)
    losses = [_numbers(functional(lib).nll_loss(LIBS[lib].tensor(x),
                                                LIBS[lib].tensor(target)))
              for lib in ("toygrad", "torch")]
    assert np.signbit(losses[0]) == np.signbit(losses[1])
    assert losses[0] == losses[1] == 0


EMPTY_REDUCTIONS = {
    "x.mean()": lambda x: x.mean(),
    "x.mean(0)": lambda x: x.mean(0),
    "x.mean(1)": lambda x: x.mean(1),
    "x.mean((0, 1))": lambda x: x.mean((0, 1)),
    "x.mean(0, keepdim=True)": lambda x: x.mean(0, keepdim=True),
    "x.sum()": lambda x: x.sum(),
    "x.sum(0)": lambda x: x.sum(0),
    "x.sum(1, keepdim=True)": lambda x: x.sum(1, keepdim=True),
    "x.max(1)": lambda x: x.max(1)[0],
    "x.max()": lambda x: x.max(),
    "x.max(0)": lambda x: x.max(0)[0],
}


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", EMPTY_REDUCTIONS)
def test_reductions_of_nothing_are_pytorchs(name, dtype, shape):
    """PyTorch's mean of nothing is nan (its CPU mean is the sum divided by
    the count), with no warning; NumPy's mean warns "Mean of empty slice".
    The same value, shape, dtype, error and warnings, and gradient."""
    import warnings
    f = EMPTY_REDUCTIONS[name]
    results = {}
    for lib in LIBS:
        x = LIBS[lib].tensor(np.ones(shape, dtype), requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = f(x)
            except (RuntimeError, IndexError) as error:
                results[lib] = type(error).__name__, str(error)
                continue
            out.sum().backward()
        results[lib] = (str(_numbers(out).tolist()), _numbers(out).shape,
                        str(_numbers(out).dtype), _numbers(x.grad).shape,
                        [str(w.message) for w in caught])
    assert results["toygrad"] == results["torch"]
