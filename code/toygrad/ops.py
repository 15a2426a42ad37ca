"""The built-in operations on tensors, each a ``Function``.

Each forward computes with NumPy on ``.data``; each backward is written with
toygrad's own operations, so that with ``create_graph=True`` the backward pass
is recorded too and gradients can be differentiated again. ``node_name`` is
PyTorch's name for the node of the same operation and overload.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function
from toygrad.tensor import Tensor


def unbroadcast(grad, shape):
    """Sum ``grad`` down to ``shape``: undo the broadcasting of a forward.

    When an input of shape ``shape`` was broadcast to a larger result, each
    of its elements was used several times, so its gradient is the sum of the
    gradients of all its copies: over the leading dimensions the input did
    not have, and over the dimensions where it had size 1.
    """
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra:
        grad = Sum.apply(grad, tuple(range(extra)), False)
    ones = tuple(i for i, size in enumerate(shape)
                 if size == 1 and grad.shape[i] != 1)
    if ones:
        grad = Sum.apply(grad, ones, True)
    return grad


def _wrap(value, like):
    """A Python number as a constant tensor of ``like``'s dtype.

    PyTorch treats ``x + 2`` as an operation on two tensors, the second a
    "wrapped number" that needs no gradient: its edge is ``(None, 0)``.
    """
    if isinstance(value, Tensor):
        return value
    return Tensor(np.asarray(value, dtype=like.dtype))


def _constant(array):
    return Tensor(array)


# Arithmetic with broadcasting.

class Add(Function):
    node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = a.shape, b.shape
        return Tensor(a.data + b.data)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast(grad, a_shape) if need_a else None,
                unbroadcast(grad, b_shape) if need_b else None)


class Sub(Function):
    node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = a.shape, b.shape
        return Tensor(a.data - b.data)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast(grad, a_shape) if need_a else None,
                unbroadcast(-grad, b_shape) if need_b else None)


class Rsub(Function):
    """number - tensor"""
    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, number):
        return Tensor(number - a.data)

    @staticmethod
    def backward(ctx, grad):
        return -grad, None


class Mul(Function):
    node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        # Save only what the needed gradients use: d(ab)/da = b, d(ab)/db = a.
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        ctx.shapes = a.shape, b.shape
        return Tensor(a.data * b.data)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        a_shape, b_shape = ctx.shapes
        return (None if b is None else unbroadcast(grad * b, a_shape),
                None if a is None else unbroadcast(grad * a, b_shape))


class Div(Function):
    node_name = "DivBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return Tensor(a.data / b.data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast(grad / b, a.shape) if need_a else None,
                unbroadcast(-grad * a / (b * b), b.shape) if need_b else None)


class Neg(Function):
    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(-a.data)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class PowScalar(Function):
    """tensor ** number"""
    node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return Tensor(a.data ** exponent)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        n = ctx.exponent
        if n == 0:
            return grad * 0.0, None
        return grad * n * a ** (n - 1), None


class Pow(Function):
    """tensor ** tensor"""
    node_name = "PowBackward1"

    @staticmethod
    def forward(ctx, a, b):
        out = Tensor(a.data ** b.data)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            grad_a = unbroadcast(grad * b * a ** (b - 1), a.shape)
        if need_b:
            # d/db a**b = a**b log a; PyTorch takes it as 0 where a == 0
            # and b >= 0.
            where_zero = (a.data == 0) & (b.data >= 0)
            safe_a = a + where_zero.astype(a.dtype)  # log(1) = 0 there
            grad_b = unbroadcast(grad * out * safe_a.log(), b.shape)
        return grad_a, grad_b


class RPow(Function):
    """number ** tensor"""
    node_name = "PowBackward2"

    @staticmethod
    def forward(ctx, a, base):
        out = Tensor(np.asarray(base, dtype=a.dtype) ** a.data)
        ctx.save_for_backward(out)
        ctx.log_base = float(np.log(base))
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out * ctx.log_base, None


class Reciprocal(Function):
    node_name = "ReciprocalBackward0"

    @staticmethod
    def forward(ctx, a):
        out = Tensor(1 / a.data)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -grad * out * out


# Elementwise functions.

class Exp(Function):
    node_name = "ExpBackward0"

    @staticmethod
    def forward(ctx, a):
        out = Tensor(np.exp(a.data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


class Log(Function):
    node_name = "LogBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(np.log(a.data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a


class Tanh(Function):
    node_name = "TanhBackward0"

    @staticmethod
    def forward(ctx, a):
        out = Tensor(np.tanh(a.data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (1 - out * out)


class Sigmoid(Function):
    node_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, a):
        x = a.data
        # Two forms of 1 / (1 + e^-x), so that e^x never overflows.
        e = np.exp(-np.abs(x))
        out = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
        out = Tensor(out.astype(x.dtype))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out * (1 - out)


class Relu(Function):
    node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, a):
        out = Tensor(np.maximum(a.data, 0))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad, out)


class ThresholdBackward(Function):
    """The gradient of relu: ``grad`` where the output is positive, else 0.

    An operation of its own, as in PyTorch (``threshold_backward``), so that
    it too can be differentiated: it is linear in ``grad``.
    """
    node_name = "ThresholdBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, out):
        ctx.mask = out.data > 0
        return Tensor(grad.data * ctx.mask)

    @staticmethod
    def backward(ctx, grad):
        return grad * _constant(ctx.mask), None


# Reductions.

def _dims(dim, ndim):
    """``dim`` (None, an int or a tuple) as a sorted tuple of dims >= 0."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(sorted(d % ndim for d in dim))


def _expand_back(grad, shape, dims, keepdim):
    """Spread the gradient of a reduction over ``dims`` back to ``shape``."""
    if not keepdim:
        kept = list(shape)
        for d in dims:
            kept[d] = 1
        grad = grad.reshape(tuple(kept))
    return grad.expand(shape)


class SumAll(Function):
    node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return Tensor(np.asarray(a.data.sum(), dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)


class Sum(Function):
    node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return Tensor(np.asarray(a.data.sum(axis=dims, keepdims=keepdim)))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None


class MeanAll(Function):
    node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return Tensor(np.asarray(a.data.mean(), dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape) / float(np.prod(ctx.shape))


class Mean(Function):
    node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return Tensor(np.asarray(a.data.mean(axis=dims, keepdims=keepdim),
                                 dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        count = float(np.prod([ctx.shape[d] for d in ctx.dims]))
        return (_expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim) / count,
                None, None)


class MaxAll(Function):
    node_name = "MaxBackward1"

    @staticmethod
    def forward(ctx, a):
        out = a.data.max()
        # The gradient is shared evenly among all elements equal to the max.
        where = a.data == out
        ctx.share = _constant((where / where.sum()).astype(a.dtype))
        return Tensor(np.asarray(out))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.share


class MaxDim(Function):
    node_name = "MaxBackward0"

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        indices = np.expand_dims(a.data.argmax(axis=dim), dim)
        values = np.take_along_axis(a.data, indices, axis=dim)
        one_hot = np.zeros_like(a.data)
        np.put_along_axis(one_hot, indices, 1, axis=dim)
        ctx.one_hot, ctx.dim, ctx.keepdim = _constant(one_hot), dim, keepdim
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        values, indices = Tensor(values), Tensor(indices)
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        if not ctx.keepdim:
            grad_values = grad_values.unsqueeze(ctx.dim)
        return grad_values * ctx.one_hot, None, None


# Shapes: these return views of the input's numbers, as PyTorch does.

class View(Function):
    node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return Tensor(a.data.reshape(shape))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None


class UnsafeView(View):
    node_name = "UnsafeViewBackward0"


class ReshapeAlias(View):
    """A reshape that is a view with other strides (not a plain view)."""
    node_name = "ReshapeAliasBackward0"


class Clone(Function):
    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(a.data.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad


class Permute(Function):
    node_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return Tensor(a.data.transpose(dims))

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(tuple(np.argsort(ctx.dims))), None


class Transpose(Function):
    node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = dim0, dim1
        return Tensor(np.swapaxes(a.data, dim0, dim1))

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


class T(Function):
    """The transpose of a matrix, ``a.t()``."""
    node_name = "TBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(a.data.T)

    @staticmethod
    def backward(ctx, grad):
        return grad.t()


class Unsqueeze(Function):
    node_name = "UnsqueezeBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return Tensor(np.expand_dims(a.data, dim))

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None


class Squeeze(Function):
    node_name = "SqueezeBackward4"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return Tensor(np.squeeze(a.data, dim))

    @staticmethod
    def backward(ctx, grad):
        return grad.unsqueeze(ctx.dim), None


class Expand(Function):
    node_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return Tensor(np.broadcast_to(a.data, shape))

    @staticmethod
    def backward(ctx, grad):
        return unbroadcast(grad, ctx.shape), None


def _index(dim, item):
    """A NumPy index that applies ``item`` to dimension ``dim``."""
    return (slice(None),) * dim + (item,)


class Select(Function):
    """``a[..., index, ...]``: one position of one dimension (an int)."""
    node_name = "SelectBackward0"

    @staticmethod
    def forward(ctx, a, dim, item):
        ctx.shape, ctx.dim, ctx.item = a.shape, dim, item
        return Tensor(a.data[_index(dim, item)])

    @staticmethod
    def backward(ctx, grad):
        embed = ctx._forward_cls.embed  # SelectBackward, or SliceBackward
        return embed.apply(grad, ctx.shape, ctx.dim, ctx.item), None, None


class Slice(Select):
    """``a[..., start:stop:step, ...]``: a slice of one dimension."""
    node_name = "SliceBackward0"


class SelectBackward(Function):
    """Put a gradient back where it was taken from, with zeros elsewhere."""
    node_name = "SelectBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, shape, dim, item):
        ctx.dim, ctx.item = dim, item
        out = np.zeros(shape, grad.dtype)
        out[_index(dim, item)] = grad.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        take = ctx._forward_cls.take  # Select, or Slice
        return take.apply(grad, ctx.dim, ctx.item), None, None, None


class SliceBackward(SelectBackward):
    node_name = "SliceBackwardBackward0"


Select.embed, Slice.embed = SelectBackward, SliceBackward
SelectBackward.take, SliceBackward.take = Select, Slice


# Matrix products. ``Tensor.__matmul__`` picks one as ``torch.matmul`` does.

class Mm(Function):
    node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return Tensor(a.data @ b.data)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        return (None if b is None else grad.mm(b.t()),
                None if a is None else a.t().mm(grad))


class Addmm(Function):
    """bias + a @ b, the operation behind ``nn.Linear``."""
    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, a, b):
        need_bias, need_a, need_b = ctx.needs_input_grad
        ctx.bias_shape = bias.shape
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        out = a.data @ b.data
        out += bias.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_bias = ctx.needs_input_grad[0]
        return (unbroadcast(grad, ctx.bias_shape) if need_bias else None,
                None if b is None else grad.mm(b.t()),
                None if a is None else a.t().mm(grad))


class Mv(Function):
    node_name = "MvBackward0"

    @staticmethod
    def forward(ctx, a, v):
        ctx.save_for_backward(a, v)
        return Tensor(a.data @ v.data)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        need_a, need_v = ctx.needs_input_grad
        return (grad.unsqueeze(1) * v if need_a else None,
                a.t().mv(grad) if need_v else None)


class Dot(Function):
    node_name = "DotBackward0"

    @staticmethod
    def forward(ctx, v, w):
        ctx.save_for_backward(v, w)
        return Tensor(np.asarray(v.data @ w.data))

    @staticmethod
    def backward(ctx, grad):
        v, w = ctx.saved_tensors
        need_v, need_w = ctx.needs_input_grad
        return (grad * w if need_v else None, grad * v if need_w else None)


class Bmm(Function):
    node_name = "BmmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return Tensor(a.data @ b.data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad.bmm(b.transpose(1, 2)) if need_a else None,
                a.transpose(1, 2).bmm(grad) if need_b else None)


def matmul(a, b):
    """``a @ b`` for 1-D, 2-D and batched operands, split as PyTorch does."""
    if a.ndim == 1 and b.ndim == 1:
        return Dot.apply(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return Mv.apply(a, b)
    if a.ndim == 1 and b.ndim == 2:
        return Mm.apply(a.unsqueeze(0), b).squeeze(0)
    if a.ndim == 2 and b.ndim == 2:
        return Mm.apply(a, b)
    if a.ndim >= 3 and b.ndim <= 2:
        # Fold the batch into the rows: one big matrix product.
        rows = a.reshape((-1, a.shape[-1]))
        out = Mv.apply(rows, b) if b.ndim == 1 else Mm.apply(rows, b)
        return UnsafeView.apply(out, a.shape[:-1] + b.shape[1:])
    # Batched on both sides: broadcast the batch dimensions, then bmm.
    vector_a, vector_b = a.ndim == 1, b.ndim == 1
    if vector_a:
        a = a.unsqueeze(0)
    if vector_b:
        b = b.unsqueeze(-1)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
    a3 = a.expand(batch + (n, k)).reshape((-1, n, k))
    b3 = b.expand(batch + (k, m)).reshape((-1, k, m))
    out = UnsafeView.apply(Bmm.apply(a3, b3), batch + (n, m))
    if vector_a:
        out = out.squeeze(-2)
    if vector_b:
        out = out.squeeze(-1)
    return out


# Neural-network functions (see toygrad.nn.functional).

class LogSoftmax(Function):
    node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        x = a.data
        shifted = x - x.max(axis=dim, keepdims=True)  # exp cannot overflow
        log_sum = np.log(np.exp(shifted).sum(axis=dim, keepdims=True))
        out = Tensor(shifted - log_sum)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return LogSoftmaxBackwardData.apply(grad, out, ctx.dim), None


class LogSoftmaxBackwardData(Function):
    """``grad - exp(out) * grad.sum(dim)``: log_softmax's gradient.

    An operation of its own, as PyTorch's ``_log_softmax_backward_data``;
    its backward is written, like every other, with toygrad operations.
    """
    node_name = "LogSoftmaxBackwardDataBackward0"

    @staticmethod
    def forward(ctx, grad, out, dim):
        ctx.save_for_backward(grad, out)
        ctx.dim = dim
        g = grad.data
        return Tensor(g - np.exp(out.data) * g.sum(axis=dim, keepdims=True))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, out = ctx.saved_tensors
        softmax = out.exp()
        # result = g - softmax * sum(g): linear in g; softmax depends on out.
        total = grad.sum(ctx.dim, keepdim=True)
        grad_g = grad_grad - (grad_grad * softmax).sum(ctx.dim, keepdim=True)
        grad_out = -grad_grad * softmax * total
        return grad_g, grad_out, None


class NllLoss(Function):
    """The mean of ``-log_probs[i, target[i]]``."""
    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, target):
        rows = np.arange(len(target))
        picked = log_probs.data[rows, target]
        # The gradient of the mean: -1/N at each target position, 0 elsewhere.
        pick = np.zeros_like(log_probs.data)
        pick[rows, target] = -1.0 / len(rows)
        ctx.pick = _constant(pick)
        loss = -picked.sum() / len(rows)
        return Tensor(np.asarray(loss, dtype=log_probs.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.pick, None


# In-place operations rewrite a tensor's numbers and history.

class Zero(Function):
    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(np.zeros_like(a.data))

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0


def inplace(target, function, *args):
    """Run ``function`` on ``target`` and write the result into ``target``.

    The new node's edge leads to ``target``'s old history; then ``target``
    takes the new history, and its version counter goes up, so that a
    backward that needs the old numbers can tell they are gone.
    """
    if target.requires_grad and target.is_leaf and grad_mode.state.enabled:
        raise RuntimeError("a leaf Variable that requires grad is being used "
                           "in an in-place operation.")
    result = function.apply(target, *args)
    np.copyto(target.data, result.data)
    target._bump_version()
    if result.grad_fn is not None:
        target.grad_fn, target.output_nr = result.grad_fn, result.output_nr
        target.requires_grad = True
    return target
