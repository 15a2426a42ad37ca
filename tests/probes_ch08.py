"""Chapter 8's probes: the gradients of ScipyConv2d's cross-correlation (task 8.1) and of
the batched one nn.Conv2d uses (task 8.2). tests/test_tasks_ch08.py says what they must
return."""

import numpy as np

from toygrad.examples.scipy_conv import conv2d_backward
from toygrad.nn.conv import conv2d_batched_backward


def single(x_shape, w_shape, seed=0):
    """x, w, b and the output's gradient for one image and one filter."""
    rng = np.random.default_rng(1 + seed)
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(1)
    out_shape = (x_shape[0] - w_shape[0] + 1, x_shape[1] - w_shape[1] + 1)
    return x, w, b, rng.standard_normal(out_shape)


def conv2d_gradients(x_shape, w_shape, seed=0):
    x, w, b, grad = single(x_shape, w_shape, seed)
    return [np.reshape(mine, -1) for mine in conv2d_backward(grad, x, w)]


def batched(seed=0):
    rng = np.random.default_rng(2 + seed)
    x, w, b = (rng.standard_normal(s) for s in ((2, 3, 6, 5), (4, 3, 3, 2), (4,)))
    return x, w, b, rng.standard_normal((2, 4, 4, 4))


def batched_conv2d_gradients(seed=0):
    x, w, b, grad = batched(seed)
    return list(conv2d_batched_backward(grad, x, w))
