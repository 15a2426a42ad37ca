"""Activation checkpointing: recompute in backward instead of storing.

Named and behaving as ``torch.utils.checkpoint.checkpoint`` with
``use_reentrant=False``, and built the same way, on saved-tensor hooks: the
forward runs as usual and records its graph, but every tensor its nodes save
is replaced by an empty *holder*. The first time backward unpacks one, the
function runs again, and the tensors that run saves fill the holders, in
order. The function's inputs are kept as saved tensors of a node of their
own, outside the graph, named after the one earlier PyTorch releases used
(PyTorch 2.13's ``_CheckpointFrame.save_inputs`` keeps them on the frame).
"""

import warnings

import numpy as np

from toygrad.autograd.function import Function
from toygrad.autograd.grad_mode import enable_grad
from toygrad.autograd.graph import saved_tensors_hooks
from toygrad.tensor import Tensor

_OPTIONS = ("context_fn", "determinism_check")


class _NoopSaveInputs(Function):
    """Saves the tensors among its inputs; its output is an empty tensor."""

    @staticmethod
    def forward(ctx, dummy, *args):
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        return Tensor(np.empty((0,), dtype=np.float32))

    @staticmethod
    def backward(ctx, grad):
        raise AssertionError("Did not expect to backward on this graph")


class _StopRecomputation(Exception):
    """Raised when the second run has saved all it needs to."""


class _Holder:
    """Stands in a node for one saved tensor until backward needs it."""

    __slots__ = ("tensor",)

    def __init__(self):
        self.tensor = None


def _check_arguments(use_reentrant, debug, kwargs):
    """PyTorch's warning and checks of checkpoint's arguments, in its order,
    and toygrad's refusals of the options it does not build (the reentrant
    variant among them). Takes ``preserve_rng_state`` out of ``kwargs``."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. "
            "use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. "
            "Refer to docs for more details on the differences between the "
            "two variants.", stacklevel=3)
        use_reentrant = True
    kwargs.pop("preserve_rng_state", True)  # toygrad's operations draw none
    if use_reentrant:
        # PyTorch's own checks of the reentrant variant's arguments first.
        unexpected = [k for k in kwargs if k not in _OPTIONS]
        if unexpected:
            raise ValueError(
                "Unexpected keyword arguments: " + ",".join(unexpected))
        if "context_fn" in kwargs or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only "
                             "supported when use_reentrant=False.")
        raise NotImplementedError(
            "toygrad does not support checkpoint with use_reentrant=True "
            "(the reentrant variant); pass use_reentrant=False")
    if debug is not False:
        raise NotImplementedError(
            "toygrad does not support checkpoint's debug option")
    for option in _OPTIONS:
        if option in kwargs:
            raise NotImplementedError(
                f"toygrad does not support checkpoint's {option} option")


def _save_inputs(args):
    """A node outside the graph that keeps the tensors among ``args`` as
    saved tensors (so that an in-place change to one is caught)."""
    dummy = Tensor(np.empty((0,), dtype=np.float32), requires_grad=True)
    return _NoopSaveInputs.apply(dummy, *args).grad_fn


def _inputs(saver, args):
    """``args`` again, each tensor unpacked from ``saver``."""
    saved = iter(saver.saved_tensors)
    return [next(saved) if isinstance(a, Tensor) else a for a in args]


# PyTorch compares the two runs' saved tensors (number, shapes, dtypes,
# devices) and raises its CheckpointError; toygrad notices only a second run
# that saves fewer, or (running to the end) more, and refuses.
def _check_filled(holder):
    if holder.tensor is None:
        raise NotImplementedError(
            "toygrad does not support PyTorch's CheckpointError: the "
            "function saved fewer tensors when run again")


def _next_holder(waiting):
    holder = next(waiting, None)
    if holder is None:  # only without early_stop
        raise NotImplementedError(
            "toygrad does not support PyTorch's CheckpointError: "
            "the function saved more tensors when run again")
    return holder


# Task 11.1: checkpoint recomputes instead of saving
def checkpoint(function, *args, use_reentrant=None, debug=False,
               early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, keeping none of the tensors its
    operations save for backward: backward runs it again to get them,
    and stops once it has them all (``early_stop=False``: at the end)."""
    _check_arguments(use_reentrant, debug, kwargs)
    saver = _save_inputs(args)  # the inputs are kept: the second run's
    holders = []  # one per tensor the graph saves, empty until backward

    def pack(tensor):  # forward: the graph keeps an empty holder
        holders.append(_Holder())
        return holders[-1]

    def unpack(holder):  # backward: run again to fill the holders
        if holder.tensor is None:
            recompute()
        _check_filled(holder)
        tensor, holder.tensor = holder.tensor, None
        return tensor

    def recompute():
        waiting = iter(holders)

        def fill(tensor):  # the second run saves into the holders, in order
            holder = _next_holder(waiting)
            holder.tensor = tensor.detach()
            if early_stop and holder is holders[-1]:
                # Every holder is full: stop at once, as PyTorch's
                # _StopRecomputationError does, inside the operation
                # that saved the last tensor.
                raise _StopRecomputation

        inputs = _inputs(saver, args)
        try:
            with enable_grad(), saved_tensors_hooks(fill, _nothing):
                function(*inputs, **kwargs)
        except _StopRecomputation:
            pass

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def _nothing(_):
    """The recomputed graph is thrown away: its holders are never unpacked."""
