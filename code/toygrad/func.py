"""Jacobians, column by column or row by row: ``torch.func``'s two ways.

``jacfwd(f)(x)`` pushes one tangent per input element forward (n JVPs);
``jacrev(f)(x)`` pulls one gradient per output element back (m VJPs). Both
give the Jacobian of shape ``f(x).shape + x.shape``. Minimal versions: for a
function of one tensor that returns one tensor.
"""

import numpy as np

from toygrad.autograd import forward_ad
from toygrad.tensor import Tensor


def _basis(shape, dtype):
    """The one-hot arrays of ``shape``, one per element, in order."""
    size = int(np.prod(shape))
    return np.eye(size, dtype=dtype).reshape((size,) + tuple(shape))


# Task 13.2: the Jacobian by forward mode
def jacfwd(f):
    """``f``'s Jacobian by forward mode: one JVP per element of the input."""
    def jacobian(x):
        primal = Tensor(x.data)
        columns = []
        for tangent in _basis(x.shape, x.dtype):
            with forward_ad.dual_level():
                out = f(forward_ad.make_dual(primal, Tensor(tangent)))
                columns.append(forward_ad.unpack_dual(out).tangent.data)
        out_shape = columns[0].shape if columns else f(primal).shape
        stacked = np.stack(columns, axis=-1) if columns else np.zeros(
            out_shape + (0,), x.dtype)
        return Tensor(stacked.reshape(out_shape + x.shape))
    return jacobian


def jacrev(f):
    """``f``'s Jacobian by reverse mode: one VJP per element of the output."""
    def jacobian(x):
        leaf = Tensor(x.data, requires_grad=True)
        out = f(leaf)
        rows = []
        for grad_output in _basis(out.shape, out.dtype):
            leaf.grad = None
            out.backward(Tensor(grad_output), retain_graph=True)
            rows.append(leaf.grad.data)
        return Tensor(np.stack(rows).reshape(out.shape + x.shape))
    return jacobian
