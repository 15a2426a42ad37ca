"""A scalar that records the operations that produce it: autograd on numbers.

``Value`` uses PyTorch's vocabulary (``data``, ``grad``, ``requires_grad``,
``grad_fn``, ``is_leaf``, ``backward``) and records the graph a 0-dim
``torch.Tensor`` would: every result of an operation on a Value that requires
grad points to a node (``grad_fn``) that knows how to send a gradient back to
the operation's inputs. Primitive operations have a node class each, named as
PyTorch names it; derived operations (``-``, ``/``, the reflected forms) are
built from the primitives.
"""

import math

from toygrad.autograd.engine import run_backward
from toygrad.autograd.graph import (
    ERR_BACKWARD_TWICE, Node, grad_accumulator, next_sequence_nr)


class _Released:
    """What a node's ``saved`` becomes after backward.

    Unpacking it raises PyTorch's error.
    """

    def __iter__(self):
        raise RuntimeError(ERR_BACKWARD_TWICE)


RELEASED = _Released()


class ScalarNode(Node):
    """A node of the scalar engine.

    ``next_nodes`` holds the node of each input (``None`` if it needs no
    gradient) and ``saved`` the numbers the gradient formula needs. Each
    subclass's ``apply(grad)`` unpacks ``saved`` and returns one gradient per
    input. After backward, ``saved`` is released; a second backward that needs
    it raises, as in PyTorch (a node that saved nothing, such as an addition,
    can run again).
    """

    __slots__ = ("next_nodes", "saved")

    def __init__(self, next_nodes, saved):
        # Node.__init__, inlined: this runs for every operation
        self.sequence_nr = next_sequence_nr()
        self.next_nodes = next_nodes
        self.saved = saved

    @property
    def next_functions(self):
        # One (node, input_nr) pair per input, built on request as PyTorch
        # does. A scalar operation has one or two inputs, and one output, so
        # every edge leads to output 0.
        nodes = self.next_nodes
        if len(nodes) == 1:
            return ((nodes[0], 0),)
        return ((nodes[0], 0), (nodes[1], 0))

    def release_variables(self):
        self.saved = RELEASED


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

    def apply(self, g):
        a, b = self.saved
        return g * b, g * a


class PowBackward0(ScalarNode):
    """out = a ** n, for a number n"""
    __slots__ = ()

    def apply(self, g):
        a, n = self.saved
        return (g * n * math.pow(a, n - 1) if n != 0 else 0.0),


class PowBackward1(ScalarNode):
    """out = a ** b, for a Value b.

    Like PyTorch, d/db is 0 where a == 0 and b >= 0.
    """
    __slots__ = ()

    def apply(self, g):
        a, b, out = self.saved
        return (g * b * math.pow(a, b - 1) if b != 0 else 0.0,
                0.0 if a == 0 and b >= 0 else g * out * math.log(a))


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
        return g / a,


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
        return (g if out > 0 else 0.0),


class SigmoidBackward0(ScalarNode):
    """out = 1 / (1 + e ** -a)"""
    __slots__ = ()

    def apply(self, g):
        out, = self.saved
        return g * out * (1 - out),


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
        if x.requires_grad:
            out.requires_grad = True
            out.grad_fn = node_class((x.grad_fn or x._grad_node(),), saved)
        return out

    @staticmethod
    def _binary(data, node_class, x, y, saved=()):
        """The result of an operation on ``x`` and ``y``.

        Recorded if either requires grad.
        """
        out = Value(data)
        if x.requires_grad or y.requires_grad:
            out.requires_grad = True
            out.grad_fn = node_class((x.grad_fn or x._grad_node(),
                                      y.grad_fn or y._grad_node()), saved)
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

    def __pow__(self, exponent):
        a = self.data
        if isinstance(exponent, Value):
            b = exponent.data
            out = math.pow(a, b)
            return Value._binary(out, PowBackward1, self, exponent,
                                 (a, b, out))
        n = float(exponent)
        return Value._unary(math.pow(a, n), PowBackward0, self, (a, n))

    def __neg__(self):
        return Value._unary(-self.data, NegBackward0, self)

    def exp(self):
        out = math.exp(self.data)
        return Value._unary(out, ExpBackward0, self, (out,))

    def log(self):
        a = self.data
        return Value._unary(math.log(a), LogBackward0, self, (a,))

    def tanh(self):
        out = math.tanh(self.data)
        return Value._unary(out, TanhBackward0, self, (out,))

    def relu(self):
        out = self.data if self.data > 0 else 0.0
        return Value._unary(out, ReluBackward0, self, (out,))

    def sigmoid(self):
        a = self.data
        # Two forms of 1 / (1 + e^-a), so that e^x never overflows.
        out = (1 / (1 + math.exp(-a)) if a >= 0
               else math.exp(a) / (1 + math.exp(a)))
        return Value._unary(out, SigmoidBackward0, self, (out,))

    # Derived operations: built from the primitives above; no formula needed.

    def __sub__(self, other):
        return self + (-other)

    def __truediv__(self, other):
        return self * other ** -1

    def __radd__(self, other):  # other + self
        return self + other

    def __rmul__(self, other):  # other * self
        return self * other

    def __rsub__(self, other):  # other - self
        return (-self) + other

    def __rtruediv__(self, other):  # other / self
        return self ** -1 * other

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
        run_backward(self._grad_node(), grad, retain_graph=bool(retain_graph))

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
            return f"Value({self.data!r}, grad_fn=<{self.grad_fn.name()}>)"
        if self.requires_grad:
            return f"Value({self.data!r}, requires_grad=True)"
        return f"Value({self.data!r})"
