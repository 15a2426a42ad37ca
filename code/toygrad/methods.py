"""The tensor's operations as its methods: ``x + y``, ``x @ w``,
``x.sum()``, ``x.view(...)``, ``x[key]``, ``x.add_(y)``, ``x[key] = y``.

``toygrad.tensor`` defines the tensor itself: its numbers, its place in the
graph, ``backward``. Each method here is a call into an operation of
``toygrad.ops`` (or, in place, ``toygrad.views.inplace``), and this module
gives the methods to ``Tensor`` when it is imported (``toygrad`` imports
it), as PyTorch's generated ``python_variable_methods.cpp`` gives
``torch._C.TensorBase`` its methods. So the tensor is below the operations
that make tensors, and no module imports another in a circle.
"""

import numbers
import warnings

import numpy as np

from toygrad import ops, views
from toygrad.dtypes import canonical_dim
from toygrad.tensor import Tensor, _must_be_tensor, _refuse, _shape

_T_DEPRECATED = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their "
    "shape is deprecated and it will throw an error in a future release. "
    "Consider `x.mT` to transpose batches of matrices or "
    "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
    "of a tensor.")


def _operand(other):
    """Whether PyTorch's operators take ``other``: a tensor, a number, or one
    of NumPy's scalars or arrays (which PyTorch converts; toygrad names them
    as unsupported). For anything else PyTorch's operator gives Python
    ``NotImplemented``, and Python raises its TypeError ("unsupported
    operand type(s) for +: 'Tensor' and 'list'")."""
    return isinstance(other, (Tensor, numbers.Number, np.ndarray, np.generic))


def _left_operand(other):
    """The same for the left operand of a reflected operator (``other + x``):
    PyTorch's turns down a NumPy array there too (NumPy's own error
    follows), while it takes NumPy's scalars."""
    return _operand(other) and not isinstance(other, np.ndarray)


def _must_be_operand(function, value):
    """The same, for an in-place method's ``other``: a number also does."""
    if not _operand(value):
        _must_be_tensor(function, "other", 1, value)


class TensorMethods:
    """The methods, written as in a class body; ``Tensor`` takes them all
    (below)."""

    # Operations: each is a Function from toygrad.ops.

    # NumPy's scalars and arrays on the left of an operator defer to a
    # tensor's reflected method, as to PyTorch's (torch/_tensor.py), instead
    # of making the tensor an array and answering with an array.
    __array_priority__ = 1000

    def __add__(self, other):
        if not _operand(other):
            return NotImplemented
        return ops.binary(ops.Add, self, other)

    def __radd__(self, other):
        if not _left_operand(other):
            return NotImplemented
        return ops.binary(ops.Add, self, other)

    def __sub__(self, other):
        if not _operand(other):
            return NotImplemented
        return ops.binary(ops.Sub, self, other)

    def __rsub__(self, number):  # number - self
        if not _left_operand(number):
            return NotImplemented
        return ops.rsub(self, number)

    def __mul__(self, other):
        if not _operand(other):
            return NotImplemented
        return ops.binary(ops.Mul, self, other)

    def __rmul__(self, other):
        if not _left_operand(other):
            return NotImplemented
        return ops.binary(ops.Mul, self, other)

    def __truediv__(self, other):
        if not _operand(other):
            return NotImplemented
        return ops.binary(ops.Div, self, other)

    def __rtruediv__(self, number):  # number / self, as torch/_tensor.py
        if not _operand(number):  # (an array too: reciprocal() * number)
            return NotImplemented
        return self.reciprocal() * number

    def __pow__(self, exponent):
        if not _operand(exponent):
            return NotImplemented
        if isinstance(exponent, Tensor):
            return ops.binary(ops.Pow, self, exponent)
        out = ops.PowScalar.apply(*ops.pow_scalar_operands(self, exponent))
        if self._is_inference and exponent in (0, 1):
            # Chapter 10: pow's kernel writes x ** 0 with fill_(1), x ** 1
            # with copy_ (ops.written_below_autograd).
            ops.written_below_autograd(out, 1, self)
        return out

    def __rpow__(self, base):  # base ** self
        if not _left_operand(base):
            return NotImplemented
        out = ops.RPow.apply(*ops.rpow_operands(self, base))
        if self._is_inference:
            # Chapter 10: pow(Scalar, Tensor)'s kernel writes its new
            # tensor through a call that counts (ops.written_below_autograd).
            ops.written_below_autograd(out, 1, self)
        return out

    def __neg__(self):
        if self.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not "
                "supported. If you are trying to invert a mask, use the `~` "
                "or `logical_not()` operator instead.")
        return ops.Neg.apply(self)

    def __matmul__(self, other):
        if not _operand(other):
            return NotImplemented
        return ops.matmul(self, other)

    def mm(self, other):
        _must_be_tensor("mm", "mat2", 1, other)
        return ops.mm(self, other)

    def mv(self, other):
        _must_be_tensor("mv", "vec", 1, other)
        return ops.mv(self, other)

    def bmm(self, other):
        _must_be_tensor("bmm", "mat2", 1, other)
        return ops.bmm(self, other)

    def exp(self):
        return ops.Exp.apply(ops.floating(self))

    def log(self):
        return ops.Log.apply(ops.floating(self))

    def tanh(self):
        return ops.Tanh.apply(ops.floating(self))

    def sigmoid(self):
        return ops.Sigmoid.apply(ops.floating(self))

    def relu(self):
        return ops.relu(self)

    def reciprocal(self):
        return ops.Reciprocal.apply(ops.floating(self))

    def sum(self, dim=None, keepdim=False, **unsupported):
        if unsupported:
            _refuse("Tensor.sum", unsupported)
        return ops.reduce(ops.SumAll, ops.Sum, self, dim, keepdim)

    def mean(self, dim=None, keepdim=False, **unsupported):
        if unsupported:
            _refuse("Tensor.mean", unsupported)
        return ops.reduce(ops.MeanAll, ops.Mean, self, dim, keepdim)

    def max(self, dim=None, keepdim=False):
        """The largest element; or with ``dim``, (values, indices) along it."""
        return ops.reduce_max(self, dim, keepdim)

    def sum_to_size(self, *size):
        """Sum broadcast dimensions away until the shape is ``size``."""
        return ops.sum_to_size(self, _shape(size, "sum_to_size"))

    # Shapes: views of this tensor's numbers, except where a copy is needed.

    def reshape(self, *shape):
        """A view when the numbers allow one, else a copy (as PyTorch)."""
        return ops.reshape(self, _shape(shape, "reshape", "shape"))

    def view(self, *shape):
        return ops.view(self, _shape(shape, "view"))

    def clone(self):
        out = ops.Clone.apply(self)
        if self._is_inference:  # clone's kernel: empty_like, then copy_
            ops.written_below_autograd(out, 1, self)
        return out

    def permute(self, *dims):
        return ops.permute(self, _shape(dims, "permute", "dims"))

    def transpose(self, dim0, dim1):
        return ops.transpose(self, dim0, dim1)

    def t(self):
        return ops.t(self)

    @property
    def T(self):
        if self.ndim != 2:
            warnings.warn(_T_DEPRECATED, UserWarning, stacklevel=2)
        return ops.Permute.apply(self, tuple(reversed(range(self.ndim))))

    def unsqueeze(self, dim):
        return ops.Unsqueeze.apply(self, canonical_dim(dim, self.ndim + 1))

    def squeeze(self, dim=None):
        return ops.squeeze(self, dim)

    def expand(self, *shape):
        return ops.expand(self, _shape(shape, "expand"))

    def unbind(self, dim=0):
        dim = canonical_dim(dim, self.ndim)
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has "
                             "no dimensions")
        return ops.Unbind.apply(self, dim)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __getitem__(self, key):
        return ops.getitem(self, key)

    # In-place operations: they change this tensor's numbers, bump its
    # version and rewrite its history (see toygrad.views.inplace).

    def add_(self, other, alpha=1):
        _must_be_operand("add_", other)
        return views.inplace(self, ops.Add, other, *ops.alpha(alpha, self))

    def sub_(self, other, alpha=1):
        _must_be_operand("sub_", other)
        return views.inplace(self, ops.Sub, other, *ops.alpha(alpha, self))

    def mul_(self, other):
        _must_be_operand("mul_", other)
        return views.inplace(self, ops.Mul, other)

    def div_(self, other):
        _must_be_operand("div_", other)
        return views.inplace(self, ops.Div, other)

    def zero_(self):
        return views.inplace(self, ops.Zero)

    def copy_(self, source):
        _must_be_operand("copy_", source)
        return views.inplace(self, ops.Copy, source)

    # Augmented assignment is in place, as in PyTorch: ``p -= lr * p.grad``
    # changes ``p`` itself. (An operand PyTorch turns down gives Python
    # NotImplemented, whose TypeError names the operator.)
    def __iadd__(self, other):
        return self.add_(other) if _operand(other) else NotImplemented

    def __isub__(self, other):
        return self.sub_(other) if _operand(other) else NotImplemented

    def __imul__(self, other):
        return self.mul_(other) if _operand(other) else NotImplemented

    def __itruediv__(self, other):
        return self.div_(other) if _operand(other) else NotImplemented

    def __setitem__(self, key, value):
        """``x[key] = value``: ``value`` written into the view ``x[key]``
        (or into ``x``, if the key takes all of it), as PyTorch does."""
        views.setitem(self, key, value)


_EVERY_CLASS_HAS = set(vars(type("Empty", (), {})))
for _name, _method in vars(TensorMethods).items():
    if _name not in _EVERY_CLASS_HAS:
        setattr(Tensor, _name, _method)
