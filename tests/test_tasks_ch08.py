"""Chapter 8's tasks: the gradients of ScipyConv2d's cross-correlation, against
PyTorch's conv2d (a cross-correlation too)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from toygrad.examples.scipy_conv import conv2d_backward
from toygrad.nn.conv import conv2d_batched_backward

pytestmark = pytest.mark.ch08


def pytorch_s(x, w, b, grad):
    """The gradients of conv2d for x, w and b, by PyTorch's autograd."""
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    F.conv2d(tx, tw, tb).backward(torch.tensor(grad))
    return tx.grad.numpy(), tw.grad.numpy(), tb.grad.numpy()


@pytest.mark.task8_1
@pytest.mark.parametrize("x_shape, w_shape", [((5, 5), (3, 3)), ((6, 7), (3, 2)),
                                              ((4, 9), (1, 4))])
def test_conv2d_backward_is_pytorch_s(x_shape, w_shape):
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(1)
    out_shape = (x_shape[0] - w_shape[0] + 1, x_shape[1] - w_shape[1] + 1)
    grad = rng.standard_normal(out_shape)
    theirs = pytorch_s(x[None, None], w[None, None], b, grad[None, None])
    ours = conv2d_backward(grad, x, w)
    for mine, their in zip(ours, theirs, strict=True):
        assert np.allclose(np.reshape(mine, -1), their.reshape(-1), rtol=0, atol=1e-12)


@pytest.mark.task8_2
def test_batched_conv2d_backward_is_pytorch_s():
    rng = np.random.default_rng(2)
    x, w, b = (rng.standard_normal(s) for s in ((2, 3, 6, 5), (4, 3, 3, 2), (4,)))
    grad = rng.standard_normal((2, 4, 4, 4))
    for mine, their in zip(conv2d_batched_backward(grad, x, w), pytorch_s(x, w, b, grad),
                           strict=True):
        assert mine.shape == their.shape
        assert np.allclose(mine, their, rtol=0, atol=1e-12)
