"""Indexing: ``x[key]`` with ints, slices, ``None`` and ``...`` (views, as
PyTorch's basic indexing), ``unbind`` and ``stack``; and the operations
that pick or place elements by a mask or an index (``masked_fill``,
``masked_select``, ``scatter``, ``gather``), which the gradients of
``max`` and of in-place writes are made of. Writing ``x[key] = value``
is an in-place operation: ``toygrad.views.setitem``.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function
from toygrad.ops.common import written_by_a_formula
#> ch13
from toygrad.ops.common import linear_in
#< ch13
from toygrad.ops.shapes import Alias, Unsqueeze
from toygrad.tensor import Tensor


# Indexing with ints, slices, None and ``...``, as PyTorch's basic indexing.

def getitem(x, key):
    """``x[key]``, one dimension at a time, recorded as PyTorch records it."""
    result = _take(x, key, setting=False)
    if result is x:  # nothing taken, as in x[...] or x[:, :]
        result = Alias.apply(x)
    return result


def _take(x, key, setting):
    """``x[key]`` as views of ``x``, or ``x`` itself if nothing is taken.

    ``x[a:b]`` alone is always a new slice when read, as in PyTorch; when
    written (``setting``) a slice that takes a whole dim is skipped.
    """
    single = not isinstance(key, tuple)
    items = (key,) if single else key
    for item in items:
        if not (item is None or item is Ellipsis
                or isinstance(item, slice) or _is_index(item)):
            _unsupported_index(item)
    used = sum(1 for item in items if item is not None and item is not
               Ellipsis)
    if used > x.ndim:
        if x.ndim == 0 and single and _is_index(key):  # as PyTorch's
            if int(key) != 0:
                raise IndexError(f"index {int(key)} is out of bounds for "
                                 "dimension 0 with size 0")
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                "Python or `tensor.item<T>()` in C++ to convert a 0-dim "
                "tensor to a number")
        if x.ndim == 0 and single and isinstance(key, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension "
                         f"{x.ndim}")
    if single and isinstance(key, slice) and not setting:
        return _slice(x, 0, key, always=True)
    result, dim = x, 0
    for item in items:
        if item is None:
            result = Unsqueeze.apply(result, dim)
            dim += 1
        elif item is Ellipsis:
            dim += x.ndim - used
        elif isinstance(item, slice):
            result = _slice(result, dim, item, always=False)
            dim += 1
        else:
            size = result.shape[dim]
            index = int(item)
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for "
                                 f"dimension {dim} with size {size}")
            result = Select.apply(result, dim, index % size)
    return result


def _is_index(item):
    return isinstance(item, (int, np.integer)) and not isinstance(
        item, (bool, np.bool_))


def _unsupported_index(item):
    if isinstance(item, (float, np.floating)):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or "
            "byte Variables are valid indices (got float)")
    kind = "a bool" if isinstance(item, (bool, np.bool_)) else \
        f"a {type(item).__name__}"
    raise NotImplementedError(
        f"toygrad supports basic indexing only (ints, slices, None, ...), "
        f"not indexing with {kind}: PyTorch's advanced indexing "
        "(IndexBackward0) is not implemented")


def _slice(x, dim, item, always):
    """``x`` sliced along ``dim`` (a full slice skipped unless ``always``)."""
    if item.step is not None and int(item.step) == 0:
        raise ValueError("slice step cannot be zero")
    if item.step is not None and int(item.step) < 0:
        raise ValueError("step must be greater than zero")
    size = x.shape[dim]
    # PyTorch skips a slice that takes the whole dim as written: from 0 (not
    # -size), to size or beyond, step 1.
    if not always and item.start in (None, 0) and item.step in (None, 1) and (
            item.stop is None or int(item.stop) >= size):
        return x
    start, stop, step = item.indices(size)
    stop = max(stop, start)
    return Slice.apply(x, dim, slice(start, stop, step))


def _index(dim, item):
    """A NumPy index that applies ``item`` to dimension ``dim``.

    The trailing ``...`` makes NumPy return a view even when every dimension
    is indexed by an int (a 0-dim array, not a copied scalar): an element is
    a view of its tensor, as in PyTorch, so ``x[0] = 5.0`` changes ``x``.
    """
    return (slice(None),) * dim + (item, Ellipsis)


class Select(Function):
    """``a[..., index, ...]``: one position of one dimension (an int)."""
    node_name = "SelectBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, item):
        ctx.shape, ctx.dim, ctx.item = a.shape, dim, item
        return Tensor(Select.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return array[_index(ctx.dim, ctx.item)]

    @staticmethod
    def backward(ctx, grad):
        embed = ctx._forward_cls.embed  # SelectBackward, or SliceBackward
        return embed.apply(grad, ctx.shape, ctx.dim, ctx.item), None, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


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
        take = ctx._forward_cls.take_back  # Select, or Slice
        return take.apply(grad, ctx.dim, ctx.item), None, None, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class SliceBackward(SelectBackward):
    node_name = "SliceBackwardBackward0"


Select.embed, Slice.embed = SelectBackward, SliceBackward
SelectBackward.take_back, SliceBackward.take_back = Select, Slice


class Unbind(Function):
    """``x.unbind(dim)``, and iterating over a tensor: one node, n views."""
    node_name = "UnbindBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return tuple(Tensor(Unbind.take(ctx, a.data, i))
                     for i in range(a.shape[dim]))

    @staticmethod
    def take(ctx, array, output_nr=0):
        return array[_index(ctx.dim, output_nr)]

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(ctx.dim, *grads), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Stack(Function):
    """Tensors of one shape stacked along a new dim (unbind's gradient)."""
    node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        return Tensor(np.stack([t.data for t in tensors], dim))

    @staticmethod
    def backward(ctx, grad):
        return (None,) + Unbind.apply(grad, ctx.dim)

    #> ch13
    @staticmethod
    def jvp(ctx, _, *tangents):
        return Stack.apply(ctx.dim, *tangents)
    #< ch13


class Fill(Function):
    """``a.fill_(value)`` with a 0-dim tensor ``value``.

    It is how ``x[...] = 2.0`` writes a number into a whole tensor (see
    setitem)."""
    node_name = "FillBackward3"

    @staticmethod
    def forward(ctx, a, value):
        return Tensor(np.full(a.shape, value.data, a.dtype))

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's formulas: zeros (written, not grad * 0, so an inf or
        # NaN in grad does not become NaN) and the sum for the value.
        need_a, need_value = ctx.needs_input_grad
        return (Tensor(np.zeros_like(grad.data)) if need_a else None,
                grad.sum() if need_value else None)

    #> ch13
    @staticmethod
    def jvp(ctx, ta, tvalue):  # chapter 13: the value's tangent, filled
        return Fill.apply(ta, tvalue)
    #< ch13


class MaskedFill(Function):
    """``a.masked_fill(mask, value)`` for a 0-dim tensor ``value``.

    Used inside a gradient formula (PyTorch's ``MaskedFillBackward1``)."""
    node_name = "MaskedFillBackward1"

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.save_for_backward(Tensor(mask))
        out = a.data.copy()
        out[mask] = value.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        need_a, _, need_value = ctx.needs_input_grad
        zeros = Tensor(np.zeros((), grad.dtype))
        # PyTorch's masked_fill_backward: grad.masked_select(mask).sum().
        return (MaskedFill.apply(grad, mask.data, zeros) if need_a else None,
                None,
                MaskedSelect.apply(grad, mask.data).sum()
                if need_value else None)

    #> ch13
    jvp = linear_in(0, 2)
    #< ch13


class MaskedSelect(Function):
    """``a.masked_select(mask)``: the elements where ``mask`` is true.

    They come in a 1-D tensor. Used inside a gradient formula."""
    node_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, a, mask):
        ctx.save_for_backward(Tensor(mask), a)
        return Tensor(a.data[mask])

    @staticmethod
    def backward(ctx, grad):
        mask, a = ctx.saved_tensors
        zeros = Tensor(np.zeros(a.shape, grad.dtype))
        return MaskedScatter.apply(zeros, mask.data, grad), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class MaskedScatter(Function):
    """``a.masked_scatter(mask, source)``: ``source`` where ``mask`` is true.

    ``source``'s elements, in order (here ``mask`` has exactly as many true
    entries as ``source`` has elements)."""
    node_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, a, mask, source):
        ctx.save_for_backward(Tensor(mask))
        out = a.data.copy()
        out[mask] = source.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        need_a, _, need_source = ctx.needs_input_grad
        if need_a:
            raise NotImplementedError(
                "toygrad's masked_scatter is differentiable in its source "
                "only")
        return (None, None,
                MaskedSelect.apply(grad, mask.data) if need_source else None)

    #> ch13
    jvp = linear_in(0, 2)
    #< ch13


def _value_selecting_backward(grad, index, shape, dim, keepdim):
    """The gradient of ``max(dim)``: zeros, with ``grad`` written where
    ``index`` points along ``dim``.

    PyTorch's ``value_selecting_reduction_backward``: the reduced dim put
    back (``unsqueeze``), then ``zeros.scatter_(dim, index, grad)``.
    """
    if not keepdim and shape:
        grad = grad.unsqueeze(dim) if grad_mode.state.enabled else Tensor(
            np.expand_dims(grad.data, dim))
        index = np.expand_dims(index, dim)
    zeros = Tensor(np.zeros(shape, grad.dtype))
    # Two writes in PyTorch's formula, as its result's version shows.
    return written_by_a_formula(Scatter.apply(zeros, dim, index, grad), 2)


def _along(index, dim):
    """NumPy's index for the positions ``index`` names along ``dim`` (as
    ``scatter``/``gather`` read it): ``index`` there, ranges elsewhere."""
    ndim = index.ndim
    return tuple(index if d == dim else np.arange(n).reshape(
        (n,) + (1,) * (ndim - d - 1)) for d, n in enumerate(index.shape))


class Scatter(Function):
    """``a.scatter(dim, index, src)``: ``src`` written where ``index`` points.

    Along ``dim``, into a copy of ``a`` (PyTorch's ``ScatterBackward0``)."""
    node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim = dim
        ctx.save_for_backward(Tensor(index))
        out = a.data.copy()
        if out.ndim:
            out[_along(index, dim)] = src.data[
                tuple(slice(n) for n in index.shape)]
        else:  # a 0-dim tensor: its one element
            out[()] = src.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        need_a, _, _, need_src = ctx.needs_input_grad
        if need_a:
            raise NotImplementedError(
                "toygrad's scatter is differentiable in its src only")
        return (None, None, None,
                Gather.apply(grad, ctx.dim, index.data) if need_src else None)

    #> ch13
    jvp = linear_in(0, 3)
    #< ch13


class Gather(Function):
    """``a.gather(dim, index)``: the elements ``index`` points to.

    Along ``dim`` (PyTorch's ``GatherBackward0``)."""
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.dim = dim
        ctx.save_for_backward(Tensor(index), a)
        if not a.ndim:
            return Tensor(a.data.copy())
        return Tensor(a.data[_along(index, dim)])

    @staticmethod
    def backward(ctx, grad):
        index, a = ctx.saved_tensors
        zeros = Tensor(np.zeros(a.shape, grad.dtype))
        return ScatterAdd.apply(zeros, ctx.dim, index.data, grad), None, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class ScatterAdd(Function):
    """``a.scatter_add(dim, index, src)``: ``src`` added where ``index`` says.

    Along ``dim``, into a copy of ``a`` (PyTorch's
    ``ScatterAddBackward0``)."""
    node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim = dim
        ctx.save_for_backward(Tensor(index))
        out = a.data.copy()
        if out.ndim:
            np.add.at(out, _along(index, dim),
                      src.data[tuple(slice(n) for n in index.shape)])
        else:
            out += src.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        need_a, _, _, need_src = ctx.needs_input_grad
        return (grad if need_a else None, None, None,
                Gather.apply(grad, ctx.dim, index.data) if need_src else None)

    #> ch13
    jvp = linear_in(0, 3)
    #< ch13
