"""``Tensor``: a NumPy array that records the operations that produce it.

The vocabulary is PyTorch's: ``data``, ``grad``, ``requires_grad``,
``grad_fn``, ``is_leaf``, ``backward``, and the operations keep PyTorch's
signatures and node names. Every operation is a ``Function`` (see
``toygrad.ops``). This module holds the tensor itself: its numbers, its
place in the graph, ``backward``. It is below the operations, which make
tensors: ``toygrad.methods`` gives ``Tensor`` its operators and methods
(``x * y``, ``x.sum()``), and ``toygrad.views`` its ``grad_fn`` property.
"""

import contextlib
import warnings
from sys import getrefcount

import numpy as np

from toygrad import dtypes
from toygrad.autograd import grad_mode
from toygrad.autograd.engine import references, run_backward
from toygrad.autograd.graph import grad_accumulator, refuse_create_graph
#> ch12
from toygrad.autograd.graph import extensions
#< ch12

_NO_EDGE = (None, 0)

_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being "
    "accessed. Its .grad attribute won't be populated during "
    "autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf "
    "Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
    "information.")


_CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle "
    "between the parameter and its gradient which can cause a memory leak. We "
    "recommend using autograd.grad when creating the graph to avoid this. If "
    "you have to use this function, make sure to reset the .grad fields of "
    "your parameters to None after use to break the cycle and avoid the "
    "leak.")


# References to a gradient that only the engine holds, as counted inside
# Tensor._can_steal: the engine's tuple of a node's incoming gradients,
# AccumulateGrad.apply's argument, _new_grad's, _can_steal's, getrefcount's.
_REFS_TO_A_FREE_GRADIENT = 5
# ... and engine.references.held_by_engine more (one while a leaf's hooks run).
# ... and inside Tensor._accumulate: the engine's buffer, add_gradient's
# bound method, _accumulate's self, getrefcount's argument.
_REFS_TO_A_BUFFERED_GRADIENT = 4
_BY_NAME = object()  # requires_grad_'s flag was not given by position
# Tensor._bump_version's refusal (chapter 10), PyTorch's words: its
# VariableVersion::bump (c10/core/TensorImpl.h) finds no version counter, as
# an inference tensor's dispatch keys have no ADInplaceOrView.
_INPLACE_ON_INFERENCE = (
    "Inplace update to inference tensor outside InferenceMode is not "
    "allowed.You can make a clone to get a normal tensor before doing "
    "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
    "details.")


def _sole_owner_of_memory(array):
    """Whether no other array can see ``array``'s memory: it owns it, or it
    views the whole of an array that nothing else holds (PyTorch's storage
    ``use_count() == 1``)."""
    base = array.base
    return base is None or (
        type(base) is np.ndarray and base.base is None
        and base.size == array.size
        and getrefcount(base) <= 3)  # array.base, base, the argument


def _size(shape):
    return f"torch.Size({list(shape)})"


def _first_gradient(gradients):
    """``backward``'s ``gradient`` when it is not a tensor: as PyTorch, a
    sequence of gradients, of which the first is the output's (a number is
    not iterable, and further ones are ignored, as ``zip`` ignores them in
    torch's ``_make_grads``)."""
    gradients = tuple(gradients)  # TypeError for a number, as in PyTorch
    if not gradients:
        raise RuntimeError("got 1 tensors and 0 gradients")
    gradient = gradients[0]
    if gradient is not None and not isinstance(gradient, Tensor):
        raise TypeError("gradients can be either Tensors or None, but got "
                        f"{type(gradient).__name__}")
    return gradient


def _make_grads(output, gradient):
    """``backward``'s starting gradient, checked as PyTorch's
    ``_make_grads`` checks it (before the engine looks for a node): ones
    for a one-element output, else a tensor of the output's shape."""
    if gradient is not None and not isinstance(gradient, Tensor):
        gradient = _first_gradient(gradient)
    if gradient is None:
        if output.data.size != 1 and output.requires_grad:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs")
        return Tensor(np.ones(output.data.shape, output.data.dtype))
    if gradient.data.shape != output.data.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[0] has a shape of "
            f"{_size(gradient.shape)} and output[0] has a shape of "
            f"{_size(output.shape)}.")
    return gradient


def _refuse_arguments(unsupported, inputs):
    """Refuse the arguments of ``backward`` that toygrad does not support
    (before chapter 12, ``inputs`` too)."""
    _refuse("Tensor.backward", unsupported)
    #> ch05 until ch12
    #| if inputs is not None:
    #|     _refuse("Tensor.backward", {"inputs": inputs})
    #< ch05 until ch12


def _root_edge(output, create_graph):
    """Where the pass starts: ``output``'s node, and which of the node's
    outputs ``output`` is. PyTorch's error if there is none, and its
    warning for ``create_graph``."""
    node, input_nr = output._gradient_edge()
    if node is None:
        raise RuntimeError("element 0 of tensors does not require grad "
                           "and does not have a grad_fn")
    if create_graph:  # stacklevel: backward's caller
        warnings.warn(_CREATE_GRAPH_CYCLE, UserWarning, stacklevel=3)
    return node, input_nr


@contextlib.contextmanager
def _grad_mode_of_pass(node, create_graph):
    """Grad mode during a backward pass from ``node``: off, so that the pass
    records nothing, or on with ``create_graph``, as PyTorch's engine sets
    it for each pass. A graph whose backward toygrad cannot record is
    refused before anything runs."""
    state = grad_mode.state
    enabled, grad = state.enabled, state.grad
    state.grad = create_graph
    #> ch05 until ch10
    #| state.enabled = create_graph
    #< ch05 until ch10
    #> ch10
    state.enabled = create_graph and not state.inference  # (never in it)
    #< ch10
    try:
        if state.enabled:
            refuse_create_graph(node)
        yield
    finally:
        state.enabled, state.grad = enabled, grad


def _cast_gradient(gradient, dtype, create_graph):
    """The starting gradient in its output's dtype, as PyTorch's engine
    casts it (``validate_outputs``) before any hook sees it."""
    if np.dtype(dtype).kind == "c" or gradient.data.dtype.kind == "c":
        raise RuntimeError(
            "For complex Tensors, both grad_output and output are required "
            "to have the same dtype. Mismatch in dtype: grad_output[0] has "
            f"a dtype of {dtypes.torch_name(gradient.data.dtype)} and "
            f"output[0] has a dtype of {dtypes.torch_name(dtype)}.")
    if gradient.requires_grad and create_graph:
        # PyTorch records the cast (ToCopyBackward0): toygrad has no such
        # operation.
        raise NotImplementedError(
            "toygrad does not support a grad_output of another dtype than "
            "its output that requires grad")
    return Tensor(gradient.data.astype(dtype))


def _must_be_tensor(function, name, position, value):
    """PyTorch's argument parser's error for a non-tensor argument."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position "
                        f"{position}) must be Tensor, not "
                        f"{type(value).__name__}")


class Tensor:
    """An n-dimensional array of numbers that remembers how it was computed.

    Make one with ``toygrad.tensor(data, requires_grad=False)``. ``data`` is
    the NumPy array holding the numbers.
    """

    # Slots for speed, and a __dict__: a torch tensor takes any attribute
    # (t.note = 1), so a toygrad one does too.
    __slots__ = ("data", "_grad", "_requires_grad", "_grad_fn", "output_nr",
                 "_version_counter", "_accumulator", "_base", "_view",
                 "_view_version", "_hooks", "_is_inference", "__weakref__",
                 "__dict__")

    def __init__(self, data, requires_grad=False):
        if type(data) is not np.ndarray:  # NumPy gives scalars for 0-dim
            data = np.asarray(data)
        self.data = data
        self._grad = None
        self._requires_grad = requires_grad
        self._grad_fn = None
        self.output_nr = 0  # which output of grad_fn this tensor is
        # A one-element list shared by a tensor, its views and its aliases,
        # made when first needed; in-place operations bump it.
        self._version_counter = None
        self._accumulator = None  # weak reference: this leaf's AccumulateGrad
        # For a view: the tensor that owns the numbers, how the view was
        # taken from it, and the version its grad_fn is for (toygrad.views).
        self._base = None
        self._view = None
        self._view_version = 0
        self._hooks = None  # chapter 10: hooks, retain_grad
        self._is_inference = False  # chapter 10: made in inference mode

    # What a tensor is.

    @property
    def shape(self):
        return self.data.shape

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self):
        return self.data.ndim

    def dim(self):
        return self.data.ndim

    def size(self, dim=None):
        if dim is None:
            return self.data.shape
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has "
                             "no dimensions")
        return self.data.shape[dtypes.canonical_dim(dim, self.ndim)]

    def numel(self):
        return self.data.size

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.data)

    @property
    def is_leaf(self):
        """True for tensors made by the user, False for recorded results."""
        return self.grad_fn is None

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf). (For a view,
        ``toygrad.views`` reads it: see ``views.grad_fn``.)"""
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    @property
    def requires_grad(self):
        """Whether gradients flow to this tensor: a leaf that asked for
        them, a recorded result, or a view of a tensor that requires grad."""
        return (self._requires_grad or self._grad_fn is not None
                or (self._base is not None and self._base.requires_grad))

    @requires_grad.setter
    def requires_grad(self, requires_grad):
        if requires_grad is not True and requires_grad is not False:
            # THPVariable_set_requires_grad (python_variable.cpp) checks
            # PyBool_Check before anything else.
            raise RuntimeError("requires_grad must be a bool")
        # PyTorch's is_leaf() here: the node as it is (a view's is not
        # renewed, so a view made under no_grad is a leaf to it).
        if self._grad_fn is not None:
            message = "you can only change requires_grad flags of leaf " \
                "variables."
            if not requires_grad:
                message += (
                    " If you want to use a computed variable in a subgraph "
                    "that doesn't require differentiation use var_no_grad = "
                    "var.detach().")
            raise RuntimeError(message)
        if requires_grad and not np.issubdtype(self.dtype, np.floating):
            raise RuntimeError("only Tensors of floating point and complex "
                               "dtype can require gradients")
        if (requires_grad and self._is_inference
                and not grad_mode.state.inference):
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside "
                "InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)

    def requires_grad_(self, flag=_BY_NAME, /, *, requires_grad=True):
        """Set ``requires_grad`` in place (leaves only); returns the tensor.

        The flag, given by position or by name, must be a bool, as
        PyTorch's argument parser (``bool requires_grad=True``) has it."""
        if flag is not _BY_NAME:
            requires_grad = flag
        _check_bool(requires_grad, "requires_grad_",
                    None if flag is _BY_NAME else 1)
        if requires_grad and self.data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients")
        if requires_grad and self._grad_fn is not None:  # as the setter
            return self  # a result requires grad already
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        """The gradient that ``backward`` accumulated here (leaves only)."""
        # As PyTorch's TensorBase::grad: the node as it is (a view's is not
        # renewed here), and no warning once a gradient is there.
        if (self._grad_fn is not None and self._grad is None
                and not self.retains_grad):
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, grad):
        if grad is not None:
            if not isinstance(grad, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or "
                                "None but got grad of type "
                                f"{type(grad).__name__}")
            if grad.data.dtype is not self.data.dtype \
                    and grad.dtype != self.dtype:
                raise RuntimeError(
                    "attempting to assign a gradient with dtype "
                    f"'{dtypes.c_name(grad.dtype)}' to a tensor with "
                    f"grad_dtype '{dtypes.torch_name(self.dtype)}'. The "
                    "gradient must match the tensor's grad_dtype (defaults "
                    "to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute "
                    "with a specific dtype, or None to allow any dtype. Set "
                    "grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems "
                    "that assume they match.")
            if grad.data.shape != self.data.shape:
                raise RuntimeError(
                    "attempting to assign a gradient of size "
                    f"'{list(grad.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
        self._grad = grad

    @property
    def _version(self):
        """How many in-place operations have changed this tensor's numbers."""
        counter = self._version_counter
        if self._is_inference and counter is None:
            # Chapter 10: an inference tensor has no version counter (but
            # see detach).
            raise RuntimeError(
                "Inference tensors do not track version counter.")
        return counter[0] if counter else 0

    def _bump_version(self):
        if self._is_inference:  # chapter 10
            if grad_mode.state.inference:
                return  # nothing counts the change, not even detach's
            if self._version_counter is None:  # after the numbers changed
                raise RuntimeError(_INPLACE_ON_INFERENCE)
        counter = self._version_counter
        if counter is None:  # the first change: no counter made yet
            self._version_counter = [1]
        else:
            counter[0] += 1

    def _shared_version_counter(self):
        if self._version_counter is None:
            self._version_counter = [0]
        return self._version_counter

    def _is_view(self):
        return self._base is not None

    def numpy(self):
        if self.requires_grad and grad_mode.state.enabled:  # as in PyTorch
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead.")
        return self.data

    def item(self):
        if self.data.size != 1:
            raise RuntimeError(f"a Tensor with {self.data.size} elements "
                               "cannot be converted to Scalar")
        return self.data.item()

    def tolist(self):
        return self.data.tolist()

    def __repr__(self):
        numbers = np.array2string(self.data, separator=", ", prefix="tensor(")
        extras = []
        if self.dtype not in (np.float32, np.int64, np.bool_):
            extras.append(f"dtype={self.dtype}")
        try:
            grad_fn = self.grad_fn
            name = None if grad_fn is None else grad_fn.name()
        except RuntimeError:  # a view that may not be renewed: as PyTorch
            grad_fn, name = True, "Invalid"
        if grad_fn is not None:
            # The class name, as PyTorch's: <CopySlices>, no namespace
            extras.append(f"grad_fn=<{name.rsplit('::', 1)[-1]}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return f"tensor({', '.join([numbers] + extras)})"

    # The graph.

    def _gradient_edge(self):
        """Where gradients for this tensor go: ``(node, input_nr)``.

        A result's go to its ``grad_fn``; a leaf that requires grad has an
        ``AccumulateGrad`` node.
        """
        grad_fn = self._grad_fn if self._view is None else self.grad_fn
        if grad_fn is not None:
            return (grad_fn, self.output_nr)
        if not self._requires_grad:
            return _NO_EDGE
        return (grad_accumulator(self), 0)

    def _alias(self):
        """The same numbers and version counter, with no history."""
        alias = Tensor(self.data)
        counter = self._version_counter  # _shared_version_counter, inlined
        if counter is None and not self._is_inference:  # it has none
            counter = self._version_counter = [0]
        alias._version_counter = counter
        alias._is_inference = self._is_inference
        return alias

    def _new_grad(self, grad):
        """What AccumulateGrad stores as this leaf's first gradient.

        As PyTorch's AccumulateGrad does: the gradient itself ("stolen") when
        nothing else can see it, else a private copy, since the same
        gradient tensor may also be on its way to other leaves.
        """
        # Grad mode is create_graph during backward (on inside inference
        # mode too, where nothing is recorded): then a copy, never the
        # gradient itself, as PyTorch's AccumulateGrad asks GradMode.
        if grad_mode.state.grad:  # create_graph: the copy is recorded
            # PyTorch's clone_obey_contract: an empty tensor with the
            # leaf's own sizes and strides, copy_ of the gradient into it
            # (CopyBackwards); for a leaf that is not dense, a contiguous
            # clone (CloneBackward0).
            target = self._empty_in_own_layout()
            if target is None:
                return grad.clone()
            target = Tensor(target)
            target._is_inference = grad_mode.state.inference  # chapter 10
            return target.copy_(grad)
        if self._can_steal(grad):
            if grad._base is not None:
                # PyTorch stores grad.detach(): a view's memory and version
                # counter, without its _base. Nothing else holds grad, so
                # it can become that detached tensor itself.
                grad._base = grad._view = None
            return grad
        # In the leaf's own memory layout, as PyTorch's AccumulateGrad does
        # ("obeys the layout contract"): an optimizer then updates the leaf
        # with its gradient element by element in memory order.
        private = grad.data.copy(order="K")
        if private.strides != self.data.strides:  # another layout: redo
            private = self._empty_in_own_layout()
            if private is None:
                private = np.empty(self.data.shape, self.data.dtype)
            np.copyto(private, grad.data)
        private = Tensor(private)
        private._is_inference = grad_mode.state.inference  # chapter 10
        if tiles_memory(self.data):
            # PyTorch's clone_obey_contract: new_empty_strided, then copy_,
            # an in-place write (version 1); for a leaf that is not dense, a
            # contiguous clone (version 0).
            private._bump_version()
        return private

    def _empty_in_own_layout(self):
        """An empty array with this tensor's shape and strides (those of
        its dims of size 1 too), or None where they do not tile memory
        (PyTorch's is_non_overlapping_and_dense is false)."""
        data = self.data
        if not tiles_memory(data):
            return None
        return np.lib.stride_tricks.as_strided(
            np.empty(data.size, data.dtype), data.shape, data.strides)

    def _can_steal(self, grad):
        """Whether ``grad`` may become this leaf's ``.grad`` as it is.

        PyTorch's conditions (``accumulate_grad.h``): no other reference to
        the gradient tensor, and a memory layout that "obeys the layout
        contract" (``obeys_layout_contract``). Here the references are
        Python's: the engine's, AccumulateGrad's and ours to the tensor, and
        none but the tensor's to its array (another toygrad tensor on the
        same array is the same tensor to PyTorch). Whatever else holds them,
        the stepper, a second edge, a saved tensor or the caller, keeps the
        copy. As in PyTorch, a gradient that is a view of another tensor's
        memory (a gradient the caller gave, reshaped by a view's backward)
        is stolen too: the leaf's ``.grad`` then shares that memory and its
        version counter.
        """
        data = grad.data
        return not (
            getrefcount(grad) > (_REFS_TO_A_FREE_GRADIENT
                                 + references.held_by_engine)
            or grad._grad_fn is not None or grad._requires_grad
            or getrefcount(data) > 3  # grad.data, data, the argument
            or data.shape != self.data.shape
            or data.dtype != self.data.dtype
            or not data.flags.writeable
            or not self._obeys_layout_contract(data))

    def _obeys_layout_contract(self, data):
        """PyTorch's ``obeys_layout_contract`` (torch/csrc/autograd/utils/
        grad_layout_contract.h): for a dense leaf, the gradient's strides
        are the leaf's, in every dim whose size is not 1 (where a stride of
        0 breaks it); for a leaf that is not dense, the gradient is
        contiguous."""
        own = self.data
        if data.strides == own.strides and (
                own.flags.c_contiguous or own.flags.f_contiguous):
            return True  # quickly: the usual case
        if not tiles_memory(own):
            return data.flags.c_contiguous
        for size, stride, own_stride in zip(data.shape, data.strides,
                                            own.strides):
            if stride != own_stride if size != 1 else stride == 0:
                return False
        return True

    def _accumulate(self, grad):
        """``self + grad``, for the engine, which holds ``self`` as the
        gradient a node received for one input, and received ``grad`` too.

        As PyTorch's ``InputBuffer::accumulate`` (input_buffer.cpp): outside
        ``create_graph``, into ``self`` in place when the buffer holds the
        last reference to it and to its memory (``can_accumulate_inplace``),
        and its layout is dense. The in-place sum counts in ``_version``.
        """
        data = self.data
        if (grad_mode.state.enabled
                or getrefcount(self) > _REFS_TO_A_BUFFERED_GRADIENT
                or self._base is not None or self._requires_grad
                or getrefcount(data) > 3  # self.data, data, the argument
                or not data.flags.writeable
                or not tiles_memory(data)
                or not _sole_owner_of_memory(data)
                or not isinstance(grad, Tensor)
                or grad.data.shape != data.shape
                or dtypes.result_type(self, grad) != data.dtype):
            return self + grad
        np.add(data, grad.data, out=data)
        self._bump_version()
        return self

    def _add_grad(self, grad):
        """What AccumulateGrad stores when ``.grad`` holds a gradient already.

        As in PyTorch: added in place, unless ``create_graph`` records the
        sum (then a new tensor).
        """
        if grad_mode.state.grad:  # create_graph (in inference mode too)
            return self._grad + grad
        return self._grad.add_(grad)

    def detach(self):
        """The same numbers (shared, as in PyTorch), cut off from the graph."""
        if self._is_inference and not grad_mode.state.inference:
            # Chapter 10: without its autograd and ADInplaceOrView kernels
            # (an inference tensor has neither key), detach is ATen's
            # shallow_copy_and_detach with a new version counter at 0
            # (aten/src/ATen/native/TensorShape.cpp): an inference tensor
            # whose version can be read, and changed in place outside
            # inference mode.
            alias = Tensor(self.data)
            alias._is_inference = True
            alias._version_counter = [0]
            return alias
        return self._alias()

    # Chapter 10: hooks, and inference tensors. The methods that register
    # hooks (register_hook, register_post_accumulate_grad_hook, retain_grad)
    # come with them: toygrad.autograd.hooks binds them to Tensor.

    @property
    def retains_grad(self):
        """Whether ``retain_grad`` was called on this (non-leaf) tensor."""
        return self._hooks is not None and self._hooks.retains_grad

    def is_inference(self):
        """Whether this tensor was made in inference mode."""
        return self._is_inference

    def backward(self, gradient=None, retain_graph=None, create_graph=False,
                 inputs=None, **unsupported):
        """Add the gradient of this tensor to every leaf's ``.grad``.

        ``gradient`` is d(final)/d(self); left out, it is ones, which only a
        one-element tensor allows. The graph's saved tensors are freed
        unless ``retain_graph``. With ``create_graph`` the backward pass is
        itself recorded, so gradients can be differentiated again.
        """
        _refuse_arguments(unsupported, inputs)
        #> ch12
        if inputs is not None:  # only these accumulate (differentiate.py)
            return extensions.backward(self, gradient, retain_graph,
                                       create_graph, inputs=inputs)
        #< ch12
        gradient = _make_grads(self, gradient)  # ones, or checked
        node, input_nr = _root_edge(self, create_graph)
        if gradient.data.dtype != self.data.dtype:
            gradient = _cast_gradient(gradient, self.data.dtype, create_graph)
        if retain_graph is None:
            retain_graph = create_graph
        with _grad_mode_of_pass(node, create_graph):
            run_backward(node, gradient, retain_graph, input_nr)

    @staticmethod
    def _zeros(shape, dtype):
        return Tensor(np.zeros(shape, dtype))

    def __bool__(self):
        if self.data.size != 1:
            how_many = "no values" if self.data.size == 0 else \
                "more than one value"
            raise RuntimeError(
                f"Boolean value of Tensor with {how_many} is ambiguous")
        return bool(self.data)

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __index__(self):
        """An integer tensor of one element as an index (``[1, 2] * x``,
        ``range(x)``), as PyTorch allows it; bool counts as an integer."""
        if self.data.size != 1 or self.data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be "
                            "converted to an index")
        return int(self.data.item())

    def _scalar(self):
        if self.data.size != 1:
            raise ValueError("only one element tensors can be converted to "
                             "Python scalars")
        return self.data.item()

    def __array__(self, dtype=None, copy=None):
        """The numbers, for ``np.asarray(x)``; refused if x requires grad."""
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    # PyTorch compares elementwise; toygrad has no bool-valued operations, so
    # it refuses rather than let Python compare the objects.
    def _no_comparison(self, *other):
        raise NotImplementedError(
            "toygrad does not support comparisons (==, !=, <, <=, >, >=, in);"
            " compare the numbers instead: x.data == y.data")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _no_comparison
    __contains__ = _no_comparison
    __hash__ = object.__hash__


class MaxResult(tuple):
    """``(values, indices)``, as ``torch.return_types.max``."""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])


def tensor(data, requires_grad=False, dtype=None):
    """A new leaf tensor holding a copy of ``data``, as ``torch.tensor``.

    Python floats become float32 and ints int64, PyTorch's defaults; NumPy
    arrays and scalars keep their dtype.
    """
    dtype = _dtype(dtype, "tensor", None)  # in the order of the signature
    _check_bool(requires_grad, "tensor")
    strides = None
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
            ".requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning, stacklevel=2)
        data = data.data
    elif isinstance(data, np.ndarray):
        strides = _numpy_strides(data)
    if dtype is None and not isinstance(data, (np.ndarray, np.generic)):
        probe = _nested_array(data)
        if np.issubdtype(probe.dtype, np.floating):
            dtype = np.float32
        elif np.issubdtype(probe.dtype, np.integer):
            dtype = np.int64
    array = np.array(data, dtype=dtype)
    if strides is not None and array.strides != tuple(
            n * array.itemsize for n in strides):
        laid_out = np.lib.stride_tricks.as_strided(
            np.empty(array.size, array.dtype), array.shape,
            [n * array.itemsize for n in strides])
        np.copyto(laid_out, array)
        array = laid_out
    dtypes.check_dtype(array.dtype)
    if requires_grad and not np.issubdtype(array.dtype, np.floating):
        raise RuntimeError("Only Tensors of floating point and complex dtype "
                           "can require gradients")
    new = Tensor(array, requires_grad)
    new._is_inference = grad_mode.state.inference  # chapter 10
    return new


def _numpy_strides(array):
    """The strides, in elements, that ``torch.tensor(array)`` keeps.

    PyTorch wraps the array (refusing a negative stride) and copies it with
    ``empty_like``'s preserved layout: an array whose elements tile its
    memory keeps its strides exactly, those of its dims of size 1 too
    (NumPy's copy recomputes them); another array (broadcast, overlapping
    or with gaps) gets ``infer_dense_strides``'s, contiguous ones for a
    broadcast array (NumPy's copy in its memory order differed).
    """
    _refuse_negative_strides(array)
    strides = [stride // array.itemsize for stride in array.strides]
    if array.size == 0 or _dense(array):  # numel 0 counts as dense
        return tuple(strides)
    return _infer_dense_strides(array.shape, strides)


def _refuse_negative_strides(array):
    if array.ndim and min(array.strides) < 0:
        raise ValueError(
            "At least one stride in the given numpy array is negative, and "
            "tensors with negative strides are not currently supported. (You "
            "can probably work around this by making a copy of your array  "
            "with array.copy().) ")


_warned_not_writable = False


def _warn_not_writable():
    global _warned_not_writable
    _warned_not_writable = True
    warnings.warn(
        "The given NumPy array is not writable, and PyTorch does not support "
        "non-writable tensors. This means writing to this tensor will result "
        "in undefined behavior. You may want to copy the array to protect its "
        "data or make it writable before converting it to a tensor. This type "
        "of warning will be suppressed for the rest of this program.",
        UserWarning, stacklevel=3)


def _dense(array):
    """Whether ``array``'s elements tile one block of memory, in any order
    (PyTorch's ``is_non_overlapping_and_dense``)."""
    expected = array.itemsize
    for stride, size in sorted(zip(array.strides, array.shape)):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def tiles_memory(array):
    """PyTorch's ``is_non_overlapping_and_dense`` for a gradient or a
    leaf: ``_dense``, and no stride running backwards (a NumPy array may
    have one; a PyTorch tensor cannot, so it is not taken for dense)."""
    return _dense(array) and min(array.strides, default=0) >= 0


def _infer_dense_strides(sizes, strides):
    """PyTorch's ``infer_dense_strides`` (aten/src/ATen/ExpandUtils.cpp),
    the strides ``empty_like`` gives a copy of a tensor whose elements do
    not tile its memory: the dims sorted by stride as TensorIterator sorts
    them (an insertion sort from the last dim; a stride of 0 compares as
    ambiguous, equal strides by size), then laid out densely."""
    ndim = len(sizes)
    if ndim < 2:
        return (1,) * ndim

    def should_swap(dim0, dim1):
        stride0, stride1 = strides[dim0], strides[dim1]
        if stride0 == 0 or stride1 == 0:
            return 0
        if stride0 != stride1:
            return -1 if stride0 < stride1 else 1
        return 1 if sizes[dim0] > sizes[dim1] else 0

    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    out, current = [0] * ndim, 1
    for dim in perm:
        out[dim] = current
        if sizes[dim] > 1:
            current *= sizes[dim]
    return tuple(out)


def from_numpy(array):
    """A tensor that shares ``array``'s memory, as ``torch.from_numpy``.

    As PyTorch's ``tensor_from_numpy`` (torch/csrc/utils/tensor_numpy.cpp):
    a read-only array warns, once in the process (TORCH_WARN_ONCE), before
    the strides (none negative) and the dtype are checked."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    if not array.flags.writeable and not _warned_not_writable:
        _warn_not_writable()
    _refuse_negative_strides(array)
    dtypes.check_dtype(array.dtype)
    new = Tensor(array)
    new._is_inference = grad_mode.state.inference  # chapter 10
    return new


def zeros(*shape, dtype=None, requires_grad=False):
    # Parsed in the order of PyTorch's signature, sizes checked after.
    shape = _shape(shape, "zeros")
    dtype = _dtype(dtype, "zeros")
    requires_grad = _factory_flag(requires_grad, "zeros")
    if any(size < 0 for size in shape):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return tensor(np.zeros(shape, dtype), requires_grad)


def ones(*shape, dtype=None, requires_grad=False):
    shape = _shape(shape, "ones")  # as zeros
    dtype = _dtype(dtype, "ones")
    requires_grad = _factory_flag(requires_grad, "ones")
    return tensor(np.ones(_non_negative(shape), dtype), requires_grad)


def randn(*shape, **options):
    """Normally distributed numbers, as ``torch.randn``; the options are
    ``dtype``, ``requires_grad`` and ``generator`` (a NumPy
    ``np.random.Generator`` here, where PyTorch takes a
    ``torch.Generator``). Arguments that match neither of PyTorch's
    overloads are its TypeError, which lists the call's argument types (the
    keywords in the reverse of the call's order, as PyTorch prints them)."""
    unknown = set(options) - {"dtype", "requires_grad", "generator"}
    if unknown:
        raise TypeError("randn() got an unexpected keyword argument "
                        f"'{sorted(unknown)[0]}'")
    dtype = options.get("dtype")
    requires_grad = options.get("requires_grad", False)
    generator = options.get("generator")
    if ((requires_grad is not None and not isinstance(requires_grad, bool))
            or (dtype is not None and not dtypes.is_dtype(dtype))
            or (generator is not None
                and not isinstance(generator, np.random.Generator))
            or (options and len(shape) == 1  # randn(2.0, dtype=...)
                and not isinstance(shape[0], (tuple, list))
                and not _is_index(shape[0]))):
        raise TypeError(_randn_overloads(shape, options))
    requires_grad = bool(requires_grad)
    shape = _new_shape(shape, "randn")
    dtype = _dtype(dtype, "randn")
    if dtype.kind != "f":
        raise NotImplementedError('"normal_kernel_cpu" not implemented for '
                                  f"'{dtypes.torch_name(dtype)}'")
    rng = generator if generator is not None else np.random.default_rng()
    return tensor(rng.standard_normal(shape).astype(dtype), requires_grad)


def _dtype(dtype, function, default=np.float32):
    """A factory's ``dtype`` argument as a NumPy dtype: None is the
    default (float32, PyTorch's default dtype, where NumPy's is float64);
    what is not a dtype is PyTorch's TypeError (see ``dtypes.is_dtype``);
    a dtype toygrad does not support is refused by name."""
    if dtype is None:
        return None if default is None else np.dtype(default)
    if not dtypes.is_dtype(dtype):
        raise TypeError(f"{function}(): argument 'dtype' must be "
                        f"torch.dtype, not {_type_name(dtype)}")
    return dtypes.check_dtype(dtype)


def _shape(shape, function, argument="size"):
    """The sizes given as ``f(2, 3)`` or ``f((2, 3))``, parsed as PyTorch's
    argument parser parses an int list (python_arg_parser.cpp, in
    torch/csrc/utils): a TypeError, with its message, for no sizes or sizes
    that are not ints (the first may not be a bool; the later ones may)."""
    if not shape:
        if function == "view":
            raise TypeError(_view_error(""))
        if function == "randn":
            raise TypeError(_RANDN_OVERLOADS)
        raise TypeError(f'{function}() missing 1 required positional '
                        f'arguments: "{argument}"')
    one = len(shape) == 1
    sizes = shape[0] if one and isinstance(shape[0], (tuple, list)) else shape
    if one and sizes is shape and not _is_index(shape[0]):
        name = _type_name(shape[0])
        if function == "view":
            raise TypeError(_view_error(name, f"!{name}!"))
        raise TypeError(f"{function}(): argument '{argument}' (position 1) "
                        f"must be tuple of ints, not {name}")
    if sizes and not _is_index(sizes[0]):
        names = ", ".join(_type_name(size) for size in sizes)
        if function == "view":
            raise TypeError(_view_error(names) if sizes is shape else
                            _view_error("tuple", f"!tuple of ({names})!"))
        if sizes is shape:
            raise TypeError(f"{function}() takes 1 positional argument but "
                            f"{len(shape)} were given")
        raise TypeError(
            f"{function}(): argument '{argument}' (position 1) must be tuple "
            f"of ints, but found element of type {_type_name(sizes[0])} at "
            "pos 0")
    for position, size in enumerate(sizes[1:], 2):
        if not hasattr(type(size), "__index__"):
            raise TypeError(
                f"{function}(): argument '{argument}' failed to unpack the "
                f"object at pos {position} with error \"type must be tuple "
                f"of ints,but got {_type_name(size)}\"")
    return tuple(int(size) for size in sizes)


def _check_bool(value, function, position=None, name="requires_grad"):
    """PyTorch's argument parser takes only True or False for a ``bool``
    parameter (``PyBool_Check``, python_arg_parser.cpp): a TypeError that
    names the parameter (and its position if it was given by position)."""
    if value is not True and value is not False:
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{function}(): argument '{name}'{where} must be "
                        f"bool, not {_type_name(value)}")


def _factory_flag(requires_grad, function):
    """A factory's ``requires_grad``: a bool, or None for its default
    (False), as the parser gives an optional factory argument."""
    if requires_grad is None:
        return False
    _check_bool(requires_grad, function)
    return requires_grad


def _randn_overloads(shape, options):
    """randn's listing of its overloads, for a call that matches none."""
    got = [_type_name(size) for size in shape]
    got += [f"{name}={_torch_type_name(value)}"
            for name, value in reversed(options.items())]
    return _RANDN_OVERLOADS.replace("got ()", f"got ({', '.join(got)})")


def _torch_type_name(value):
    """A value's type as PyTorch's argument parser names it in an
    overload listing: toygrad's dtypes (NumPy's) are ``torch.dtype``, and
    Python's ``float`` is a ``type``, as in PyTorch."""
    if isinstance(value, np.dtype) or (
            isinstance(value, type) and issubclass(value, np.generic)):
        return "torch.dtype"
    return _type_name(value)


_RANDN_OVERLOADS = (
    "randn() received an invalid combination of arguments - got (), but "
    "expected one of:\n"
    " * (tuple of ints size, *, torch.Generator generator, Tensor out = None,"
    " torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory "
    "= False, bool requires_grad = False)\n")


def _view_error(got, invalid=None):
    """PyTorch's message for view's arguments that match no overload."""
    why = ("" if invalid is None else "      didn't match because some of "
           f"the arguments have invalid types: ({invalid})\n")
    return (f"view() received an invalid combination of arguments - got "
            f"({got}), but expected one of:\n * (torch.dtype dtype)\n{why}"
            f" * (tuple of ints size)\n{why}")


def _is_index(value):
    """An int for PyTorch's parser: a Python or NumPy int, not a bool."""
    return hasattr(type(value), "__index__") and not isinstance(value, bool)


# "Tensor", "float", "numpy.float64": as PyTorch's messages name types
_type_name = dtypes.type_name

def _new_shape(shape, function):
    return _non_negative(_shape(shape, function))


def _non_negative(shape):
    for size in shape:
        if size < 0:
            raise RuntimeError("Trying to create tensor with negative "
                               f"dimension {size}: {list(shape)}")
    return shape


def _nested_array(data):
    """``data`` (numbers in nested lists) as an array, checked as PyTorch
    checks it: every list at one depth has the same length."""
    def check(item, depth, lengths):
        if isinstance(item, (list, tuple)):
            if len(lengths) <= depth:
                lengths.append(len(item))
            elif lengths[depth] != len(item):
                raise ValueError(f"expected sequence of length "
                                 f"{lengths[depth]} at dim {depth} (got "
                                 f"{len(item)})")
            for element in item:
                check(element, depth + 1, lengths)
        elif isinstance(item, np.generic):
            raise NotImplementedError(
                "toygrad does not infer a dtype from NumPy scalars inside "
                "lists; pass an array or a dtype")
    check(data, 0, [])
    return np.asarray(data)


def _refuse(where, unsupported):
    """Raise for keyword arguments toygrad does not support."""
    if unsupported:
        raise NotImplementedError(
            f"toygrad's {where} does not support the argument(s) "
            f"{', '.join(sorted(unsupported))}")


float32, float64, int64 = np.float32, np.float64, np.int64

