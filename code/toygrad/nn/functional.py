"""Neural-network functions, as in ``torch.nn.functional``."""

from toygrad import ops


def relu(x):
    if x.dtype == bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return ops.Relu.apply(x)


def linear(x, weight, bias=None):
    """``x @ weight.t() + bias``, recorded as PyTorch records it.

    A batch of rows is one ``addmm`` (bias + x @ weight.t()); other shapes
    are folded into rows first and unfolded after, as PyTorch does.
    """
    if x.ndim == 2 and bias is not None:
        return ops.Addmm.apply(bias, x, weight.t())
    if bias is None:
        return x @ weight.t()
    if x.ndim == 0:
        raise RuntimeError("both arguments to linear need to be at least "
                           "1D, but they are 0D and 2D")
    rows = x.reshape(-1, x.shape[-1])
    out = ops.Addmm.apply(bias, rows, weight.t())
    return out.view(x.shape[:-1] + (weight.shape[0],))


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
