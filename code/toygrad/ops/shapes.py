"""Shapes: views of a tensor's numbers (``view``, ``permute``, ``t``,
``unsqueeze``, ``squeeze``, ``expand``), copies where a view cannot be
taken, and broadcasting undone: a broadcast input's gradient summed back
to its shape (``unbroadcast``, ``sum_to_size``).

A view operation's forward takes its output from the input's own memory
(its ``take``); ``Function.apply`` makes the output a view of the input's
base (``toygrad.autograd.function.track``).
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function, untracked
#> ch13
from toygrad.autograd.function import dual
#< ch13
from toygrad.dtypes import canonical_dim, tensor_type
from toygrad.ops.common import (
    _sum_down, broadcast_shape, written_below_autograd)
#> ch13
from toygrad.ops.common import linear_in
#< ch13
from toygrad.tensor import Tensor


# Task 5.1: broadcasting's gradient is a sum
def unbroadcast(grad, shape):
    """Sum ``grad`` down to ``shape``: undo the broadcasting of a forward.

    When an input of shape ``shape`` was broadcast to a larger result, each
    of its elements was used several times, so its gradient is the sum of the
    gradients of all its copies: over the leading dimensions the input did
    not have, and over the dimensions where it had size 1. Recorded as
    PyTorch's ``sum_to`` records it: one sum (keeping the dims), then a view
    without the leading ones.
    """
    have = grad.data.shape
    if have == shape:
        return grad
    if not shape:
        return grad.sum()
    lead = len(have) - len(shape)
    dims = tuple(range(lead)) + tuple(
        i for i in range(lead, len(have))
        if shape[i - lead] == 1 and have[i] != 1)
    #> ch05 until ch13
    #| if not grad_mode.state.enabled:
    #< ch05 until ch13
    #> ch13
    if not (grad_mode.state.enabled or dual.level >= 0):
    #< ch13
        return _sum_to_unrecorded(grad, dims, shape)  # the same, faster
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return View.apply(grad, shape) if lead else grad


def _sum_to_unrecorded(grad, dims, shape):
    """``unbroadcast`` when nothing is recorded: the sum in one NumPy step,
    then (as PyTorch's) a view of it without the leading dims."""
    summed = Tensor(_sum_down(grad.data, dims))
    if len(shape) == summed.data.ndim:
        return summed
    ctx = View._backward_cls()
    ctx.shape, ctx.new_shape = summed.shape, shape
    return untracked(View, summed, View.take(ctx, summed.data), ctx)


# Shapes. These return views: tensors that share the input's numbers (and
# its version counter), as PyTorch's do. Each view operation (``is_view``)
# says how to take the same view of another array (``take``), which is how
# an in-place change through a view finds its way into the base (see
# toygrad.views).

def _resolve_shape(shape, numel):
    """``shape`` with its one ``-1`` filled in, checked against ``numel``."""
    shape = tuple(int(size) for size in shape)
    unknown = [i for i, size in enumerate(shape) if size == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([size for size in shape if size != -1]))
    if any(size < -1 for size in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if unknown and known and numel % known == 0:
        shape = shape[:unknown[0]] + (numel // known,) + shape[unknown[0] + 1:]
    elif unknown or known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of "
                           f"size {numel}")
    return shape


def _can_view(array, shape):
    """Whether NumPy can give ``array`` this shape without copying."""
    try:
        array.view().shape = shape
    except AttributeError:
        return False
    return True


def view(x, shape):
    shape = _resolve_shape(shape, x.data.size)
    if not _can_view(x.data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride "
            "(at least one dimension spans across two contiguous subspaces). "
            "Use .reshape(...) instead.")
    return View.apply(x, shape)


def reshape(x, shape):
    """A view when the numbers allow one, else a copy (as PyTorch)."""
    shape = _resolve_shape(shape, x.data.size)
    if x.data.flags.c_contiguous:
        return View.apply(x, shape)
    if _can_view(x.data, shape):  # a view with other strides
        return ReshapeAlias.apply(x, shape)
    return UnsafeView.apply(Clone.apply(x), shape)  # copy into order first


class View(Function):
    node_name = "ViewBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape, ctx.new_shape = a.shape, shape
        return Tensor(View.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        view = array.view()
        view.shape = ctx.new_shape
        return view

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class ReshapeAlias(View):
    """A reshape that is a view with other strides (not a plain view)."""
    node_name = "ReshapeAliasBackward0"


class UnsafeView(Function):
    """A reshape of a fresh copy: PyTorch does not track it as a view."""
    node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return Tensor(a.data.reshape(shape))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Clone(Function):
    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(a.data.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Alias(Function):
    """``x[...]``: a new tensor for the same numbers."""
    node_name = "AliasBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return Tensor(Alias.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return array.view()

    @staticmethod
    def backward(ctx, grad):
        return grad

    #> ch13
    jvp = linear_in(0)
    #< ch13


def permute(x, dims):
    if len(dims) != x.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input "
            "does not match the length of the desired ordering of dimensions "
            f"i.e. input.dim() = {x.ndim} is not equal to len(dims) = "
            f"{len(dims)}")
    dims = tuple(canonical_dim(d, x.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(x, dims)


class Permute(Function):
    node_name = "PermuteBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return Tensor(Permute.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return array.transpose(ctx.dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(tuple(np.argsort(ctx.dims).tolist())), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


def transpose(x, dim0, dim1):
    return Transpose.apply(x, canonical_dim(dim0, x.ndim),
                           canonical_dim(dim1, x.ndim))


class Transpose(Function):
    node_name = "TransposeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = dim0, dim1
        return Tensor(Transpose.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return np.swapaxes(array, *ctx.dims) if array.ndim else array.view()

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


def t(x):
    if x.data.ndim > 2:
        raise RuntimeError("t() expects a tensor with <= 2 dimensions, but "
                           f"self is {x.ndim}D")
    return T.apply(x)


class T(Function):
    """The transpose of a matrix, ``a.t()``."""
    node_name = "TBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return Tensor(a.data.T)  # T.take, written out: it runs very often

    @staticmethod
    def take(ctx, array):
        return array.T

    @staticmethod
    def backward(ctx, grad):
        # A view of grad, as PyTorch's grad.t(): it may become a leaf's
        # .grad as it is (Tensor._can_steal), sharing grad's memory and
        # version counter.
        #> ch05 until ch13
        #| if grad_mode.state.enabled:
        #< ch05 until ch13
        #> ch13
        if grad_mode.state.enabled or dual.level >= 0:
        #< ch13
            return T.apply(grad)
        return untracked(T, grad, grad.data.T)

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Unsqueeze(Function):
    node_name = "UnsqueezeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return Tensor(Unsqueeze.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        # PyTorch's inferUnsqueezeGeometry: the new dim's stride is
        # sizes[dim] * strides[dim], or 1 at the end (NumPy's expand_dims
        # reshapes, and picks other strides for it).
        dim, strides = ctx.dim, list(array.strides)
        strides.insert(dim, array.itemsize if dim == array.ndim
                       else array.shape[dim] * array.strides[dim])
        shape = array.shape[:dim] + (1,) + array.shape[dim:]
        return np.lib.stride_tricks.as_strided(array, shape, strides)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


def squeeze(x, dim=None):
    if dim is None:
        return Squeeze.apply(x, tuple(i for i, size in enumerate(x.shape)
                                      if size == 1))
    if isinstance(dim, (tuple, list)):
        raise NotImplementedError(
            "toygrad's squeeze takes one dim or none, not a tuple of dims")
    dim = canonical_dim(dim, x.ndim)
    dims = (dim,) if x.ndim and x.shape[dim] == 1 else ()
    return SqueezeDim.apply(x, dims)


class Squeeze(Function):
    """``x.squeeze()``: every dim of size 1 removed."""
    node_name = "SqueezeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.shape, ctx.dims = a.shape, dims
        return Tensor(Squeeze.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return np.squeeze(array, ctx.dims)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's unsqueeze_to (derivatives.yaml's squeeze entries, in
        # torch/csrc/autograd/FunctionsManual.cpp): one unsqueeze per
        # squeezed dim, in increasing order (UnsqueezeBackward0 nodes under
        # create_graph, and unsqueeze's strides); none, the gradient itself.
        for dim in ctx.dims:
            grad = grad.unsqueeze(dim)
        return grad, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class SqueezeDim(Squeeze):
    """``x.squeeze(dim)``: that dim removed if its size is 1."""
    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    """The squeeze ``matmul`` uses to drop a vector's added dim.

    PyTorch squeezes its own fresh result in place (``squeeze_``), so the
    result is not a view of anything.
    """
    node_name = "SqueezeBackward4"
    is_view = False


def expand(x, shape):
    return Expand.apply(x, expanded_shape(x, shape))


def expanded_shape(x, shape):
    """``shape`` with its -1s filled in, or PyTorch's error if ``x`` cannot
    be expanded to it."""
    shape = tuple(int(size) for size in shape)
    if len(shape) < x.ndim:
        raise RuntimeError(
            f"expand({tensor_type(x.dtype)}{{{list(x.shape)}}}, "
            f"size={list(shape)}): the number of sizes provided "
            f"({len(shape)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({x.ndim})")
    lead = len(shape) - x.ndim
    final = list(shape)
    for i in reversed(range(len(shape))):  # from the last, as PyTorch
        size = shape[i]
        if i < lead:
            if size < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) isn't allowed "
                    f"in a leading, non-existing dimension {i}")
            continue
        old = x.shape[i - lead]
        if size == -1:
            final[i] = old
        elif old != size and old != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) must match the "
                f"existing size ({old}) at non-singleton dimension {i}.  "
                f"Target sizes: {list(shape)}.  Tensor sizes: "
                f"{list(x.shape)}")
    return tuple(final)


class Expand(Function):
    node_name = "ExpandBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape, ctx.new_shape = a.shape, shape
        return Tensor(Expand.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        if array.shape == ctx.new_shape:  # nothing repeated: writable
            return array[...]
        # Read-only, as NumPy's broadcast_to (the writes that may go
        # through an expand go through its base), with the strides of
        # PyTorch's inferExpandGeometry: 0 for a repeated dim and for every
        # dim of an expanded 0-dim tensor; a new leading dim of size 1
        # takes the next dim's size * stride (broadcast_to gives 0).
        shape, strides = ctx.new_shape, [0] * len(ctx.new_shape)
        lead = len(shape) - array.ndim
        if array.ndim:
            for i in reversed(range(len(shape))):
                if i >= lead:
                    size = array.shape[i - lead]
                    stride = array.strides[i - lead]
                else:
                    size, stride = 1, shape[i + 1] * strides[i + 1]
                strides[i] = stride if size == shape[i] else 0
        return np.lib.stride_tricks.as_strided(array, shape, strides,
                                               writeable=False)

    @staticmethod
    def backward(ctx, grad):
        return unbroadcast(grad, ctx.shape), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


def sum_to_size(x, shape):
    shape = tuple(shape)
    try:
        expanded = broadcast_shape(shape, x.shape)
    except RuntimeError:
        expanded = None
    if expanded != x.shape:
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to "
                           f"size {{{list(x.shape)}}}.")
    out = unbroadcast(x, shape)
    counted = (out._version_counter or [0])[0]  # by a Tensor.sum in it
    if x._is_inference and out is not x and not counted:
        written_below_autograd(out, 1, x)  # sum_to's sum: its fill_
    return out
