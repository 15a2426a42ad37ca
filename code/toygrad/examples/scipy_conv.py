"""The seed's ``ScipyConv2d``, fixed: SciPy does the arithmetic.

The kernels below (and those for batches and channels, in ``toygrad.nn.conv``)
are plain NumPy/SciPy functions, shared by the PyTorch Functions in
``scipy_conv_torch`` and by the toygrad Function here, so the two engines run
the very same numbers. "Convolution" in deep learning is a valid
cross-correlation: ``out[i, j] = sum_pq x[i + p, j + q] w[p, q]``.
"""

import numpy as np
from scipy.signal import convolve2d, correlate2d

import toygrad
from toygrad import nn
from toygrad.autograd import Function


def conv2d_forward(x, w, b):
    """Valid cross-correlation of image ``x`` with filter ``w``, plus ``b``."""
    return correlate2d(x, w, mode="valid") + b


# Task 8.1: the fixed ScipyConv2d's backward
def conv2d_backward(grad, x, w):
    """The gradients of ``conv2d_forward`` for ``x``, ``w`` and ``b``.

    ``grad`` is d(loss)/d(output). Each input pixel reaches the outputs
    through the filter turned by 180 degrees, which is what ``convolve2d``
    does to its second argument; each filter entry multiplies a window of the
    input, so its gradient correlates the input with ``grad``.
    """
    grad_x = convolve2d(grad, w, mode="full")
    grad_w = correlate2d(x, grad, mode="valid")
    grad_b = grad.sum()
    return grad_x, grad_w, grad_b


class ScipyConv2dFunction(Function):
    """One image, one filter, one bias: the seed's operation, fixed."""

    @staticmethod
    def forward(ctx, input, filter, bias):
        ctx.save_for_backward(input, filter)
        out = conv2d_forward(input.data, filter.data, bias.data)
        return toygrad.Tensor(out.astype(input.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        input, filter = ctx.saved_tensors
        grads = conv2d_backward(grad_output.data, input.data, filter.data)
        grad_x, grad_w, grad_b = (np.asarray(g, input.dtype) for g in grads)
        return (toygrad.Tensor(grad_x), toygrad.Tensor(grad_w),
                toygrad.Tensor(grad_b.reshape(1)))


class ScipyConv2d(nn.Module):
    """A layer with a learnable ``kh`` x ``kw`` filter and bias."""

    def __init__(self, kh, kw, generator=None, dtype=np.float64):
        super().__init__()
        rng = generator if generator is not None else np.random.default_rng()
        self.filter = nn.Parameter(rng.standard_normal((kh, kw)).astype(dtype))
        self.bias = nn.Parameter(rng.standard_normal(1).astype(dtype))

    def forward(self, input):
        return ScipyConv2dFunction.apply(input, self.filter, self.bias)
