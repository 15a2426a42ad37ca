"""Hooks: functions the engine calls around a node, in PyTorch's order.

PyTorch's engine runs a node in ``call_function``
(``torch/csrc/autograd/engine.cpp``), and so does ``call_function`` here:

1. the *tensor pre-hooks*: the hooks of the tensors this node made
   (``Tensor.register_hook``), each given its tensor's gradient and able to
   replace it; for a leaf's ``AccumulateGrad``, the leaf's hooks;
2. the *retains_grad hooks* (``Tensor.retain_grad``): they keep a copy of
   the gradient, as replaced by the tensor hooks, in the tensor's ``.grad``;
3. the node's *pre-hooks* (``Node.register_prehook``), given all the
   node's incoming gradients;
4. the node itself (``apply``); an ``AccumulateGrad`` then calls its leaf's
   *post-accumulate-grad hooks*
   (``Tensor.register_post_accumulate_grad_hook``);
5. the node's *post-hooks* (``Node.register_hook``), given what the node
   sent on and what it received.

A hook that returns None leaves the gradients as they were; one that returns
something replaces them, after the checks PyTorch makes
(``torch/csrc/autograd/python_hook.cpp``).
"""

import weakref
from collections import OrderedDict

from toygrad.autograd import engine
from toygrad.autograd import graph
from toygrad.autograd.graph import AccumulateGrad
from toygrad.dtypes import tensor_type
from toygrad.tensor import Tensor
from toygrad.utils.hooks import RemovableHandle


class NodeHooks:
    """The hooks registered on one node, in the order they were added."""

    __slots__ = ("tensor_pre", "retains_grad", "pre", "post")

    def __init__(self):
        self.tensor_pre = []  # (a tensor's hooks dict, its output_nr)
        self.retains_grad = {}  # output_nr -> the retains_grad hook
        self.pre = OrderedDict()
        self.post = OrderedDict()


class LeafHooks:
    """What the engine sees of an AccumulateGrad: its own hooks, and its
    leaf's tensor hooks, read from the leaf each time."""

    __slots__ = ("tensor_pre", "retains_grad", "pre", "post")

    def __init__(self, node):
        own = node._own_hooks
        leaf = getattr(node.variable, "_hooks", None)
        self.tensor_pre = ([(leaf.backward, 0)]
                           if leaf is not None and leaf.backward else [])
        self.retains_grad = {}  # a leaf never needs one
        self.pre = own.pre if own is not None else {}
        self.post = own.post if own is not None else {}


class TensorHooks:
    """The hooks of one tensor, and whether it retains its gradient."""

    __slots__ = ("backward", "post_accumulate", "node", "retains_grad")

    def __init__(self):
        self.backward = None  # OrderedDict of register_hook's hooks
        self.post_accumulate = None
        self.node = None  # the grad_fn the backward hooks are registered on
        self.retains_grad = False


def _node_hooks(node):
    """The node's own hooks, made on first use."""
    own = node._own_hooks if isinstance(node, AccumulateGrad) else node._hooks
    if own is None:
        own = node._hooks = NodeHooks()
    return own


def _add(hooks_dict, hook):
    # From now on the engine runs the nodes in PyTorch's exact order,
    # which hooks can see (engine.execute_in_pytorch_order).
    engine.ordered.hooks = True
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = hook
    return handle


def register_node_hook(node, kind, hook):
    """``Node.register_prehook`` (kind "pre"), ``register_hook`` ("post")."""
    return _add(getattr(_node_hooks(node), kind), hook)


def _tensor_hooks(tensor):
    if tensor._hooks is None:
        tensor._hooks = TensorHooks()
    return tensor._hooks


_NO_GRAD_HOOK = ("cannot register a hook on a tensor that doesn't require "
                 "gradient")


def register_hook(tensor, hook):
    """``Tensor.register_hook``: ``hook(grad)`` sees, and may replace, the
    gradient that reaches ``tensor``. Returns a removable handle."""
    if not tensor.requires_grad:
        raise RuntimeError(_NO_GRAD_HOOK)
    hooks = _tensor_hooks(tensor)
    if hooks.backward is None:
        # As torch/_tensor.py's register_hook: grad_fn is asked for (and a
        # view's renewed) only by the first hook; later ones join its dict,
        # which is made first, so that it stays even if asking for grad_fn
        # raises (a later hook is then added without the question).
        hooks.backward = OrderedDict()
        grad_fn = tensor.grad_fn
        if grad_fn is not None:  # a leaf's are read by its AccumulateGrad
            _node_hooks(grad_fn).tensor_pre.append(
                (hooks.backward, tensor.output_nr))
            hooks.node = grad_fn
    elif tensor._grad_fn is not hooks.node:
        raise NotImplementedError(
            "toygrad does not support register_hook on a tensor whose "
            "grad_fn changed (an in-place operation) after its first hook")
    return _add(hooks.backward, hook)


def register_post_accumulate_grad_hook(tensor, hook):
    """``Tensor.register_post_accumulate_grad_hook``: ``hook(tensor)`` runs
    once the leaf's ``.grad`` has been updated. Returns a removable handle."""
    if not tensor.requires_grad:
        raise RuntimeError(_NO_GRAD_HOOK)
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered "
                           "on non-leaf tensors")
    hooks = _tensor_hooks(tensor)
    if hooks.post_accumulate is None:
        hooks.post_accumulate = OrderedDict()
    return _add(hooks.post_accumulate, hook)


_NO_GRAD_RETAIN = "can't retain_grad on Tensor that has requires_grad=False"


def _add_retains_grad_hook(grad_fn, output_nr, retain):
    """Keep ``retain`` apart from the tensor hooks of ``grad_fn``'s output
    ``output_nr``: the engine calls it after them (``retains_grad_hooks_``
    of PyTorch's Node, a map with one hook per output)."""
    engine.ordered.hooks = True  # see _add
    _node_hooks(grad_fn).retains_grad[output_nr] = retain


# retain_grad asks whether the tensor is a leaf by its node as stored, as
# PyTorch's VariableHooks::retain_grad (variable.cpp) does, not as the grad_fn
# getter would make it: a view whose node is not made yet (of a tensor changed
# in place since, or made under no_grad) is a leaf there, and nothing is
# retained, without an error.
# Task 10.2: a non-leaf keeps its gradient when asked
def retain_grad(tensor):
    """``Tensor.retain_grad``: a non-leaf keeps its gradient in ``.grad``."""
    if not tensor.requires_grad:
        raise RuntimeError(_NO_GRAD_RETAIN)
    if tensor._grad_fn is None:  # a leaf keeps its gradient anyway
        return
    grad_fn = tensor.grad_fn
    hooks = _tensor_hooks(tensor)
    if hooks.retains_grad:  # once is enough
        return
    weak = weakref.ref(tensor)  # the hook must not keep the tensor alive

    def retain(grad):  # returns None: the gradient goes on unchanged
        variable = weak()
        if variable is not None and grad is not None:
            if variable._grad is None:
                variable._grad = grad.clone()
            else:
                variable._grad = variable._grad + grad

    _add_retains_grad_hook(grad_fn, tensor.output_nr, retain)
    hooks.retains_grad = True


def _hook_name(hook):
    return getattr(hook, "__name__", type(hook).__name__)


def _check_single_result(original, result, hook):
    """PyTorch's checks of a gradient a hook returned instead of another."""
    if original is None:
        raise RuntimeError(
            "can't replace a None gradient with a non-None value")
    if not isinstance(original, Tensor):  # the scalar engine's floats
        if not isinstance(result, float):
            raise TypeError("expected Variable, but hook returned "
                            f"'{type(result).__name__}'")
        return
    if not isinstance(result, Tensor):
        raise TypeError("expected Variable, but hook returned "
                        f"'{type(result).__name__}'")
    if result.dtype != original.dtype:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value (was "
            f"{tensor_type(original.dtype)} got {tensor_type(result.dtype)})")
    if result.shape != original.shape:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the size of value")


def _check_result(previous, result, hook):
    """A node hook's result: a tuple of as many gradients, each checked."""
    if not isinstance(result, tuple):
        raise TypeError("expected tuple, but hook returned "
                        f"'{type(result).__name__}'")
    if len(result) != len(previous):
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has returned an incorrect number of "
            f"values (got {len(result)}, but expected {len(previous)})")
    for original, new in zip(previous, result):
        if new is not None:
            _check_single_result(original, new, hook)


def _call_tensor_hooks(hooks_dict, grads, output_nr):
    grad = grads[output_nr]
    changed = False
    for hook in list(hooks_dict.values()):
        result = hook(grad)
        if result is not None:
            _check_single_result(grad, result, hook)
            grad, changed = result, True
    if changed:
        grads = list(grads)
        grads[output_nr] = grad
    return grads


def _call_node_hooks(hooks_dict, values, *more):
    for hook in list(hooks_dict.values()):
        result = hook(tuple(values), *more)
        if result is not None:
            _check_result(tuple(values), result, hook)
            values = list(result)
    return values


# Task 10.1: the engine runs a node's hooks in PyTorch's order
def call_function(node, grads, run=None):
    """Run ``node`` on ``grads`` with its hooks; return the gradients as
    the pre-hooks left them, and what the node sends on. ``run(node,
    grads)``, if given, runs the node instead of ``node.apply``."""
    hooks = node._hooks
    grads = call_tensor_pre_hooks(node, grads)
    grads = _call_node_hooks(hooks.pre, grads)
    outputs = node.apply(*grads) if run is None else run(node, grads)
    if isinstance(node, AccumulateGrad):
        _call_post_accumulate_grad_hooks(node.variable)
    outputs = _call_node_hooks(hooks.post, outputs, tuple(grads))
    return tuple(grads), outputs


def call_tensor_pre_hooks(node, grads):
    """Steps 1 and 2: the hooks of the tensors ``node`` made, then their
    retains_grad hooks; returns the gradients as the hooks left them."""
    hooks = node._hooks
    for hooks_dict, output_nr in hooks.tensor_pre:
        grads = _call_tensor_hooks(hooks_dict, grads, output_nr)
    for output_nr, retain in hooks.retains_grad.items():
        retain(grads[output_nr])
    return grads


def _call_post_accumulate_grad_hooks(leaf):
    hooks = getattr(leaf, "_hooks", None)
    if hooks is not None and hooks.post_accumulate:
        for hook in list(hooks.post_accumulate.values()):
            hook(leaf)


def move_hooks(tensor, old_fn, old_output_nr, new_fn):
    """``tensor`` got a new node (an in-place change, chapter 11): PyTorch's
    ``update_tensor_hooks_on_new_gradfn``. The hooks registered so far stay
    on the old node (they still run if a gradient reaches it); later ones go
    to the new node; and ``retain_grad`` moves to the new node."""
    hooks = tensor._hooks  # the views call this only for a tensor with hooks
    hooks.backward, hooks.node = None, None
    if hooks.retains_grad and old_fn is not None:
        retain = _node_hooks(old_fn).retains_grad.pop(old_output_nr, None)
        if retain is not None:
            _node_hooks(new_fn).retains_grad[tensor.output_nr] = retain


# Plugged into the graph, the engine and the views, which call hooks through
# these.
extensions = graph.extensions
extensions.register_node_hook = register_node_hook
extensions.leaf_hooks = LeafHooks
extensions.call_function = call_function
extensions.call_tensor_pre_hooks = call_tensor_pre_hooks
extensions.move_hooks = move_hooks

# Tensor's methods that register hooks (torch/_tensor.py's register_hook,
# register_post_accumulate_grad_hook and retain_grad) are these functions,
# bound here with the hooks: the tensor module, below, does not import them.
Tensor.register_hook = register_hook
Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
Tensor.retain_grad = retain_grad
