"""Views and in-place operations, kept correct as PyTorch keeps them.

A *view* (``x[1:]``, ``x.t()``, ``x.view(...)``) shares its base's numbers,
so a change made through one is seen by the other. Three things follow, and
PyTorch does all three (``torch/csrc/autograd/variable.cpp``,
``VariableTypeUtils.h``, ``functions/tensor.cpp``):

1. A view shares its base's *version counter*, so a saved tensor knows when
   it was changed through any alias.
2. An in-place operation *through a view* changes the base too, so the
   base's history is rewritten: its new node, ``CopySlices``, sends the
   gradient of the changed part through the in-place operation's node and
   the rest around it.
3. A view whose base was changed in place (through any view) gets a new
   node the next time its ``grad_fn`` is read: ``AsStridedBackward0``, which
   takes its gradient from the base's new history.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import (
    Function, _short_name, anomaly, dual, forward_ad)
from toygrad.autograd.graph import Node, current_saved_tensors_hooks
from toygrad.dtypes import result_type, torch_name, true_divide_type
from toygrad.tensor import Tensor
_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and {} with grad mode enabled. Given "
    "that this use case is ambiguous and error-prone, it is forbidden. You "
    "can clarify your code by moving both the view and the inplace either "
    "both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).")
_MULTI_VIEW = (
    "Output {} of {} is a view and {}. This view is the output of a function "
    "that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation "
    "by an out-of-place one.")
_CHANGED_ITSELF = "is being modified inplace"
_CHANGED_ELSEWHERE = ("its base or another view of its base has been "
                      "modified inplace")


def track(ctx, source, outputs):
    """Make the outputs of a view operation views of ``source``'s base.

    Each output's ``_view`` says how it was taken: ``(parent, ctx,
    output_nr, made_in_no_grad, one_of_several)``.
    """
    base = source if source._base is None else source._base
    counter = source._version_counter
    if counter is None:
        counter = source._version_counter = [0]
    no_grad = not grad_mode.state.enabled
    if grad_mode.state.inference:  # chapter 10
        no_grad = "inference"
    if source._is_inference:  # a view of an inference tensor is one
        for out in (outputs if type(outputs) is tuple else (outputs,)):
            out._is_inference = True
    if type(outputs) is not tuple:
        outputs._base, outputs._version_counter = base, counter
        outputs._view = (source, ctx, 0, no_grad, False)
        outputs._view_version = counter[0]
        return
    for output_nr, out in enumerate(outputs):
        out._base, out._version_counter = base, counter
        out._view = (source, ctx, output_nr, no_grad, True)
        out._view_version = counter[0]


def take_view(view, array):
    """Take from ``array`` (shaped like the base) what ``view`` takes."""
    parent, ctx, output_nr, _, multi = view._view
    if parent._view is not None:
        array = take_view(parent, array)
    take = ctx._forward_cls.take
    return take(ctx, array, output_nr) if multi else take(ctx, array)


def _positions(view):
    """For each element of ``view``, its flat position in the base."""
    base = view._base
    return take_view(view, np.arange(base.data.size).reshape(base.shape))


def refresh_grad_fn(view):
    """Give ``view`` a node that reads its gradient from its base's history.

    Called when the view's ``grad_fn`` is read after the numbers it shares
    were changed in place (the version counter moved).
    """
    _, ctx, output_nr, no_grad, multi = view._view
    base = view._base
    if view._grad_fn is None and not base.requires_grad:
        return  # nothing to differentiate, before or after
    if no_grad == "inference":
        raise NotImplementedError(_INFERENCE_VIEW)
    if no_grad:
        raise RuntimeError(_NO_GRAD_VIEW.format(_CHANGED_ELSEWHERE))
    if multi:
        raise RuntimeError(_MULTI_VIEW.format(
            output_nr, _short_name(ctx), _CHANGED_ELSEWHERE))
    view._view_version = view._version_counter[0]
    view._grad_fn = AsStridedBackward0(base._gradient_edge(),
                                       _positions(view), base)
    view.output_nr = 0
    _remember_forward(view._grad_fn)


def _remember_forward(node):
    """Under anomaly mode (chapter 11), keep the traceback of the line that
    made ``node``, as ``Function.apply`` does for the nodes it records."""
    if anomaly.enabled:
        from toygrad.autograd.anomaly_mode import store_stack
        store_stack(node)


class AsStridedBackward0(Node):
    """A view's node after its base changed: the base's gradient, zero
    except at the positions the view takes from the base."""

    __slots__ = ("next_functions", "positions", "base_shape", "metadata")

    def __init__(self, base_edge, positions, base):
        super().__init__()
        self.next_functions = (base_edge,)
        self.positions, self.base_shape = positions, base.shape

    def apply(self, grad):
        _no_create_graph(self)
        return [Scatter.apply(grad, self.positions, self.base_shape)]


def _no_create_graph(node):
    """PyTorch records these backwards with operations toygrad does not
    reproduce node for node, so it refuses rather than show another graph."""
    if grad_mode.state.enabled:
        raise NotImplementedError(
            f"toygrad does not support create_graph through {node.name()} "
            "(a view whose numbers were changed in place)")


class Scatter(Function):
    """A base-shaped tensor of zeros, plus ``grad`` at ``positions``.

    Positions taken twice (a view made by ``expand``) receive the sum.
    """
    node_name = "AsStridedBackward0Backward"

    @staticmethod
    def forward(ctx, grad, positions, base_shape):
        ctx.positions = positions
        size = int(np.prod(base_shape))
        total = np.bincount(positions.reshape(-1), grad.data.reshape(-1),
                            minlength=size)
        return Tensor(total.astype(grad.dtype).reshape(base_shape))

    @staticmethod
    def backward(ctx, grad):
        return Gather.apply(grad, ctx.positions), None, None

    @staticmethod
    def jvp(ctx, tgrad, _positions, _shape):  # chapter 13: linear in grad
        _, positions, base_shape = ctx.primals
        return Scatter.apply(tgrad, positions, base_shape)


class Gather(Function):
    """The elements of a base-shaped tensor at ``positions`` (a copy)."""
    node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, base, positions):
        ctx.positions, ctx.base_shape = positions, base.shape
        return Tensor(base.data.reshape(-1)[positions])

    @staticmethod
    def backward(ctx, grad):
        return Scatter.apply(grad, ctx.positions, ctx.base_shape), None

    @staticmethod
    def jvp(ctx, tbase, _):  # chapter 13: linear in base
        return Gather.apply(tbase, ctx.positions)


class CopySlices(Node):
    """The base's node after an in-place operation through one of its views.

    Its edges: the base's previous history, then the in-place node's other
    inputs. The gradient at the view's positions goes through the in-place
    node ``fn``; the rest goes straight on to the base's previous history.
    """

    __slots__ = ("next_functions", "fn", "positions", "metadata")

    def __init__(self, base_edge, positions, fn):
        super().__init__()
        self.next_functions = (base_edge,) + fn.next_functions[1:]
        self.fn, self.positions = fn, positions

    def apply(self, grad):
        _no_create_graph(self)
        grad_view = Gather.apply(grad, self.positions)
        grads = self.fn.apply(grad_view)
        return [Overwrite.apply(grad, grads[0], self.positions)] + grads[1:]

    def release_variables(self):
        self.fn.release_variables()


class Overwrite(Function):
    """A copy of ``base`` with ``value`` written at ``positions``.

    ``value`` None writes zeros.
    """
    node_name = "CopySlicesBackward"

    @staticmethod
    def forward(ctx, base, value, positions):
        ctx.positions = positions
        out = base.data.copy()
        out.reshape(-1)[positions.reshape(-1)] = (
            0 if value is None else value.data.reshape(-1))
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        positions = ctx.positions
        need_base, need_value = ctx.needs_input_grad[:2]
        return (Overwrite.apply(grad, None, positions) if need_base else None,
                Gather.apply(grad, positions) if need_value else None, None)

    @staticmethod
    def jvp(ctx, tbase, tvalue, _):  # chapter 13: linear in both
        return Overwrite.apply(tbase, tvalue, ctx.positions)


# In-place operations.

_INFERENCE_VIEW = ("toygrad does not support an in-place change outside "
                   "inference mode to a view made in inference mode (or to "
                   "its base)")


def _refuse_unsupported(target):
    """Outside inference mode, toygrad's refusals where it does not follow
    PyTorch (chapter 10). (An inference tensor is refused by its version
    counter: see Tensor._bump_version.)"""
    if target._view is not None and target._view[3] == "inference":
        raise NotImplementedError(_INFERENCE_VIEW)
    base = target if target._base is None else target._base
    if grad_mode.state.enabled and (target._hooks is not None
                                    or base._hooks is not None):
        if target.grad_fn is not None or base.grad_fn is not None:
            raise NotImplementedError(
                "toygrad does not support in-place operations on a tensor "
                "with hooks or retain_grad (or on a view of one)")

def _check_can_change(target):
    """Raise PyTorch's error if recording ``target``'s change is forbidden."""
    if target._view is None:
        if target._requires_grad and target._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being "
                               "used in an in-place operation.")
        return
    _, ctx, output_nr, no_grad, multi = target._view
    if multi:
        raise RuntimeError(_MULTI_VIEW.format(
            output_nr, _short_name(ctx), _CHANGED_ITSELF))
    base = target._base
    if no_grad and base.requires_grad:
        raise RuntimeError(_NO_GRAD_VIEW.format(_CHANGED_ITSELF))
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is "
                           "being used in an in-place operation.")


def _writable(target, source):
    if not target.data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to "
            "tensor refers to a single memory location. Please clone() the "
            "tensor before performing the operation.")
    if isinstance(source, Tensor) and _partly_overlap(target.data,
                                                      source.data):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and "
            "the written-to tensor refer to a single memory location. Please "
            "clone() the tensor before performing the operation.")


def _partly_overlap(a, b):
    """Whether two arrays share memory without being the very same view."""
    same = (a.__array_interface__["data"][0] ==
            b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides)
    return not same and np.may_share_memory(a, b)


def _snapshot(tensor):
    """``tensor``'s numbers as they are now, with its history."""
    copy = Tensor(tensor.data.copy())
    copy._grad_fn, copy.output_nr = tensor.grad_fn, tensor.output_nr
    copy._requires_grad = tensor._requires_grad
    return copy


def inplace(target, function, *args):
    """Run ``function`` on ``target`` and write the result into ``target``.

    The new node's first edge leads to ``target``'s old history; then
    ``target`` (or, for a view, its base) takes the new history, and the
    shared version counter goes up, so that a backward that needs the old
    numbers can tell they are gone.
    """
    from toygrad import ops  # ops builds on this module
    if not grad_mode.state.inference:
        _refuse_unsupported(target)
    if grad_mode.state.enabled:
        _check_can_change(target)
    _writable(target, args[0] if args else None)
    if args:
        other = args[0]
        if function is ops.Copy:
            args = (ops._wrap(other, target.dtype),)
        else:
            dtype = (true_divide_type if function is ops.Div
                     else result_type)(target, other)
            if np.can_cast(dtype, target.dtype, "same_kind") is False:
                raise RuntimeError(
                    f"result type {torch_name(dtype)} can't be "
                    "cast to the desired output type "
                    f"{torch_name(target.dtype)}")
            args = (ops._wrap(other, dtype),) + args[1:]
        shape = ops.broadcast_shape(target.shape, args[0].shape)
        if shape != target.shape:
            raise RuntimeError(
                f"output with shape {list(target.shape)} doesn't match the "
                f"broadcast shape {list(shape)}")
    source, edge = target, None
    if function.saves_self is not None and current_saved_tensors_hooks():
        # A pack hook must be given target's numbers as they are now, not
        # target, which is about to change: a copy, as PyTorch's
        # ``original_self``, recorded (a CloneBackward0) if it can be; the
        # node's edge still goes to target's history.
        if grad_mode.state.enabled and target.requires_grad:
            edge, source = target._gradient_edge(), ops.Clone.apply(target)
        else:
            source = _snapshot(target)
    result = (ops.binary(function, source, *args) if args
              and function is not ops.Copy else function.apply(source, *args))
    node = result._grad_fn
    if edge is not None and node is not None:
        node.next_functions = (edge,) + node.next_functions[1:]
    saved = node._saved if node is not None else None
    if saved and function.saves_self is not None:
        # The node needs target's old numbers: PyTorch saves a copy of them
        # (``original_self``), since target is about to change.
        kept = saved[function.saves_self]
        if kept is not None and kept.tensor is target:
            # ``self.clone()``, recorded: under create_graph the gradient
            # goes through its CloneBackward0, as in PyTorch.
            kept.tensor, kept.version = ops.Clone.apply(target), 0
    np.copyto(target.data, result.data, casting="unsafe")
    target._bump_version()
    if dual.level >= 0:  # chapter 13: the tangent changes too
        forward_ad.inplace(target, result)
    if node is None:
        return target
    if target._view is None:
        target._grad_fn, target.output_nr = node, 0
        return target
    base = target._base
    base._grad_fn = CopySlices(base._gradient_edge(), _positions(target),
                               node)
    base.output_nr = 0
    _remember_forward(base._grad_fn)
    return target
