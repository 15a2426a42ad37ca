"""The operations that only write into a tensor: ``zero_`` and ``copy_``.

Every in-place operation (``add_``, ``x[key] = value``, these two) goes
through ``toygrad.views.inplace``, which checks the target, writes the
numbers the operation's forward computes, bumps the version and rewrites
the history.
"""

import numpy as np

from toygrad.autograd.function import Function, ToCopy
from toygrad.ops.common import _zeros_like
#> ch13
from toygrad.ops.common import linear_in
#< ch13
from toygrad.ops.shapes import unbroadcast
from toygrad.tensor import Tensor


# In-place operations (see toygrad.views.inplace): the forward computes the
# new numbers; inplace writes them into the tensor.

class Zero(Function):
    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(np.zeros_like(a.data))

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)  # zeros_like(grad), as PyTorch's

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Copy(Function):
    """``a.copy_(source)``: ``a``'s numbers replaced by ``source``'s."""
    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, a, source):
        ctx.source_meta = source.shape, source.dtype
        return Tensor(np.broadcast_to(source.data, a.shape).astype(a.dtype))

    @staticmethod
    def backward(ctx, grad):
        # CopyBackwards: zeros_like(grad) for a; for the source, grad cast
        # to its dtype, then (as PyTorch's engine does) summed to its shape.
        shape, dtype = ctx.source_meta
        need_a, need_source = ctx.needs_input_grad
        if need_source and grad.dtype != dtype:
            grad = ToCopy.apply(grad, dtype)
        return (_zeros_like(grad) if need_a else None,
                unbroadcast(grad, shape) if need_source else None)

    #> ch13
    jvp = linear_in(0, 1)
    #< ch13
