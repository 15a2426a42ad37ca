"""Element by element: arithmetic with broadcasting (``+ - * / **``), with
PyTorch's dtype promotion, and the functions of one tensor (``exp``,
``log``, ``tanh``, ``sigmoid``, ``relu``, ``reciprocal``), with the
backward nodes PyTorch records for the gradients of tanh, sigmoid and
relu.
"""

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function, ToCopy
#> ch13
from toygrad.autograd.function import ZeroTangent
#< ch13
from toygrad.dtypes import refuse_operand, result_type, true_divide_type
from toygrad.ops.common import (
    _is_bool, _number, _promote, _wrap, _zeros_like, broadcast_shape,
    computes_gradient, saved_before_checks)
#> ch13
from toygrad.ops.common import linear_in
#< ch13
from toygrad.ops.shapes import unbroadcast
from toygrad.tensor import Tensor


def binary(function, a, b, *alpha):
    """``function`` applied to ``a`` and ``b``, one of them a tensor.

    The result's dtype follows PyTorch's promotion rules (see
    ``toygrad.dtypes``), the forward computes in that dtype (``_promote``),
    and each input's gradient comes back in the input's own dtype.
    """
    if function is Sub:
        _check_bool_subtraction(a, b)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        dtype = (true_divide_type if function is Div else result_type)(a, b)
        a, b = _wrap(a, dtype), _wrap(b, dtype)
    if a.data.shape != b.data.shape:
        try:
            broadcast_shape(a.data.shape, b.data.shape)
        except RuntimeError:
            # Chapters 10 and 11: the autograd kernel saves first.
            saved_before_checks(*saved_by_binary(function, a, b),
                                inputs=(a, b))
            raise
    return function.apply(a, b, *alpha)


def _check_bool_subtraction(a, b):
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not "
            "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not "
            "supported. If you are trying to invert a mask, use the `~` or "
            "`logical_not()` operator instead.")


def pow_scalar_operands(x, exponent):
    if not _number(exponent):
        refuse_operand(exponent)
    dtype = result_type(x, exponent)
    if dtype == np.int64 and exponent < 0:
        raise RuntimeError(
            "Integers to negative integer powers are not allowed.")
    if dtype != x.dtype:
        x = Tensor(x.data.astype(dtype))
    return x, exponent


def rpow_operands(x, base):
    if not _number(base):
        refuse_operand(base)
    dtype = result_type(x, base)
    if dtype.kind != "f":
        raise NotImplementedError(
            "toygrad supports number ** tensor only for a floating result")
    if dtype != x.dtype:  # an integer tensor: not differentiable anyway
        x = Tensor(x.data.astype(dtype))
    return x, base


def saved_by_binary(function, a, b):
    """What the node of ``a op b`` saves, in PyTorch's order: mul saves
    each for the other's gradient, ``other`` first; div saves ``other``,
    then ``self`` for other's gradient; pow saves both."""
    a_grad, b_grad = computes_gradient(a), computes_gradient(b)
    any_grad = a_grad or b_grad
    if function is Mul:
        return (b if a_grad else None, a if b_grad else None)
    if function is Div:
        return b if any_grad else None, a if b_grad else None
    if function is Pow:
        return (b, a) if any_grad else ()
    return ()


# Arithmetic with broadcasting.

class Add(Function):
    """``a + alpha * b`` (``alpha`` is 1 unless given, as in ``add_``)."""
    node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, *alpha):
        ctx.shapes, ctx.alpha = (a.data.shape, b.data.shape), alpha
        x, y = _promote(a, b)
        return Tensor(_add_scaled(x, y, alpha[0]) if alpha else x + y)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad[:2]
        # maybe_multiply(grad, alpha): a product by a number (MulBackward1)
        grad_b = (MulScalar.apply(grad, ctx.alpha[0]) if ctx.alpha and need_b
                  else grad)
        return (unbroadcast(grad, a_shape) if need_a else None,
                unbroadcast(grad_b, b_shape) if need_b else None) + (
                    (None,) if ctx.alpha else ())

    #> ch13
    jvp = linear_in(0, 1)
    #< ch13


class Sub(Function):
    """``a - alpha * b`` (``alpha`` is 1 unless given, as in ``sub_``)."""
    node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, *alpha):
        ctx.shapes, ctx.alpha = (a.data.shape, b.data.shape), alpha
        x, y = _promote(a, b)
        return Tensor(_add_scaled(x, y, -alpha[0]) if alpha else x - y)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad[:2]
        grad_b = (MulScalar.apply(-grad, ctx.alpha[0]) if ctx.alpha
                  and need_b else -grad)
        return (unbroadcast(grad, a_shape) if need_a else None,
                unbroadcast(grad_b, b_shape) if need_b else None) + (
                    (None,) if ctx.alpha else ())

    #> ch13
    jvp = linear_in(0, 1)
    #< ch13


def _add_scaled(x, y, alpha):
    """``x + alpha * y`` rounded once, as PyTorch's add kernel computes it
    (a fused multiply-add): ``x.add_(y, alpha=2)`` can be finite where
    ``x + 2 * y`` overflows, and differs in the last bit otherwise.

    float32 goes through float64, where the product is exact; float64
    splits the product into its rounded value and its error (Dekker).
    """
    if x.dtype.kind != "f":
        return x + y * alpha
    alpha = np.asarray(alpha, x.dtype)  # a number in the tensor's dtype
    if x.dtype == np.float32:
        wide = x.astype(np.float64) + y.astype(np.float64) * np.float64(alpha)
        return wide.astype(np.float32)
    if x.dtype != np.float64:
        return x + y * alpha
    with np.errstate(all="ignore"):
        product = y * alpha
        split = 134217729.0  # 2 ** 27 + 1
        y_high = y * split
        y_high = y_high - (y_high - y)
        y_low = y - y_high
        a_high = alpha * split
        a_high = a_high - (a_high - alpha)
        a_low = alpha - a_high
        error = (((y_high * a_high - product) + y_high * a_low)
                 + y_low * a_high) + y_low * a_low
        total = product + x  # and what its rounding dropped (two-sum):
        back = total - product
        dropped = (product - (total - back)) + (x - back)
        result = total + (dropped + error)
    # Out of the splitting's range (huge or not finite numbers), or 0 (whose
    # sign the plain sum has right): the plain sum, PyTorch's value there.
    plain = ~np.isfinite(result) | ~np.isfinite(error) | (result == 0)
    if plain.any():
        result = np.where(plain, total, result)
    return result


def rsub(x, number):
    """``number - x``: PyTorch's ``rsub``, with the number as an argument."""
    _check_bool_subtraction(number, x)
    dtype = result_type(x, number)
    return Rsub.apply(x, np.asarray(number, dtype))


class Rsub(Function):
    """number - tensor, PyTorch's ``rsub``."""
    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, number):  # number: a 0-dim array
        x, y = _promote(a, Tensor(number))
        return Tensor(y - x)

    @staticmethod
    def backward(ctx, grad):
        return -grad, None

    #> ch13
    @staticmethod
    def jvp(ctx, ta, _):
        return -ta
    #< ch13


class Mul(Function):
    """``a * b``, element by element, with broadcasting."""
    node_name = "MulBackward0"
    saves_self = 1  # which saved tensor is the first input (see views)

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        # Save only what the needed gradients use: d(ab)/da = b, d(ab)/db = a.
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        ctx.shapes = a.data.shape, b.data.shape
        x, y = _promote(a, b)  # the arrays in the result's dtype
        return Tensor(x * y)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        a_shape, b_shape = ctx.shapes
        # Only the gradients the pass needs, b's first, in the order of
        # PyTorch's node (it shows in a create_graph pass's nodes).
        need_a, need_b = ctx.needs_input_grad
        grad_b = (unbroadcast(grad * a, b_shape) if need_b and a is not None
                  else None)
        grad_a = (unbroadcast(grad * b, a_shape) if need_a and b is not None
                  else None)
        return grad_a, grad_b

    #> ch13
    # The product rule, forward: (ab)' = a'b + ab'; a term whose tangent
    # is absent (a ZeroTangent) is dropped, as in PyTorch, not 0 * a.
    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        if type(tb) is ZeroTangent:
            return ta * b
        if type(ta) is ZeroTangent:
            return a * tb
        return ta * b + a * tb
    #< ch13


# PyTorch's formulas are C++, where ``grad * 2`` and ``x - 1`` take the
# number as a Scalar (``mul.Scalar``, ``sub.Scalar``): their nodes are
# MulBackward1 and SubBackward1, with one edge, where Python's ``x * 2``
# records MulBackward0 with a (None, 0) edge for the number.

def _scalar_dtype(a, number):
    """The dtype of ``a op number``: ``a``'s if floating (the number is
    rounded to it, as PyTorch's CPU kernels do), else the promoted one."""
    return a.dtype if a.dtype.kind == "f" else result_type(a, number)


class MulScalar(Function):
    """``a * number`` as PyTorch's formulas write it (``mul.Scalar``)."""
    node_name = "MulBackward1"

    @staticmethod
    def forward(ctx, a, number):
        ctx.number = number
        dtype = _scalar_dtype(a, number)
        return Tensor(a.data.astype(dtype, copy=False)
                      * np.asarray(number, dtype))

    @staticmethod
    def backward(ctx, grad):
        return MulScalar.apply(grad, ctx.number), None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class AddScalar(Function):
    """``a + number`` as PyTorch's formulas write it (``add.Scalar``)."""
    node_name = "AddBackward1"

    @staticmethod
    def forward(ctx, a, number):
        dtype = _scalar_dtype(a, number)
        return Tensor(a.data.astype(dtype, copy=False)
                      + np.asarray(number, dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class SubScalar(Function):
    """``a - number`` as PyTorch's formulas write it (``sub.Scalar``)."""
    node_name = "SubBackward1"

    @staticmethod
    def forward(ctx, a, number):
        dtype = _scalar_dtype(a, number)
        return Tensor(a.data.astype(dtype, copy=False)
                      - np.asarray(number, dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    #> ch13
    jvp = linear_in(0)
    #< ch13


class Div(Function):
    node_name = "DivBackward0"
    saves_self = 1  # which saved tensor is the first input (see views)

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        # PyTorch's order: other, then self (only for other's gradient).
        ctx.save_for_backward(b, a if need_b else None)
        ctx.shapes = a.data.shape, b.data.shape
        x, y = _promote(a, b, divide=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return Tensor(x / y)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        a_shape, b_shape = ctx.shapes
        # div_tensor_other_backward: -grad * ((a / b) / b), grouped so, not
        # a / (b * b), which overflows or underflows where it does not.
        # PyTorch's DivBackward0 computes other's gradient first (what a
        # pack hook sees under create_graph).
        grad_b = unbroadcast(-grad * (a / b / b), b_shape) if need_b else None
        return unbroadcast(grad / b, a_shape) if need_a else None, grad_b

    #> ch13
    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        (out,) = ctx.results
        if type(tb) is ZeroTangent:  # (see Mul.jvp)
            return ta / b
        if type(ta) is ZeroTangent:
            return -(tb * out) / b
        return (ta - out * tb) / b
    #< ch13


class Neg(Function):
    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(-a.data)

    @staticmethod
    def backward(ctx, grad):
        return -grad

    #> ch13
    jvp = linear_in(0)
    #< ch13


class PowScalar(Function):
    """tensor ** number"""
    node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        x = a.data
        with np.errstate(all="ignore"):
            if x.dtype.kind == "f" and exponent in _POW_BY_PRODUCTS:
                return Tensor(_POW_BY_PRODUCTS[exponent](x))
            return Tensor(x ** np.asarray(exponent, a.dtype))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return _pow_backward(grad, a, ctx.exponent), None

    #> ch13
    @staticmethod
    def jvp(ctx, ta, _):
        (a,) = ctx.primals[:1]
        return _pow_backward(ta, a, ctx.exponent)
    #< ch13


# PyTorch computes a float tensor to these numbers by products, divisions
# and square roots, not by pow (ATen's Pow.cpp and cpu/PowKernel.cpp), so
# its answers differ from pow's in rounding (1.1 ** 3), underflow (1e160
# ** -2 is 0, not 1e-320), the sign of zero ((-0.) ** 0.5 is -0.) and at
# -inf ((-inf) ** 0.5 is nan).
_POW_BY_PRODUCTS = {
    2: lambda x: x * x, 3: lambda x: x * x * x, -1: lambda x: 1 / x,
    -2: lambda x: 1 / (x * x), 0.5: np.sqrt, -0.5: lambda x: 1 / np.sqrt(x),
}


def c_pow(x, y):
    """``x ** y`` element by element with C's pow, as PyTorch's pow of two
    tensors (std::pow): NumPy takes a square root, a square or a reciprocal
    for an exponent of 0.5, 2 or -1 broadcast over the base, and sqrt(-inf)
    is nan where pow(-inf, 0.5) is inf. So no operand is broadcast."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    base = np.broadcast_to(x, shape).reshape(-1).copy()
    exponent = np.broadcast_to(y, shape).reshape(-1).copy()
    return np.power(base, exponent).reshape(shape)


def _pow_backward(grad, a, n):
    """PyTorch's pow_backward: zeros for ``x ** 0`` (not ``grad * 0``, nan
    for an infinite gradient), else ``grad * (n * a ** (n - 1))``, the
    number's product a MulBackward1."""
    if n == 0:
        return _zeros_like(a)
    return grad * MulScalar.apply(a ** (n - 1), n)


class Pow(Function):
    """tensor ** tensor"""
    node_name = "PowBackward1"

    @staticmethod
    def forward(ctx, a, b):
        x, y = _promote(a, b)
        with np.errstate(all="ignore"):
            out = c_pow(x, y)
        out = Tensor(out)
        ctx.save_for_backward(b, a, out)  # PyTorch's order
        return out

    @staticmethod
    def backward(ctx, grad):
        b, a, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # the exponent's gradient first, as PyTorch's PowBackward1
        grad_b = (unbroadcast(_pow_backward_exponent(grad, a, b, out), b.shape)
                  if need_b else None)
        return (unbroadcast(_pow_backward_self(grad, a, b), a.shape)
                if need_a else None, grad_b)

    #> ch13
    # PyTorch's jvp: the two backward formulas applied to the tangents.
    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        (out,) = ctx.results
        return (_pow_backward_self(ta, a, b)
                + _pow_backward_exponent(tb, a, b, out))
    #< ch13


def _pow_backward_self(grad, a, b):
    """pow_backward_self: where(b == 0, 0, grad * (b * a ** (b - 1))): 0
    where b == 0, whatever the gradient (inf, nan) or a (0)."""
    return zero_where(b.data == 0, grad * (b * a ** SubScalar.apply(b, 1)))


def _pow_backward_exponent(grad, a, b, out):
    """pow_backward_exponent: d/db a ** b = a ** b log a, taken as 0 where
    a == 0 and b >= 0, the log in the result's dtype: grad * where(a == 0
    and b >= 0, 0, out * log(a)), so that differentiated again (chapter
    12) the masked 0 * log(0) gives PyTorch's nan, not a number."""
    where_zero = (a.data == 0) & (b.data >= 0)
    if a.dtype != out.dtype:
        a = ToCopy.apply(a, out.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return grad * zero_where(where_zero, out * a.log())


def zero_where(condition, x):
    """``where(condition, zeros({}), x)`` as PyTorch's formulas write it:
    its node's first edge, for the constant 0, is (None, 0)."""
    return ZeroWhere.apply(Tensor(np.zeros((), x.dtype)), x, condition)


class ZeroWhere(Function):
    """``where(condition, zero, x)`` with a constant 0-dim ``zero``.

    Recorded as PyTorch's ``where``: the gradient of ``x`` is
    ``where(condition, 0, grad)``."""
    node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, zero, x, condition):
        ctx.condition = condition
        # WhereBackward0 saves the condition (a pack hook sees it)
        ctx.save_for_backward(Tensor(np.asarray(condition)))
        return Tensor(np.where(condition, zero.data, x.data))

    @staticmethod
    def backward(ctx, grad):
        need_x = ctx.needs_input_grad[1]
        (condition,) = ctx.saved_tensors
        return (None, zero_where(condition.data, grad) if need_x else None,
                None)

    #> ch13
    @staticmethod
    def jvp(ctx, _, tx, __):
        return zero_where(ctx.condition, tx)
    #< ch13


class RPow(Function):
    """number ** tensor"""
    node_name = "PowBackward2"

    @staticmethod
    def forward(ctx, a, base):
        with np.errstate(all="ignore"):
            out = Tensor(c_pow(np.asarray(base, dtype=a.dtype), a.data))
            ctx.log_base = float(np.log(np.float64(base)))
        ctx.base = base
        # PyTorch saves the exponent too (its formula's mask at base 0).
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return _rpow_backward(grad, a, out, ctx), None

    #> ch13
    @staticmethod
    def jvp(ctx, ta, _):
        (out,) = ctx.results
        return _rpow_backward(ta, ctx.primals[0], out, ctx)
    #< ch13


def _rpow_backward(grad, a, out, ctx):
    """pow_backward_exponent for a number base: ``grad * (out * log
    base)``, the product by the number a MulBackward1; at base 0, where
    the exponent is >= 0, 0 (not 0 * log 0 = nan)."""
    with np.errstate(invalid="ignore"):
        scaled = MulScalar.apply(out, ctx.log_base)
    if ctx.base == 0:
        scaled = zero_where(a.data >= 0, scaled)
    return grad * scaled


class Reciprocal(Function):
    node_name = "ReciprocalBackward0"

    @staticmethod
    def forward(ctx, a):
        with np.errstate(divide="ignore"):
            out = Tensor(1 / a.data)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        # -grad * (out * out), grouped so as PyTorch's formula (the
        # product of the gradient by out can overflow where this does not)
        return -grad * (out * out)

    #> ch13
    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return -ta * out * out
    #< ch13


# Elementwise functions.

class Exp(Function):
    """``a.exp()``: e to the power of each element."""
    node_name = "ExpBackward0"

    @staticmethod
    def forward(ctx, a):
        with np.errstate(over="ignore"):
            out = Tensor(np.exp(a.data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out

    #> ch13
    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ta * out
    #< ch13


class Log(Function):
    node_name = "LogBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return Tensor(np.log(a.data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a

    #> ch13
    @staticmethod
    def jvp(ctx, ta):
        (a,) = ctx.primals
        return ta / a
    #< ch13


class Tanh(Function):
    node_name = "TanhBackward0"

    @staticmethod
    def forward(ctx, a):
        out = Tensor(np.tanh(a.data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return TanhBackward.apply(grad, out)

    #> ch13
    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ta * (1 - out * out)
    #< ch13


class TanhBackward(Function):
    """``grad * (1 - out ** 2)``: tanh's gradient, an operation of its own.

    As PyTorch's ``tanh_backward``, so that a recorded backward pass
    (``create_graph``) holds the node PyTorch's holds (chapter 12)."""
    node_name = "TanhBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, out):
        ctx.save_for_backward(grad, out)
        return Tensor(grad.data * _one_minus_square(out.data))

    @staticmethod
    def backward(ctx, grad_grad):
        # derivatives.yaml: tanh_backward(grad, output), and for the
        # output grad * (-2 * output * grad_output).
        grad, out = ctx.saved_tensors
        need_grad, need_out = ctx.needs_input_grad
        return (TanhBackward.apply(grad_grad, out) if need_grad else None,
                grad_grad * (MulScalar.apply(out, -2) * grad) if need_out
                else None)

    #> ch13
    # (g (1 - o^2))' = g' (1 - o^2) - 2 g o o'
    @staticmethod
    def jvp(ctx, t_grad, t_out):
        grad, out = ctx.primals
        return t_grad * (1 - out * out) - 2 * grad * out * t_out
    #< ch13


def _one_minus_square(o):
    """``1 - o * o`` rounded once, as PyTorch's tanh_backward kernel
    computes it (a fused multiply-add): float32 through float64, where
    it is exact; float64 with the exact square, split in two (Dekker)."""
    if o.dtype == np.float32:
        wide = o.astype(np.float64)
        return (1 - wide * wide).astype(np.float32)
    if o.dtype != np.float64:
        return 1 - o * o
    with np.errstate(all="ignore"):
        square = o * o
        split = 134217729.0 * o  # 2 ** 27 + 1
        high = split - (split - o)
        low = o - high
        error = ((high * high - square) + 2 * high * low) + low * low
        rest = 1 - square  # and what rounding it dropped (two-sum):
        dropped = (1 - (rest - (rest - 1))) + (-square - (rest - 1))
        result = rest + (dropped - error)
    # Where the splitting is out of range (o huge, or not finite), or the
    # result 0, the plain formula: PyTorch's value there is the same.
    plain = ~np.isfinite(error) | (result == 0)
    if plain.any():
        result = np.where(plain, 1 - square, result)
    return result


class Sigmoid(Function):
    node_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, a):
        x = a.data
        # Two forms of 1 / (1 + e^-x), so that e^x never overflows.
        e = np.exp(-np.abs(x))
        out = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
        out = Tensor(out.astype(x.dtype))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return SigmoidBackward.apply(grad, out)

    #> ch13
    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ta * out * (1 - out)
    #< ch13


class SigmoidBackward(Function):
    """``grad * out * (1 - out)``: sigmoid's gradient, as an operation.

    An operation of its own, as PyTorch's ``sigmoid_backward`` (see
    ``TanhBackward``)."""
    node_name = "SigmoidBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, out):
        ctx.save_for_backward(grad, out)
        # As PyTorch's kernel groups it: (grad * (1 - out)) * out.
        return Tensor(grad.data * (1 - out.data) * out.data)

    @staticmethod
    def backward(ctx, grad_grad):
        # derivatives.yaml: sigmoid_backward(grad, output), and for the
        # output grad * grad_output * (-2 * output + 1).
        grad, out = ctx.saved_tensors
        need_grad, need_out = ctx.needs_input_grad
        return (SigmoidBackward.apply(grad_grad, out) if need_grad else None,
                grad_grad * grad * AddScalar.apply(MulScalar.apply(out, -2), 1)
                if need_out else None)

    #> ch13
    # (g o (1 - o))' = g' o (1 - o) + g (1 - 2 o) o'
    @staticmethod
    def jvp(ctx, t_grad, t_out):
        grad, out = ctx.primals
        return t_grad * out * (1 - out) + grad * (1 - 2 * out) * t_out
    #< ch13


def relu(x):
    if x.data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return Relu.apply(x)


_ZERO = {np.dtype(t): np.zeros((), t) for t in (np.float32, np.float64)}


class Relu(Function):
    node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, a):
        # max(0, x) with 0 first: NumPy then keeps x where x == 0, so
        # relu(-0.0) is -0.0 and relu(nan) nan, as in PyTorch.
        out = Tensor(np.maximum(_ZERO.get(a.data.dtype, 0), a.data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if not grad_mode.state.enabled:  # not recorded: the numbers alone
            return Tensor(_threshold_backward(grad.data, out.data))
        return ThresholdBackward.apply(grad, out)

    #> ch13
    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ThresholdBackward.apply(ta, out)
    #< ch13


def _threshold_backward(grad, out):
    """``where(out <= 0, 0, grad)`` for relu's output ``out``.

    relu's output is >= 0 or nan, so "not out <= 0" is "out != 0". Done
    on the numbers' bits, read as integers: multiplied by 1 where the
    output passes, each gradient is kept bit for bit; multiplied by 0, it
    becomes the bits of +0.0. No float arithmetic, so a blocked infinite
    gradient gives 0, as in PyTorch, not ``inf * 0 = nan``; and it is as
    fast as a float product, faster than ``np.where``.
    """
    passes = np.not_equal(out, 0)
    bits = _SAME_SIZE_INT.get(grad.dtype.itemsize)
    if bits is None or grad.dtype.kind != "f":
        return np.where(passes, grad, np.zeros((), grad.dtype))
    return (grad.view(bits) * passes).view(grad.dtype)


_SAME_SIZE_INT = {4: np.int32, 8: np.int64}  # float32, float64


class ThresholdBackward(Function):
    """The gradient of relu: 0 where the output is <= 0, else ``grad``.

    An operation of its own, as in PyTorch (``threshold_backward``, which
    is ``where(out <= 0, 0, grad)``: a nan output passes ``grad`` on), so
    that it too can be differentiated: it is linear in ``grad``.
    """
    node_name = "ThresholdBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, out):
        ctx.save_for_backward(out)
        return Tensor(_threshold_backward(grad.data, out.data))

    @staticmethod
    def backward(ctx, grad_grad):
        # derivatives.yaml: threshold_backward(grad, self, threshold), and
        # zeros_like(grad) for self (a gradient of zeros, not none).
        # Only what the pass needs, as PyTorch's node: under create_graph,
        # grad's gradient records a node that saves ``out``.
        (out,) = ctx.saved_tensors
        need_grad, need_out = ctx.needs_input_grad
        return (ThresholdBackward.apply(grad_grad, out) if need_grad else None,
                _zeros_like(grad_grad) if need_out else None)

    #> ch13
    jvp = linear_in(0)
    #< ch13
