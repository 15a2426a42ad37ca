"""A small convolutional network's layers, as in ``torch.nn`` (chapter 15).

``Conv2d`` does chapter 8's arithmetic (``conv2d_batched_forward`` and
``conv2d_batched_backward``, SciPy's correlations) and records the node
PyTorch records for ``nn.Conv2d``: ``ConvolutionBackward0``, with an edge to
the input, the weight and the bias. ``MaxPool2d`` records
``MaxPool2DWithIndicesBackward0``; ``Flatten`` is a ``reshape``, a view where
it can be, as in PyTorch. Both backward formulas are NumPy, not toygrad
operations: differentiating them again raises ``NotImplementedError``.
"""

import math

import numpy as np

from toygrad import ops
from toygrad.autograd import Function
from toygrad.dtypes import torch_name
from toygrad.nn import Module, Parameter, functional
from toygrad.tensor import Tensor, _refuse


def _pair(value, name):
    """An int, or a pair of equal ints; anything else is refused by name."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == value[1]:
        value = value[0]
    if not isinstance(value, int):
        raise NotImplementedError(
            f"toygrad supports a square {name} given as an int only, not "
            f"{value!r}")
    return value


class Convolution(Function):
    """A batch of images (N, C_in, H, W) correlated with (C_out, C_in, k, k)
    filters, plus a bias per output channel: stride 1, no padding."""
    node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias):
        from toygrad.examples.scipy_conv import conv2d_batched_forward
        ctx.save_for_backward(x, weight)
        out = conv2d_batched_forward(x.data, weight.data, bias.data)
        return Tensor(out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        return ConvolutionBackward.apply(grad, x, weight)


class ConvolutionBackward(Function):
    """Chapter 8's batched backward; itself not differentiable in toygrad."""
    node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, weight):
        from toygrad.examples.scipy_conv import conv2d_batched_backward
        grads = conv2d_batched_backward(grad.data, x.data, weight.data)
        return tuple(Tensor(np.asarray(g, x.dtype)) for g in grads)

    @staticmethod
    def backward(ctx, *grad_grads):
        raise NotImplementedError(
            "toygrad does not support differentiating the gradient of "
            "conv2d again")


class Conv2d(Module):
    """``nn.Conv2d(in_channels, out_channels, kernel_size, bias=True)``:
    stride 1 and no padding only; other arguments are refused by name."""

    def __init__(self, in_channels, out_channels, kernel_size, bias=True,
                 generator=None, dtype=np.float32, **unsupported):
        super().__init__()
        _refuse("nn.Conv2d", unsupported)  # stride, padding, dilation, ...
        kernel_size = _pair(kernel_size, "kernel_size")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = (kernel_size, kernel_size)
        rng = generator if generator is not None else np.random.default_rng()
        fan_in = in_channels * kernel_size * kernel_size
        bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)), as Linear
        shape = (out_channels, in_channels, kernel_size, kernel_size)
        self.weight = Parameter(
            rng.uniform(-bound, bound, shape).astype(dtype))
        if bias:
            self.bias = Parameter(
                rng.uniform(-bound, bound, out_channels).astype(dtype))
        else:
            self.bias = None

    def forward(self, x):
        weight = self.weight
        if x.ndim != 4:
            raise NotImplementedError(
                "toygrad's Conv2d takes a batch (N, C, H, W) only, not an "
                f"input of {x.ndim} dimensions")
        if x.shape[1] != weight.shape[1]:
            raise RuntimeError(
                f"Given groups=1, weight of size {list(weight.shape)}, "
                f"expected input{list(x.shape)} to have {weight.shape[1]} "
                f"channels, but got {x.shape[1]} channels instead")
        k = weight.shape[2]
        if x.shape[2] < k or x.shape[3] < weight.shape[3]:
            raise RuntimeError(
                "Calculated padded input size per channel: "
                f"({x.shape[2]} x {x.shape[3]}). Kernel size: "
                f"({k} x {weight.shape[3]}). Kernel size can't be greater "
                "than actual input size")
        # Without a bias, zeros that need no gradient: the node still has
        # PyTorch's three edges, the last one empty.
        bias = self.bias if self.bias is not None else Tensor(
            np.zeros(weight.shape[0], weight.dtype))
        if self.bias is not None and bias.dtype != x.dtype:
            raise RuntimeError(
                f"Input type ({_name(x.dtype).lower()}) and bias type "
                f"({_name(bias.dtype).lower()}) should be the same")
        if weight.dtype != x.dtype:
            if self.bias is not None:
                raise NotImplementedError(
                    "toygrad's Conv2d needs its input and weight of one dtype")
            raise RuntimeError(f"expected scalar type {_name(x.dtype)} but "
                               f"found {_name(weight.dtype)}")
        return Convolution.apply(x, weight, bias)


def _name(dtype):
    return torch_name(dtype)  # Double, Float


def _windows(data, k):
    """(N, C, H, W) -> (N, C, H // k, W // k, k * k): each k x k window's
    numbers, row by row (a trailing row or column that fits none is left)."""
    n, c, height, width = data.shape
    rows, cols = height // k, width // k
    return (data[:, :, :rows * k, :cols * k]
            .reshape(n, c, rows, k, cols, k).transpose(0, 1, 2, 4, 3, 5)
            .reshape(n, c, rows, cols, k * k))


class MaxPool(Function):
    """The largest number of each k x k window (stride k, no padding)."""
    node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, k):
        n, c, height, width = x.shape
        rows, cols = height // k, width // k
        windows = _windows(x.data, k)
        # The first largest in each window, row by row, as PyTorch's kernel.
        index = windows.argmax(axis=-1)
        # PyTorch saves the input and, as int64, each maximum's position in
        # its (H, W) plane; toygrad saves the same two tensors.
        row, col = np.divmod(index, k)
        rows_at = (np.arange(rows) * k)[:, None] + row
        cols_at = (np.arange(cols) * k)[None, :] + col
        ctx.save_for_backward(x, Tensor((rows_at * width + cols_at)
                                        .astype(np.int64)))
        ctx.index, ctx.k = index, k
        largest = np.take_along_axis(windows, index[..., None], -1)
        return Tensor(largest[..., 0])

    @staticmethod
    def jvp(ctx, tangent, _k):
        """Forward mode (chapter 13): each window's tangent at its largest."""
        picked = np.take_along_axis(_windows(tangent.data, ctx.k),
                                    ctx.index[..., None], -1)
        return Tensor(picked[..., 0])

    @staticmethod
    def backward(ctx, grad):
        x, _ = ctx.saved_tensors
        return MaxPoolBackward.apply(grad, x, ctx.index, ctx.k), None


class MaxPoolBackward(Function):
    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, index, k):
        shape = x.shape
        n, c, rows, cols = grad.shape
        windows = np.zeros((n, c, rows, cols, k * k), grad.dtype)
        np.put_along_axis(windows, index[..., None], grad.data[..., None], -1)
        out = np.zeros(shape, grad.dtype)
        out[:, :, :rows * k, :cols * k] = (
            windows.reshape(n, c, rows, cols, k, k).transpose(0, 1, 2, 4, 3, 5)
            .reshape(n, c, rows * k, cols * k))
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad_grad):
        raise NotImplementedError(
            "toygrad does not support differentiating the gradient of "
            "max_pool2d again")


class MaxPool2d(Module):
    """``nn.MaxPool2d(kernel_size)``: stride = kernel_size, no padding."""

    def __init__(self, kernel_size, **unsupported):
        super().__init__()
        _refuse("nn.MaxPool2d", unsupported)  # stride, padding, ceil_mode...
        self.kernel_size = _pair(kernel_size, "kernel_size")

    def forward(self, x):
        if x.ndim != 4:
            raise NotImplementedError(
                "toygrad's MaxPool2d takes a batch (N, C, H, W) only, not an "
                f"input of {x.ndim} dimensions")
        k = self.kernel_size
        n, c, height, width = x.shape
        if height < k or width < k:
            raise RuntimeError(
                f"Given input size: ({c}x{height}x{width}). Calculated output "
                f"size: ({c}x{height // k}x{width // k}). Output size is too "
                "small")
        return MaxPool.apply(x, k)


class Flatten(Module):
    """All dimensions after the first in one: ``x.flatten(1)``, a
    ``reshape``, so a view (``ViewBackward0``) where one can be."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        if (start_dim, end_dim) != (1, -1):
            raise NotImplementedError(
                "toygrad's Flatten supports start_dim=1, end_dim=-1 only")

    def forward(self, x):
        ops.canonical_dim(1, x.ndim)  # PyTorch's IndexError for x.ndim < 2
        if x.ndim == 2:  # nothing to flatten: PyTorch returns x itself
            return x
        return x.reshape(x.shape[0], -1)


class CrossEntropyLoss(Module):
    """``F.cross_entropy`` as a module: by default the mean over the batch
    of the rows whose target is not ``ignore_index``."""

    def __init__(self, ignore_index=-100, reduction="mean", **unsupported):
        super().__init__()
        _refuse("nn.CrossEntropyLoss", unsupported)
        self.ignore_index, self.reduction = ignore_index, reduction

    def forward(self, logits, target):
        return functional.cross_entropy(logits, target, self.ignore_index,
                                        self.reduction)
