"""Chapter 5's probes: broadcasting's gradient (task 5.1) and a matrix product's two
gradients (task 5.2). tests/test_tasks_ch05.py says what they must return."""

import numpy as np

import toygrad
from toygrad import ops


def broadcast_gradient(big, seed=0):
    """A gradient of shape ``big``, its numbers from ``seed``: quarters, whose sums are
    exact in any order, so that PyTorch's sums and a correct one agree to the bit."""
    grad = np.arange(np.prod(big), dtype=np.float64).reshape(big) - 3.5
    if seed:
        grad = np.random.default_rng(seed).integers(-40, 41, big) * 0.25
    return grad


def unbroadcast(big, small, seed=0):
    with toygrad.no_grad():
        ours = ops.unbroadcast(toygrad.tensor(broadcast_gradient(big, seed)), tuple(small))
    return [list(ours.shape), ours.data]


def unbroadcast_under_create_graph(seed=0):
    grad = toygrad.tensor(np.ones((2, 3, 4)), requires_grad=True)
    return ops.unbroadcast(grad, (3, 1)).grad_fn.name()


class AsStored:
    """A node whose ``saved_tensors`` are the tensors its forward saved, as they were
    stored: without the version check of ``SavedTensor.unpack`` (Task 6.1)."""

    def __init__(self, node):
        self._node = node

    def __getattr__(self, name):
        return getattr(self._node, name)

    @property
    def saved_tensors(self):
        return tuple(None if saved is None else saved.tensor for saved in self._node._saved)


def matrices(seed=0, n=3, k=4, m=2):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, k)), rng.standard_normal((k, m)), rng.standard_normal((n, m))


def mm_backward(transpose, seed=0):
    """MmBackward0's two gradients, the node called by hand as the engine calls it, under
    no_grad (no engine needed), with what forward saved as it was stored (no
    SavedTensor.unpack, which is Task 6.1)."""
    a_np, b_np, g = matrices(seed)
    a = toygrad.tensor(a_np, requires_grad=True)
    b = toygrad.tensor(b_np, requires_grad=True)
    if transpose:  # a weight used as w.t(), as nn.Linear does
        a = a.t().t()
    node = ops.Mm.apply(a, b).grad_fn
    with toygrad.no_grad():
        ours = ops.Mm.backward(AsStored(node), toygrad.tensor(g))
    return [None if grad is None else grad.data for grad in ours]
