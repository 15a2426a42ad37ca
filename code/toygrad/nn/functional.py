"""Neural-network functions, as in ``torch.nn.functional``."""

import numpy as np

from toygrad import ops
from toygrad.dtypes import torch_name
from toygrad.tensor import _refuse as _refuse_arguments


def relu(x):
    return ops.relu(x)


def linear(x, weight, bias=None):
    """``x @ weight.t() + bias``, recorded as PyTorch records it.

    As in PyTorch's ``linear`` (aten/src/ATen/native/Linear.cpp): a batch
    of rows with a bias is one ``addmm``; other contiguous inputs with a
    1-D bias are folded into rows for an ``addmm`` and unfolded after; the
    rest is a ``matmul`` followed by an in-place ``add_`` of the bias.
    """
    x_ndim = x.data.ndim
    if x_ndim == 0 or weight.data.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{x.ndim}D and {weight.ndim}D")
    if x_ndim == 2 and bias is not None:
        return ops.Addmm.apply(bias, x, ops.t(weight))
    fusable = (bias is not None and bias.data.flags.c_contiguous
               and np.squeeze(bias.data).ndim == 1)
    if fusable and x.data.flags.c_contiguous:
        rows = x.reshape(-1, x.shape[-1])
        out = ops.Addmm.apply(bias, rows, weight.t())
        return out.view(x.shape[:-1] + (out.shape[1],))
    out = x @ weight.t()
    if bias is not None:
        out.add_(bias)
    return out


def log_softmax(x, dim):
    dim = ops.canonical_dim(dim, x.data.ndim)
    if x.data.dtype.kind != "f":
        raise NotImplementedError('"log_softmax_lastdim_kernel_impl" not '
                                  "implemented for 'Long'")
    return ops.LogSoftmax.apply(x, dim)


def nll_loss(log_probs, target, **unsupported):
    """Mean negative log-likelihood of the ``target`` class of each row."""
    if unsupported:
        _refuse("nll_loss", unsupported)
    if log_probs.data.ndim != 2 or target.data.ndim != 1:
        raise NotImplementedError(
            "toygrad's nll_loss takes a batch of rows (N, C) and targets "
            "(N,) only, with the mean reduction")
    if target.data.dtype != np.int64:
        raise RuntimeError("expected target dtype to be Long or Byte, but "
                           f"got {torch_name(target.dtype)}")
    if len(target.data) != len(log_probs.data):
        raise ValueError(f"Expected input batch_size ({len(log_probs.data)})"
                         f" to match target batch_size ({len(target.data)}).")
    labels = target.data
    if labels.size and labels.min() < 0:  # NumPy would count from the end
        raise IndexError(f"Target {labels[labels < 0][0]} is out of bounds.")
    return ops.NllLoss.apply(log_probs, (target,))


def cross_entropy(logits, target, **unsupported):
    """``nll_loss(log_softmax(logits, 1), target)``: two nodes, as PyTorch."""
    if unsupported:
        _refuse("cross_entropy", unsupported)
    if logits.data.ndim != 2:
        raise NotImplementedError(
            "toygrad's cross_entropy takes a batch of rows (N, C) only")
    return nll_loss(log_softmax(logits, 1), target)


def _refuse(where, unsupported):
    _refuse_arguments(f"nn.functional.{where}", unsupported)
