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
    IN_CUSTOM_FUNCTION, INFERENCE, MULTI, NO_GRAD, Function, _short_name,
    anomaly, dual, untracked)
from toygrad.autograd.graph import (
    ERR_BACKWARD_TWICE, Node, current_saved_tensors_hooks)
#> ch10
from toygrad.autograd.graph import extensions
#< ch10
from toygrad.dtypes import (
    result_type, tensor_type, torch_name, true_divide_type, type_name)
from toygrad.ops.common import (
    _number, _wrap, broadcast_shape, saved_before_checks, written_by_a_formula)
from toygrad.ops.indexing import Fill, _take
from toygrad.ops.inplace import Copy, Zero
from toygrad.ops.pointwise import Div, binary, saved_by_binary
from toygrad.ops.shapes import Clone, View, expand
from toygrad.tensor import Tensor, _dense
# PyTorch's refusals of an in-place change to a view that was not made in
# plain grad mode (``handle_view_on_rebase``, torch/csrc/autograd/
# variable.cpp): what the view is, then what happened, then why.
_NO_GRAD_PREFIX = "A view was created in no_grad mode and {} modified inplace"
_OF_VIEW_PREFIX = ("Output {} of {} is a view of a view which was created in "
                   "no_grad mode and {} modified inplace")
_WITH_GRAD = " with grad mode enabled."
_INFERENCE_PREFIX = ("A view was created in inference mode and {} modified "
                     "inplace in normal mode.")
_VIEW_PREFIX = "Output {} of {} is a view and {} modified inplace."
_NO_GRAD_WHY = (
    " Given that this use case is ambiguous and error-prone, it is "
    "forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
_INFERENCE_WHY = _NO_GRAD_WHY.replace("no_grad block", "inference_mode block")
_MULTI_WHY = (
    " This view is the output of a function that returns multiple views. "
    "Such functions do not allow the output views to be modified inplace. "
    "You should replace the inplace operation by an out-of-place one.")
_CUSTOM_WHY = (
    " This view was created inside a custom Function (or because an input "
    "was returned as-is) and the autograd logic to handle view+inplace would "
    "override the custom backward associated with the custom Function, "
    "leading to incorrect gradients. This behavior is forbidden. You can fix "
    "this by cloning the output of the custom Function.")
_CHANGED_ITSELF = "is being"
_CHANGED_ELSEWHERE = "its base or another view of its base has been"

def _refuse_rebase(view, changed):
    """Raise PyTorch's error if ``view`` may not be changed in place
    (``changed`` says how: itself, or its base or another view)."""
    meta = view._view[3]
    if meta is None:
        return
    if meta == INFERENCE:
        raise RuntimeError(_INFERENCE_PREFIX.format(changed) + _INFERENCE_WHY)
    grad_fn = view._grad_fn
    if meta == NO_GRAD or grad_fn is None:
        message = (_NO_GRAD_PREFIX.format(changed) if grad_fn is None else
                   _OF_VIEW_PREFIX.format(view.output_nr,
                                          _short_name(grad_fn), changed))
        message += _WITH_GRAD
    else:
        message = _VIEW_PREFIX.format(view.output_nr, _short_name(grad_fn),
                                      changed)
    if meta == IN_CUSTOM_FUNCTION:
        raise RuntimeError(message + _CUSTOM_WHY)
    raise RuntimeError(message + (_MULTI_WHY if meta == MULTI
                                  else _NO_GRAD_WHY))


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
    base = view._base
    if view._grad_fn is None and not base.requires_grad:
        return  # nothing to differentiate, before or after
    _refuse_rebase(view, _CHANGED_ELSEWHERE)
    view._view_version = view._version_counter[0]
    _set_node(view, AsStridedBackward0(base._gradient_edge(), _positions(view),
                                       base))
    _remember_forward(view._grad_fn)


def _remember_forward(node):
    """Under anomaly mode (chapter 11), keep the traceback of the line that
    made ``node``, as ``Function.apply`` does for the nodes it records."""
    if anomaly.enabled:
        from toygrad.autograd.anomaly_mode import store_stack
        store_stack(node)


def _no_create_graph(node):
    """PyTorch records these backwards with operations toygrad does not
    reproduce node for node, so it refuses rather than show another graph.
    (Before a create_graph pass starts, ``graph.refuse_create_graph``
    finds these nodes, so that nothing has run when the pass is refused.)"""
    if grad_mode.state.enabled:
        node.refuse_create_graph()


def _refuse_create_graph(node):
    raise NotImplementedError(
        f"toygrad does not support create_graph through {node.name()} "
        "(a view whose numbers were changed in place)")


class AsStridedBackward0(Node):
    """A view's node after its base changed: the base's gradient, zero
    except at the positions the view takes from the base."""

    __slots__ = ("next_functions", "positions", "base_shape", "metadata")

    refuse_create_graph = _refuse_create_graph

    def __init__(self, base_edge, positions, base):
        super().__init__()
        self.next_functions = (base_edge,)
        self.positions, self.base_shape = positions, base.shape

    def apply(self, grad):
        _no_create_graph(self)
        # PyTorch's as_strided_backward: the gradient copied (copy_) into
        # new zeros the size of the base, and returned as a view of them
        # (as_strided): its _base is those zeros, its version 1.
        total = Scatter.apply(grad, self.positions, self.base_shape)
        storage = Tensor(total.data.reshape(-1))
        ctx = View._backward_cls()
        ctx.shape, ctx.new_shape = storage.shape, self.base_shape
        view = untracked(View, storage, View.take(ctx, storage.data), ctx)
        return [written_by_a_formula(view, 1)]


class Scatter(Function):
    """A base-shaped tensor of zeros, plus ``grad`` at ``positions``.

    Positions taken twice (a view made by ``expand``) receive the sum.
    """
    node_name = "AsStridedBackward0Backward"

    @staticmethod
    def forward(ctx, grad, positions, base_shape):
        ctx.positions = positions
        size = int(np.prod(base_shape))
        flat = positions.reshape(-1)
        if np.bincount(flat, minlength=size).max(initial=0) <= 1:
            # No position taken twice: the numbers are copied into zeros,
            # as PyTorch's as_strided_backward copies (a -0.0 stays -0.0).
            total = np.zeros(size, grad.dtype)
            total[flat] = grad.data.reshape(-1)
            return Tensor(total.reshape(base_shape))
        total = np.bincount(flat, grad.data.reshape(-1), minlength=size)
        return Tensor(total.astype(grad.dtype).reshape(base_shape))

    @staticmethod
    def backward(ctx, grad):
        return Gather.apply(grad, ctx.positions), None, None

    #> ch13
    @staticmethod
    def jvp(ctx, tgrad, _positions, _shape):  # chapter 13: linear in grad
        _, positions, base_shape = ctx.primals
        return Scatter.apply(tgrad, positions, base_shape)
    #< ch13


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

    #> ch13
    @staticmethod
    def jvp(ctx, tbase, _):  # chapter 13: linear in base
        return Gather.apply(tbase, ctx.positions)
    #< ch13


class CopySlices(Node):
    """The base's node after an in-place operation through one of its views.

    Its edges: the base's previous history, then the in-place node's other
    inputs. The gradient at the view's positions goes through the in-place
    node ``fn``; the rest goes straight on to the base's previous history.
    """

    __slots__ = ("next_functions", "fn", "positions", "overlap", "metadata",
                 "released")

    refuse_create_graph = _refuse_create_graph

    def __init__(self, base_edge, positions, fn, overlap=False):
        super().__init__()
        self.next_functions = (base_edge,) + fn.next_functions[1:]
        self.fn, self.positions = fn, positions
        # A view whose elements share memory (zero_ through an expand):
        # PyTorch's CopySlices copies the gradient into such a view, and
        # refuses, at backward.
        self.overlap = overlap
        self.released = False

    def apply(self, grad):
        self._check_can_run()
        grad_view = Gather.apply(grad, self.positions)  # the view's part
        grads = self.fn.apply(grad_view)  # through the in-place node
        # The base's gradient: grad, with fn's result at the view's places
        # (written twice, as PyTorch's CopySlices writes it: version 2).
        grad_base = Overwrite.apply(grad, grads[0], self.positions)
        return [written_by_a_formula(grad_base, 2)] + grads[1:]

    def _check_can_run(self):
        if self.released:  # PyTorch's CopySlices drops fn once it ran
            raise RuntimeError(ERR_BACKWARD_TWICE)
        if self.overlap:
            raise RuntimeError(_INTERNAL_OVERLAP)
        _no_create_graph(self)

    def release_variables(self):
        # PyTorch's CopySlices::release_variables sets fn to null: a second
        # backward through it fails at once, whatever fn saved.
        self.fn.release_variables()
        self.released = True


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

    #> ch13
    @staticmethod
    def jvp(ctx, tbase, tvalue, _):  # chapter 13: linear in both
        return Overwrite.apply(tbase, tvalue, ctx.positions)
    #< ch13


# In-place operations.

_INFERENCE_VIEW = ("toygrad does not support an in-place change outside "
                   "inference mode to a view made in inference mode (or to "
                   "its base)")


def _refuse_unsupported(target):
    """Outside inference mode, toygrad's refusals where it does not follow
    PyTorch (chapter 10). (An inference tensor is refused by its version
    counter: see Tensor._bump_version.)"""
    if target._view is not None and target._view[3] == INFERENCE:
        raise NotImplementedError(_INFERENCE_VIEW)


def _set_node(tensor, node):
    """``tensor``'s history is now ``node`` (its output 0)."""
    #> ch10
    old_fn, old_output_nr = tensor._grad_fn, tensor.output_nr
    #< ch10
    tensor._grad_fn, tensor.output_nr = node, 0
    #> ch10
    if tensor._hooks is not None:  # they follow (toygrad.autograd.hooks)
        extensions.move_hooks(tensor, old_fn, old_output_nr, node)
    #< ch10


def _check_can_change(target):
    """Raise PyTorch's error if recording ``target``'s change is forbidden
    (``check_inplace``; called when grad mode is on and ``target`` or
    another input requires grad)."""
    if target._view is None:
        if target._requires_grad and target._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being "
                               "used in an in-place operation.")
        return
    _refuse_rebase(target, _CHANGED_ITSELF)
    # PyTorch asks whether the view requires grad and its base is a leaf
    # (a base that does not require grad is a leaf too).
    if target.requires_grad and target._base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is "
                           "being used in an in-place operation.")
    # Then PyTorch's leaf check, for a view too, on the node as stored: a
    # view whose base was changed in place since (CopySlices) requires
    # grad, and is still a leaf until its node is asked for (is_leaf reads
    # grad_fn_ without making the view's new node).
    if target._grad_fn is None and target.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being "
                           "used in an in-place operation.")


_INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor "
    "refers to a single memory location. Please clone() the tensor before "
    "performing the operation.")


def _overlaps_itself(array):
    """Whether two elements of ``array`` share memory (a stride 0 from
    ``expand``), as PyTorch's ``has_internal_overlap`` answers YES."""
    return array.size > 0 and any(
        stride == 0 and size > 1
        for stride, size in zip(array.strides, array.shape))


def _writable(target, source, function):
    # zero_ writes one number everywhere, so PyTorch lets it write through
    # an expand; every other in-place operation refuses.
    if function is not Zero and _overlaps_itself(target.data):
        raise RuntimeError(_INTERNAL_OVERLAP)
    if (not target.data.flags.writeable and target._base is None
            and _writable_alias(target.data) is None):
        raise RuntimeError(_INTERNAL_OVERLAP)
    if not isinstance(source, Tensor) or function is Fill:
        return  # fill_ reads its 0-dim value first (value.item())
    if _partly_overlap(target.data, source.data):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and "
            "the written-to tensor refer to a single memory location. Please "
            "clone() the tensor before performing the operation.")


_ORDER_MATTERS = (
    "toygrad does not support an in-place operation that reads, at one "
    "element, memory it changes at another, when the input or the "
    "written-to tensor skips or repeats elements (a strided or expanded "
    "view): PyTorch cannot tell how they overlap (get_overlap_status is "
    "TOO_HARD), lets the operation run, and its result depends on the order "
    "in which its kernel visits memory. clone() the input first.")


def _refuse_order_dependent(target, source, result):
    """Refuse writing ``result`` into ``target`` where the result PyTorch's
    kernel gives depends on its order: ``source`` (the input, read at each
    element of ``target``) shares memory with ``target`` in a way PyTorch
    calls too hard to check (either is not dense), and some memory that
    the write changes is read at another element. Where no such memory
    exists, every order gives toygrad's result (the input read first), and
    the operation runs, as in PyTorch."""
    a, b = target.data, source.data
    if (_dense(a) and _dense(b)) or _same_view(a, b) or not a.size or (
            not b.size) or not np.shares_memory(a, b):
        return
    if a.itemsize != b.itemsize:
        raise NotImplementedError(_ORDER_MATTERS)
    written = _addresses(a)
    read = _addresses(np.broadcast_to(b, a.shape))
    new = np.ascontiguousarray(result.astype(a.dtype, copy=False))
    bits = f"u{a.itemsize}"
    changed = (new.view(bits)
               != np.ascontiguousarray(a).view(bits)).reshape(a.shape)
    elsewhere = read[read != written]
    if np.isin(elsewhere, written[changed]).any():
        raise NotImplementedError(_ORDER_MATTERS)


def _addresses(array):
    """The memory address of each element of ``array``."""
    start = array.__array_interface__["data"][0]
    where = np.indices(array.shape, sparse=True)
    return np.broadcast_to(start + sum(
        (index * stride for index, stride in zip(where, array.strides)),
        np.int64(0)), array.shape)


def _same_view(a, b):
    """Whether arrays ``a`` and ``b`` see the same memory the same way:
    the same start, shape and strides."""
    return (a.__array_interface__["data"][0]
            == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides)


def _partly_overlap(a, b):
    """PyTorch's ``get_overlap_status(a, b) == PARTIAL``: two arrays that
    each tile a block of memory, blocks that meet without being the same.
    Where either repeats or skips elements (an expand, a strided view),
    PyTorch calls it too hard to tell and lets the operation run."""
    if _same_view(a, b):
        return False  # the very same view: full overlap, allowed
    if not a.size or not b.size:
        return False  # PyTorch: an empty tensor overlaps nothing
    a_start = a.__array_interface__["data"][0]
    b_start = b.__array_interface__["data"][0]
    if not (_dense(a) and _dense(b)):
        return False
    a_end, b_end = a_start + a.nbytes, b_start + b.nbytes
    if a_start == b_start and a_end == b_end:
        return a.strides != b.strides  # x.t() and x: partial
    return a_start < b_end and b_start < a_end


def _writable_alias(array):
    """A writable array over ``array``'s memory, or None if that memory is
    not writable: NumPy marks every view of an ``expand`` read-only, and a
    view of an inference tensor has no ``_base`` to write through."""
    root = array
    while getattr(root, "base", None) is not None:
        root = root.base
    if not isinstance(root, np.ndarray) or not root.flags.writeable:
        return None
    offset = (array.__array_interface__["data"][0]
              - root.__array_interface__["data"][0])
    return np.ndarray(array.shape, array.dtype, buffer=root, offset=offset,
                      strides=array.strides)


def _write(target, numbers):
    """Write ``numbers`` into ``target``'s memory.

    A view taken from an ``expand`` is read-only in NumPy even where its
    elements do not overlap (``e[0]``): it is written through its base's
    array, at the positions it takes.
    """
    if target.data.flags.writeable:
        np.copyto(target.data, numbers, casting="unsafe")
        return
    base = target._base
    if base is None:  # a view of an inference tensor (chapter 10): untracked
        np.copyto(_writable_alias(target.data), numbers, casting="unsafe")
        return
    numbers = numbers.astype(base.dtype, copy=False)
    if base.ndim == 0:  # every element of target is the base's one number
        if numbers.size:  # the last written, as NumPy's and PyTorch's
            base.data[()] = numbers.reshape(-1)[-1]
        return
    where = np.unravel_index(_positions(target), base.shape)
    base.data[where] = numbers


def _snapshot(tensor):
    """``tensor``'s numbers as they are now, with its history."""
    copy = Tensor(tensor.data.copy())
    copy._grad_fn, copy.output_nr = tensor.grad_fn, tensor.output_nr
    copy._requires_grad = tensor._requires_grad
    return copy


def _autograd_sees(target, args):
    """Whether PyTorch's autograd kernel runs for an in-place change of
    ``target`` by ``args``: an inference tensor has no autograd dispatch
    key, so a change whose tensors are all inference tensors skips the
    checks (a leaf's among them) and fails only at the version counter
    (chapter 10). A Python number is wrapped as a normal tensor; ``alpha``
    is a Scalar, not a tensor."""
    if not target._is_inference:
        return True
    return bool(args) and not (isinstance(args[0], Tensor)
                               and args[0]._is_inference)


def _checked_arguments(target, function, args, writes):
    """The arguments of an in-place ``function`` on ``target``, a number
    wrapped in the result's dtype, after PyTorch's kernel's checks."""
    if writes:
        _writable(target, args[0] if args else None, function)
    if not args:
        return args
    other = args[0]
    if function is Copy or function is Fill:
        args = (_wrap(other, target.dtype),)
    else:
        dtype = (true_divide_type if function is Div
                 else result_type)(target, other)
        if np.can_cast(dtype, target.dtype, "same_kind") is False:
            raise RuntimeError(
                f"result type {torch_name(dtype)} can't be "
                "cast to the desired output type "
                f"{torch_name(target.dtype)}")
        args = (_wrap(other, dtype),) + args[1:]
    shape = broadcast_shape(target.shape, args[0].shape)
    if shape != target.shape:
        raise RuntimeError(
            f"output with shape {list(target.shape)} doesn't match the "
            f"broadcast shape {list(shape)}")
    return args


def _original_self(target):
    """The edge and the copy of ``target`` that a node changing it saves.

    A pack hook must be given target's numbers as they are now, not target,
    which is about to change: a copy, as PyTorch's ``original_self``,
    recorded (a CloneBackward0) if it can be; the node's edge still goes to
    target's history (None: it is target's own).
    """
    if grad_mode.state.enabled and target.requires_grad:
        return target._gradient_edge(), Clone.apply(target)
    return None, _snapshot(target)


def _check_inplace(target, function, args):
    """PyTorch's checks of an in-place change, in its order, and toygrad's
    refusals: the arguments after them (a number wrapped in the result's
    dtype), and whether the numbers are to be written at all."""
    if not grad_mode.state.inference:
        _refuse_unsupported(target)
    if grad_mode.state.enabled and (target.requires_grad or any(
            isinstance(arg, Tensor) and arg.requires_grad for arg in args)):
        _check_can_change(target)
    # A copy_ of the very numbers it writes (x.copy_(x)): PyTorch's copy_
    # returns before its checks and its kernel ("views of the same data");
    # the change is recorded and counted all the same.
    writes = not (function is Copy and isinstance(args[0], Tensor)
                  and args[0].data.dtype == target.data.dtype
                  and _same_view(target.data, args[0].data))
    try:
        return _checked_arguments(target, function, args, writes), writes
    except RuntimeError:
        # Chapter 11: PyTorch's autograd kernel saves (packs) before its
        # kernel checks the overlaps, the cast and the broadcast.
        other = args[0] if args else None
        if isinstance(other, Tensor) and function.saves_self is not None:
            saved_before_checks(*(
                _original_self(target)[1] if saved is target else saved
                for saved in saved_by_binary(function, target, other)),
                inputs=(target, other))
        raise


def _record(target, function, args):
    """``function`` applied to ``target`` and ``args``, recorded as an
    out-of-place operation would be, except that what the node keeps of
    ``target`` is a copy of its numbers now (PyTorch's ``original_self``),
    since ``target`` is about to change."""
    source, edge = target, None
    if function.saves_self is not None and current_saved_tensors_hooks():
        edge, source = _original_self(target)
    result = (binary(function, source, *args) if args
              and function is not Copy and function is not Fill
              else function.apply(source, *args))
    node = result._grad_fn
    if edge is not None and node is not None:
        node.next_functions = (edge,) + node.next_functions[1:]
    saved = node._saved if node is not None else None
    if saved and function.saves_self is not None:
        kept = saved[function.saves_self]
        if kept is not None and kept.tensor is target:
            # ``self.clone()``, recorded: under create_graph the gradient
            # goes through its CloneBackward0, as in PyTorch.
            kept.tensor, kept.version = Clone.apply(target), 0
    return result


def _write_result(target, function, args, result):
    """Write ``result``'s numbers into ``target``'s memory, unless where
    they land would depend on the order PyTorch's kernel writes in."""
    if args and isinstance(args[0], Tensor) and function is not Fill:
        _refuse_order_dependent(target, args[0], result.data)
    _write(target, result.data)


def inplace(target, function, *args):
    """Run ``function`` on ``target`` and write the result into ``target``;
    the new node, whose first edge leads to ``target``'s old history,
    becomes the history of ``target`` (of a view's base: a CopySlices)."""
    if grad_mode.state.enabled and not _autograd_sees(target, args):
        with grad_mode.no_grad():  # an inference tensor: numbers only
            return inplace(target, function, *args)
    args, writes = _check_inplace(target, function, args)
    result = _record(target, function, args)
    if writes:
        _write_result(target, function, args, result)
    target._bump_version()  # a node that saved target's numbers can tell
    #> ch13
    if dual.level >= 0:  # the tangent changes too (forward_ad.inplace)
        dual.inplace(target, result)
    #< ch13
    node = result._grad_fn
    if node is None:  # nothing recorded
        return target
    if target._view is None:  # target's history is now the new node
        _set_node(target, node)
        return target
    base = target._base  # a view: its base's history is now a CopySlices
    _set_node(base, CopySlices(base._gradient_edge(), _positions(target),
                               node, _overlaps_itself(target.data)))
    _remember_forward(base._grad_fn)
    target.grad_fn  # the view's new node now, as PyTorch's rebase_history
    return target


def setitem(x, key, value):
    """``x[key] = value``, as PyTorch's ``set_item`` and ``copy_to``.

    Indexing that takes nothing (``x[...]``, ``x[:]``) writes into ``x``
    itself; then a number or a 0-dim tensor is a ``fill_``
    (``FillBackward3``), a tensor of the same shape a ``copy_``
    (``CopyBackwards``). Another tensor is first viewed without its leading
    1s and expanded to the target's shape, as PyTorch records it.
    """
    if not isinstance(value, Tensor):  # first, as PyTorch's valueToTensor
        value = _wrap(_assignable(x, value), x.dtype)
    target = _take(x, key, setting=True)
    if value.shape == target.shape:
        return inplace(target, Copy, value)
    if value.ndim == 0:
        return inplace(target, Fill, value)
    shape = value.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    value = View.apply(value, shape)
    if shape != target.shape:
        value = expand(value, target.shape)
    return inplace(target, Copy, value)


def _assignable(x, value):
    """``value`` as a Python number, or PyTorch's error for ``x[k] = value``.

    PyTorch takes numbers and NumPy integers (as indices), not lists,
    arrays or other NumPy scalars.
    """
    if isinstance(value, complex):
        raise NotImplementedError("toygrad does not support complex numbers")
    if isinstance(value, np.integer):
        return int(value)
    if not _number(value):
        raise TypeError(f"can't assign a {type_name(value)} to a "
                        f"{tensor_type(x.dtype)}")
    return value


def grad_fn(tensor):
    """``Tensor.grad_fn``: the node that made ``tensor`` (None for a leaf).

    A view whose numbers were changed in place, through itself, its base or
    another view of the base, gets a new node first, as in PyTorch. This
    module gives ``Tensor`` the property (the tensor module is below it).
    """
    if (tensor._view is not None
            and tensor._view_version != tensor._version_counter[0]):
        refresh_grad_fn(tensor)
    return tensor._grad_fn


Tensor.grad_fn = property(grad_fn, Tensor.grad_fn.fset,
                          doc=grad_fn.__doc__)
