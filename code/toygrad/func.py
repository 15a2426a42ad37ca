"""Jacobians, column by column or row by row: ``torch.func``'s two ways.

``jacfwd(f)(x)`` pushes one tangent per input element forward (n JVPs);
``jacrev(f)(x)`` pulls one gradient per output element back (m VJPs). Both
give the Jacobian of shape ``f(x).shape + x.shape``. Minimal versions: for a
function of one tensor that returns one tensor (anything else is refused
by name). An output that does not depend on the input has a Jacobian of
zeros, and an empty input or output an empty Jacobian, as in torch.func.
"""

import numpy as np

from toygrad.autograd import forward_ad, grad_mode
from toygrad.autograd.differentiate import grad
from toygrad.autograd.graph import AccumulateGrad
from toygrad.tensor import Tensor


def _basis(shape, dtype):
    """The one-hot arrays of ``shape``, one per element, in order."""
    size = int(np.prod(shape))
    return np.eye(size, dtype=dtype).reshape((size,) + tuple(shape))


def _refuse(name, args, kwargs):
    """toygrad's Jacobians take one tensor, and no options."""
    if len(args) != 1 or kwargs:
        raise NotImplementedError(
            f"toygrad's {name} supports a function of one tensor, called "
            "with that tensor alone")


def _refuse_options(name, options):
    if options:
        raise NotImplementedError(
            f"toygrad's {name} does not support {', '.join(options)}")


def _grads_on():
    """Grad mode on and inference mode off while the Jacobian is taken:
    torch.func computes it inside no_grad or inference_mode too."""
    if grad_mode.state.inference:
        return grad_mode.inference_mode(False)
    return grad_mode.enable_grad()


def _refuse_several(out):
    if isinstance(out, (tuple, list, dict)):  # torch.func: one Jacobian each
        raise NotImplementedError(
            "toygrad's Jacobians support a function that returns one "
            f"tensor, not a {type(out).__name__}")


def _transform(name, options, check_input, jacobian):
    """What ``jacfwd`` and ``jacrev`` share: refuse what toygrad does not
    support, check the input as torch.func does, then ``jacobian(x)``."""
    _refuse_options(name, options)

    def transformed(*args, **kwargs):
        _refuse(name, args, kwargs)
        check_input(args[0])
        return jacobian(args[0])
    return transformed


def _assemble(parts, axis, shape, dtype):
    """The Jacobian of ``shape`` from its columns (``axis=-1``) or its rows
    (``axis=0``); zeros when there are none."""
    if not parts:
        return Tensor(np.zeros(shape, dtype))
    return Tensor(np.stack(parts, axis=axis).reshape(shape))


def _data_or_zeros(derivative, like):
    """A derivative's numbers; zeros shaped ``like`` when it is None (what
    it differentiates does not depend on the input)."""
    if derivative is None:
        return np.zeros(like.shape, like.dtype)
    return derivative.data


def _jvp_input(x):
    if not isinstance(x, Tensor):  # torch.func's first use of it
        raise AttributeError(
            f"'{type(x).__name__}' object has no attribute 'numel'")


def _jvp_output(out):
    """``f``'s output, checked as torch.func's jvp checks it."""
    _refuse_several(out)
    if not isinstance(out, Tensor):
        raise RuntimeError(
            "jvp(f, primals, tangents): expected f(*primals) to return only "
            f"tensors, got unsupported type {type(out)}")
    if out.requires_grad:  # torch.func's result would be differentiable
        raise NotImplementedError(
            "toygrad's Jacobians do not support a function whose output "
            "depends on other tensors that require grad")
    return out


def _jvp_transform(f, options, jacobian):
    """What ``jacfwd`` adds around ``jacobian(x)``, its loop of JVPs: the
    checks of ``_transform``; grad mode on; and an empty input, which has
    no unit vector, so ``f`` runs once, for the Jacobian's shape."""
    def with_grads_on(x):
        with _grads_on():
            if x.data.size == 0:  # an empty input: no JVP at all
                out = _jvp_output(f(Tensor(x.data)))
                return _assemble([], -1, out.shape + x.shape, out.dtype)
            return jacobian(x)
    return _transform("jacfwd", options, _jvp_input, with_grads_on)


# Task 13.2: the Jacobian by forward mode
def jacfwd(f, **options):
    """``f``'s Jacobian by forward mode: one JVP per element of the input."""
    def jacobian(x):
        primal, columns = Tensor(x.data), []  # x's numbers, no history
        for tangent in _basis(x.shape, x.dtype):  # the unit vectors
            with forward_ad.dual_level():
                dual = forward_ad.make_dual(primal, Tensor(tangent))
                out = _jvp_output(f(dual))
                column = forward_ad.unpack_dual(out).tangent
                columns.append(_data_or_zeros(column, out))
        return _assemble(columns, -1, out.shape + x.shape, out.dtype)
    return _jvp_transform(f, options, jacobian)


def _vjp_input(x):
    if not isinstance(x, Tensor):
        raise ValueError(
            f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.dtype.kind != "f":
        raise RuntimeError("only Tensors of floating point dtype can "
                           "require gradients")


def _vjp_output(out, leaf):
    """``f``'s output, checked as torch.func's vjp checks it."""
    _refuse_several(out)
    if not isinstance(out, Tensor):
        raise RuntimeError(
            "vjp(f, *primals): expected f(*primals) to return only "
            f"tensors, got unsupported type {type(out)}")
    if out.dtype.kind not in "fc":
        raise RuntimeError(
            "vjp(f, ...): All outputs of f must be floating-point or "
            "complex Tensors, got Tensor with dtype "
            f"torch.{out.dtype}")
    _refuse_other_leaves(out, leaf)
    return out


def jacrev(f, **options):
    """``f``'s Jacobian by reverse mode: one VJP per element of the output.

    Each VJP is an ``autograd.grad`` call, so no tensor's ``.grad``
    changes."""
    def jacobian(x):
        leaf, rows = Tensor(x.data, requires_grad=True), []
        with _grads_on():
            out = f(leaf)
        out = _vjp_output(out, leaf)
        if out.requires_grad:  # else it does not depend on the input
            for grad_output in _basis(out.shape, out.dtype):  # unit vectors
                row, = grad(out, leaf, Tensor(grad_output),
                            retain_graph=True, allow_unused=True)
                rows.append(_data_or_zeros(row, x))
        return _assemble(rows, 0, out.shape + x.shape, x.dtype)
    return _transform("jacrev", options, _vjp_input, jacobian)


def _refuse_other_leaves(out, leaf):
    """torch.func's result is differentiable with respect to the other
    tensors that require grad which ``f`` used; toygrad's would not be."""
    stack = [out.grad_fn]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if type(node) is AccumulateGrad and node.variable is not leaf:
            raise NotImplementedError(
                "toygrad's Jacobians do not support a function whose output "
                "depends on other tensors that require grad")
        stack.extend(next_node for next_node, _ in node.next_functions)
