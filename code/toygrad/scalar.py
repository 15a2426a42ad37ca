"""A scalar that records the operations that produce it: autograd on numbers.

``Value`` uses PyTorch's vocabulary (``data``, ``grad``, ``requires_grad``,
``grad_fn``, ``is_leaf``, ``backward``) and records the graph a 0-dim
``torch.Tensor`` would: every result of an operation on a Value that requires
grad points to a node (``grad_fn``) that knows how to send a gradient back to
the operation's inputs. Primitive operations have a node class each, named as
PyTorch names it; derived operations (``-``, the reflected forms) are built
from the primitives.

At the edges of their domains the operations give what PyTorch's 0-dim
float64 tensors give, IEEE numbers where Python's ``math`` raises:
``Value(0.).log()`` is -inf, ``Value(1000.).exp()`` is inf, ``Value(1.) / 0``
is inf, ``Value(-1.) ** 0.5`` is nan, and so are the gradients.
"""

import math

import numpy as np

from toygrad.autograd.graph import Node, grad_accumulator
#> ch04
from toygrad.autograd.graph import ERR_BACKWARD_TWICE, next_sequence_nr
#< ch04

#> ch03 until ch05
#| class _grad_mode:  # noqa: N801  (until chapter 5: always recording)
#|     enabled = True
#< ch03 until ch05
#> ch05
# Values honour no_grad and inference_mode too (chapter 10).
from toygrad.autograd.grad_mode import state as _grad_mode
#< ch05
#> ch04 what backward leaves of a node's saved numbers


class _Released:
    """What a node's ``saved`` becomes after backward.

    Unpacking it raises PyTorch's error.
    """

    def __iter__(self):
        raise RuntimeError(ERR_BACKWARD_TWICE)


RELEASED = _Released()
#< ch04


# Arithmetic with IEEE results. Python's float arithmetic gives them already,
# except that it raises where C gives an infinity or a nan: division by zero,
# and math's functions outside their domain or on overflow. Only then is the
# number computed again, by NumPy, whose float64 follows C. (Catching an
# exception costs nothing while none is raised.)

def _ieee(function, *args):
    """``function(*args)`` in NumPy float64, as a Python float."""
    with np.errstate(all="ignore"):
        return float(function(*args))


def _div(a, b):
    """a / b; at b == 0, +-inf or nan."""
    try:
        return a / b
    except ZeroDivisionError:
        return _ieee(np.divide, a, b)


def _exp(a):
    """e ** a; inf on overflow."""
    try:
        return math.exp(a)
    except OverflowError:
        return math.inf


def _log(a):
    """ln a; -inf at 0, nan below."""
    try:
        return math.log(a)
    except ValueError:
        return _ieee(np.log, a)


def _sqrt(a):
    """The square root; nan below 0 (and sqrt(-0.) is -0.)."""
    try:
        return math.sqrt(a)
    except ValueError:
        return math.nan


def _pow(a, b):
    """a ** b as C's pow computes it: PyTorch's pow of two tensors."""
    try:
        return math.pow(a, b)
    except (ValueError, OverflowError):
        return _ieee(np.power, a, b)


def _pow_number(a, n):
    """a ** n for a number n, as PyTorch computes a tensor to a number.

    PyTorch computes some exponents in a way of its own, so its answers can
    differ from pow's in rounding, in the sign of zero, and at -inf:
    (-0.) ** 0.5 is -0., (-inf) ** 0.5 is nan, (1e160) ** -2 is 0.
    """
    if n == 2:
        return a * a
    if n == 3:
        return a * a * a
    if n == -1:
        return _div(1.0, a)
    if n == -2:
        return _div(1.0, a * a)
    if n == 0.5:
        return _sqrt(a)
    if n == -0.5:
        return _div(1.0, _sqrt(a))
    return _pow(a, n)


class ScalarNode(Node):
    """A node of the scalar engine.

    ``next_nodes`` holds the node of each input (``None`` if it needs no
    gradient) and ``saved`` the numbers the gradient formula needs. Each
    subclass's ``apply(grad)`` unpacks ``saved`` and returns one gradient per
    input.
    """
    #> ch04
    # After backward, ``saved`` is released; a second backward that needs it
    # raises, as in PyTorch (a node that saved nothing, such as an addition,
    # can run again).
    #< ch04

    __slots__ = ("next_nodes", "saved")

    def __init__(self, next_nodes, saved):
        #> ch04 Node.__init__'s work, set here: this runs for every operation
        self.sequence_nr = next_sequence_nr()
        #< ch04
        #> ch10
        self._hooks = None
        #< ch10
        self.next_nodes = next_nodes
        self.saved = saved

    @property
    def next_functions(self):
        # next_nodes as PyTorch shows them: (node, input_nr) pairs. A scalar
        # operation has one output, so input_nr is always 0.
        nodes = self.next_nodes
        if len(nodes) == 1:
            return ((nodes[0], 0),)
        return ((nodes[0], 0), (nodes[1], 0))
    #> ch04

    def release_variables(self):
        self.saved = RELEASED
    #< ch04


# One class per primitive operation, named as PyTorch names its node.
# ``apply`` is the gradient formula: given g = d(loss)/d(out), the gradient
# for each input.

class AddBackward0(ScalarNode):
    """out = a + b"""
    __slots__ = ()

    def apply(self, g):
        return g, g


class MulBackward0(ScalarNode):
    """out = a * b"""
    __slots__ = ()

    # Task 3.2: the local derivatives of a product
    def apply(self, g):
        a, b = self.saved
        return g * b, g * a


class DivBackward0(ScalarNode):
    """out = a / b"""
    __slots__ = ()

    def apply(self, g):
        a, b = self.saved
        return _div(g, b), -g * _div(_div(a, b), b)


class ReciprocalBackward0(ScalarNode):
    """out = 1 / a"""
    __slots__ = ()

    def apply(self, g):
        out, = self.saved
        return -g * (out * out),


class PowBackward0(ScalarNode):
    """out = a ** n, for a number n"""
    __slots__ = ()

    def apply(self, g):
        a, n = self.saved
        return (g * (n * _pow_number(a, n - 1)) if n != 0 else 0.0),


class PowBackward1(ScalarNode):
    """out = a ** b, for a Value b.

    Like PyTorch, d/db is 0 where a == 0 and b >= 0 (ln 0 is -inf).
    """
    __slots__ = ()

    def apply(self, g):
        a, b, out = self.saved
        return (g * (b * _pow(a, b - 1)) if b != 0 else 0.0,
                g * (0.0 if a == 0 and b >= 0 else out * _log(a)))


class NegBackward0(ScalarNode):
    """out = -a"""
    __slots__ = ()

    def apply(self, g):
        return -g,


class ExpBackward0(ScalarNode):
    """out = e ** a"""
    __slots__ = ()

    def apply(self, g):
        out, = self.saved
        return g * out,


class LogBackward0(ScalarNode):
    """out = ln a"""
    __slots__ = ()

    def apply(self, g):
        a, = self.saved
        return _div(g, a),


class TanhBackward0(ScalarNode):
    """out = tanh a"""
    __slots__ = ()

    def apply(self, g):
        out, = self.saved
        return g * (1 - out * out),


class ReluBackward0(ScalarNode):
    """out = max(a, 0)"""
    __slots__ = ()

    def apply(self, g):
        out, = self.saved
        return (0.0 if out <= 0 else g),  # PyTorch's test: g passes at nan


class SigmoidBackward0(ScalarNode):
    """out = 1 / (1 + e ** -a)"""
    __slots__ = ()

    def apply(self, g):
        out, = self.saved
        return g * (1 - out) * out,


class Value:
    """A float that remembers how it was computed.

    Args:
        data: the number.
        requires_grad: whether ``backward`` should compute a gradient for it.
            Only values that require grad, and results computed from them,
            are recorded.
    """

    __slots__ = ("data", "grad", "requires_grad", "grad_fn", "_accumulator")

    def __init__(self, data, requires_grad=False):
        self.data = float(data)
        self.grad = None
        self.requires_grad = requires_grad
        self.grad_fn = None
        # weak reference to this leaf's AccumulateGrad node
        self._accumulator = None

    @property
    def is_leaf(self):
        """True for values made by the user.

        False for results of recorded operations.
        """
        return self.grad_fn is None

    def _grad_node(self):
        """The node gradients for this value go to (``None`` if it needs none).

        A result's gradients go to its ``grad_fn``; a leaf that requires grad
        has an ``AccumulateGrad`` node.
        """
        if self.grad_fn is not None:
            return self.grad_fn
        if not self.requires_grad:
            return None
        return grad_accumulator(self)

    @staticmethod
    def _unary(data, node_class, x, saved=()):
        """The result of an operation on ``x``.

        Recorded if ``x`` requires grad.
        """
        out = Value(data)
        if x.requires_grad and _grad_mode.enabled:
            out.requires_grad = True
            out.grad_fn = node_class((x._grad_node(),), saved)
        return out

    # Task 3.1: an operation records its node
    @staticmethod
    def _binary(data, node_class, x, y, saved=()):
        """The result of an operation on ``x`` and ``y``.

        Recorded if either requires grad.
        """
        out = Value(data)
        if (x.requires_grad or y.requires_grad) and _grad_mode.enabled:
            out.requires_grad = True
            out.grad_fn = node_class((x._grad_node(), y._grad_node()),
                                     saved)
        return out

    # Primitive operations: compute the result, record its node with what the
    # formula needs.

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value._binary(self.data + other.data, AddBackward0, self, other)

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        a, b = self.data, other.data
        return Value._binary(a * b, MulBackward0, self, other, (a, b))

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        a, b = self.data, other.data
        return Value._binary(_div(a, b), DivBackward0, self, other, (a, b))

    def reciprocal(self):
        out = _div(1.0, self.data)
        return Value._unary(out, ReciprocalBackward0, self, (out,))

    def __pow__(self, exponent):
        a = self.data
        if isinstance(exponent, Value):
            b = exponent.data
            out = _pow(a, b)
            return Value._binary(out, PowBackward1, self, exponent,
                                 (a, b, out))
        n = float(exponent)
        return Value._unary(_pow_number(a, n), PowBackward0, self, (a, n))

    def __neg__(self):
        return Value._unary(-self.data, NegBackward0, self)

    def exp(self):
        out = _exp(self.data)
        return Value._unary(out, ExpBackward0, self, (out,))

    def log(self):
        a = self.data
        return Value._unary(_log(a), LogBackward0, self, (a,))

    def tanh(self):
        out = math.tanh(self.data)
        return Value._unary(out, TanhBackward0, self, (out,))

    def relu(self):
        # as in PyTorch, nan stays nan and -0. stays -0.
        out = 0.0 if self.data < 0 else self.data
        return Value._unary(out, ReluBackward0, self, (out,))

    def sigmoid(self):
        # PyTorch's formula; 0 where e ** -a overflows
        out = 1 / (1 + _exp(-self.data))
        return Value._unary(out, SigmoidBackward0, self, (out,))

    # Derived operations: built from the primitives above; no formula needed.

    def __sub__(self, other):
        return self + (-other)

    def __radd__(self, other):  # other + self
        return self + other

    def __rmul__(self, other):  # other * self
        return self * other

    def __rsub__(self, other):  # other - self
        return (-self) + other

    def __rtruediv__(self, other):  # other / self, as PyTorch computes it
        return self.reciprocal() * other

    def __rpow__(self, base):  # base ** self
        return Value(base) ** self

    # The rest of PyTorch's vocabulary.

    def backward(self, gradient=None, retain_graph=None):
        """Compute the gradient of this value with respect to the leaves.

        Every leaf that requires grad gets one: the gradients are added into
        each leaf's ``.grad``. ``gradient`` is d(final)/d(self), 1 by default.
        Unless ``retain_graph``, what the graph saved is freed afterwards, and
        a second ``backward`` through it fails.
        """
        if not self.requires_grad:
            raise RuntimeError(
                "element 0 of tensors does not require grad and does not "
                "have a grad_fn")
        grad = (1.0 if gradient is None
                else float(getattr(gradient, "data", gradient)))
        from toygrad.autograd.engine import run_backward  # chapter 4's

        run_backward(self._grad_node(), grad, retain_graph=bool(retain_graph))

    def _add_grad(self, grad):
        """What AccumulateGrad stores when ``.grad`` holds a number."""
        return self.grad + grad

    def _new_grad(self, grad):
        """What AccumulateGrad stores as this leaf's first gradient: itself."""
        return grad

    def detach(self):
        """The same number, cut off from the graph."""
        return Value(self.data)

    def item(self):
        return self.data

    def __repr__(self):
        if self.grad_fn is not None:
            return (f"Value({self.data!r}, "
                    f"grad_fn=<{self.grad_fn.name().rsplit('::', 1)[-1]}>)")
        if self.requires_grad:
            return f"Value({self.data!r}, requires_grad=True)"
        return f"Value({self.data!r})"
