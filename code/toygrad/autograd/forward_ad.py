"""Forward-mode AD: dual tensors whose tangents ride along the forward pass.

``toygrad.autograd.forward_ad`` mirrors ``torch.autograd.forward_ad``. Inside
a ``dual_level``, ``make_dual(x, v)`` gives ``x`` a tangent ``v``; every
operation on it then computes, beside its value, the tangent of its output
(the Jacobian-vector product ``J v``) with its ``jvp`` rule, and
``unpack_dual(y)`` gives both back. Leaving the level deletes every tangent.

toygrad keeps tangents in a table, one entry per dual tensor, so a tensor
pays nothing for forward AD: ``Function.apply`` looks at the table only when
a level is open.
"""

import weakref
from typing import NamedTuple

from toygrad import ops
from toygrad.autograd import grad_mode
# state: the open level (-1: none) and the tangents made in it, kept where
# the operations this module builds on read them (function.dual).
from toygrad.autograd.function import ZeroTangent, dual as state
from toygrad.tensor import Tensor

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level",
           "exit_dual_level", "make_dual", "unpack_dual"]


def enter_dual_level():
    """Open the (one) forward AD level; return its number, 0."""
    if state.level >= 0:
        raise RuntimeError(
            "Nested forward mode AD is not supported at the moment")
    state.level = 0
    return state.level


def exit_dual_level(*, level=None):
    """Close the level, deleting every tangent made in it."""
    if level is None:
        level = state.level
    if level != state.level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one "
            "that was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    state.tangents.clear()
    state.level = -1


class dual_level:
    """Context manager: forward AD happens inside ``with dual_level():``."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()


def tangent_of(tensor):
    """``tensor``'s tangent at the open level, or None."""
    entry = state.tangents.get(id(tensor))
    return None if entry is None else entry[1]


def set_tangent(tensor, tangent):
    """Give ``tensor`` its tangent (forgotten when ``tensor`` dies)."""
    key = id(tensor)
    tangents = state.tangents
    ref = weakref.ref(tensor, lambda _: tangents.pop(key, None))
    tangents[key] = (ref, tangent)


def _check_level(level):
    if level is not None and level != state.level:
        raise NotImplementedError(
            "toygrad supports only the current forward AD level as level=")


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent``."""
    _check_level(level)
    if state.level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level "
            "exists, make sure to enter_dual_level() first.")
    for name, value in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):  # PyTorch asks is_floating_point()
            raise AttributeError(f"'{type(value).__name__}' object has no "
                                 "attribute 'is_floating_point'")
        if value.dtype.kind not in "fc":
            raise ValueError(f"Expected {name} to be floating point or "
                             f"complex, but got: torch.{value.dtype.name}")
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a "
            f"forward gradient at the same level {state.level} is not "
            "supported.")
    _check_size(tensor, tangent)
    if tangent.requires_grad or (tensor.requires_grad
                                 and grad_mode.state.enabled):
        raise NotImplementedError(
            "toygrad does not support forward AD on tensors that require "
            "grad (its tangents would need a backward graph)")
    dual = ops.View.apply(tensor, tensor.shape)  # PyTorch's is a view too
    set_tangent(dual, tangent)
    return dual


def _check_size(tensor, tangent):
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than "
            "that of the original Tensor, this is not supported. Tensor is "
            f"of size {list(tensor.shape)} while the given forward gradient "
            f"is of size {list(tangent.shape)}.")


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the value and its tangent."""

    primal: Tensor
    tangent: "Tensor | None"


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor`` without its tangent, and
    the tangent itself (None if it has none)."""
    _check_level(level)
    if state.level < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with _paused():  # the primal is a view that carries no tangent
        primal = ops.Alias.apply(tensor)
    return UnpackedDualTensor(primal, tangent)


class _paused:
    """No tangents computed inside (as inside a jvp rule)."""

    def __enter__(self):
        self.level, state.level = state.level, -1

    def __exit__(self, *exc_info):
        state.level = self.level


def _zeros_like(x):
    import numpy as np
    return ZeroTangent(np.zeros_like(x.data))


# Task 13.1: an operation's outputs get their tangents
def propagate(ctx, inputs, outputs):
    """Give ``outputs`` their tangents, if an input of ``ctx``'s call has one.

    ``ctx``'s Function computes them with its ``jvp(ctx, *tangents)``: one
    tangent per input (zeros for a tensor input with no tangent, None for
    an input that is not a tensor), one tangent back per output.
    """
    tangents = [tangent_of(x) if isinstance(x, Tensor) else None
                for x in inputs]
    if all(t is None for t in tangents):
        return  # no input carries a tangent: nothing to compute
    _refuse_recorded(inputs)
    tangents = [_zeros_like(x) if t is None and isinstance(x, Tensor) else t
                for x, t in zip(inputs, tangents)]
    outputs = outputs if type(outputs) is tuple else (outputs,)
    # The rule reads the values from ctx, as plain tensors (no tangents),
    # so that its own arithmetic is ordinary arithmetic.
    ctx.primals, ctx.results = _plain(inputs), _plain(outputs)
    results = _run_jvp(ctx, tangents, len(outputs))
    for out, tangent in zip(outputs, results):
        if _differentiable(ctx, out):
            _check_tangent(out, tangent)
            set_tangent(out, tangent)
    _check_views(ctx, inputs, outputs)


def _check_views(ctx, inputs, outputs):
    """A custom Function's output that is a view of an input with a tangent
    (such as the input returned as it is): as in PyTorch, its tangent must
    be a view of that input's tangent."""
    if not type(ctx)._forward_cls._custom:
        return
    given = {}  # base of an input -> its own tangent (None: none given)
    for x in inputs:
        if isinstance(x, Tensor):
            given[id(x if x._base is None else x._base)] = tangent_of(x)
    for out in outputs:
        if (_differentiable(ctx, out) and out._base is not None
                and given.get(id(out._base)) is not None):
            _check_view_tangent(tangent_of(out), given[id(out._base)])


def _check_view_tangent(tangent, input_tangent):
    """An output's tangent, a view of the tangent of the input it is a view
    of (of that tangent's base, if the tangent is itself a view)."""
    if tangent._base is None:
        raise RuntimeError(
            "A custom Function's forward is returning a view (or an input "
            "as-is) but the jvp is not returning a view.")
    if input_tangent._base is not None:
        if tangent._base is not input_tangent._base:
            raise RuntimeError(
                "A custom Function is returning a view but the jvp is not "
                "returning a view of the same base as the given grad input.")
    elif tangent._base is not input_tangent:
        raise RuntimeError(
            "A custom Function is returning a view but the jvp is not "
            "returning a view of the given grad input.")


def _refuse_recorded(inputs):
    """toygrad computes tangents with recording off: refuse where PyTorch
    would give a tangent its own backward graph."""
    if grad_mode.state.enabled and any(
            isinstance(x, Tensor) and x.requires_grad for x in inputs):
        raise NotImplementedError(
            "toygrad does not support forward AD through an operation whose "
            "inputs require grad (its tangents would need a backward graph)")


def _plain(values):
    """Tensors with the same numbers and no tangent (others as they are)."""
    return tuple([Tensor(x.data) if isinstance(x, Tensor) else x
                  for x in values])


def _run_jvp(ctx, tangents, expected):
    """``ctx``'s Function's ``jvp``, run with no tangents computed and
    nothing recorded inside; as in PyTorch, one tangent per output."""
    ctx._jvp_running = True  # saved_tensors: what save_for_forward kept
    try:
        with _paused(), grad_mode.no_grad():
            results = ctx._forward_cls.jvp(ctx, *tangents)
    finally:
        ctx._jvp_running = False
    results = (results,) if type(results) is not tuple else results
    if len(results) != expected:
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients "
            f"(expected {expected} but got {len(results)})")
    return results


def _differentiable(ctx, out):
    """Whether output ``out`` gets a tangent: a float or complex tensor
    that ``ctx`` did not mark non-differentiable."""
    return (isinstance(out, Tensor) and id(out) not in ctx._non_differentiable
            and out.dtype.kind in "fc")


def _check_tangent(out, tangent):
    """A differentiable output's tangent: present, and of its size."""
    if tangent is None:
        raise NotImplementedError(
            "toygrad does not support a jvp that returns None for a "
            "differentiable output")
    _check_size(out, tangent)


def inplace(target, result):
    """After ``target``'s numbers were replaced by ``result``'s: its tangent
    becomes ``result``'s, written into the tangent it had (which its views'
    tangents share)."""
    import numpy as np
    tangent = tangent_of(result)
    if tangent is None:
        return
    old = tangent_of(target)
    if old is not None:
        np.copyto(old.data, tangent.data, casting="unsafe")
    elif target._base is not None:
        raise NotImplementedError(
            "toygrad does not support forward AD for an in-place operation "
            "that gives a tangent to a view whose base has none")
    else:
        set_tangent(target, tangent)


# What the operations do inside a level: Function.apply and the views'
# in-place changes call these through the state they read.
state.propagate = propagate
state.inplace = inplace
