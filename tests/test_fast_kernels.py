"""The faster kernels toygrad picks for a training step, checked beside
PyTorch at the values where a kernel's order could show: a bias's gradient
summed over a batch with a row of ones (``ops._sum_down``), and
log_softmax's row maxima over short rows and its row sums over any batch
of rows (``ops._row_max``, ``ops._row_sum``), with zeros of both signs, infinities, NaN and numbers
near the float32 limit, in the inputs and in the upstream gradients."""

import numpy as np
import pytest
import torch

import toygrad
import toygrad.nn.functional as F
from toygrad import ops

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1.0, -2.5],
                   np.float32)
# Numbers near float32's limit: in the inputs of log_softmax only, where
# each is compared with its row's maximum. (In a sum, whether +3e38 and
# -3e38 overflow first depends on the order of the additions, which is
# each kernel's own: NumPy's and PyTorch's differ there, fast path or not.)
EXTREME = np.array([3e38, -3e38, 1e38], np.float32)


def same(ours, theirs):
    """Equal numbers, NaN where the other has NaN, zeros of the same sign."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    both_nan = np.isnan(ours) & np.isnan(theirs)
    equal = (ours == theirs) | both_nan
    zeros = (ours == 0) & (theirs == 0)
    equal &= ~zeros | (np.signbit(ours) == np.signbit(theirs))
    return bool(equal.all())


def close(ours, theirs):
    """As ``same``, with the rounding of another order of summation (of up
    to 256 numbers of order 1: an absolute error up to 1e-4)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    finite = np.isfinite(ours) & np.isfinite(theirs)
    exact = np.where(finite, 0, ours), np.where(finite, 0, theirs)
    return same(*exact) and np.allclose(ours[finite], theirs[finite],
                                        rtol=1e-5, atol=1e-4)


def special_rows(rng, rows, columns, extreme=False):
    """Rows of ordinary numbers, each with a few special values put in."""
    x = rng.standard_normal((rows, columns)).astype(np.float32)
    values = np.concatenate([SPECIAL, EXTREME]) if extreme else SPECIAL
    for row in range(rows):
        picks = rng.integers(0, columns, size=rng.integers(0, 4))
        x[row, picks] = rng.choice(values, size=len(picks))
    return x


def test_the_fast_paths_are_taken():
    """The shapes of a training step use the kernels tested here."""
    x = np.zeros((256, 10), np.float32)
    assert ops._short_rows(x, 1) and not ops._short_rows(x, 0)
    assert not ops._short_rows(np.zeros((4, 100), np.float32), 1)
    assert ops._rows(np.zeros((4, 100), np.float32), 1)  # sums: any width
    assert not ops._short_rows(x.astype(np.int64), 1)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("shape", [(256, 10), (7, 3), (1, 1), (5, 64),
                                   (3, 65)])
def test_log_softmax_of_short_rows(seed, shape):
    rng = np.random.default_rng(seed)
    x = special_rows(rng, *shape, extreme=True)
    upstream = special_rows(rng, *shape)
    results = {}
    for lib in (toygrad, torch):
        t = lib.tensor(x.copy(), requires_grad=True)
        out = (F if lib is toygrad else torch.nn.functional).log_softmax(
            t, dim=1)
        out.backward(lib.tensor(upstream.copy()))
        results[lib] = out.detach().numpy(), t.grad.numpy()
    assert close(results[toygrad][0], results[torch][0])
    assert close(results[toygrad][1], results[torch][1])


@pytest.mark.parametrize("row", [[0.0, -0.0, -200.0], [-0.0, 0.0, -200.0],
                                 [-0.0, -300.0, -200.0], [0.0, -0.0],
                                 [-0.0, -0.0], [np.nan, np.inf, 0.0],
                                 [-np.inf, -np.inf], [np.inf, 1.0]])
def test_log_softmax_ties_and_limits(row):
    """A maximum that is a zero of either sign, or not finite: the same
    results, sign of zero included."""
    x = np.array([row] * 3, np.float32)
    ours = F.log_softmax(toygrad.tensor(x), dim=1).numpy()
    theirs = torch.nn.functional.log_softmax(torch.tensor(x), dim=1).numpy()
    assert same(ours, theirs)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("batch, features", [(256, 128), (256, 10), (1, 5),
                                             (3, 1)])
def test_bias_gradient_of_a_batch(seed, batch, features):
    """linear's bias gradient: the upstream gradient summed over the batch,
    with special values in it (a column of -0.0 sums to +0.0 in both)."""
    rng = np.random.default_rng(seed)
    upstream = special_rows(rng, batch, features)
    if seed % 3 == 0:
        upstream[:, 0] = -0.0
    x = rng.standard_normal((batch, 4)).astype(np.float32)
    weight = rng.standard_normal((features, 4)).astype(np.float32)
    bias = rng.standard_normal(features).astype(np.float32)
    grads = {}
    for lib in (toygrad, torch):
        b = lib.tensor(bias.copy(), requires_grad=True)
        functional = F if lib is toygrad else torch.nn.functional
        out = functional.linear(lib.tensor(x), lib.tensor(weight), b)
        out.backward(lib.tensor(upstream.copy()))
        grads[lib] = b.grad.numpy()
    assert close(grads[toygrad], grads[torch])


def test_a_sum_down_of_a_broadcast_add():
    """The same path serves every broadcast input of a batch of rows."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((50, 6)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    g = special_rows(rng, 50, 6)
    grads = {}
    for lib in (toygrad, torch):
        tb = lib.tensor(b.copy(), requires_grad=True)
        (lib.tensor(a) + tb).backward(lib.tensor(g.copy()))
        grads[lib] = tb.grad.numpy()
    assert close(grads[toygrad], grads[torch])
