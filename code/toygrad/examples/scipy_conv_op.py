"""The fixed ScipyConv2d as a PyTorch custom operator, opaque to tracing.

``torch.compile`` cannot look inside SciPy, and ``aot_function`` traces with
tensors that hold no numbers. Registered with ``torch.library``, the
convolution and its backward become two operators, ``toygrad::scipy_conv2d``
and ``toygrad::scipy_conv2d_backward``: a tracer records each as one call and
learns the shapes of its results from a "fake" function that computes none of
the numbers. The SciPy kernels are those of ``scipy_conv``.
"""

import torch

from toygrad.examples.scipy_conv import conv2d_backward, conv2d_forward


@torch.library.custom_op("toygrad::scipy_conv2d", mutates_args=())
def scipy_conv2d(input: torch.Tensor, filter: torch.Tensor,
                 bias: torch.Tensor) -> torch.Tensor:
    """One image (H, W), one filter (kH, kW), one bias (1,)."""
    out = conv2d_forward(input.numpy(), filter.numpy(), bias.numpy())
    return torch.as_tensor(out, dtype=input.dtype)


@scipy_conv2d.register_fake
def _(input, filter, bias):
    height = input.shape[0] - filter.shape[0] + 1
    width = input.shape[1] - filter.shape[1] + 1
    return input.new_empty(height, width)


@torch.library.custom_op("toygrad::scipy_conv2d_backward", mutates_args=())
def scipy_conv2d_backward(grad: torch.Tensor, input: torch.Tensor,
                          filter: torch.Tensor) -> list[torch.Tensor]:
    """The gradients for input, filter and bias, in the inputs' dtype."""
    grads = conv2d_backward(grad.numpy(), input.numpy(), filter.numpy())
    grad_x, grad_w, grad_b = (torch.as_tensor(g, dtype=input.dtype)
                              for g in grads)
    return [grad_x, grad_w, grad_b.reshape(1)]


@scipy_conv2d_backward.register_fake
def _(grad, input, filter):
    return [torch.empty_like(input), torch.empty_like(filter),
            input.new_empty(1)]


def _setup_context(ctx, inputs, output):
    input, filter, _ = inputs
    ctx.save_for_backward(input, filter)


def _backward(ctx, grad):
    input, filter = ctx.saved_tensors
    return tuple(scipy_conv2d_backward(grad, input, filter))


scipy_conv2d.register_autograd(_backward, setup_context=_setup_context)
