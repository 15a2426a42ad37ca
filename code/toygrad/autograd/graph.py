"""The nodes of a recorded graph, as the backward engine sees them.

Every engine in toygrad (scalar and tensor) records the same kind of graph,
the one PyTorch records: each result points to the node that made it
(``grad_fn``), and each node points to the nodes of its inputs
(``next_functions``). The engine walks these nodes and nothing else.
"""

import itertools
import weakref

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access "
    "saved tensors after they have already been freed). Saved intermediate "
    "values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors "
    "after calling backward."
)

# The nodes PyTorch writes in C++ rather than generates from
# derivatives.yaml: their ``name()`` carries the C++ namespace, as PyTorch's
# (``torch::autograd::AccumulateGrad``), while their class, what ``repr`` and
# torchviz show, is the bare name.
CPP_NODES = frozenset(
    {"AccumulateGrad", "CopySlices", "CopyBackwards", "Error", "GraphRoot"})
CPP_NAMESPACE = "torch::autograd::"


#> ch10
class _Extensions:
    """Where later chapters plug into code written before them: chapter 10's
    hooks into the graph, the engine and the views (``toygrad.autograd.hooks``
    sets these when it is imported, as ``toygrad.autograd`` does), chapter
    12's ``backward`` with ``inputs`` into ``Tensor.backward``
    (``toygrad.autograd.differentiate``). None until then."""

    register_node_hook = None  # Node.register_prehook and register_hook
    leaf_hooks = None  # what the engine sees of an AccumulateGrad's hooks
    call_function = None  # a node run with its hooks
    call_tensor_pre_hooks = None  # a node's tensors' hooks alone
    move_hooks = None  # a tensor's hooks when it gets a new node (views)
    #> ch12
    backward = None  # Tensor.backward(inputs=...)
    #< ch12


extensions = _Extensions()
#< ch10


def node_name(class_name):
    """``name()`` of a node of class ``class_name``, as PyTorch gives it."""
    return (CPP_NAMESPACE + class_name if class_name in CPP_NODES
            else class_name)


def short_name(node):
    """A node's name without the C++ namespace: its class name in PyTorch,
    which ``repr`` and torchviz show."""
    return node.name().rsplit("::", 1)[-1]


#> ch05
# Operations whose nodes PyTorch writes in C++: there a node computes only
# the gradients the pass needs. A custom Function's (a user's, or the book's
# examples') keeps ctx.needs_input_grad as forward set it, as in PyTorch.
BUILT_IN = ("toygrad.ops", "toygrad.views", "toygrad.nn.",
            "toygrad.autograd.function")  # its ToCopy, the engine's cast
#< ch05

#> ch05
def refuse_create_graph(root, needed=None):
    """Before a create_graph pass starts: the error of any node of the pass
    whose backward toygrad cannot record (the views' nodes that have a
    ``refuse_create_graph``), so that nothing has run (no hook, no retained
    gradient) when the pass is refused."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        refuse = getattr(node, "refuse_create_graph", None)
        if refuse is not None and (needed is None or node in needed):
            refuse()
        stack.extend(next_node for next_node, _ in node.next_functions)


#< ch05
# Every node takes the next number from this counter when it is created: the
# engine runs the newest node first.
next_sequence_nr = itertools.count().__next__


class Node:
    """One recorded operation: how to send a gradient back to its inputs.

    The protocol the engine relies on:

    - ``next_functions``: one ``(node or None, input_nr)`` pair per input of
      the operation: the node that produced that input, and which of that
      node's outputs it was. ``None`` marks an input that needs no gradient.
    - ``apply(*grad_outputs)``: given the gradient of each output of the
      operation, return the gradient for each input, in the order of
      ``next_functions`` (``None`` for "no gradient").
    - ``release_variables()``: drop what was saved for backward.
    - ``num_outputs``: how many outputs the operation had, so how many
      gradients arrive.
    - ``sequence_nr``: a number from a counter, taken when the node is
      created.
    - ``_hooks``: None, or the hooks registered on the node (chapter 10);
      the engine checks it before running the node.
    """

    __slots__ = ("sequence_nr", "_hooks")
    num_outputs = 1

    def __init__(self):
        self.sequence_nr = next_sequence_nr()
        self._hooks = None

    #> ch10 hooks on a node
    def register_prehook(self, hook):
        """Call ``hook(grad_outputs)`` before the node runs; it may return
        new ``grad_outputs``. Returns a handle that removes the hook."""
        return extensions.register_node_hook(self, "pre", hook)

    def register_hook(self, hook):
        """Call ``hook(grad_inputs, grad_outputs)`` after the node runs; it
        may return new ``grad_inputs``. Returns a handle that removes it."""
        return extensions.register_node_hook(self, "post", hook)
    #< ch10

    def name(self):
        """PyTorch's name of the node: ``MulBackward0``, and for a node
        PyTorch writes in C++, with its namespace
        (``torch::autograd::AccumulateGrad``)."""
        return node_name(type(self).__name__)

    def apply(self, *grad_outputs):
        raise NotImplementedError

    def release_variables(self):
        pass

    def __repr__(self):
        return f"<{short_name(self)} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The node of a leaf that requires grad.

    It adds each gradient it receives into the leaf's ``.grad``.
    """

    #> ch03 until ch10
    #| __slots__ = ("variable", "__weakref__")
    #< ch03 until ch10
    #> ch10
    __slots__ = ("variable", "_own_hooks", "__weakref__")
    #< ch10
    next_functions = ()

    def __init__(self, variable):
        #> ch04 Node.__init__'s work, set here (one node per leaf a step)
        self.sequence_nr = next_sequence_nr()
        #< ch04
        #> ch10
        self._own_hooks = None  # what the _hooks property sets
        #< ch10
        self.variable = variable
    #> ch10

    # A leaf's own hooks (register_hook, register_post_accumulate_grad_hook)
    # live on the leaf, not here: only the graph keeps this node alive, so
    # it can die and be made again while the leaf lives. The engine sees the
    # hooks of both.
    @property
    def _hooks(self):
        if (self._own_hooks is None
                and getattr(self.variable, "_hooks", None) is None):
            return None
        return extensions.leaf_hooks(self)

    @_hooks.setter
    def _hooks(self, hooks):
        self._own_hooks = hooks
    #< ch10

    # Task 4.2: a leaf accumulates its gradients
    def apply(self, grad):
        variable = self.variable
        #> ch05
        if variable.grad_fn is not None:  # an in-place operation gave it one
            raise RuntimeError(
                "leaf variable has been moved into the graph interior")
        #< ch05
        if not variable.requires_grad:  # switched off since it was used
            return ()
        if variable.grad is None:
            variable.grad = variable._new_grad(grad)
        else:
            variable.grad = variable._add_grad(grad)
        return ()


def grad_accumulator(leaf):
    """The AccumulateGrad node of a leaf that requires grad, made on first use.

    The graph keeps the node alive, and the node keeps the leaf; the leaf
    refers to its node only weakly (``leaf._accumulator``), as in PyTorch, so
    that no reference cycle forms.
    """
    accumulator = leaf._accumulator and leaf._accumulator()
    if accumulator is None:
        accumulator = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(accumulator)
    return accumulator


# Saved-tensor hooks (chapter 11): how a node stores what it saves.

import contextlib  # noqa: E402  (kept with the code that uses them)
import threading  # noqa: E402

class _SavedTensorsHooks(threading.local):
    """Per thread, as in PyTorch: the pairs pushed by ``saved_tensors_hooks``
    (innermost last), and the message that forbids them, if any."""

    def __init__(self):
        self.stack = []
        self.disabled_message = None


saved_tensors_hooks_state = _SavedTensorsHooks()


def current_saved_tensors_hooks():
    """The ``(pack_hook, unpack_hook)`` pair a tensor saved now goes
    through: the innermost one, or None."""
    state = saved_tensors_hooks_state
    if not state.stack or state.disabled_message is not None:
        return None
    return state.stack[-1]


class saved_tensors_hooks:
    """Within this context, every tensor a node saves goes through the hooks.

    ``pack_hook(tensor)`` runs (with grad mode off) when the tensor is saved,
    and what it returns is kept instead of the tensor; ``unpack_hook(packed)``
    runs when backward asks for it, and must return a tensor with the same
    numbers. Nested contexts: only the innermost pair is used.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        state = saved_tensors_hooks_state
        if state.disabled_message is not None:
            raise RuntimeError(state.disabled_message)
        state.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc_info):
        saved_tensors_hooks_state.stack.pop()


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Within this context, using saved-tensor hooks raises
    ``RuntimeError(error_message)``; so does entering it while some are on."""
    state = saved_tensors_hooks_state
    previous = state.disabled_message
    try:
        state.disabled_message = error_message
        if state.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        state.disabled_message = previous
