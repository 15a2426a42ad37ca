"""Neural-network functions, as in ``torch.nn.functional``."""

import numpy as np

from toygrad import ops
from toygrad.autograd import Function, grad_mode
from toygrad.tensor import Tensor
from toygrad.dtypes import torch_name
from toygrad.tensor import _refuse as _refuse_arguments
from toygrad.tensor import _must_be_tensor


def relu(x):
    _must_be_tensor("relu", "input", 1, x)  # PyTorch's torch.relu(input)
    return ops.relu(x)


def linear(x, weight, bias=None):
    """``x @ weight.t() + bias``, recorded as PyTorch records it.

    As in PyTorch's ``linear`` (aten/src/ATen/native/Linear.cpp): a batch
    of rows with a bias is one ``addmm``; other contiguous inputs with a
    1-D bias are folded into rows for an ``addmm`` and unfolded after; the
    rest is a ``matmul`` followed by an in-place ``add_`` of the bias.
    """
    if not (isinstance(x, Tensor) and isinstance(weight, Tensor)
            and (bias is None or isinstance(bias, Tensor))):
        _refuse_linear_arguments(x, weight, bias)
    x_ndim = x.data.ndim
    if x_ndim == 0 or weight.data.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{x.ndim}D and {weight.ndim}D")
    # One cheap test; the cold path finds what is wrong and says it as
    # PyTorch does (NumPy would promote the dtypes or word its own error).
    dtype = weight.data.dtype
    if (x.data.dtype != dtype or x.data.shape[-1] != weight.data.shape[-1]
            or bias is not None and (
                bias.data.dtype != dtype or weight.data.ndim != 2
                or bias.data.ndim > 1
                or bias.data.shape[-1:] not in ((weight.data.shape[0],),
                                                (1,), ()))):
        _check_linear(x, weight, bias)
    if x_ndim == 2 and bias is not None:
        out = ops.Addmm.apply(bias, x, ops.t(weight))
        if bias._is_inference:  # addmm's kernel: copy_ of the bias first
            ops.written_below_autograd(out, 1, bias, x, weight)
        return out
    fusable = (bias is not None and bias.data.flags.c_contiguous
               and np.squeeze(bias.data).ndim == 1)
    if fusable and x.data.flags.c_contiguous:
        rows = x.reshape(-1, x.shape[-1])
        out = ops.Addmm.apply(bias, rows, weight.t())
        if bias._is_inference:  # as above
            ops.written_below_autograd(out, 1, bias, x, weight)
        return out.view(x.shape[:-1] + (out.shape[1],))
    out = x @ weight.t()
    if bias is not None:
        out.add_(bias)
    return out


def _refuse_linear_arguments(x, weight, bias):
    """PyTorch's TypeError for the first argument of ``linear`` that is
    not a tensor (the bias may be None)."""
    for position, (name, value) in enumerate(
            (("input", x), ("weight", weight), ("bias", bias)), 1):
        if not isinstance(value, Tensor) and (value is not None
                                              or name != "bias"):
            raise TypeError(f"linear(): argument '{name}' (position "
                            f"{position}) must be Tensor, not "
                            f"{type(value).__name__}")


def _check_linear(x, weight, bias):
    """PyTorch's errors of ``linear``, in its order, where it is one
    ``addmm(bias, x, weight.t())`` (see linear); elsewhere ``matmul(x,
    weight.t())`` and the ``add_`` of the bias that follows check (and
    save) as PyTorch's do."""
    addmm = bias is not None and (x.ndim == 2 or x.data.flags.c_contiguous
                                  and bias.data.flags.c_contiguous
                                  and np.squeeze(bias.data).ndim == 1)
    if not addmm:
        return
    try:
        _check_addmm(x, weight, bias)
    except RuntimeError:
        # Chapters 10 and 11: addmm's autograd kernel saves its matrices,
        # x as rows and weight.t() (recorded), each for the other's
        # gradient, before its checks.
        if grad_mode.state.enabled:
            rows = x if x.ndim == 2 else x.reshape(-1, x.shape[-1])
            ops.saved_by_each_other(rows, ops.t(weight),
                                    inputs=(x, weight, bias))
        raise


def _check_addmm(x, weight, bias):
    if bias.dtype != weight.dtype:
        raise RuntimeError(
            "self and mat2 must have the same dtype, but got "
            f"{torch_name(bias.dtype)} and {torch_name(weight.dtype)}")
    if x.dtype != weight.dtype:
        raise RuntimeError(
            "mat1 and mat2 must have the same dtype, but got "
            f"{torch_name(x.dtype)} and {torch_name(weight.dtype)}")
    if weight.ndim == 1:
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
    rows = int(np.prod(x.shape[:-1]))
    if weight.ndim == 2 and x.shape[-1] != weight.shape[1]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x"
            f"{x.shape[-1]} and {weight.shape[1]}x{weight.shape[0]})")
    # addmm expands the bias to the (rows, out) of the product.
    target, shape = [rows, weight.shape[0]], list(bias.shape)
    if len(shape) > 2:
        raise RuntimeError(
            f"expand(torch.{torch_name(bias.dtype)}Tensor{{{shape}}}, "
            f"size={target}): the number of sizes provided (2) must be "
            "greater or equal to the number of dimensions in the tensor "
            f"({len(shape)})")
    for dim in range(-1, -len(shape) - 1, -1):
        if shape[dim] not in (1, target[dim]):
            raise RuntimeError(
                f"The expanded size of the tensor ({target[dim]}) must match "
                f"the existing size ({shape[dim]}) at non-singleton "
                f"dimension {2 + dim}.  Target sizes: {target}.  Tensor "
                f"sizes: {shape}")


def log_softmax(x, dim):
    if not isinstance(x, Tensor):  # PyTorch's calls input.log_softmax(dim)
        raise AttributeError(
            f"'{type(x).__name__}' object has no attribute 'log_softmax'")
    dim = ops.canonical_dim(dim, x.data.ndim)
    if x.data.dtype.kind != "f":
        raise NotImplementedError('"log_softmax_lastdim_kernel_impl" not '
                                  "implemented for 'Long'")
    return ops.LogSoftmax.apply(x, dim)


def nll_loss(log_probs, target, ignore_index=-100, reduction="mean",
             **unsupported):
    """The negative log-likelihood of the ``target`` class of each row:
    their mean (the default), sum, or each (``reduction="none"``); rows
    whose target is ``ignore_index`` count for nothing, as in PyTorch."""
    if unsupported:
        _refuse("nll_loss", unsupported)  # weight, size_average, reduce
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _must_be_tensor("nll_loss_nd", "input", 1, log_probs)
    _must_be_tensor("nll_loss_nd", "target", 2, target)
    if log_probs.data.ndim != 2 or target.data.ndim != 1:
        raise NotImplementedError(
            "toygrad's nll_loss takes a batch of rows (N, C) and targets "
            "(N,) only")
    # Chapter 11: NllLossBackward0 saves self and the target before the
    # kernel checks the target.
    saved = (log_probs, target) if log_probs.requires_grad else ()
    if target.data.dtype != np.int64:
        ops.saved_before_checks(*saved, inputs=(log_probs, target))
        raise RuntimeError("expected target dtype to be Long or Byte, but "
                           f"got {torch_name(target.dtype)}")
    if len(target.data) != len(log_probs.data):
        raise ValueError(f"Expected input batch_size ({len(log_probs.data)})"
                         f" to match target batch_size ({len(target.data)}).")
    labels = target.data
    classes = log_probs.data.shape[1]
    # Read as unsigned, a negative label is past the last class: one
    # reduction finds any label out of bounds (NumPy would count a negative
    # one from the end); the rows ignored are looked at only then.
    every_label_a_class = not labels.size or (
        np.maximum.reduce(labels.view(np.uint64)) < classes)
    if not every_label_a_class:
        bad = ((labels < 0) | (labels >= classes)) & (labels != ignore_index)
        if bad.any():
            ops.saved_before_checks(*saved, inputs=(log_probs, target))
            raise IndexError(f"Target {labels[bad][0]} is out of bounds.")
    # The node need not look for ignored rows if there can be none.
    return ops.NllLoss.apply(log_probs, (target,), reduction, ignore_index,
                             every_label_a_class)


def cross_entropy(logits, target, ignore_index=-100, reduction="mean",
                  **unsupported):
    """``nll_loss(log_softmax(logits, 1), target)``: two nodes, as PyTorch."""
    if unsupported:
        _refuse("cross_entropy", unsupported)
    if reduction not in ("mean", "sum", "none"):  # before any operation
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _must_be_tensor("cross_entropy_loss", "input", 1, logits)
    _must_be_tensor("cross_entropy_loss", "target", 2, target)
    if logits.data.ndim != 2:
        raise NotImplementedError(
            "toygrad's cross_entropy takes a batch of rows (N, C) only")
    return nll_loss(log_softmax(logits, 1), target, ignore_index, reduction)


def _refuse(where, unsupported):
    _refuse_arguments(f"nn.functional.{where}", unsupported)
