"""Neural-network functions, as in ``torch.nn.functional``."""

import numpy as np

from toygrad import ops


def relu(x):
    if x.dtype == bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return ops.Relu.apply(x)


def linear(x, weight, bias=None):
    """``x @ weight.t() + bias``, recorded as PyTorch records it.

    As in PyTorch's ``linear`` (aten/src/ATen/native/Linear.cpp): a batch
    of rows with a bias is one ``addmm``; other contiguous inputs with a
    1-D bias are folded into rows for an ``addmm`` and unfolded after; the
    rest is a ``matmul`` followed by an in-place ``add_`` of the bias.
    """
    if x.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{x.ndim}D and {weight.ndim}D")
    if x.ndim == 2 and bias is not None:
        return ops.Addmm.apply(bias, x, weight.t())
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
    return ops.LogSoftmax.apply(x, ops.canonical_dim(dim, x.ndim))


def nll_loss(log_probs, target):
    """Mean negative log-likelihood of the ``target`` class of each row."""
    if log_probs.ndim != 2 or target.ndim != 1:
        raise NotImplementedError(
            "toygrad's nll_loss takes a batch of rows (N, C) and targets "
            "(N,) only, with the mean reduction")
    return ops.NllLoss.apply(log_probs, target.data)


def cross_entropy(logits, target):
    """``nll_loss(log_softmax(logits, 1), target)``: two nodes, as PyTorch."""
    return nll_loss(log_softmax(logits, 1), target)
