"""Custom operations: ``Function``, its ``ctx``, and what ``apply`` records.

As in PyTorch, every operation on toygrad tensors is a ``Function`` with two
static methods, ``forward(ctx, *inputs)`` and ``backward(ctx, *grads)``.
``Foo.apply(*inputs)`` runs ``forward`` with grad mode off and, when grad mode
is on and an input requires grad, records the call: the ``ctx`` that forward
received *is* the graph node, an instance of the class ``FooBackward`` made for
``Foo`` when ``Foo`` was defined.
"""

import functools
import inspect
#> ch05 until ch13
#| import types
#< ch05 until ch13
import weakref

from toygrad.autograd import grad_mode
from toygrad.dtypes import tensor_type
from toygrad.autograd.graph import ERR_BACKWARD_TWICE, Node, next_sequence_nr
from toygrad.autograd.graph import BUILT_IN, CPP_NAMESPACE, node_name
from toygrad.autograd.graph import (
    current_saved_tensors_hooks, grad_accumulator,
    saved_tensors_hooks_state as _hooks)
from toygrad.tensor import Tensor

#> ch05 until ch11
#| anomaly = types.SimpleNamespace(enabled=False)  # chapter 11 turns it on
#< ch05 until ch11
#> ch11
from toygrad.autograd import anomaly_mode

anomaly = anomaly_mode.state
#< ch11
#> ch05 until ch13
#| dual = types.SimpleNamespace(level=-1)  # chapter 13: forward AD's level
#< ch05 until ch13
#> ch13


class _Dual:
    """Forward AD as the operations see it: the open level (-1: none), the
    tangents made in it, and what an operation does inside a level, which
    ``toygrad.autograd.forward_ad`` (built on this module) sets when it is
    imported: ``propagate`` (``Function.apply``) and ``inplace`` (views)."""

    def __init__(self):
        self.level = -1
        self.tangents = {}  # id(tensor) -> (weak reference, tangent)
        self.propagate = self.inplace = None


dual = _Dual()
#< ch13

_RELEASED = object()  # what a node's saved tensors become after backward


def _type_and_shape(tensor):
    return f"[{tensor_type(tensor.dtype)} {list(tensor.shape)}]"


def _short_name(node):
    """How PyTorch's messages name a node (its ``Node::forward_op_name``):
    ``Exp`` for ``ExpBackward0``, ``Pow2`` for ``PowBackward2``, and a name
    that does not end in ``Backward`` and digits whole
    (``torch::autograd::CopySlices``)."""
    name = node.name()
    head, backward, number = name.rpartition("Backward")
    if not backward or not (number.isdigit() or number == ""):
        return name
    return head if number in ("0", "") else head + number


def _version_of(tensor):
    """How many in-place operations have changed ``tensor``'s numbers: its
    ``_version``, read without its refusal for an inference tensor."""
    counter = tensor._version_counter  # shared with its views and aliases
    return counter[0] if counter else 0


class SavedTensor:
    """A tensor kept for backward, with the version it had when it was saved.

    An output of the saving node is kept without its ``grad_fn`` (the node),
    so that no reference cycle forms; ``unpack`` puts the link back.
    """

    #> ch05 until ch11
    #| __slots__ = ("tensor", "version", "output_nr")
    #< ch05 until ch11
    #> ch11
    __slots__ = ("tensor", "version", "output_nr", "packed")
    #< ch11

    def __init__(self, tensor, node, hooks=None):
        #> ch10
        if tensor._is_inference:
            _refuse_inference(tensor)
        #< ch10
        self.version = _version_of(tensor)
        #> ch05 until ch11
        #| if tensor._grad_fn is node:  # an output of this very node
        #< ch05 until ch11
        #> ch11
        if hooks and type(tensor) is not WrappedNumber:  # saved-tensor hooks
            self.pack(tensor, node, hooks)
        elif tensor._grad_fn is node:  # an output of this very node
        #< ch11
            self.tensor = tensor._alias()
            self.output_nr = tensor.output_nr
        else:
            self.tensor = tensor
            self.output_nr = None

    # Task 6.1: a saved tensor refuses to be used after an in-place change
    def unpack(self, node):
        tensor = self.tensor
        if _version_of(tensor) != self.version:
            raise self._modified_error(node)
        if self.output_nr is None:
            return tensor
        output = tensor._alias()
        output._grad_fn, output.output_nr = node, self.output_nr
        return output

    def _modified_error(self, node):
        """PyTorch's error for a saved tensor changed in place since it was
        saved, naming the output it was and both versions."""
        tensor = self.tensor
        if self.output_nr is not None:
            origin = (f", which is output {self.output_nr} of "
                      f"{_short_name(node)},")
        elif tensor.grad_fn is not None:
            origin = (f", which is output {tensor.output_nr} of "
                      f"{_short_name(tensor.grad_fn)},")
        else:
            origin = ""
        return RuntimeError(
            "one of the variables needed for gradient computation has been "
            "modified by an inplace operation: "
            f"{_type_and_shape(tensor)}{origin} is at version "
            f"{tensor._version}; expected version {self.version} instead. "
            #> ch05 until ch11
            #| + _HINT)
            #< ch05 until ch11
            #> ch11
            + (_HINT_ANOMALY if anomaly.enabled else _HINT))
            #< ch11

    #> ch11
    # Task 11.2: a saved tensor goes through the pack hook
    def pack(self, tensor, node, hooks):
        """Keep ``pack_hook(tensor)`` instead of ``tensor``, and what
        unpacking needs to give the result ``tensor``'s place in the graph:
        its node and output number, or its leaf's AccumulateGrad."""
        pack_hook, unpack_hook = hooks
        with grad_mode.no_grad():
            packed = pack_hook(tensor)
        if tensor._version != self.version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. "
                "Tensors provided as input to pack hook cannot be modified "
                "by in-place operations as this can lead to unexpected "
                "side-effects. Please open an issue if you need to perform "
                "in-place operations on the input to a pack hook.")
        self.tensor = None
        grad_fn, accumulator = None, None
        if tensor._grad_fn is node:
            self.output_nr = tensor.output_nr  # its node is ``node``
        else:
            self.output_nr = None
            grad_fn = tensor.grad_fn
            if grad_fn is None and tensor._requires_grad:
                accumulator = grad_accumulator(tensor)
        self.packed = (packed, unpack_hook, grad_fn, tensor.output_nr,
                       accumulator)

    def unpack_packed(self, node):
        """``unpack_hook(packed)``, put back in the saved tensor's place.

        No version check: what the hook kept may be a copy, as in PyTorch.
        """
        packed, unpack_hook, grad_fn, output_nr, accumulator = self.packed
        data = unpack_hook(packed)
        if not isinstance(data, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to "
                            "be a Tensor but got result of type "
                            f"{type(data).__name__}")
        if self.output_nr is not None:
            grad_fn = node
        if grad_fn is None and accumulator is None and not data.requires_grad:
            return data
        output = data._alias()
        if grad_fn is not None:
            output.grad_fn, output.output_nr = grad_fn, output_nr
        elif accumulator is not None:
            output._requires_grad = True
            output._accumulator = weakref.ref(accumulator)
        return output
    #< ch11


_HINT = ("Hint: enable anomaly detection to find the operation that failed "
         "to compute its gradient, with "
         "torch.autograd.set_detect_anomaly(True, check_nan=False).")
_HINT_ANOMALY = (
    "Hint: the backtrace further above shows the operation that failed to "
    "compute its gradient. The variable in question was changed in there or "
    "anywhere later. Good luck!")


class WrappedNumber(Tensor):
    """A Python number taken into an operation as a tensor (``x * 2``).

    PyTorch's "wrapped number": saved like any tensor, but never given to
    a pack hook.
    """

    __slots__ = ()


class ZeroTangent(Tensor):
    """Chapter 13: the tangent of a tensor input that has none, zeros.

    As PyTorch's "efficient zero tensor": a jvp drops the terms it would
    multiply (``inf * 0`` is nan; PyTorch's term is simply absent).
    """

    __slots__ = ()


def _refuse_inference(tensor):
    """Outside inference mode, an inference tensor cannot be saved."""
    if grad_mode.state.inference:
        return
    if tensor._requires_grad:  # PyTorch might not save it: toygrad may
        raise NotImplementedError(
            "toygrad does not support recording operations on an inference "
            "tensor that requires grad")
    raise RuntimeError(
        "Inference tensors cannot be saved for backward. Please do not use "
        "Tensors created in inference mode in computation tracked by "
        "autograd. To work around this, you can make a clone to get a normal "
        "tensor and use it in autograd, or use `torch.no_grad()` instead of "
        "`torch.inference_mode()`.")


def _refuse_inference_leaf():
    """An inference tensor that requires grad, used where operations record:
    PyTorch records some operations on it (``x * 2``) and silently not
    others (``x.sum()``, ``x.exp()``, ``x[0]``); toygrad refuses them all."""
    if not grad_mode.state.inference:
        raise NotImplementedError(
            "toygrad does not support recording operations on an inference "
            "tensor that requires grad")


def _refuse_custom_in_inference(cls):
    """PyTorch records a custom Function (not its built-in operations) in
    inference mode when grad mode is on again (``enable_grad`` inside
    ``inference_mode``); toygrad cannot tell its own operations apart from
    a user's reliably enough to copy that, so it refuses a user's."""
    if not cls.__module__.startswith("toygrad."):
        raise NotImplementedError(
            "toygrad does not support applying a custom Function to a tensor "
            "that requires grad inside inference_mode with grad mode enabled "
            "(PyTorch records it there)")


def _mark_inference(outputs, inputs):
    """Outputs made in inference mode are inference tensors (an input
    returned as it is stays what it was)."""
    for out in (outputs if type(outputs) is tuple else (outputs,)):
        if isinstance(out, Tensor) and not any(out is x for x in inputs):
            out._is_inference = True


class BackwardFunction(Node):
    """The node of one ``Function.apply`` call, and the ``ctx`` it receives.

    Subclassed once per Function (``FooBackward`` for ``Foo``); instances have
    a ``__dict__``, so a forward can store anything on ``ctx``.
    """

    _forward_cls = None
    _node_name = "BackwardFunction"
    next_functions = ()
    needs_input_grad = ()
    materialize_grads = True
    to_save = ()
    _saved = None
    _non_differentiable = ()
    _dirty = ()
    _hooks = None  # chapter 10: set on the instance when a hook is added
    #> ch13
    _jvp_running = False  # while jvp runs
    _saved_for_forward = ()
    #< ch13

    # No Node.__init__: sequence_nr is given by apply, only if the call is
    # recorded. (object's is the fastest, and a ctx is made per operation.)
    __init__ = object.__init__

    def name(self):
        return self._node_name

    # What forward can do with ctx.

    def save_for_backward(self, *tensors):
        """Keep these tensors (inputs or outputs) for ``backward``."""
        self.to_save = tensors

    #> ch13
    def save_for_forward(self, *tensors):
        """Keep these tensors for ``jvp``."""
        self._saved_for_forward = tensors
    #< ch13

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, checked unchanged."""
        #> ch13 in jvp: those given to save_for_forward
        if self._jvp_running:
            return self._saved_for_forward
        #< ch13
        if self._saved is _RELEASED:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        if self._saved is None:
            return ()
        #> ch05 until ch11
        #| return tuple([None if saved is None else saved.unpack(self)
        #|               for saved in self._saved])
        #< ch05 until ch11
        #> ch11
        return tuple([None if saved is None
                      else saved.unpack(self) if saved.tensor is not None
                      else saved.unpack_packed(self)  # packed by a hook
                      for saved in self._saved])
        #< ch11

    def mark_non_differentiable(self, *outputs):
        """Outputs that get no ``grad_fn`` (such as the indices of a max)."""
        self._non_differentiable = tuple(id(output) for output in outputs)

    def mark_dirty(self, *inputs):
        """Inputs that forward changed in place (and returns)."""
        self._dirty = tuple(id(tensor) for tensor in inputs)

    def set_materialize_grads(self, value):
        """Whether ``backward`` gets zeros (True) or None for missing grads."""
        self.materialize_grads = value

    # What the engine does with the node.

    def apply(self, *grad_outputs):
        """What the engine calls: the Function's ``backward``, checked."""
        if self.num_outputs > 1 and self.materialize_grads:
            grad_outputs = _zeros_for_missing(self, grad_outputs)
        grads = self._forward_cls.backward(self, *grad_outputs)
        grads = _one_per_input(self, grads)
        # One gradient per tensor input, in the order of next_functions,
        # each checked against the input's shape and dtype.
        checked = []
        for index, (grad, meta) in enumerate(zip(grads, self._input_meta)):
            if meta is not None:  # a tensor input: in next_functions
                if grad is not None and (grad.data.shape != meta[0]
                                         or grad.data.dtype is not meta[1]):
                    grad = _conform(self, index, grad, meta)
                checked.append(grad)
        return checked

    def release_variables(self):
        if self._saved is not None:
            self._saved = _RELEASED


def _zeros_for_missing(node, grad_outputs):
    """Zeros, of the output's shape and dtype, for each output of ``node``
    that received no gradient (``None``)."""
    return tuple([Tensor._zeros(*meta) if grad is None and meta else grad
                  for grad, meta in zip(grad_outputs, node._output_meta)])


def _one_per_input(node, grads):
    """What ``backward`` returned, as a tuple of one gradient per input of
    ``forward`` (extra trailing ``None``s dropped), or PyTorch's error."""
    if type(grads) is not tuple:
        grads = (grads,)
    expected = node._input_meta
    if len(grads) > len(expected) and all(
            grad is None for grad in grads[len(expected):]):
        grads = grads[:len(expected)]  # extra Nones are dropped
    if len(grads) != len(expected):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of "
            f"gradients (expected {len(expected)}, got {len(grads)})")
    return grads


# Task 6.2: a gradient of the wrong shape is summed down, or refused
def _conform(node, index, grad, meta):
    """Reduce or cast a gradient to its input's shape and dtype, or raise."""
    shape, dtype = meta
    if grad.shape != shape:
        if not _sums_to(grad.shape, shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at "
                f"index {index} - got {list(grad.shape)} but expected shape "
                f"compatible with {list(shape)}")
        grad = grad.sum_to_size(shape)
    if grad.dtype != dtype:
        if grad_mode.state.enabled and grad.requires_grad:
            # Under create_graph, recorded as PyTorch's engine records its
            # cast: a ToCopyBackward0 node.
            return ToCopy.apply(grad, dtype)
        grad = Tensor(grad.data.astype(dtype))
    return grad


def _sums_to(big, small):
    """Whether a tensor of shape ``big`` can be summed down to ``small``."""
    if len(small) > len(big):
        return False
    tail = big[len(big) - len(small):]
    return all(s == b or s == 1 for s, b in zip(small, tail))


class FunctionMeta(type):
    """Makes, for every Function ``Foo``, its node class ``FooBackward``."""

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        node_class = namespace.get("node_name", f"{name}Backward")
        cls._backward_cls = type(node_class, (BackwardFunction,), {
            "_forward_cls": cls, "_node_name": node_name(node_class)})
        # A custom Function (a user's), not one of toygrad's operations,
        # which PyTorch writes in C++: its outputs are wrapped as PyTorch
        # wraps a Python Function's (``_wrap_outputs``).
        cls._custom = not cls.__module__.startswith(BUILT_IN)


class Function(metaclass=FunctionMeta):
    """Base class of every operation: subclass it and write two static methods.

    - ``forward(ctx, *inputs)`` computes the outputs (grad mode is off).
    - ``backward(ctx, *grad_outputs)`` returns one gradient per input of
      ``forward`` (``None`` for inputs that are not tensors or need none).

    Call ``Foo.apply(*inputs)``, never ``forward`` directly.
    """

    is_view = False  # True when the output is a view of the first input
    saves_self = None  # see toygrad.views.inplace

    @staticmethod
    def forward(ctx, *inputs):
        raise NotImplementedError("a Function must define forward")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Optional: save for backward here, with a ``forward`` that takes
        no ``ctx``. ``apply`` calls it right after ``forward``, as PyTorch
        does."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a Function must define backward")

    @staticmethod
    def jvp(ctx, *tangents):
        """Chapter 13: the outputs' tangents from the inputs' (forward AD)."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function "
            "to use it with forward mode AD.")

    @classmethod
    def apply(cls, *inputs):
        # PyTorch's order: decide, make the node, link it to the inputs'
        # nodes, run forward, connect the outputs.
        needs_input_grad = tuple([isinstance(x, Tensor) and x.requires_grad
                                  for x in inputs])
        recording = grad_mode.state.enabled and True in needs_input_grad
        ctx = cls._backward_cls()
        ctx.needs_input_grad = needs_input_grad
        if recording:
            _connect(ctx, inputs)
        inputs, outputs = _run_forward(cls, ctx, inputs)
        if cls._custom:  # a user's Function: its outputs as PyTorch's
            outputs = _wrap_outputs(ctx, inputs, outputs, recording)
        elif recording:
            outputs = _record(ctx, inputs, outputs)
        else:
            outputs = _unrecorded(outputs, inputs)
        #> ch13
        if dual.level >= 0:  # forward AD, only inside a level
            dual.propagate(ctx, inputs, outputs)
        #< ch13
        return outputs


def _run_forward(cls, ctx, inputs):
    """``apply``'s step 4: ``forward`` with grad mode off, so that its own
    operations leave no nodes; then what an output that is a view of an
    input, or an input changed in place, needs (chapter 11). Returns the
    inputs (with ``forward``'s defaults, for ``setup_context``) and the
    outputs."""
    state = grad_mode.state
    enabled, grad = state.enabled, state.grad
    state.enabled = state.grad = False
    try:
        # A forward split in two (no ctx, then setup_context), as PyTorch
        # tells it: setup_context is not Function's own.
        if cls.setup_context is not Function.setup_context:
            inputs = _bind_defaults(cls.forward, inputs)
            outputs = cls.forward(*inputs)
            cls.setup_context(ctx, inputs, outputs)
        else:
            outputs = cls.forward(ctx, *inputs)
    finally:
        state.enabled, state.grad = enabled, grad
    #> ch10
    if state.inference:
        if grad and True in ctx.needs_input_grad:
            _refuse_custom_in_inference(cls)
        if not cls.is_view:
            _mark_inference(outputs, inputs)
    #< ch10
    if cls.is_view:
        track(ctx, inputs[0], outputs)
    if ctx._dirty:
        _check_dirty(ctx, inputs, enabled)
    return inputs, outputs


def _unrecorded(outputs, inputs):
    """The outputs of one of toygrad's operations that records nothing.
    An input that ``forward`` returned as it is comes back as a new
    tensor."""
    if type(outputs) is tuple:
        return _returned_inputs_aliased(outputs, inputs)
    for x in inputs:
        if x is outputs:
            return outputs._alias()
    return outputs


# Views (chapter 11 explains them): an operation whose output shares its
# input's numbers (``is_view``) makes the output a view of the input's base.

# How a view was made (PyTorch's ``CreationMeta``): in grad mode (None),
# with grad mode off, in inference mode, or as one of several outputs; or
# returned by a custom Function (``_wrap_outputs``).
NO_GRAD, INFERENCE, MULTI = "no_grad", "inference", "multi"
IN_CUSTOM_FUNCTION = "in_custom_function"


def _creation_meta(source, multi):
    """PyTorch's creation meta of a view of ``source`` made now: a view of
    a view inherits its parent's unless made in a stricter way
    (``propagate_creation_meta``)."""
    if grad_mode.state.inference:  # chapter 10
        meta = INFERENCE
    elif not grad_mode.state.enabled:
        meta = NO_GRAD
    else:
        meta = MULTI if multi else None
    if source._view is not None:
        parent = source._view[3]
        if meta is None or parent == INFERENCE:
            meta = parent
    return meta


def track(ctx, source, outputs):
    """Make the outputs of a view operation views of ``source``'s base.

    Each output's ``_view`` says how it was taken: ``(parent, ctx,
    output_nr, creation_meta, one_of_several)``.
    """
    multi = type(outputs) is tuple
    if source._is_inference:
        # A view of an inference tensor is one, and (as in PyTorch) not
        # tracked as a view: no _base, no version counter to share.
        for out in (outputs if multi else (outputs,)):
            out._is_inference = True
        return
    base = source if source._base is None else source._base
    counter = source._version_counter
    if counter is None:
        counter = source._version_counter = [0]
    meta = _creation_meta(source, multi)
    if not multi:
        outputs._base, outputs._version_counter = base, counter
        outputs._view = (source, ctx, 0, meta, False)
        outputs._view_version = counter[0]
        return
    for output_nr, out in enumerate(outputs):
        out._base, out._version_counter = base, counter
        out._view = (source, ctx, output_nr, meta, True)
        out._view_version = counter[0]


def untracked(function, source, array, ctx=None):
    """What ``function.apply(source, ...)`` gives for a view operation
    while nothing is recorded and no forward AD runs (a view's backward,
    in the engine's hot path): the same view of ``source``, sharing its
    memory and version counter, without apply's bookkeeping. ``ctx`` holds
    what ``function.take`` reads."""
    out = Tensor(array)
    track(function._backward_cls() if ctx is None else ctx, source, out)
    return out


def _returned_inputs_aliased(outputs, inputs):
    """An input that forward returned as it is comes back as a new tensor
    (same numbers, same version counter, no history)."""
    return tuple([out._alias() if any(out is x for x in inputs) else out
                  for out in outputs])


def _bind_defaults(forward, inputs):
    """The inputs with forward's default arguments filled in, which is
    what PyTorch gives ``setup_context``."""
    bound = inspect.signature(forward).bind(*inputs)
    bound.apply_defaults()
    return bound.args


def _connect(ctx, inputs):
    """Link ``ctx`` to its inputs' nodes, then number it."""
    # The edges first: a leaf's AccumulateGrad node is made here, before
    # this node takes its number, so that every node is numbered after the
    # nodes it points to.
    ctx.next_functions = tuple([_edge(x) for x in inputs
                                if isinstance(x, Tensor)])
    _input_metadata(ctx, inputs)  # for the engine's checks of gradients
    ctx.sequence_nr = next_sequence_nr()
    #> ch11
    if anomaly.enabled:  # where this node was made
        anomaly_mode.store_stack(ctx)
    #< ch11


def _record(ctx, inputs, outputs):
    """Make ``ctx`` the node of this call's outputs, and keep what it saved."""
    single = type(outputs) is not tuple
    outputs = [outputs] if single else list(outputs)
    _output_metadata(ctx, outputs)  # for zeros where no gradient comes
    skip = ctx._non_differentiable  # ids of the outputs marked so
    for output_nr, out in enumerate(outputs):
        if isinstance(out, Tensor) and id(out) not in skip:
            out = outputs[output_nr] = _own_output(ctx, out, inputs)
            out._grad_fn, out.output_nr = ctx, output_nr
    _save(ctx)
    return outputs[0] if single else tuple(outputs)


def _input_metadata(ctx, inputs):
    """Keep each input's shape and dtype: the engine checks the gradients
    ``backward`` returns against them (``_conform``)."""
    ctx._input_meta = [(x.data.shape, x.data.dtype)
                       if isinstance(x, Tensor) else None
                       for x in inputs]
    if (None, 0) in ctx.next_functions:  # an input with no edge
        _needs_live_edges(ctx)


def _output_metadata(ctx, outputs):
    """Count the outputs and keep each one's shape and dtype: the node
    makes zeros from them for an output that receives no gradient."""
    ctx.num_outputs = len(outputs)
    ctx._output_meta = [(out.data.shape, out.data.dtype)
                        if isinstance(out, Tensor) else None
                        for out in outputs]


def _edge(x):
    """Where the gradient for tensor ``x`` goes: ``(x.grad_fn,
    x.output_nr)``, a leaf's ``(AccumulateGrad, 0)``, or ``(None, 0)``."""
    if x._grad_fn is not None and x._view is None:  # the usual case
        return (x._grad_fn, x.output_nr)
    #> ch10
    if x._is_inference and x._requires_grad:
        _refuse_inference_leaf()
    #< ch10
    return x._gradient_edge()


def _needs_live_edges(ctx):
    """A view made under no_grad of a tensor that requires grad requires
    grad too, but its edge leads nowhere. PyTorch's built-in nodes save for
    an input's gradient only if should_compute_output, an edge that leads
    somewhere; so ``needs_input_grad`` says False there (a custom Function
    keeps needs_input_grad from requires_grad, as PyTorch's does)."""
    if type(ctx)._forward_cls.__module__.startswith(BUILT_IN):
        leads = iter([node is not None for node, _ in ctx.next_functions])
        ctx.needs_input_grad = tuple([
            next(leads) and flag if meta is not None else flag
            for flag, meta in zip(ctx.needs_input_grad, ctx._input_meta)])


def _own_output(ctx, out, inputs):
    """An output, as ``_record`` gives it its node: an input that forward
    returned as it is comes back as a new tensor, unless forward changed
    it in place (``mark_dirty``)."""
    if id(out) not in ctx._dirty:
        for x in inputs:
            if x is out:
                return out._alias()
    elif out._view is not None:
        raise NotImplementedError(
            "toygrad does not support mark_dirty on a view")
    return out


def _wrap_outputs(ctx, inputs, outputs, recording):
    """A custom Function's outputs, each as PyTorch's ``_wrap_outputs``
    leaves it (``set_history`` in torch/csrc/autograd/custom_function.cpp).

    - An input changed in place (``mark_dirty``) is returned itself.
    - Another input comes back as a new tensor, a view of it made with
      grad mode off (``x.view_as(x)``); or, if it is not differentiable
      here and requires grad, as ``x.detach()``.
    - Every output that is a view, other than a dirty input, may not be
      changed in place (creation meta ``IN_CUSTOM_FUNCTION``; ``MULTI``
      when several outputs are differentiable).

    A differentiable output (recorded, a float, not marked) gets ``ctx``
    as its node; a non-differentiable one that requires grad and is not a
    view loses its history (``detach_``)."""
    single = type(outputs) is not tuple
    outputs = [outputs] if single else list(outputs)
    if recording:
        _output_metadata(ctx, outputs)  # for zeros where no gradient comes
    differentiable = 0
    for output_nr, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            continue
        is_input = any(out is x for x in inputs)
        dirty = id(out) in ctx._dirty
        if (recording and id(out) not in ctx._non_differentiable
                and out.data.dtype.kind in "fc"):
            differentiable += 1
            if dirty and out._view is not None:
                raise NotImplementedError(
                    "toygrad does not support mark_dirty on a view")
            if is_input and not dirty:
                out = _view_of_input(ctx, out)
            out._grad_fn, out.output_nr = ctx, output_nr
        elif not out.requires_grad:
            if is_input and not dirty:
                out = _view_of_input(ctx, out)
        elif is_input:
            out = out.detach()
        elif out._view is None:
            out._grad_fn, out._requires_grad = None, False
        if out._view is not None and not (is_input and dirty):
            _set_creation_meta(out, IN_CUSTOM_FUNCTION)
        outputs[output_nr] = out
    if differentiable > 1:
        for out in outputs:
            if isinstance(out, Tensor) and out._view is not None:
                _set_creation_meta(out, MULTI)
    if recording:
        _save(ctx)
    return outputs[0] if single else tuple(outputs)


def _view_of_input(ctx, x):
    """``x.view_as(x)`` made with grad mode off: what a custom Function
    returns for an input that forward returned as it is. PyTorch refuses
    it if ``setup_context`` saved it."""
    if (type(ctx)._forward_cls.setup_context is not Function.setup_context
            and any(x is t for t in ctx.to_save)):
        raise RuntimeError(
            "An input that has been returned as-is as output is being saved "
            "for backward. This is not supported if you override "
            "setup_context. You should return and save a view of the input "
            "instead, e.g. with x.view_as(x) or setup ctx inside the forward "
            "function itself.")
    view = Tensor(x.data.view())
    track(_AsItself, x, view)
    return view


class _AsItself:
    """The ``ctx`` of a view ``x.view_as(x)``, as ``take_view`` reads it:
    the view takes its base's numbers whole."""

    @staticmethod
    def take(ctx, array):
        return array.view()


_AsItself._forward_cls = _AsItself


def _set_creation_meta(view, meta):
    parent, ctx, output_nr, _, multi = view._view
    view._view = (parent, ctx, output_nr, meta, multi)


def _save(ctx):
    """Keep what forward gave ``save_for_backward``, now that the outputs
    point to ``ctx`` (a saved output is recognised as one)."""
    if ctx.to_save:
        hooks = _hooks.stack and current_saved_tensors_hooks()
        ctx._saved = tuple([None if t is None else SavedTensor(t, ctx, hooks)
                            for t in ctx.to_save])
        del ctx.to_save


def _check_dirty(ctx, inputs, enabled):
    """Inputs changed in place by forward: PyTorch's checks, a new version."""
    for x in inputs:
        if isinstance(x, Tensor) and id(x) in ctx._dirty:
            if (enabled and x._requires_grad and x._grad_fn is None
                    and id(x) not in ctx._non_differentiable):
                raise RuntimeError("a leaf Variable that requires grad has "
                                   "been used in an in-place operation.")
            x._bump_version()


class DelayedError(Node):
    """A node whose backward raises: see ``once_differentiable``.

    PyTorch's C++ node ``Error``; its edges lead to stand-in leaves, one per
    output, so that the outputs require grad without any real history.
    """

    __slots__ = ("next_functions", "message", "num_outputs")

    def __init__(self, message, edges):
        super().__init__()
        self.message, self.next_functions = message, tuple(edges)
        self.num_outputs = len(edges)

    def name(self):
        return CPP_NAMESPACE + "Error"  # PyTorch's class is called Error

    def apply(self, *grads):
        raise RuntimeError(self.message)


def once_differentiable(backward):
    """Decorate a ``backward`` that cannot itself be differentiated.

    It runs with grad mode off. Under ``create_graph``, when a gradient it
    receives requires grad, its results are routed through an ``Error``
    node, so that differentiating them again raises, as with
    ``torch.autograd.function.once_differentiable``.
    """
    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with grad_mode.no_grad():
            results = backward(ctx, *grads)
        if not grad_mode.state.enabled or not any(
                isinstance(g, Tensor) and g.requires_grad for g in grads):
            return results
        single = type(results) is not tuple
        results = (results,) if single else results
        stand_ins = [None if r is None else r.detach().requires_grad_()
                     for r in results]
        node = DelayedError(
            "trying to differentiate twice a function that was marked "
            "with @once_differentiable",
            [(None, 0) if r is None else r._gradient_edge()
             for r in stand_ins])
        wrapped = []
        for output_nr, result in enumerate(results):
            if result is not None:
                result = result._alias()
                result.grad_fn, result.output_nr = node, output_nr
            wrapped.append(result)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


# The engine's cast of a gradient to its input's dtype (``_conform``), as
# PyTorch's ``validate_outputs`` casts with ``grad.to(dtype)``; also an
# operation of its own (``toygrad.ops`` uses it).
class ToCopy(Function):
    """``a.to(dtype)``: the numbers in another dtype, PyTorch's ``_to_copy``.

    The engine casts a gradient to its input's dtype with it, recorded
    under ``create_graph`` as PyTorch's engine records it."""
    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.dtype_in = a.dtype
        return Tensor(a.data.astype(dtype))

    @staticmethod
    def backward(ctx, grad):
        return ToCopy.apply(grad, ctx.dtype_in), None

    #> ch13
    @staticmethod
    def jvp(ctx, ta, _):
        return ToCopy.apply(ta, ctx.primals[1])
    #< ch13
