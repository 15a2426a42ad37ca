"""Chapter 5: toygrad tensors compute PyTorch's values, gradients and graphs."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import toygrad
import toygrad.nn.functional as F
from toygrad import nn, optim
from toygrad.autograd.graph import ERR_BACKWARD_TWICE
from graphs import structure

pytestmark = pytest.mark.ch05

TOLERANCE = dict(rtol=1e-10, atol=1e-12)
EXAMPLES = settings(max_examples=40, deadline=None)


def both(*arrays):
    """The same float64 arrays as toygrad and as torch leaves that require grad."""
    ours = [toygrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    return ours, theirs


def check(function, *arrays, torch_function=None, upstream_seed=0):
    """Run ``function`` in both engines; compare values, then every input's
    gradient under a random upstream gradient."""
    ours, theirs = both(*arrays)
    out_ours = function(*ours)
    out_theirs = (torch_function or function)(*theirs)
    np.testing.assert_allclose(out_ours.data, out_theirs.detach().numpy(), **TOLERANCE)
    upstream = np.random.default_rng(upstream_seed).standard_normal(out_ours.shape)
    out_ours.backward(toygrad.tensor(upstream))
    out_theirs.backward(torch.tensor(upstream))
    for a, b in zip(ours, theirs):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            assert a.grad.shape == tuple(b.grad.shape)
            np.testing.assert_allclose(a.grad.data, b.grad.numpy(), **TOLERANCE)
    return out_ours, out_theirs


def values(shape, low=-3.0, high=3.0):
    return hnp.arrays(np.float64, shape, elements=st.floats(low, high, allow_nan=False))


shapes = hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)
broadcastable = hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4)


@st.composite
def broadcast_pair(draw, low=-3.0, high=3.0, b_range=None):
    """Two arrays whose shapes broadcast together; ``b_range`` bounds the second."""
    a_shape, b_shape = draw(broadcastable).input_shapes
    b_low, b_high = b_range or (low, high)
    return draw(values(a_shape, low, high)), draw(values(b_shape, b_low, b_high))


# Binary operations, with broadcasting.

@EXAMPLES
@given(broadcast_pair())
def test_add_sub_mul(pair):
    check(lambda a, b: a + b * a - b, *pair)


@EXAMPLES
@given(broadcast_pair(b_range=(0.5, 3.0)))
def test_div(pair):
    check(lambda a, b: a / b, *pair)


@EXAMPLES
@given(broadcast_pair(low=0.5, high=2.0))
def test_pow_tensor_tensor(pair):
    check(lambda a, b: a ** b, *pair)


@EXAMPLES
@given(values(shapes, 0.5, 2.0), st.sampled_from([2, 3, 0.5, -1.5, 0]))
def test_pow_scalar_and_reflected_forms(a, exponent):
    check(lambda a: a ** exponent, a)
    check(lambda a: 2.5 ** a + (1 - a) * 3 + 2 / a - (-a), a)


# Elementwise functions and reductions.

@EXAMPLES
@given(values(shapes))
def test_elementwise(a):
    check(lambda a: a.exp() + a.tanh() * a.sigmoid() + a.relu(), a)
    check(lambda a: (a * a + 1).log(), a)


@EXAMPLES
@given(values(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)), st.data())
def test_sum_mean_max(a, data):
    dim = data.draw(st.integers(0, a.ndim - 1))
    keepdim = data.draw(st.booleans())
    check(lambda a: a.sum(), a)
    check(lambda a: a.mean(), a)
    check(lambda a: a.sum(dim, keepdim=keepdim), a)
    check(lambda a: a.sum(tuple(range(a.ndim))), a)
    check(lambda a: a.mean(dim, keepdim=keepdim), a)
    # A largest value held as both 0.0 and -0.0 is refused by name (which one PyTorch
    # returns depends on its CPU kernel's lanes; test_stateful_findings.py covers the
    # refusal): adding 0.0 turns every -0.0 into 0.0.
    a = a + 0.0
    check(lambda a: a.max(), a)
    check(lambda a: a.max(dim, keepdim=keepdim)[0], a)
    ours, theirs = toygrad.tensor(a).max(dim), torch.tensor(a).max(dim)
    np.testing.assert_array_equal(ours.indices.data, theirs.indices.numpy())


# Shapes and indexing.

@EXAMPLES
@given(values(hnp.array_shapes(min_dims=2, max_dims=3, min_side=2, max_side=4)), st.data())
def test_shapes_and_indexing(a, data):
    check(lambda a: a.reshape(-1), a)
    check(lambda a: a.reshape(a.shape[0], -1).T.reshape(-1), a)
    check(lambda a: a.transpose(0, 1) * 2, a)
    i = data.draw(st.integers(-a.shape[0], a.shape[0] - 1))
    start = data.draw(st.integers(0, a.shape[1] - 1))
    step = data.draw(st.integers(1, 2))
    check(lambda a: a[i], a)
    check(lambda a: a[:, start::step], a)
    check(lambda a: a[i, start:] * a[i, start:], a)


# Matrix products: 1-D, 2-D and batched.

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)), ((5, 2, 3), (5, 3, 4)),
                 ((2, 1, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4))]


@pytest.mark.parametrize("a_shape, b_shape", MATMUL_SHAPES)
def test_matmul(a_shape, b_shape):
    rng = np.random.default_rng(1)
    check(lambda a, b: a @ b, rng.standard_normal(a_shape), rng.standard_normal(b_shape))


# Neural-network functions.

@EXAMPLES
@given(values(hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=5)), st.data())
def test_log_softmax_and_cross_entropy(logits, data):
    target = data.draw(hnp.arrays(np.int64, logits.shape[0],
                                  elements=st.integers(0, logits.shape[1] - 1)))
    check(lambda x: F.log_softmax(x, 1), logits,
          torch_function=lambda x: torch.nn.functional.log_softmax(x, 1))
    check(lambda x: F.cross_entropy(x, toygrad.tensor(target)), logits,
          torch_function=lambda x: torch.nn.functional.cross_entropy(x, torch.tensor(target)))


def test_linear():
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), rng.standard_normal(5)
    check(F.linear, x, w, b, torch_function=torch.nn.functional.linear)


# The graph: PyTorch's node names, next_functions and AccumulateGrad.

def build(lib, a, b, v):
    functional = F if lib is toygrad else torch.nn.functional
    target = lib.tensor([0, 2])
    return {
        "broadcast add": a + b,
        "reuse": (a * a + a).exp(),
        "scalar operands": (a + 2) * 3 - 1,
        "reflected": 1 - a + 2 / a + 2 ** a,
        "pow": a ** 2 + (a * a + 1) ** (b * b),
        "division": a / (b * b + 1),
        "sum and mean": a.sum() + a.sum(1).mean() + a.sum(0, keepdim=True).sum(),
        "max": a.max() + a.max(1)[0].sum(),
        "shapes": a.reshape(6).sum() + a.T.sum() + a.transpose(0, 1).sum() + a.t().sum(),
        "indexing": a[0].sum() + a[1:].sum() + a[:, 1].sum() + a[0, 1:].sum(),
        "mm": a.t() @ a,
        "mv": a @ v,
        "dot": v @ v,
        "vector @ matrix": a[0] @ a.t(),
        "batched": (a.reshape(1, 2, 3).expand(4, 2, 3) @ a.t()),
        "elementwise": a.tanh() + a.sigmoid() + a.relu() + (a * a).log() - (-a),
        "log_softmax": functional.log_softmax(a, 1),
        "cross_entropy": functional.cross_entropy(a, target),
        "linear": functional.linear(a, a, v[:2]),
        "mlp": functional.cross_entropy(
            functional.linear(functional.relu(functional.linear(a, a, v[:2])),
                              a[:, :2], v[:2]),
            lib.tensor([1, 0])),
    }


def test_graph_structure_matches_pytorch():
    rng = np.random.default_rng(3)
    arrays = rng.standard_normal((2, 3)), rng.standard_normal((1, 3)), rng.standard_normal(3)
    ours, theirs = both(*arrays)
    ours_graphs, their_graphs = build(toygrad, *ours), build(torch, *theirs)
    assert len(ours_graphs) >= 20
    for name in ours_graphs:
        assert structure(ours_graphs[name]) == structure(their_graphs[name]), name


# PyTorch's rules and errors.

def test_backward_errors_match_pytorch():
    for lib in (toygrad, torch):
        x = lib.tensor(np.ones((2, 3)), requires_grad=True)
        messages = []
        for attempt in (lambda: (x * 2).backward(),
                        lambda: (x * 2).backward(lib.tensor(np.ones(3))),
                        lambda: lib.tensor(np.ones(2)).sum().backward(),
                        lambda: lib.tensor([1, 2], requires_grad=True)):
            with pytest.raises(RuntimeError) as error:
                attempt()
            messages.append(str(error.value))
        if lib is toygrad:
            ours = messages
    assert ours == messages


def test_saved_tensors_are_released_after_backward():
    x = toygrad.tensor(np.ones(3), requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.data, 2 * 2 * np.e * np.ones(3))
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()
    assert ERR_BACKWARD_TWICE.startswith("Trying to backward")


def test_inplace_version_errors_match_pytorch():
    messages = {}
    for lib in (toygrad, torch):
        x = lib.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
        found = []
        y = x.exp()
        y.mul_(2)                       # exp saved its output, now changed
        w = x * 1
        z = w * w                       # mul saved w, now changed
        w.add_(1)
        leaf = lib.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
        product = leaf * leaf
        with lib.no_grad():
            leaf.add_(1)                # a leaf changed under no_grad
        for out in (y, z, product):
            with pytest.raises(RuntimeError) as error:
                out.sum().backward()
            found.append(str(error.value))
        with pytest.raises(RuntimeError) as error:
            x.add_(1)                   # a leaf that requires grad, recorded
        found.append(str(error.value))
        messages[lib] = found
    assert messages[toygrad] == messages[torch]


def test_inplace_operations_record_as_pytorch():
    for lib in (toygrad, torch):
        x = lib.tensor(np.ones(3), requires_grad=True)
        y = x * 2
        versions = [y._version]
        y.add_(1)
        versions.append(y._version)
        y.mul_(3)
        versions.append(y._version)
        names = [y.grad_fn.name()]
        y.zero_()
        names.append(y.grad_fn.name())
        (y + x).sum().backward()
        if lib is toygrad:
            ours = versions, names, x.grad.data.tolist()
    assert ours == (versions, names, x.grad.tolist())


def test_grad_mode():
    x = toygrad.tensor(np.ones(2), requires_grad=True)
    with toygrad.no_grad():
        assert not toygrad.is_grad_enabled()
        assert (x * 2).grad_fn is None
        with toygrad.enable_grad():
            assert (x * 2).grad_fn is not None
    assert toygrad.is_grad_enabled()

    @toygrad.no_grad()
    def doubled(t):
        return t * 2

    assert doubled(x).grad_fn is None
    with toygrad.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert toygrad.is_grad_enabled()


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_second_derivatives_with_create_graph():
    a = np.array([0.3, -1.2, 2.0])
    results = []
    for lib in (toygrad, torch):
        x = lib.tensor(a, requires_grad=True)
        functional = F if lib is toygrad else torch.nn.functional
        y = (x ** 3).sum() + functional.log_softmax(x.reshape(1, 3) * x.reshape(1, 3), 1).sum() \
            + (x.tanh() * x.sigmoid()).sum()
        y.backward(create_graph=True)
        first = x.grad.data.copy() if lib is toygrad else x.grad.detach().numpy().copy()
        grad = x.grad
        x.grad = None
        (grad * grad).sum().backward()
        second = x.grad.data if lib is toygrad else x.grad.numpy()
        results.append((first, second))
    np.testing.assert_allclose(results[0][0], results[1][0], **TOLERANCE)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9)


def test_mlp_trains_like_pytorch():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((32, 5))
    y = rng.integers(0, 3, 32)
    ours = nn.Sequential(nn.Linear(5, 8, generator=rng, dtype=np.float64), nn.ReLU(),
                         nn.Linear(8, 3, generator=rng, dtype=np.float64))
    theirs = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)).double()
    with torch.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            q.copy_(torch.tensor(p.data))
    assert [name for name, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    opt_ours, opt_theirs = optim.SGD(ours.parameters(), lr=0.1), torch.optim.SGD(theirs.parameters(), lr=0.1)
    for _ in range(5):
        for model, opt, lib, functional in ((ours, opt_ours, toygrad, F),
                                            (theirs, opt_theirs, torch, torch.nn.functional)):
            loss = functional.cross_entropy(model(lib.tensor(X)), lib.tensor(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if lib is toygrad:
                our_loss = loss.item()
        assert np.isclose(our_loss, loss.item(), rtol=1e-10)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.data, q.detach().numpy(), **TOLERANCE)


def test_linear_initialisation_bounds():
    layer = nn.Linear(100, 7)
    bound = 1 / np.sqrt(100)
    assert layer.weight.shape == (7, 100) and layer.bias.shape == (7,)
    assert np.all(np.abs(layer.weight.data) <= bound) and np.all(np.abs(layer.bias.data) <= bound)
    assert layer.weight.requires_grad and layer.weight.is_leaf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_backward_is_pytorchs_threshold_backward_bit_for_bit(dtype):
    # Blocked gradients are +0.0 even when negative or infinite; a nan
    # output lets the gradient through; a nan gradient that passes stays.
    out = np.array([0.0, 1.0, np.nan, 0.0, 2.0, 0.0, 3.0], dtype)
    grad = np.array([np.inf, -3.0, 5.0, -2.0, np.nan, -np.inf, -0.0], dtype)
    x = toygrad.tensor(out, requires_grad=True)
    y = x.relu()
    y.backward(toygrad.tensor(grad))
    expected = torch.ops.aten.threshold_backward(
        torch.from_numpy(grad), torch.from_numpy(out), 0).numpy()
    assert x.grad.dtype == expected.dtype
    assert x.grad.data.tobytes() == expected.tobytes()


def test_gradcheck_leaves_a_tensor_s_grad_as_it_was_as_torch_s_does():
    # Chapter 2's gradcheck on toygrad's tensors (torch's: tests/test_gradcheck.py).
    from toygrad.autograd import gradcheck

    x = toygrad.tensor(np.array([0.5, -1.0]), requires_grad=True)
    x.grad = toygrad.tensor(np.array([7.0, 8.0]))
    t = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    t.grad = torch.tensor([7.0, 8.0], dtype=torch.float64)
    assert gradcheck(lambda a: (a * a).sum(), (x,))
    assert torch.autograd.gradcheck(lambda a: (a * a).sum(), (t,))
    assert np.array_equal(x.grad.data, t.grad.numpy())
