"""``autograd.grad`` and ``autograd.backward``: the engine, asked for less.

``Tensor.backward`` runs every node it can reach and adds into every leaf's
``.grad``. ``grad`` runs only the nodes that lead to the tensors it is asked
about, takes the gradients that reach them on the way ("captures" them, in
PyTorch's word) and returns them, touching no ``.grad`` at all.
``backward(inputs=...)`` runs the same reduced set of nodes but lets the
inputs' own nodes run, so only they accumulate. As in
``torch/autograd/__init__.py`` and ``THPEngine_run_backward``
(``torch/csrc/autograd/python_engine.cpp``), with the same errors.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.engine import nodes_to_run, run_backward
from toygrad.autograd.graph import Node, extensions, refuse_create_graph
from toygrad.tensor import (
    _CREATE_GRAPH_CYCLE, Tensor, _cast_gradient, _size)


class GraphRoot(Node):
    """The node backward starts from when there are several outputs: it
    sends each output's gradient to that output's node."""

    __slots__ = ("next_functions", "grads")

    def __init__(self, edges, grads):
        super().__init__()
        self.next_functions = tuple(edges)
        self.grads = tuple(grads)

    def apply(self, _):
        return self.grads


def _as_tuple(tensors):
    """A tensor alone, or a sequence of them, as a tuple."""
    if isinstance(tensors, dict):
        raise NotImplementedError(
            "toygrad does not support a dict of tensors as inputs")
    return (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)


def _make_grads(outputs, grad_outputs, create_graph):
    """Each output's starting gradient: the one given, or ones for a
    one-element output (``_make_grads`` in torch/autograd/__init__.py)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    if len(grad_outputs) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and "
                           f"{len(grad_outputs)} gradients")
    # More gradients than outputs: PyTorch's _make_grads zips them with the
    # outputs, so the extra ones are ignored.
    grads = []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(grad, Tensor):
            if grad.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"{_size(grad.shape)} and output[{i}] has a shape of "
                    f"{_size(out.shape)}.")
            if grad.dtype != out.dtype:  # the engine casts it, as PyTorch's
                grad = _cast_gradient(grad, out.data.dtype, create_graph)
        elif grad is None:
            if out.requires_grad:
                if out.data.size != 1:
                    raise RuntimeError("grad can be implicitly created only "
                                       "for scalar outputs")
                grad = Tensor(np.ones_like(out.data))
        else:
            raise TypeError("gradients can be either Tensors or None, but "
                            f"got {type(grad).__name__}")
        grads.append(grad)
    return grads


def _root(outputs, grads):
    """The node to start from, its gradient and which of its outputs."""
    edges = []
    for i, out in enumerate(outputs):
        edge = out._gradient_edge()
        if edge[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require "
                               "grad and does not have a grad_fn")
        edges.append(edge)
    if len(edges) == 1:
        return edges[0][0], grads[0], edges[0][1]
    return GraphRoot(edges, grads), None, 0


def _run(outputs, grads, retain_graph, create_graph, targets=None,
         captures=None):
    """One backward pass from ``outputs`` (``_engine_run_backward``).

    ``targets``, if given, are the nodes the pass is for: it runs the nodes
    that lead to them, and those of them that are not captured. Grad mode
    is on during the pass only with ``create_graph``.
    """
    root, grad, input_nr = _root(outputs, grads)
    needed = None
    if targets is not None:
        needed = nodes_to_run((root,), targets) | (targets - set(captures))
    state = grad_mode.state
    enabled, grad_on = state.enabled, state.grad
    state.grad = create_graph  # record the pass only if asked to (and
    state.enabled = create_graph and not state.inference  # not inference)
    try:
        if state.enabled:
            refuse_create_graph(root, needed)
        run_backward(root, grad, retain_graph, input_nr, needed, captures)
    finally:
        state.enabled, state.grad = enabled, grad_on


def _input_edges(inputs, retain):
    """Where each input's gradient arrives; with ``retain``, non-leaf inputs
    keep theirs in ``.grad`` (``backward(inputs=...)``)."""
    edges = []
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError("all inputs have to be Tensors, but got "
                            f"{type(x).__name__}")
        if retain:
            x.retain_grad()
        if not x.requires_grad:
            raise RuntimeError(
                "One of the differentiated Tensors does not require grad")
        edges.append(x._gradient_edge())
    return edges


def _grad_arguments(outputs, inputs, only_inputs, allow_unused,
                    is_grads_batched, materialize_grads):
    """``grad``'s arguments checked and normalised, in PyTorch's order:
    ``outputs`` and ``inputs`` as tuples, and ``allow_unused``."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when "
            "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        raise NotImplementedError("toygrad does not support "
                                  "autograd.grad(is_grads_batched=True)")
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        import warnings
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults "
            "to True). To accumulate gradient for other parts of the graph, "
            "please use torch.autograd.backward.", FutureWarning,
            stacklevel=3)
    return outputs, inputs, allow_unused


def _check_outputs(outputs):
    """Every output must have a node to start from (checked before the
    inputs, as PyTorch's ``THPEngine_run_backward`` does)."""
    for index, output in enumerate(outputs):
        if output._gradient_edge()[0] is None:
            raise RuntimeError(f"element {index} of tensors does not require "
                               "grad and does not have a grad_fn")


def _unused_grads(results, inputs, allow_unused, materialize_grads,
                  create_graph):
    """An input no gradient reached: an error, None or zeros."""
    for index, result in enumerate(results):
        if result is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not "
                "have been used in the graph. Set allow_unused=True if this "
                "is the desired behavior.")
    if materialize_grads:
        results = [Tensor(np.zeros_like(x.data), requires_grad=create_graph)
                   if r is None else r for r, x in zip(results, inputs)]
    return tuple(results)


# Task 12.1: autograd.grad: capture the gradients, run only what leads there
def grad(outputs, inputs, grad_outputs=None, retain_graph=None,
         create_graph=False, only_inputs=True, allow_unused=None,
         is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned:
    no ``.grad`` changes. ``grad_outputs`` are d(final)/d(output), as
    ``backward``'s ``gradient``; ``create_graph`` records the pass."""
    outputs, inputs, allow_unused = _grad_arguments(
        outputs, inputs, only_inputs, allow_unused, is_grads_batched,
        materialize_grads)
    grads = _make_grads(outputs, grad_outputs, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    _check_outputs(outputs)
    # Input i's gradient arrives at a node: capture it into results[i].
    results = [None] * len(inputs)
    captures = {}  # node -> [(input_nr, (results, i)), ...]
    for i, (node, input_nr) in enumerate(_input_edges(inputs, False)):
        captures.setdefault(node, []).append((input_nr, (results, i)))
    # Run only the nodes that lead to a captured one.
    _run(outputs, grads, retain_graph, create_graph, set(captures), captures)
    return _unused_grads(results, inputs, allow_unused, materialize_grads,
                         create_graph)


def _backward_arguments(tensors, grad_variables, inputs):
    """``backward``'s arguments checked, in PyTorch's order: ``tensors``
    and ``inputs`` (None, or not empty) as tuples."""
    if grad_variables is not None:
        raise NotImplementedError("toygrad does not support the deprecated "
                                  "grad_variables argument: use grad_tensors")
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError(
                "`inputs` argument to `backward()` cannot be empty.")
    return _as_tuple(tensors), inputs


def backward(tensors, grad_tensors=None, retain_graph=None,
             create_graph=False, grad_variables=None, inputs=None):
    """Add the gradients of ``tensors`` into the leaves' ``.grad``; with
    ``inputs``, into those tensors' ``.grad`` only (leaves or not)."""
    tensors, inputs = _backward_arguments(tensors, grad_variables, inputs)
    grads = _make_grads(tensors, grad_tensors, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    needed = captures = None
    if inputs is not None:  # the inputs' own nodes run: they accumulate
        needed = {node for node, _ in _input_edges(inputs, True)}
        captures = {}
    if create_graph:
        import warnings
        warnings.warn(_CREATE_GRAPH_CYCLE, UserWarning, stacklevel=2)
    _run(tensors, grads, retain_graph, create_graph, needed, captures)


# Tensor.backward hands a call with ``inputs`` to this module's backward.
extensions.backward = backward
