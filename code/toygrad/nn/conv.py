"""Convolution's arithmetic for batches and channels, by SciPy (chapter 8).

Chapter 8's kernels for a batch of images with several channels: each output
channel sums the valid cross-correlations of every input channel with its
filter, plus a bias. Plain NumPy/SciPy functions: toygrad's ``nn.Conv2d``
(chapter 15) computes with them, and so do the chapter's examples
(``toygrad.examples``, for toygrad and for PyTorch), so all of them run the
very same numbers.
"""

import numpy as np
# scipy.signal is loaded by the first convolution: it takes a second to import,
# and most programs that import toygrad never convolve.
import scipy


def conv2d_batched_forward(x, w, b):
    """``x`` (N, C_in, H, W), ``w`` (C_out, C_in, kH, kW), ``b`` (C_out,)."""
    n, c_in = x.shape[:2]
    c_out = w.shape[0]
    height, width = x.shape[2] - w.shape[2] + 1, x.shape[3] - w.shape[3] + 1
    out = np.empty((n, c_out, height, width), dtype=np.result_type(x, w))
    for i in range(n):
        for o in range(c_out):
            out[i, o] = b[o] + sum(
                scipy.signal.correlate2d(x[i, c], w[o, c], mode="valid")
                for c in range(c_in))
    return out


# Task 8.2: convolution's backward for batches and channels
def conv2d_batched_backward(grad, x, w):
    """The gradients of ``conv2d_batched_forward`` for ``x``, ``w``, ``b``."""
    n, c_in = x.shape[:2]
    c_out = w.shape[0]
    grad_x, grad_w = np.zeros_like(x), np.zeros_like(w)
    for i in range(n):
        for o in range(c_out):
            for c in range(c_in):
                grad_x[i, c] += scipy.signal.convolve2d(
                    grad[i, o], w[o, c], mode="full")
                grad_w[o, c] += scipy.signal.correlate2d(
                    x[i, c], grad[i, o], mode="valid")
    grad_b = grad.sum(axis=(0, 2, 3))
    return grad_x, grad_w, grad_b
