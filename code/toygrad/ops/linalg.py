"""Linear algebra: ``mm``, ``mv``, ``bmm``, ``@`` (``matmul``, with
PyTorch's folding of a batch into one matrix product) and ``addmm``, the
product a ``Linear`` layer records.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function
from toygrad.dtypes import c_name, torch_name
from toygrad.ops.common import (
    broadcast_shape, saved_by_each_other, written_below_autograd)
from toygrad.ops.shapes import (
    Clone, SqueezeDims, T, UnsafeView, unbroadcast)
from toygrad.tensor import Tensor


# Matrix products. ``matmul`` picks one as ``torch.matmul`` does.

def _same_dtype(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{c_name(a.dtype)} != {c_name(b.dtype)}")


def mm(a, b):
    if (a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]
            or a.dtype != b.dtype):
        saved_by_each_other(b, a)  # chapters 10, 11: saved before checks
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
            f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    _same_dtype(a, b)
    return Mm.apply(a, b)


def mv(a, v):
    if (a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]
            or a.dtype != v.dtype):
        saved_by_each_other(a, v)  # chapter 10: saved before the checks
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, "
                           f"{a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
            f"{a.shape[1]}), vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        names = [torch_name(t.dtype) for t in (v, a, v)]
        raise RuntimeError("addmv input tensors must have the same dtype, "
                           f"but got {names[0]}, {names[1]}, and {names[2]}")
    out = Mv.apply(a, v)
    if a._is_inference:  # mv's kernel: empty, then addmv_ into it
        written_below_autograd(out, 1, a, v)
    return out


def bmm(a, b):
    if (a.ndim != 3 or b.ndim != 3 or b.shape[:2] != (a.shape[0], a.shape[2])
            or a.dtype != b.dtype):
        saved_by_each_other(b, a)  # chapters 10, 11: saved before checks
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
            f"{b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected scalar type {torch_name(a.dtype)} but found "
            f"{torch_name(b.dtype)}")
    return Bmm.apply(a, b)


def _column_major(array):
    """Whether a matrix is stored column by column (a transposed matrix)."""
    item = array.itemsize
    return array.strides == (item, item * array.shape[0])


def _t(matrix):
    """``matrix.t()`` inside a gradient formula.

    Recorded (as ``TBackward0``) under ``create_graph``; otherwise the
    transpose is a temporary that only the next product reads, so it is
    taken directly, without the bookkeeping of a view.
    """
    if grad_mode.state.enabled:
        return T.apply(matrix)
    return Tensor(matrix.data.T)


def _grad_of_left(grad, right, column_major):
    """d(left @ right)/d(left): grad @ right.t(), computed as PyTorch's
    ``mm_mat1_backward`` does, in the layout the left matrix had."""
    if not grad_mode.state.enabled:  # not recorded: the product alone
        if column_major:
            return Tensor((right.data @ grad.data.T).T)
        return Tensor(grad.data @ right.data.T)
    if column_major:
        return _t(Mm.apply(right, _t(grad)))
    return Mm.apply(grad, _t(right))


def _grad_of_right(grad, left, column_major):
    """d(left @ right)/d(right): left.t() @ grad, computed as PyTorch's
    ``mm_mat2_backward`` does, in the layout the right matrix had (for
    ``x @ weight.t()``, the weight's own layout, so no copy is needed)."""
    if not grad_mode.state.enabled:  # not recorded: the product alone
        if column_major:
            return Tensor((grad.data.T @ left.data).T)
        return Tensor(left.data.T @ grad.data)
    if column_major:
        return _t(Mm.apply(_t(grad), left))
    return Mm.apply(_t(left), grad)


class Mm(Function):
    """``a @ b`` for two matrices (``torch.mm``)."""
    node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        ctx.column_major = _column_major(a.data), _column_major(b.data)
        return Tensor(a.data @ b.data)

    # Task 5.2: the two gradients of a matrix product
    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        a_columns, b_columns = ctx.column_major
        # Only the gradients the pass needs, b's first, in the order of
        # PyTorch's node (it shows in a create_graph pass's nodes).
        need_a, need_b = ctx.needs_input_grad
        grad_b = (_grad_of_right(grad, a, b_columns) if need_b and a
                  is not None else None)  # a.t() @ grad
        grad_a = (_grad_of_left(grad, b, a_columns) if need_a and b
                  is not None else None)  # grad @ b.t()
        return grad_a, grad_b

    #> ch13
    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        return ta.mm(b) + a.mm(tb)
    #< ch13


class Addmm(Function):
    """bias + a @ b, the operation behind ``nn.Linear``."""
    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, a, b):
        need_bias, need_a, need_b = ctx.needs_input_grad
        ctx.bias_shape = bias.shape
        # Saved in PyTorch's order: mat1 (for d/db), then mat2 (for d/da).
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        ctx.column_major = _column_major(a.data), _column_major(b.data)
        out = a.data @ b.data
        out += bias.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_bias, need_a, need_b = ctx.needs_input_grad  # narrowed
        a_columns, b_columns = ctx.column_major
        grad_a = (_grad_of_left(grad, b, a_columns) if need_a and b is not None
                  else None)
        grad_b = (_grad_of_right(grad, a, b_columns) if need_b and a
                  is not None else None)
        # The bias's gradient last: PyTorch's engine sums a broadcast
        # input's gradient down after the node's formulas (so its nodes
        # are recorded after theirs, and run first in a pass over them).
        return (unbroadcast(grad, ctx.bias_shape) if need_bias else None,
                grad_a, grad_b)

    #> ch13
    @staticmethod
    def jvp(ctx, tbias, ta, tb):
        _, a, b = ctx.primals
        return tbias + ta.mm(b) + a.mm(tb)
    #< ch13


class Mv(Function):
    node_name = "MvBackward0"

    @staticmethod
    def forward(ctx, a, v):
        need_a, need_v = ctx.needs_input_grad
        ctx.save_for_backward(a if need_v else None, v if need_a else None)
        return Tensor(a.data @ v.data)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        need_a, need_v = ctx.needs_input_grad  # narrowed by autograd.grad
        # d/da: the outer product grad ⊗ v, as PyTorch's at::outer writes
        # it: grad.reshape(n, 1) * v.
        return (grad.reshape(len(grad), 1) * v if need_a and v is not None
                else None,
                a.t().mv(grad) if need_v and a is not None else None)

    #> ch13
    @staticmethod
    def jvp(ctx, ta, tv):
        a, v = ctx.primals
        return ta.mv(v) + a.mv(tv)
    #< ch13


class Dot(Function):
    node_name = "DotBackward0"

    @staticmethod
    def forward(ctx, v, w):
        need_v, need_w = ctx.needs_input_grad
        ctx.save_for_backward(v if need_w else None, w if need_v else None)
        return Tensor(v.data @ w.data)

    @staticmethod
    def backward(ctx, grad):
        v, w = ctx.saved_tensors
        need_v, need_w = ctx.needs_input_grad  # narrowed by autograd.grad
        return (grad * w if need_v and w is not None else None,
                grad * v if need_w and v is not None else None)

    #> ch13
    @staticmethod
    def jvp(ctx, tv, tw):
        v, w = ctx.primals
        return Dot.apply(tv, w) + Dot.apply(v, tw)
    #< ch13


class Bmm(Function):
    node_name = "BmmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        # Saved in PyTorch's order: mat2 (for d/da), then self (for d/db).
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return Tensor(a.data @ b.data)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad  # narrowed by autograd.grad
        # The second operand's gradient first, as PyTorch's BmmBackward0.
        grad_b = (a.transpose(1, 2).bmm(grad) if need_b and a is not None
                  else None)
        return (grad.bmm(b.transpose(1, 2)) if need_a and b is not None
                else None, grad_b)

    #> ch13
    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        return ta.bmm(b) + a.bmm(tb)
    #< ch13


def matmul(a, b):
    """``a @ b`` for 1-D, 2-D and batched operands, split as PyTorch does."""
    if not isinstance(b, Tensor):
        raise TypeError("unsupported operand type(s) for @: 'Tensor' and "
                        f"'{type(b).__name__}'")
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        if a.shape != b.shape or a.dtype != b.dtype:
            saved_by_each_other(a, b)  # chapter 10: dot saves first
        # PyTorch's dot_check (aten/src/ATen/native/Blas.cpp): the dtypes
        # first, then the sizes.
        if a.dtype != b.dtype:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{torch_name(a.dtype)} and "
                f"{torch_name(b.dtype)}")
        if a.shape != b.shape:
            raise RuntimeError(
                "inconsistent tensor size, expected tensor [{0}] and src "
                "[{1}] to have the same number of elements, but got {0} and "
                "{1} elements respectively".format(a.shape[0], b.shape[0]))
        out = Dot.apply(a, b)
        if a._is_inference:  # dot's kernel: empty, then fill_
            written_below_autograd(out, 1, a, b)
        return out
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1 and b.ndim == 2:
        out = SqueezeDims.apply(mm(a.unsqueeze(0), b), (0,))
        # PyTorch squeezes its product in place (squeeze_): version 1. The
        # view's node is for that version, so it stays as it is.
        if not out._is_inference:  # (an inference tensor has no counter)
            if out._version_counter is None:
                out._version_counter = [0]
            out._version_counter[0] += 1
            out._view_version += 1
        return out
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if _should_fold(a, b):
        return _folded_matmul(a, b)
    return _batched_matmul(a, b)


# torch.matmul's N-d cases, as PyTorch's _matmul_impl and should_fold
# (aten/src/ATen/native/LinearAlgebra.cpp, linked in tests/test_matmul.py):
# the batch of the larger operand folded into the rows of one mm (or mv)
# where that needs no copy, or where the smaller operand requires grad (its
# gradient is then one mm, not a bmm summed over an expanded batch); else
# both expanded to the broadcast batch and multiplied by one bmm.

def _element_strides(x):
    return tuple(stride // x.data.itemsize for stride in x.data.strides)


def _should_fold(a, b):
    big, small = (a, b) if a.ndim >= b.ndim else (b, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:  # folding would need a transposed, copied result
        return False
    if big.data.size == 0:
        return True
    # t1 = the larger operand (b.mT() if it is b) viewed as
    # t1.view(-1, t1.size(-1)) without a copy: its first n-1 dims
    # contiguous, stride[i] == stride[i + 1] * size[i + 1].
    shape, strides = list(big.shape), list(_element_strides(big))
    if big is b:
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1]
               for i in range(big.ndim - 2))


def _folded_matmul(a, b):
    transpose = b.ndim > a.ndim
    big = b.transpose(-2, -1) if transpose else a
    small = (a if a.ndim == 1 else T.apply(a)) if transpose else b
    shape = big.shape[:-1]
    folded = big.reshape((int(np.prod(shape)), big.shape[-1]))
    if small.ndim == 1:
        return UnsafeView.apply(mv(folded, small), shape)
    out = UnsafeView.apply(mm(folded, small), shape + small.shape[1:])
    if not transpose:
        return out
    out = out.transpose(-2, -1)
    # .contiguous(): a copy (CloneBackward0) unless already in order
    return out if out.data.flags.c_contiguous else Clone.apply(out)


def _batched_matmul(a, b):
    if (a.ndim == 3 and b.ndim == 3 and a.shape[0] != b.shape[0]):
        # "If we're going to broadcast we force it to go through the
        # should_fold branch"
        if a.shape[0] == 1 and a.requires_grad:
            return matmul(a.squeeze(0), b)
        if b.shape[0] == 1 and b.requires_grad:
            return matmul(a, b.squeeze(0))
    n = a.shape[-2] if a.ndim > 1 else 1
    k = a.shape[-1]
    k2 = b.shape[-2] if b.ndim > 1 else b.shape[0]
    m = b.shape[-1] if b.ndim > 1 else 1
    batch = broadcast_shape(a.shape[:max(a.ndim - 2, 0)],
                            b.shape[:max(b.ndim - 2, 0)])
    count = int(np.prod(batch))
    a3 = a.expand(batch + (n, k)).reshape((count, n, k))
    if b.ndim == 1:
        b3 = b.expand(batch + (k2,)).reshape((count, k2)).unsqueeze(2)
    else:
        b3 = b.expand(batch + (k2, m)).reshape((count, k2, m))
    shape = batch + ((n,) if a.ndim > 1 else ()) + ((m,) if b.ndim > 1
                                                     else ())
    out = bmm(a3, b3)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return UnsafeView.apply(out, shape)
