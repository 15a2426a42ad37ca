"""The backward engine: run each recorded node once, in a valid order.

A node may run only after every node that uses its outputs has sent back its
gradient: the nodes must run in a *topological order* of the graph, consumers
before producers. A recorded graph comes with one for free. A node is created
when its operation runs, after the operations that produced its inputs, so its
``sequence_nr`` (a creation counter) is larger than those of the nodes it
points to. Running the newest waiting node first is therefore always safe, and
a heap finds it in O(log n). No recursion is involved, so the depth of the
graph does not matter.

PyTorch's engine (torch/csrc/autograd/engine.cpp) also runs the newest ready
node first, but it counts each node's incoming edges beforehand and waits for
all of them, because nodes recorded on different threads are numbered
separately.

The engine knows nodes only through the protocol of
``toygrad.autograd.graph.Node``, so the scalar and the tensor engines share it
unchanged.
"""

import collections
import heapq
#> ch05
import types
#< ch05
#> ch10

from toygrad.autograd.graph import AccumulateGrad, extensions
#< ch10
#> ch12
from toygrad.autograd.graph import BUILT_IN
#< ch12
#> ch10 until ch11
#| anomaly = types.SimpleNamespace(enabled=False)  # chapter 11 turns it on
#< ch10 until ch11
#> ch11
from toygrad.autograd import anomaly_mode

anomaly = anomaly_mode.state
#< ch11
#> ch05

# References to a gradient that the engine holds besides those that
# Tensor._can_steal counts (chapter 9).
references = types.SimpleNamespace(held_by_engine=0)
#< ch05
#> ch10


# Chapter 10: set once a hook is registered (toygrad.autograd.hooks). Only
# hooks (and anomaly mode's checks) can see in which order the nodes run, and
# then the engine follows PyTorch's exactly (execute_in_pytorch_order).
ordered = types.SimpleNamespace(hooks=False)


def _call_function(node, grads_in):
    """Run ``node`` with its hooks (chapter 10); return the gradients it
    received and sent."""
    #> ch10 until ch11
    #| run = (_StealingCounted(grads_in) if type(node) is AccumulateGrad
    #|        else None)
    #< ch10 until ch11
    #> ch11 and, in anomaly mode, its checks
    run = anomaly_mode.apply if anomaly.enabled else None
    if node._hooks is None:
        return grads_in, run(node, grads_in)
    if run is None and type(node) is AccumulateGrad:
        run = _StealingCounted(grads_in)
    #< ch11
    return extensions.call_function(node, grads_in, run)


class _StealingCounted:
    """Run a leaf's AccumulateGrad after its hooks, telling
    ``Tensor._can_steal`` that the engine's tuple of what the node
    received still holds the gradient, where the hooks left it unchanged
    in a new list: a reference PyTorch's engine (which moves gradients)
    does not have (``references``; chapter 9's stealing)."""

    def __init__(self, received):
        self.received = received

    def __call__(self, node, grads):
        held = grads is not self.received and grads[0] is self.received[0]
        references.held_by_engine = int(held)
        try:
            return node.apply(grads[0])
        finally:
            references.held_by_engine = 0
#< ch10
#> ch12


def _run_needed(node, grads_in, needed, captures):
    """Chapter 12: run ``node`` in a pass that skips nodes; a built-in
    operation computes only the gradients that go to a node that runs or
    is captured (PyTorch's ``task_should_compute_output``), so it saves for
    a ``create_graph`` pass what PyTorch's saves."""
    flags = getattr(node, "needs_input_grad", None)
    narrow = flags and type(node)._forward_cls.__module__.startswith(BUILT_IN)
    if narrow:
        edges = iter(node.next_functions)  # one per tensor input
        wanted = []
        for flag, meta in zip(flags, node._input_meta):
            if meta is not None:
                next_node = next(edges)[0]
                flag = flag and (next_node in needed or next_node in captures)
            wanted.append(flag)
        node.needs_input_grad = tuple(wanted)
    try:
        if node._hooks is None and not anomaly.enabled:
            return grads_in, node.apply(*grads_in)
        return _call_function(node, grads_in)
    finally:
        if narrow:
            node.needs_input_grad = flags
#< ch12


# Task 4.1: the engine's loop: every node once, newest first
#> ch04 until ch05
#| def execute(root, grad, retain_graph=False):
#< ch04 until ch05
#> ch05 until ch12
#| def execute(root, grad, retain_graph=False, input_nr=0):
#< ch05 until ch12
#> ch12
def execute(root, grad, retain_graph=False, input_nr=0, needed=None,
            captures=None):
#< ch12
    """Run backward from ``root``, the node that made the output.

    ``grad`` is the output's gradient. A generator: after each node runs it
    yields ``(node, grads_in, grads_out)``, so a caller can watch the pass
    step by step; ``run_backward`` simply exhausts it.
    """
    #> ch05
    # input_nr: which output of ``root`` the output is (chapter 5).
    #< ch05
    #> ch12
    # needed, if given: the set of nodes to run; captures: for some nodes,
    # the (slot, where) pairs of the gradients to take from them, as
    # autograd.grad asks (see capture). Chapter 12.
    #< ch12
    #> ch10 PyTorch's order, once hooks (or chapter 11's checks) can see it
    if ordered.hooks or anomaly.enabled:
        yield from execute_in_pytorch_order(
            root, grad, retain_graph, input_nr,
            #> ch12
            needed, captures,
            #< ch12
        )
        return
    #< ch10
    # Gradients received so far by each node that is waiting to run: their sum.
    #> ch04 until ch05
    #| received = {root: grad}
    #< ch04 until ch05
    #> ch05 operations with several outputs
    # (For a node whose operation had several outputs, a list with one sum
    # per output.)
    if root.num_outputs == 1:
        received = {root: grad}
    else:
        received = {root: [None] * root.num_outputs}
        received[root][input_nr] = grad
    #< ch05
    waiting = [(-root.sequence_nr, root)]  # a heap: newest node first
    pop, push = heapq.heappop, heapq.heappush
    while waiting:
        node = pop(waiting)[1]
        #> ch04 until ch05
        #| grads_in = (received.pop(node),)
        #| grads_out = node.apply(*grads_in)
        #< ch04 until ch05
        #> ch05
        grads_in = received.pop(node)
        if node.num_outputs == 1:
            grads_in = (grads_in,)
        #< ch05
        #> ch05 until ch10
        #| grads_out = node.apply(*grads_in)
        #< ch05 until ch10
        #> ch12 a pass that skips nodes
        if needed is not None:
            if node in captures:
                grads_in = capture(node, grads_in, captures[node],
                                   node in needed)
            if node not in needed:
                continue
            grads_in, grads_out = _run_needed(node, grads_in, needed,
                                              captures)
        elif node._hooks is None and not anomaly.enabled:
        #< ch12
        #> ch10 until ch12
        #| if node._hooks is None and not anomaly.enabled:
        #< ch10 until ch12
        #> ch10 hooks around the node (and chapter 11's anomaly checks)
            grads_out = node.apply(*grads_in)
        else:
            grads_in, grads_out = _call_function(node, grads_in)
        #< ch10
        if not retain_graph:
            node.release_variables()
        yield node, grads_in, grads_out
        #> ch04 until ch05
        #| for (next_node, _), g in zip(node.next_functions, grads_out):
        #|     if next_node is None or g is None:
        #|         continue
        #|     if next_node in received:
        #|         # the node's output was used more than once: gradients
        #|         # add up (received[next_node] + g)
        #|         add_gradient(received, next_node, g)
        #|     else:
        #|         # first gradient for this node: it now waits to run
        #|         received[next_node] = g
        #|         push(waiting, (-next_node.sequence_nr, next_node))
        #< ch04 until ch05
        #> ch05
        #> ch09 each gradient moves on
        # Each gradient leaves grads_out as it moves on, as in PyTorch, so
        # that only ``received`` holds it (see add_gradient). (A copy:
        # whoever watches the pass keeps what was yielded. A node that sent
        # one gradient lets go of it below.)
        grads_in, several = None, len(grads_out) > 1
        if several:
            grads_out = list(grads_out)
        #< ch09
        for index, (next_node, input_nr) in enumerate(node.next_functions):
            g = grads_out[index] if index < len(grads_out) else None
            #> ch09
            if g is not None and several:
                grads_out[index] = None
            #< ch09
            #> ch05 until ch12
            #| if next_node is None or g is None:
            #|     continue
            #< ch05 until ch12
            #> ch12
            if next_node is None or g is None or (
                    needed is not None and next_node not in needed
                    and next_node not in captures):
                continue
            #< ch12
            if next_node.num_outputs == 1:
                before = received.get(next_node)
                if before is None:
                    # first gradient for this node: it now waits to run
                    received[next_node] = g
                    push(waiting, (-next_node.sequence_nr, next_node))
                else:
                    # the node's output was used more than once:
                    # gradients add up (before + g)
                    #> ch09
                    before = None
                    #< ch09
                    add_gradient(received, next_node, g)
            else:
                slots = received.get(next_node)
                if slots is None:
                    slots = received[next_node] = (
                        [None] * next_node.num_outputs)
                    push(waiting, (-next_node.sequence_nr, next_node))
                if slots[input_nr] is None:
                    slots[input_nr] = g
                else:
                    add_gradient(slots, input_nr, g)
        #> ch09
        # Hold no gradient past this point: one that only ``received`` holds
        # can become a leaf's .grad without a copy (see Tensor._new_grad).
        g = grads_out = None
        #< ch09
        #< ch05


def add_gradient(buffer, key, g):
    """Add ``g`` to the gradient ``buffer[key]``, which a node received
    before for the same input: ``buffer[key] + g``."""
    #> ch04 until ch09
    #| buffer[key] = buffer[key] + g
    #< ch04 until ch09
    #> ch09 in place, as PyTorch's InputBuffer
    # PyTorch's InputBuffer adds in place into a gradient that only it holds,
    # whose memory no other tensor shares, outside create_graph; the sum's
    # _version shows it (x * x gives x.grad._version == 1). A toygrad tensor
    # does the same (Tensor._accumulate); a scalar Value simply adds.
    accumulate = getattr(buffer[key], "_accumulate", None)
    buffer[key] = buffer[key] + g if accumulate is None else accumulate(g)
    #< ch09


#> ch10


# Chapter 10: PyTorch's order, which hooks can see.

class _Task:
    """An entry of the ready queue, ordered as PyTorch's
    ``CompareNodeTaskTime``: by ``sequence_nr``, largest first, where an
    AccumulateGrad node counts as ``UINT64_MAX``, so it runs as soon as it is
    ready. Two AccumulateGrad nodes tie; ``heapq`` then breaks the tie as
    libstdc++'s ``std::priority_queue`` does (the same sift-down and sift-up
    steps), so ties are broken as in PyTorch too."""

    __slots__ = ("key", "node")

    def __init__(self, node):
        self.node = node
        self.key = (float("-inf") if type(node) is AccumulateGrad
                    else -node.sequence_nr)

    def __lt__(self, other):
        return self.key < other.key


def dependencies(root):
    """How many edges lead to each node reachable from ``root``, as
    ``compute_dependencies`` in PyTorch's engine.cpp counts them."""
    counts = {root: 0}
    stack = [root]
    while stack:
        for next_node, _ in stack.pop().next_functions:
            if next_node is None:
                continue
            if next_node in counts:
                counts[next_node] += 1
            else:
                counts[next_node] = 1
                stack.append(next_node)
    return counts


#> ch10 until ch12
#| def execute_in_pytorch_order(root, grad, retain_graph=False, input_nr=0):
#< ch10 until ch12
#> ch12
def execute_in_pytorch_order(root, grad, retain_graph=False, input_nr=0,
                             needed=None, captures=None):
#< ch12
    """``execute``, with PyTorch's engine's order of the nodes.

    ``execute`` already runs every other node in PyTorch's order (the newest
    ready node first), but an AccumulateGrad node has a number of its own
    there, so it waits for the newer nodes. PyTorch runs it as soon as its
    last gradient has arrived. Knowing when that is needs each node's count
    of incoming edges, counted beforehand, as PyTorch does: a node enters the
    ready queue when its count falls to zero.
    """
    counts = dependencies(root)
    if root.num_outputs == 1:
        received = {root: grad}
    else:
        received = {root: [None] * root.num_outputs}
        received[root][input_nr] = grad
    ready = [_Task(root)]
    pop, push = heapq.heappop, heapq.heappush
    while ready:
        node = pop(ready).node
        grads_in = received.pop(node)
        if node.num_outputs == 1:
            grads_in = (grads_in,)
        #> ch12
        if needed is not None:
            if node in captures:
                grads_in = capture(node, grads_in, captures[node],
                                   node in needed)
            if node not in needed:
                continue
            grads_in, grads_out = _run_needed(node, grads_in, needed,
                                              captures)
        elif node._hooks is None and not anomaly.enabled:
        #< ch12
        #> ch10 until ch12
        #| if node._hooks is None and not anomaly.enabled:
        #< ch10 until ch12
            grads_out = node.apply(*grads_in)
        else:
            grads_in, grads_out = _call_function(node, grads_in)
        if not retain_graph:
            node.release_variables()
        yield node, grads_in, grads_out
        grads_in, grads_out = None, list(grads_out)  # _send empties it
        _send(node, grads_out, counts, received, ready, push,
              #> ch12
              needed, captures,
              #< ch12
              )
        grads_out = None


def _send(node, grads_out, counts, received, ready, push,
          #> ch12
          needed, captures,
          #< ch12
          ):
    """Pass what ``node`` sent to its next nodes; queue those now ready."""
    pending = [(node, grads_out)]  # each gradient leaves it as it moves on
    while pending:
        node, grads_out = pending.pop()
        for index, (next_node, input_nr) in enumerate(node.next_functions):
            if next_node is None:
                continue
            g = grads_out[index] if index < len(grads_out) else None
            if g is not None:  # it moves on (see execute)
                grads_out[index] = None
            counts[next_node] -= 1
            #> ch12
            if needed is not None and next_node not in needed and (
                    next_node not in captures):
                continue
            #< ch12
            if g is not None:
                if next_node.num_outputs == 1:
                    if received.get(next_node) is None:
                        received[next_node] = g
                    else:
                        add_gradient(received, next_node, g)
                else:
                    slots = received.get(next_node)
                    if slots is None:
                        slots = received[next_node] = (
                            [None] * next_node.num_outputs)
                    if slots[input_nr] is None:
                        slots[input_nr] = g
                    else:
                        add_gradient(slots, input_nr, g)
            if counts[next_node] == 0:
                if next_node in received:
                    push(ready, _Task(next_node))
                else:
                    # No gradient came at all: the node does not run (as
                    # in ``execute``), but the nodes after it must not wait
                    # for it.
                    pending.append((next_node, ()))
#< ch10


#> ch04 until ch05
#| def run_backward(root, grad, retain_graph=False):
#|     """Run the whole backward pass from ``root`` (see ``execute``)."""
#|     collections.deque(execute(root, grad, retain_graph), maxlen=0)
#< ch04 until ch05
#> ch05
def run_backward(root, grad, retain_graph=False, *more):
    """Run the whole backward pass from ``root`` (see ``execute``, which
    later chapters give ``more`` arguments). Arguments left at their
    defaults (0, None) are not passed: an engine as an earlier chapter
    leaves it (the one a reader types along) runs every pass that needs
    nothing the later chapters add, and a pass that does gets Python's
    error for the argument the engine lacks."""
    while more and (more[-1] is None or type(more[-1]) is int
                    and more[-1] == 0):
        more = more[:-1]
    collections.deque(execute(root, grad, retain_graph, *more), maxlen=0)
#< ch05


#> ch12


# Chapter 12: autograd.grad's captured gradients, and backward(inputs=...).

def capture(node, grads_in, slots, runs):
    """Store the gradients ``node`` received where ``slots`` say.

    ``slots`` holds ``(input_nr, (results, index))`` pairs: gradient
    ``input_nr`` of the node goes to ``results[index]``. As PyTorch's
    ``evaluate_function`` does: a node that will not run first calls its
    tensors' hooks (``register_hook``, ``retain_grad``), and what they give
    is captured; a node that runs calls them later, so what it received is
    captured as it came. Returns the gradients the node goes on with.
    """
    if not runs and node._hooks is not None:
        grads_in = extensions.call_tensor_pre_hooks(node, grads_in)
    for input_nr, (results, index) in slots:
        results[index] = grads_in[input_nr]
    return grads_in


def nodes_to_run(roots, targets):
    """The nodes from which some node of ``targets`` can be reached: those
    that must run for gradients to reach ``targets`` (PyTorch's
    ``GraphTask::init_to_execute``). Depth first, with no recursion."""
    leads = {}  # node -> whether a target can be reached from it
    for root in roots:
        stack = [(root, iter(root.next_functions))]
        leads.setdefault(root, False)
        while stack:
            node, edges = stack[-1]
            for next_node, _ in edges:
                if next_node is None:
                    continue
                if next_node not in leads:
                    leads[next_node] = False
                    stack.append((next_node, iter(next_node.next_functions)))
                    break
                if next_node in targets or leads[next_node]:
                    leads[node] = True
            else:  # every edge seen: leads[node] is final
                stack.pop()
                if stack and (leads[node] or node in targets):
                    leads[stack[-1][0]] = True
    return {node for node, lead in leads.items() if lead}
#< ch12
