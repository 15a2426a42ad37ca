"""``Tensor``: a NumPy array that records the operations that produce it.

The vocabulary is PyTorch's: ``data``, ``grad``, ``requires_grad``,
``grad_fn``, ``is_leaf``, ``backward``, and the operations keep PyTorch's
signatures and node names. Every operation is a ``Function`` (see
``toygrad.ops``); this module holds the tensor itself and its methods.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.engine import run_backward
from toygrad.autograd.graph import grad_accumulator

_NO_EDGE = (None, 0)


def _size(shape):
    return f"torch.Size({list(shape)})"


class Tensor:
    """An n-dimensional array of numbers that remembers how it was computed.

    Make one with ``toygrad.tensor(data, requires_grad=False)``. ``data`` is
    the NumPy array holding the numbers.
    """

    __slots__ = ("data", "grad", "requires_grad", "grad_fn", "output_nr",
                 "_version_counter", "_accumulator", "__weakref__")

    def __init__(self, data, requires_grad=False):
        self.data = data
        self.grad = None
        self.requires_grad = requires_grad
        self.grad_fn = None
        self.output_nr = 0  # which output of grad_fn this tensor is
        # A one-element list shared by a tensor and its aliases, made when
        # first needed; in-place operations bump it.
        self._version_counter = None
        self._accumulator = None  # weak reference: this leaf's AccumulateGrad

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
        return self.data.shape if dim is None else self.data.shape[dim]

    def numel(self):
        return self.data.size

    def __len__(self):
        return len(self.data)

    @property
    def is_leaf(self):
        """True for tensors made by the user, False for recorded results."""
        return self.grad_fn is None

    @property
    def _version(self):
        """How many in-place operations have changed this tensor's numbers."""
        counter = self._version_counter
        return counter[0] if counter else 0

    def _bump_version(self):
        self._shared_version_counter()[0] += 1

    def _shared_version_counter(self):
        if self._version_counter is None:
            self._version_counter = [0]
        return self._version_counter

    def numpy(self):
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead.")
        return self.data

    def item(self):
        return self.data.item()

    def tolist(self):
        return self.data.tolist()

    def __repr__(self):
        numbers = np.array2string(self.data, separator=", ", prefix="tensor(")
        extras = []
        if self.dtype not in (np.float32, np.int64, np.bool_):
            extras.append(f"dtype={self.dtype}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return f"tensor({', '.join([numbers] + extras)})"

    # The graph.

    def _gradient_edge(self):
        """Where gradients for this tensor go: ``(node, input_nr)``.

        A result's go to its ``grad_fn``; a leaf that requires grad has an
        ``AccumulateGrad`` node.
        """
        if self.grad_fn is not None:
            return (self.grad_fn, self.output_nr)
        if not self.requires_grad:
            return _NO_EDGE
        return (grad_accumulator(self), 0)

    def _alias(self):
        """The same numbers and version counter, with no history."""
        alias = Tensor(self.data)
        alias._version_counter = self._shared_version_counter()
        return alias

    def _new_grad(self, grad):
        """What AccumulateGrad stores as this leaf's first gradient.

        Outside ``create_graph`` a private copy, since the same gradient
        tensor may also be on its way to other leaves.
        """
        if grad_mode.state.enabled:
            return grad
        return Tensor(grad.data.copy(order="K"))  # "K": keep the memory layout

    def detach(self):
        """The same numbers (shared, as in PyTorch), cut off from the graph."""
        return self._alias()

    def requires_grad_(self, requires_grad=True):
        if not np.issubdtype(self.dtype, np.floating) and requires_grad:
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Compute the gradient of this tensor with respect to every leaf.

        The gradients are added into each leaf's ``.grad``. ``gradient`` is
        d(final)/d(self); it may be left out only for a one-element tensor.
        Unless ``retain_graph``, the graph's saved tensors are freed
        afterwards. With ``create_graph`` the backward pass is itself
        recorded, so gradients can be differentiated again.
        """
        if not self.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad "
                               "and does not have a grad_fn")
        if gradient is None:
            if self.data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs")
            gradient = Tensor(np.ones_like(self.data))
        elif not isinstance(gradient, Tensor):
            gradient = Tensor(np.asarray(gradient, dtype=self.dtype))
        if gradient.shape != self.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of "
                f"{_size(gradient.shape)} and output[0] has a shape of "
                f"{_size(self.shape)}.")
        if retain_graph is None:
            retain_graph = create_graph
        node, input_nr = self._gradient_edge()
        # The backward pass is recorded only with create_graph.
        state, enabled = grad_mode.state, grad_mode.state.enabled
        state.enabled = create_graph
        try:
            run_backward(node, gradient, retain_graph, input_nr)
        finally:
            state.enabled = enabled

    @staticmethod
    def _zeros(shape, dtype):
        return Tensor(np.zeros(shape, dtype))

    # Operations: each is a Function from toygrad.ops.

    def __add__(self, other):
        return ops.Add.apply(self, ops._wrap(other, self))

    __radd__ = __add__

    def __sub__(self, other):
        return ops.Sub.apply(self, ops._wrap(other, self))

    def __rsub__(self, number):  # number - self
        return ops.Rsub.apply(self, number)

    def __mul__(self, other):
        return ops.Mul.apply(self, ops._wrap(other, self))

    __rmul__ = __mul__

    def __truediv__(self, other):
        return ops.Div.apply(self, ops._wrap(other, self))

    def __rtruediv__(self, number):  # number / self
        return self.reciprocal() * number

    def __pow__(self, exponent):
        if isinstance(exponent, Tensor):
            return ops.Pow.apply(self, exponent)
        return ops.PowScalar.apply(self, exponent)

    def __rpow__(self, base):  # base ** self
        return ops.RPow.apply(self, base)

    def __neg__(self):
        return ops.Neg.apply(self)

    def __matmul__(self, other):
        return ops.matmul(self, other)

    def mm(self, other):
        return ops.Mm.apply(self, other)

    def mv(self, other):
        return ops.Mv.apply(self, other)

    def bmm(self, other):
        return ops.Bmm.apply(self, other)

    def exp(self):
        return ops.Exp.apply(self)

    def log(self):
        return ops.Log.apply(self)

    def tanh(self):
        return ops.Tanh.apply(self)

    def sigmoid(self):
        return ops.Sigmoid.apply(self)

    def relu(self):
        return ops.Relu.apply(self)

    def reciprocal(self):
        return ops.Reciprocal.apply(self)

    def sum(self, dim=None, keepdim=False):
        if dim is None and not keepdim:
            return ops.SumAll.apply(self)
        return ops.Sum.apply(self, ops._dims(dim, self.ndim), keepdim)

    def mean(self, dim=None, keepdim=False):
        if dim is None and not keepdim:
            return ops.MeanAll.apply(self)
        return ops.Mean.apply(self, ops._dims(dim, self.ndim), keepdim)

    def max(self, dim=None, keepdim=False):
        """The largest element; or with ``dim``, (values, indices) along it."""
        if dim is None:
            return ops.MaxAll.apply(self)
        return MaxResult(*ops.MaxDim.apply(self, dim % self.ndim, keepdim))

    def sum_to_size(self, *size):
        """Sum broadcast dimensions away until the shape is ``size``."""
        return ops.unbroadcast(self, _shape(size))

    # Shapes.

    def reshape(self, *shape):
        """A view when the numbers allow one, else a copy (as PyTorch)."""
        shape = _shape(shape)
        if self.data.flags.c_contiguous:
            return ops.View.apply(self, shape)
        try:  # a view with other strides?
            self.data.view().shape = shape
        except AttributeError:  # no: copy the numbers into order first
            return ops.UnsafeView.apply(ops.Clone.apply(self), shape)
        return ops.ReshapeAlias.apply(self, shape)

    def view(self, *shape):
        return ops.View.apply(self, _shape(shape))

    def clone(self):
        return ops.Clone.apply(self)

    def permute(self, *dims):
        return ops.Permute.apply(self, _shape(dims))

    def transpose(self, dim0, dim1):
        return ops.Transpose.apply(self, dim0 % self.ndim, dim1 % self.ndim)

    def t(self):
        return ops.T.apply(self)

    @property
    def T(self):
        return ops.Permute.apply(self, tuple(reversed(range(self.ndim))))

    def unsqueeze(self, dim):
        return ops.Unsqueeze.apply(self, dim % (self.ndim + 1))

    def squeeze(self, dim):
        return ops.Squeeze.apply(self, dim % self.ndim)

    def expand(self, *shape):
        return ops.Expand.apply(self, _shape(shape))

    def __getitem__(self, key):
        """Indexing with ints and slices, a dimension at a time, as PyTorch."""
        if not isinstance(key, tuple):
            key = (key,)
        result, dim = self, 0
        for item in key:
            if isinstance(item, (int, np.integer)):
                size = result.shape[dim]
                if not -size <= item < size:
                    raise IndexError(f"index {item} is out of bounds for "
                                     f"dimension {dim} with size {size}")
                result = ops.Select.apply(result, dim, int(item) % size)
            elif isinstance(item, slice):
                if item != slice(None):
                    result = ops.Slice.apply(result, dim, item)
                dim += 1
            else:
                raise TypeError("toygrad tensors can be indexed with ints "
                                f"and slices only, not {type(item).__name__}")
        return result

    # In-place operations: they change this tensor and bump its version.

    def add_(self, other, alpha=1):
        if alpha != 1:
            other = other * alpha
        return ops.inplace(self, ops.Add, ops._wrap(other, self))

    def mul_(self, other):
        return ops.inplace(self, ops.Mul, ops._wrap(other, self))

    def zero_(self):
        return ops.inplace(self, ops.Zero)

    def __bool__(self):
        return bool(self.data)


class MaxResult(tuple):
    """``(values, indices)``, as ``torch.return_types.max``."""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])


def tensor(data, requires_grad=False, dtype=None):
    """A new leaf tensor holding a copy of ``data``, as ``torch.tensor``.

    Python floats become float32 and ints int64, PyTorch's defaults; NumPy
    arrays keep their dtype.
    """
    if isinstance(data, Tensor):
        data = data.data
    if dtype is None and not isinstance(data, np.ndarray):
        probe = np.asarray(data)
        if np.issubdtype(probe.dtype, np.floating):
            dtype = np.float32
        elif np.issubdtype(probe.dtype, np.integer):
            dtype = np.int64
    array = np.array(data, dtype=dtype)
    if requires_grad and not np.issubdtype(array.dtype, np.floating):
        raise RuntimeError("Only Tensors of floating point and complex dtype "
                           "can require gradients")
    return Tensor(array, requires_grad)


def from_numpy(array):
    """A tensor that shares ``array``'s memory, as ``torch.from_numpy``."""
    return Tensor(array)


def zeros(*shape, dtype=np.float32, requires_grad=False):
    return tensor(np.zeros(_shape(shape), dtype), requires_grad)


def ones(*shape, dtype=np.float32, requires_grad=False):
    return tensor(np.ones(_shape(shape), dtype), requires_grad)


def randn(*shape, dtype=np.float32, requires_grad=False, generator=None):
    rng = generator if generator is not None else np.random.default_rng()
    return tensor(rng.standard_normal(_shape(shape)).astype(dtype),
                  requires_grad)


def _shape(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return shape


float32, float64, int64 = np.float32, np.float64, np.int64


from toygrad import ops  # noqa: E402  (ops builds on Tensor, defined above)
