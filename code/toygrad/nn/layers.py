"""A small convolutional network's layers, as in ``torch.nn`` (chapter 15).

``Conv2d`` does chapter 8's arithmetic (``conv2d_batched_forward`` and
``conv2d_batched_backward`` in ``toygrad.nn.conv``, SciPy's correlations) and
records the node
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
from toygrad.nn import functional
from toygrad.nn.modules import Module, Parameter, _initialised
from toygrad.nn.conv import conv2d_batched_backward, conv2d_batched_forward
from toygrad.tensor import Tensor, _must_be_tensor, _refuse


def _pair(value, name):
    """An int, or a pair of ints, as a pair; anything else refused by name."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if (isinstance(value, tuple) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool)
                    for v in value)):
        return value
    raise NotImplementedError(
        f"toygrad supports a {name} given as an int or a pair of ints only, "
        f"not {value!r}")


def _pad(data, padding, value=0.0):
    """``data`` (N, C, H, W) with ``padding`` = (rows, columns) of ``value``
    on each side; the array itself when there is none."""
    (ph, pw) = padding
    if ph == pw == 0:
        return data
    return np.pad(data, ((0, 0), (0, 0), (ph, ph), (pw, pw)),
                  constant_values=value)


class Convolution(Function):
    """A batch of images (N, C_in, H, W) correlated with (C_out, C_in, kH,
    kW) filters, plus a bias per output channel."""
    node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, stride=(1, 1), padding=(0, 0)):
        ctx.save_for_backward(x, weight)  # as PyTorch, the unpadded input
        ctx.stride, ctx.padding = stride, padding
        out = conv2d_batched_forward(_pad(x.data, padding), weight.data,
                                     bias.data)
        if stride != (1, 1):
            out = np.ascontiguousarray(out[:, :, ::stride[0], ::stride[1]])
        return Tensor(out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        return ConvolutionBackward.apply(grad, x, weight, ctx.stride,
                                         ctx.padding) + (None, None)


class ConvolutionBackward(Function):
    """Chapter 8's batched backward, for a padded and strided forward: the
    gradient goes back to the outputs forward kept (zeros in the others),
    and the padding is cropped off the input's gradient. Itself not
    differentiable in toygrad."""
    node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, weight, stride=(1, 1), padding=(0, 0)):
        padded = _pad(x.data, padding)
        grad = grad.data
        if stride != (1, 1):  # the stride-1 outputs not kept had no effect
            full = np.zeros(grad.shape[:2] + (
                padded.shape[2] - weight.shape[2] + 1,
                padded.shape[3] - weight.shape[3] + 1), grad.dtype)
            full[:, :, ::stride[0], ::stride[1]] = grad
            grad = full
        grad_x, grad_w, grad_b = conv2d_batched_backward(grad, padded,
                                                         weight.data)
        (ph, pw), (height, width) = padding, x.shape[2:]
        grad_x = grad_x[:, :, ph:ph + height, pw:pw + width]
        return tuple(Tensor(np.array(g, x.dtype))
                     for g in (grad_x, grad_w, grad_b))

    @staticmethod
    def backward(ctx, *grad_grads):
        raise NotImplementedError(
            "toygrad does not support differentiating the gradient of "
            "conv2d again")


class Conv2d(Module):
    """``nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
    padding=0, bias=True, padding_mode='zeros')``: ``kernel_size``,
    ``stride`` and ``padding`` an int or a pair, ``padding`` also
    ``'valid'`` or ``'same'`` (an odd kernel: even ones pad unevenly, which
    PyTorch records as another node). ``dilation`` and ``groups`` other
    than 1 and other padding modes are refused by name."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", generator=None, dtype=np.float32,
                 **unsupported):
        super().__init__()
        _refuse("nn.Conv2d", unsupported)  # device, ...
        if _pair(dilation, "dilation") != (1, 1):
            raise NotImplementedError(
                "toygrad's nn.Conv2d does not support dilation other than 1")
        if groups != 1:
            raise NotImplementedError(
                "toygrad's nn.Conv2d does not support groups other than 1")
        if padding_mode != "zeros":
            raise NotImplementedError(
                "toygrad's nn.Conv2d supports padding_mode='zeros' only, not "
                f"{padding_mode!r}")
        kernel_size = _pair(kernel_size, "kernel_size")
        stride = _pair(stride, "stride")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                # A set built in the same order as PyTorch's, so it prints
                # in the same order in this process.
                raise ValueError(f"Invalid padding string {padding!r}, should "
                                 f"be one of { {'same', 'valid'} }")
            if padding == "same" and stride != (1, 1):
                raise ValueError("padding='same' is not supported for "
                                 "strided convolutions")
            if padding == "same" and not all(k % 2 for k in kernel_size):
                raise NotImplementedError(
                    "toygrad's nn.Conv2d does not support padding='same' with "
                    "an even kernel size (uneven padding)")
            self._padding = ((0, 0) if padding == "valid" else
                             tuple(k // 2 for k in kernel_size))
        else:
            padding = self._padding = _pair(padding, "padding")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = (kernel_size, stride,
                                                       padding)
        self.dilation, self.groups = (1, 1), 1
        self.padding_mode = padding_mode
        rng = generator if generator is not None else np.random.default_rng()
        fan_in = in_channels * kernel_size[0] * kernel_size[1]
        bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)), as Linear
        shape = (out_channels, in_channels) + kernel_size
        self.weight = _initialised(Parameter(
            rng.uniform(-bound, bound, shape).astype(dtype)))
        if bias:
            self.bias = _initialised(Parameter(
                rng.uniform(-bound, bound, out_channels).astype(dtype)))
        else:
            self.register_parameter("bias", None)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}")
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.bias is None:
            text += ", bias=False"
        return text

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
        (ph, pw), (kh, kw) = self._padding, weight.shape[2:]
        height, width = x.shape[2] + 2 * ph, x.shape[3] + 2 * pw
        if height < kh or width < kw:
            raise RuntimeError(
                "Calculated padded input size per channel: "
                f"({height} x {width}). Kernel size: ({kh} x {kw}). Kernel "
                "size can't be greater than actual input size")
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
        return Convolution.apply(x, weight, bias, self.stride, self._padding)


def _name(dtype):
    return torch_name(dtype)  # Double, Float


def _windows(data, kernel, stride, padding):
    """(N, C, H, W) -> (N, C, rows, cols, kH * kW): the numbers of each
    window, row by row, of the input padded with -inf (a padded number is
    never a maximum)."""
    padded = _pad(data, padding, -np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(
        padded, kernel, axis=(2, 3))[:, :, ::stride[0], ::stride[1]]
    return windows.reshape(windows.shape[:4] + (-1,))


class MaxPool(Function):
    """The largest number of each window; a window holding a NaN gives
    its last NaN, as PyTorch's kernel (``val > max || isnan(val)``)."""
    node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, kernel, stride, padding):
        windows = _windows(x.data, kernel, stride, padding)
        # The first largest in each window, row by row, as PyTorch's kernel;
        # where there are NaNs, the last of them.
        index = windows.argmax(axis=-1)
        nan = np.isnan(windows)
        if nan.any():
            last = windows.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1)
            index = np.where(nan.any(axis=-1), last, index)
        largest = np.take_along_axis(windows, index[..., None], -1)[..., 0]
        empty = largest == -np.inf
        if padding != (0, 0) and empty.any():
            # PyTorch's kernel starts at the window's first cell inside the
            # input: a window of -inf gives that one, not a padded one.
            inside = _windows(np.ones((1, 1) + x.shape[2:]), kernel, stride,
                              padding) > 0
            index = np.where(empty, inside.argmax(axis=-1), index)
        # PyTorch saves the input and, as int64, each maximum's position in
        # its (H, W) plane; toygrad saves the same two tensors.
        rows, cols = largest.shape[2:]
        row, col = np.divmod(index, kernel[1])
        rows_at = (np.arange(rows) * stride[0] - padding[0])[:, None] + row
        cols_at = (np.arange(cols) * stride[1] - padding[1])[None, :] + col
        flat = (rows_at * x.shape[3] + cols_at).astype(np.int64)
        ctx.save_for_backward(x, Tensor(flat))
        ctx.flat = flat
        return Tensor(np.ascontiguousarray(largest))

    @staticmethod
    def jvp(ctx, tangent, *_):
        """Forward mode (chapter 13): each window's tangent at its largest."""
        return Tensor(_gather(tangent.data, ctx.flat))

    @staticmethod
    def backward(ctx, grad):
        x, _ = ctx.saved_tensors
        return MaxPoolBackward.apply(grad, x, ctx.flat), None, None, None


def _gather(data, flat):
    """``data`` (N, C, H, W) at the positions ``flat`` of each plane."""
    n, c = data.shape[:2]
    planes = data.reshape(n, c, -1)
    return np.take_along_axis(planes, flat.reshape(n, c, -1), -1).reshape(
        flat.shape)


class MaxPoolBackward(Function):
    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, flat):
        n, c, height, width = x.shape
        out = np.zeros((n * c, height * width), grad.dtype)
        # Windows overlap when stride < kernel: one number can be the
        # largest of several, and its gradient their sum, added in order.
        np.add.at(out, (np.arange(n * c)[:, None], flat.reshape(n * c, -1)),
                  grad.data.reshape(n * c, -1))
        return Tensor(out.reshape(x.shape))

    @staticmethod
    def backward(ctx, grad_grad):
        raise NotImplementedError(
            "toygrad does not support differentiating the gradient of "
            "max_pool2d again")


class MaxPool2d(Module):
    """``nn.MaxPool2d(kernel_size, stride=None, padding=0)``: ``stride``
    defaults to ``kernel_size``; each an int or a pair. ``dilation`` other
    than 1, ``return_indices`` and ``ceil_mode`` are refused by name."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, **unsupported):
        super().__init__()
        _refuse("nn.MaxPool2d", unsupported)
        for name, value, default in (("dilation", dilation, 1),
                                     ("return_indices", return_indices,
                                      False),
                                     ("ceil_mode", ceil_mode, False)):
            if value != default:
                raise NotImplementedError(
                    f"toygrad's nn.MaxPool2d does not support {name}="
                    f"{value!r}")
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, "
                f"ceil_mode={self.ceil_mode}")

    def forward(self, x):
        _must_be_tensor("max_pool2d", "input", 1, x)  # torch.max_pool2d's
        if x.ndim != 4:
            raise NotImplementedError(
                "toygrad's MaxPool2d takes a batch (N, C, H, W) only, not an "
                f"input of {x.ndim} dimensions")
        kernel = _pair(self.kernel_size, "kernel_size")
        stride = _pair(self.stride, "stride")
        padding = _pair(self.padding, "padding")
        for k, p in zip(kernel, padding):
            if p > k // 2:
                raise RuntimeError(
                    "pad should be at most half of effective kernel size, "
                    f"but got pad={p}, kernel_size={k} and dilation=1")
        n, c, height, width = x.shape
        rows = (height + 2 * padding[0] - kernel[0]) // stride[0] + 1
        cols = (width + 2 * padding[1] - kernel[1]) // stride[1] + 1
        if rows < 1 or cols < 1:
            raise RuntimeError(
                f"Given input size: ({c}x{height}x{width}). Calculated output "
                f"size: ({c}x{rows}x{cols}). Output size is too small")
        return MaxPool.apply(x, kernel, stride, padding)


class Flatten(Module):
    """All dimensions after the first in one: ``x.flatten(1)``, a
    ``reshape``, so a view (``ViewBackward0``) where one can be."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        if (start_dim, end_dim) != (1, -1):
            raise NotImplementedError(
                "toygrad's Flatten supports start_dim=1, end_dim=-1 only")

    def forward(self, x):
        if not isinstance(x, Tensor):  # PyTorch's calls input.flatten(...)
            raise AttributeError(
                f"'{type(x).__name__}' object has no attribute 'flatten'")
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
