"""Reductions: ``sum``, ``mean`` and ``max``, over every element or along
dims, each with PyTorch's two overloads (``SumBackward0`` without dims,
``SumBackward1`` with them); their gradients spread back over the reduced
dims.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function
from toygrad.dtypes import canonical_dim, canonical_dims, torch_name
from toygrad.ops.common import (
    _constant, _sum, saved_before_checks, written_below_autograd,
    written_by_a_formula)
#> ch13
from toygrad.ops.common import linear_in
#< ch13
from toygrad.ops.indexing import MaskedFill, _value_selecting_backward
from toygrad.ops.shapes import Unsqueeze
from toygrad.tensor import MaxResult, Tensor


# Reductions.

def reduce(all_function, dim_function, x, dim, keepdim):
    """``x.sum(dim, keepdim)`` or ``x.mean(...)``: PyTorch's two overloads.

    Without ``dim`` (and without ``keepdim``) it is the overload that
    reduces everything (``SumBackward0``); else the one with dims
    (``SumBackward1``), where an empty tuple means every dim too.
    """
    if all_function is MeanAll and x.data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either "
            "a floating point or complex dtype. Got: " + torch_name(x.dtype))
    if dim is None and not keepdim:
        out = all_function.apply(x)
    else:
        dims = canonical_dims(dim, x.ndim)
        # An empty tuple reduces every dim, as PyTorch's ``dim=[]``.
        out = dim_function.apply(x, dims, keepdim)
    if x._is_inference:  # sum_out's fill_ (or zero_), mean's div_ after it
        written_below_autograd(out, 1 if all_function is SumAll else 2, x)
    return out


def _mean(array, dims, keepdim):
    """``array``'s mean over ``dims``, as PyTorch computes it on the CPU:
    the sum, divided by the number of elements summed (``mean_out`` in
    aten/src/ATen/native/ReduceOps.cpp). The mean of nothing is 0 / 0, a
    nan with no warning (NumPy's ``mean`` warns "Mean of empty slice")."""
    total = _sum(array, dims, keepdim)
    count = int(np.prod([array.shape[d] for d in dims] if dims and array.ndim
                        else array.shape))
    with np.errstate(invalid="ignore"):
        return np.asarray(np.divide(total, count, dtype=array.dtype))


def _expand_back(grad, shape, dims, keepdim):
    """Spread the gradient of a reduction over ``dims`` back to ``shape``.

    PyTorch's ``sum_backward``: the reduced dims put back one
    ``unsqueeze`` at a time (in increasing order), then one ``expand``;
    with no dims (every dim reduced), the expand alone.
    """
    if not keepdim and shape and dims:
        if grad_mode.state.enabled:  # recorded: PyTorch's nodes
            for d in sorted(dims):
                grad = Unsqueeze.apply(grad, d)
        else:  # the same numbers, in one view
            kept = list(shape)
            for d in dims:
                kept[d] = 1
            grad = grad.reshape(tuple(kept))
    return grad.expand(shape)


class DivScalar(Function):
    """``grad / count``, the division of ``mean``'s gradient formula.

    PyTorch's ``div.Scalar`` (``DivBackward1``), which ``mean_backward``
    calls."""
    node_name = "DivBackward1"

    @staticmethod
    def forward(ctx, a, number):
        ctx.number = number
        return Tensor(np.divide(a.data, number, dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return DivScalar.apply(grad, ctx.number), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class SumAll(Function):
    node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return Tensor(_sum(a.data, None, False))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Sum(Function):
    """``a.sum(dims, keepdim)``; ``dims == ()`` reduces every dim."""
    node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return Tensor(_sum(a.data, dims, keepdim))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class MeanAll(Function):
    node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return Tensor(_mean(a.data, None, False))

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's mean_backward: the gradient spread, then divided.
        return DivScalar.apply(grad.expand(ctx.shape),
                               int(np.prod(ctx.shape)))

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Mean(Function):
    """``a.mean(dims, keepdim)``; ``dims == ()`` reduces every dim."""
    node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return Tensor(_mean(a.data, dims, keepdim))

    @staticmethod
    def backward(ctx, grad):
        shape, dims = ctx.shape, ctx.dims
        count = int(np.prod([shape[d] for d in dims] if dims and shape
                            else shape))
        return (DivScalar.apply(_expand_back(grad, shape, dims, ctx.keepdim),
                                count), None, None)

    #> ch13
    jvp = linear_in(0)
    #< ch13


def reduce_max(x, dim=None, keepdim=False):
    """``x.max()``, or ``x.max(dim)``: (values, indices) along ``dim``."""
    if dim is None:
        if x.data.size == 0:
            # Chapter 11: MaxBackward1 saves self before the kernel checks.
            saved_before_checks(x if x.requires_grad else None, inputs=(x,))
            raise RuntimeError(
                "max(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' "
                "argument.")
        out = MaxAll.apply(x)
        if x._is_inference:  # max's kernel: empty, then fill_
            written_below_autograd(out, 1, x)
        return out
    dim = canonical_dim(dim, x.ndim)
    if x.ndim and x.shape[dim] == 0:
        raise IndexError(
            f"max(): Expected reduction dim {dim} to have non-zero size.")
    values, indices = MaxDim.apply(x, dim, keepdim)
    if x._is_inference:
        # max.dim's kernel: a 0-dim input's values and indices by fill_ and
        # copy_ (one each); else without keepdim, each output is unsqueezed
        # in place (unsqueeze_) and squeezed back (squeeze_): two each.
        writes = 1 if not x.ndim else 0 if keepdim else 2
        written_below_autograd(values, writes, x)
        written_below_autograd(indices, writes, x)
    return MaxResult(values, indices)


class MaxAll(Function):
    node_name = "MaxBackward1"

    @staticmethod
    def forward(ctx, a):
        out = a.data.max()
        if out == 0 and a.data.dtype.kind == "f" and _holds_both_zeros(a.data):
            raise NotImplementedError(_MAX_OF_SIGNED_ZEROS)
        out = Tensor(out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return _evenly_distribute(grad, a.data, out.data)

    #> ch13
    @staticmethod
    def jvp(ctx, ta):
        # The mean of the tangents where the max is, as PyTorch's
        # evenly_read_jvp: sum(mask * (t / count)), its mask input == max
        # (none where the max is nan: then 0 * (t / 0), a nan).
        (a,), (out,) = ctx.primals, ctx.results
        where = a.data == out.data
        with np.errstate(divide="ignore", invalid="ignore"):
            share = ta / Tensor(np.asarray(where.sum()))
            return (_constant(where.astype(ta.dtype)) * share).sum()
    #< ch13


_MAX_OF_SIGNED_ZEROS = (
    "toygrad does not support max() of a tensor whose largest value is zero "
    "held as both 0.0 and -0.0: which of the two PyTorch returns follows the "
    "vector lanes of its CPU kernel, so it depends on the machine (x + 0.0 "
    "turns every -0.0 into 0.0)")


def _holds_both_zeros(array):
    zeros = array == 0
    return bool(np.signbit(array[zeros]).any() and
                not np.signbit(array[zeros]).all())


def _max_mask(array, value):
    """Where ``array`` holds its max ``value``: its NaNs if that is NaN."""
    if np.isnan(value):
        return np.isnan(array)
    return array == value


def _evenly_distribute(grad, array, value):
    """The gradient of ``max()``: ``grad`` shared evenly among the elements
    equal to the max, zeros (written, not multiplied) elsewhere.

    PyTorch's ``evenly_distribute_backward`` on the CPU:
    ``zeros.masked_fill_(mask, grad / mask.sum())``, so an inf or NaN
    gradient reaches only the max's elements.
    """
    mask = _max_mask(array, value)
    count = np.asarray(mask.sum())  # int64, as PyTorch's mask.sum()
    zeros = Tensor(np.zeros(array.shape, grad.dtype))
    if not grad_mode.state.enabled:  # not recorded: the numbers alone
        zeros.data[mask] = grad.data / count.astype(grad.dtype)
        return written_by_a_formula(zeros, 1)  # masked_fill_
    return written_by_a_formula(
        MaskedFill.apply(zeros, mask, grad / Tensor(count)), 1)


class MaxDim(Function):
    node_name = "MaxBackward0"

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        data = a.data if a.ndim else a.data.reshape(1)
        indices = np.expand_dims(data.argmax(axis=dim), dim)
        values = np.take_along_axis(data, indices, axis=dim)
        if not keepdim or not a.ndim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        values, indices = Tensor(values), Tensor(indices)
        ctx.mark_non_differentiable(indices)
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return _value_selecting_backward(grad_values, indices.data, ctx.shape,
                                         ctx.dim, ctx.keepdim), None, None

    #> ch13
    @staticmethod
    def jvp(ctx, ta, _dim, _keepdim):
        values, indices = ctx.results
        data = ta.data if ta.ndim else ta.data.reshape(1)
        index = indices.data if ctx.keepdim and ta.ndim else np.expand_dims(
            indices.data, ctx.dim)
        picked = np.take_along_axis(data, index, axis=ctx.dim)
        return Tensor(picked.reshape(values.shape)), None
    #< ch13
