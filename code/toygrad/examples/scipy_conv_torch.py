"""The seed's ``ScipyConv2d`` for PyTorch, fixed and written in today's idioms.

Static methods and ``.apply`` (no ``Variable``), ``forward`` apart from
``setup_context``, a ``backward`` marked ``once_differentiable`` (SciPy's
arithmetic is invisible to autograd, so it cannot be differentiated again),
tensors detached before NumPy sees them, gradients returned in the inputs'
dtype, and a bias. The SciPy kernels are shared with toygrad's version
(``scipy_conv``).
"""

import torch
from torch.autograd.function import once_differentiable

from toygrad.examples.scipy_conv import conv2d_backward, conv2d_forward
from toygrad.nn.conv import conv2d_batched_backward, conv2d_batched_forward


def _to_torch(array, like):
    return torch.as_tensor(array, dtype=like.dtype)


class ScipyConv2dFunction(torch.autograd.Function):
    """One image (H, W), one filter (kH, kW), one bias (1,)."""

    @staticmethod
    def forward(input, filter, bias):
        out = conv2d_forward(input.detach().numpy(), filter.detach().numpy(),
                             bias.detach().numpy())
        return _to_torch(out, input)

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, filter, _ = inputs
        ctx.save_for_backward(input, filter)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        input, filter = ctx.saved_tensors
        grad_x, grad_w, grad_b = conv2d_backward(
            grad_output.detach().numpy(), input.detach().numpy(),
            filter.detach().numpy())
        return (_to_torch(grad_x, input), _to_torch(grad_w, filter),
                _to_torch(grad_b, input).reshape(1))


class ScipyConv2d(torch.nn.Module):
    """A layer with a learnable ``kh`` x ``kw`` filter and bias."""

    def __init__(self, kh, kw):
        super().__init__()
        self.filter = torch.nn.Parameter(torch.randn(kh, kw))
        self.bias = torch.nn.Parameter(torch.randn(1))

    def forward(self, input):
        return ScipyConv2dFunction.apply(input, self.filter, self.bias)


class ScipyConv2dBatchedFunction(torch.autograd.Function):
    """Batches and channels.

    input (N, C_in, H, W), weight (C_out, C_in, kH, kW), bias (C_out,).
    """

    @staticmethod
    def forward(input, weight, bias):
        out = conv2d_batched_forward(input.detach().numpy(),
                                     weight.detach().numpy(),
                                     bias.detach().numpy())
        return _to_torch(out, input)

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, _ = inputs
        ctx.save_for_backward(input, weight)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_x, grad_w, grad_b = conv2d_batched_backward(
            grad_output.detach().numpy(), input.detach().numpy(),
            weight.detach().numpy())
        return (_to_torch(grad_x, input), _to_torch(grad_w, weight),
                _to_torch(grad_b, weight))
