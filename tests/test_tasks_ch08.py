"""Chapter 8's tasks: the gradients of ScipyConv2d's cross-correlation, against
PyTorch's conv2d (a cross-correlation too).

Each check runs a probe of tests/probes_ch08.py (the student's code, observed) and compares
what it returns with PyTorch's gradients (tests/verdict.py)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import probes_ch08 as probes
import verdict
from verdict import Check, close

pytestmark = pytest.mark.ch08


def pytorch_s(x, w, b, grad):
    """The gradients of conv2d for x, w and b, by PyTorch's autograd."""
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    F.conv2d(tx, tw, tb).backward(torch.tensor(grad))
    return tx.grad.numpy(), tw.grad.numpy(), tb.grad.numpy()


def pytorch_s_single(x_shape, w_shape, seed=0):
    x, w, b, grad = probes.single(x_shape, w_shape, seed)
    return [np.reshape(g, -1) for g in pytorch_s(x[None, None], w[None, None], b,
                                                 grad[None, None])]


def pytorch_s_batched(seed=0):
    return list(pytorch_s(*probes.batched(seed)))


CHECKS = [
    Check("task8_1", "conv2d_backward_is_pytorch_s", probes.conv2d_gradients,
          pytorch_s_single, close(atol=1e-12),
          [((5, 5), (3, 3)), ((6, 7), (3, 2)), ((4, 9), (1, 4))]),
    Check("task8_2", "batched_conv2d_backward_is_pytorch_s", probes.batched_conv2d_gradients,
          pytorch_s_batched, close(atol=1e-12)),
]


@pytest.mark.parametrize("check, case", verdict.params(CHECKS))
def test_task(check, case):
    verdict.run(check, case)
