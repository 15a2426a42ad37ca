"""Neural-network functions, as in ``torch.nn.functional``."""

from toygrad import ops


def relu(x):
    return ops.Relu.apply(x)


def linear(x, weight, bias=None):
    """``x @ weight.t() + bias``, recorded as PyTorch records it (addmm)."""
    if bias is None:
        return x @ weight.t()
    if x.ndim == 2:
        return ops.Addmm.apply(bias, x, weight.t())
    return x @ weight.t() + bias


def log_softmax(x, dim):
    return ops.LogSoftmax.apply(x, dim % x.ndim)


def nll_loss(log_probs, target):
    """Mean negative log-likelihood of the ``target`` class of each row."""
    # The target goes in as an array: integer labels get no edge in the graph.
    return ops.NllLoss.apply(log_probs, target.data)


def cross_entropy(logits, target):
    """``nll_loss(log_softmax(logits, 1), target)``: two nodes, as PyTorch."""
    return nll_loss(log_softmax(logits, 1), target)
