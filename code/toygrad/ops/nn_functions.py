"""The neural-network functions whose nodes PyTorch records as one:
``log_softmax`` and ``nll_loss`` (``toygrad.nn.functional`` calls them).
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function
from toygrad.ops.common import _ones_column
#> ch13
from toygrad.ops.common import linear_in
#< ch13
from toygrad.tensor import Tensor


# Neural-network functions (see toygrad.nn.functional).

class LogSoftmax(Function):
    node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        x = a.data
        if x.size == 0:
            out = Tensor(x.copy())
        else:
            shifted = x - _row_max(x, dim)  # exp can't overflow
            log_sum = np.log(_row_sum(np.exp(shifted), dim))
            out = Tensor(shifted - log_sum)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if not grad_mode.state.enabled:  # not recorded: the numbers alone
            return Tensor(_log_softmax_backward(grad.data, out.data,
                                                ctx.dim)), None
        return LogSoftmaxBackwardData.apply(grad, out, ctx.dim), None

    #> ch13
    @staticmethod
    def jvp(ctx, ta, _):
        (out,) = ctx.results
        return ta - (ta * out.exp()).sum(ctx.dim, keepdim=True)
    #< ch13


def _rows(x, dim):
    """Whether ``x`` is a batch of float rows, reduced along them."""
    return x.ndim == 2 and dim == 1 and x.dtype.kind == "f"


def _short_rows(x, dim):
    """Whether ``x`` is a batch of short rows (a few classes each), reduced
    along them: NumPy's reductions along short rows are slow (a loop per
    row), so log_softmax reduces them another way."""
    return _rows(x, dim) and x.shape[1] <= 64


def _row_max(x, dim):
    """``x.max(dim, keepdims=True)``. For short rows, the rows' maxima are
    taken column by column (the rows transposed, one contiguous copy): the
    same comparisons, element by element, several times faster. (Only a
    tie can make the order matter: a row whose largest numbers are +0.0
    and -0.0. Its maximum's sign then changes no result: the row's sum of
    exponentials is at least 2, so each zero's ``±0.0 - log_sum`` is
    ``-log_sum``.)"""
    if _short_rows(x, dim):
        return np.maximum.reduce(np.ascontiguousarray(x.T), axis=0)[:, None]
    return x.max(axis=dim, keepdims=True)


def _row_sum(x, dim):
    """``x.sum(dim, keepdims=True)``. For a batch of rows, each row's sum
    as a matrix-vector product, which NumPy's BLAS does several times
    faster than its reduction over short rows (10 classes): the same sum,
    rounded in another order."""
    if _rows(x, dim):
        return x @ _ones_column(x.shape[1], x.dtype)
    return x.sum(axis=dim, keepdims=True)


def _log_softmax_backward(grad, out, dim):
    """``grad - exp(out) * grad.sum(dim)`` for log_softmax's output ``out``."""
    total = _row_sum(grad, dim)
    if (dim == grad.ndim - 1 or not grad.ndim) and (
            np.count_nonzero(total) != total.size):  # a row sums to zero
        # PyTorch's kernel for the last dim (and a 0-dim tensor) sums a row
        # from its first element, so a row of -0.0 sums to -0.0 (NumPy's
        # from +0.0): then its gradient is -0.0 - exp(out) * -0.0, +0.0.
        negative_zeros = np.signbit(grad).all(axis=dim, keepdims=True) & (
            total == 0)
        total = np.where(negative_zeros, -total, total)
    return grad - np.exp(out) * total


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
        return Tensor(_log_softmax_backward(grad.data, out.data, dim))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, out = ctx.saved_tensors
        dim = ctx.dim
        need_grad, need_out = ctx.needs_input_grad[:2]
        # result = g - exp(out) * sum(g): linear in g. PyTorch's formulas,
        # grouped as its derivatives.yaml groups them (each its own exp).
        grad_g = (grad_grad - (grad_grad * out.exp()).sum(dim, keepdim=True)
                  if need_grad else None)
        grad_out = ((-grad.sum(dim, keepdim=True) * out.exp()) * grad_grad
                    if need_out else None)
        return grad_g, grad_out, None

    #> ch13
    @staticmethod
    def jvp(ctx, tgrad, tout, _):
        grad, out, _ = ctx.primals
        softmax = out.exp()
        return (LogSoftmaxBackwardData.apply(tgrad, out, ctx.dim)
                - tout * softmax * grad.sum(ctx.dim, keepdim=True))
    #< ch13


class NllLoss(Function):
    """The loss ``-log_probs[i, target[i]]`` of each row ``i``, reduced.

    Rows whose target is ``ignore_index`` are left out: the result is the
    mean (the default), the sum, or each row's (``reduction="none"``, an
    ignored row giving 0)."""
    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, labels, reduction="mean", ignore_index=-100,
                every_label_a_class=False):
        # The labels tensor comes in a tuple, so that it gets no edge (as in
        # PyTorch), and is saved itself, as PyTorch saves it.
        (labels,) = labels
        target = labels.data
        rows, taken = np.arange(len(target)), target
        classes = log_probs.data.shape[1]
        # Rows to ignore, unless none can be: ignore_index is not a class
        # and every label is one (as nll_loss found; read as unsigned, a
        # negative label is past the last class). One reduction, not a
        # mask: this runs at every step of a training loop.
        if (0 <= ignore_index < classes or not target.size or not (
                every_label_a_class
                or target.view(np.uint64).max() < classes)):
            kept = target != ignore_index
            if not kept.all():  # ignored rows count for nothing
                rows = rows[kept]
                taken = target[rows]
        try:
            picked = log_probs.data[rows, taken]
        except IndexError:  # a label past the last class
            bad = target[target >= log_probs.shape[1]][0]
            raise IndexError(f"Target {bad} is out of bounds.") from None
        dtype = log_probs.dtype
        # What PyTorch's node saves, in its order: the input, the target
        # and the total weight (the rows counted; 0 when not reduced).
        count = len(rows) if reduction != "none" else 0
        total_weight = Tensor(np.asarray(count, dtype))
        ctx.save_for_backward(log_probs, labels, total_weight)
        ctx.how = rows, reduction, ignore_index
        if reduction == "none":
            out = np.zeros(len(target), dtype)
            out[rows] = -picked
            return Tensor(out)
        # 0 - sum, not -sum: PyTorch subtracts from a zero, so a loss of
        # zero is +0.0, never -0.0.
        loss = 0.0 - picked.sum()
        if reduction == "mean" and count:
            loss = loss / dtype.type(count)
        elif reduction == "mean":  # every row ignored: 0 / 0, NaN as PyTorch
            with np.errstate(invalid="ignore", divide="ignore"):
                loss = loss / dtype.type(count)
        return Tensor(np.asarray(loss, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        log_probs, target, total_weight = ctx.saved_tensors
        how = ctx.how
        if not grad_mode.state.enabled:  # not recorded: the numbers alone
            return Tensor(_nll_loss_backward(
                grad.data, log_probs.shape, target.data,
                total_weight.data, how)), None, None, None, None
        return (NllLossBackward.apply(grad, log_probs, (target,),
                                      total_weight.data, how),
                None, None, None, None)

    #> ch13
    jvp = linear_in(0)
    #< ch13


def _nll_loss_backward(grad, shape, target, total_weight, how):
    """Zeros, and the gradient written at each counted row's target:
    ``-(grad / total_weight)`` for the mean, ``-grad`` for the sum and for
    each row: PyTorch's ``nll_loss_backward`` (written, so that an inf or
    NaN gradient reaches the targets only)."""
    rows, reduction, _ = how
    out = np.zeros(shape, grad.dtype)
    if reduction == "mean":
        out[rows, target[rows]] = -(grad / total_weight)
    elif reduction == "sum":
        out[rows, target[rows]] = -grad
    else:
        out[rows, target[rows]] = -grad[rows]
    return out


class NllLossBackward(Function):
    """nll_loss's gradient, an operation of its own.

    As PyTorch's ``nll_loss_backward``: linear in ``grad``; its input
    ``log_probs`` only gives its shape (its derivative is zero, as
    PyTorch's)."""
    node_name = "NllLossBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, log_probs, labels, total_weight, how):
        (labels,) = labels  # in a tuple: no edge, as in NllLoss
        ctx.save_for_backward(labels)
        ctx.shape, ctx.how = log_probs.shape, how
        return Tensor(_nll_loss_backward(grad.data, log_probs.shape,
                                         labels.data, total_weight, how))

    @staticmethod
    def backward(ctx, grad_grad):
        (target,) = ctx.saved_tensors
        need_grad, need_log_probs = ctx.needs_input_grad[:2]
        _, reduction, ignore_index = ctx.how
        # The gradient's own gradient is nll_loss again, with the same
        # rows and reduction.
        return (NllLoss.apply(grad_grad, (target,), reduction, ignore_index)
                if need_grad else None,
                Tensor(np.zeros(ctx.shape, grad_grad.dtype))
                if need_log_probs else None, None, None, None)

    #> ch13
    jvp = linear_in(0)
    #< ch13
