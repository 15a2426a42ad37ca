"""The built-in operations on tensors, each a ``Function``.

Each forward computes with NumPy on ``.data``; each backward is written with
toygrad's own operations, so that with ``create_graph=True`` the backward pass
is recorded too and gradients can be differentiated again. ``node_name`` is
PyTorch's name for the node of the same operation and overload.

The functions at the top check arguments as PyTorch does (dims, dtypes,
shapes) before an operation runs, so that a mistake gets PyTorch's error and
never a silently different answer.
"""

import functools

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import (
    Function, SavedTensor, WrappedNumber, ZeroTangent, _refuse_inference,
    dual)
from toygrad.autograd.graph import current_saved_tensors_hooks
from toygrad.dtypes import (
    DEFAULT_FLOAT, c_name, canonical_dim, canonical_dims, check_dtype,
    refuse_operand, result_type, tensor_type, torch_name, true_divide_type,
    type_name)
from toygrad.tensor import MaxResult, Tensor

__all__ = ["canonical_dim", "canonical_dims", "check_dtype"]  # re-exported


# Task 5.1: broadcasting's gradient is a sum
def unbroadcast(grad, shape):
    """Sum ``grad`` down to ``shape``: undo the broadcasting of a forward.

    When an input of shape ``shape`` was broadcast to a larger result, each
    of its elements was used several times, so its gradient is the sum of the
    gradients of all its copies: over the leading dimensions the input did
    not have, and over the dimensions where it had size 1. Recorded as
    PyTorch's ``sum_to`` records it: one sum (keeping the dims), then a view
    without the leading ones.
    """
    have = grad.data.shape
    if have == shape:
        return grad
    if not shape:
        return SumAll.apply(grad)
    lead = len(have) - len(shape)
    dims = tuple(range(lead)) + tuple(
        i for i in range(lead, len(have))
        if shape[i - lead] == 1 and have[i] != 1)
    if grad_mode.state.enabled or dual.level >= 0:
        if dims:
            grad = Sum.apply(grad, dims, True)
        return View.apply(grad, shape) if lead else grad
    # Not recorded: the sum in one step, then (as PyTorch's) a view of it
    # without the leading dims, which a gradient autograd.grad returns shows
    # (its _base).
    summed = Tensor(_sum_down(grad.data, dims))
    if not lead:
        return summed
    ctx = View._backward_cls()
    ctx.shape, ctx.new_shape = summed.shape, shape
    return views.untracked(View, summed, View.take(ctx, summed.data), ctx)


# Checking and preparing arguments, as PyTorch does before it computes.

def _constant(array):
    return Tensor(array)


def _number(value):
    return isinstance(value, (bool, int, float)) and not isinstance(
        value, Tensor)


def _wrap(value, dtype):
    """A Python number as a constant tensor of the operation's dtype.

    PyTorch treats ``x + 2`` as an operation on two tensors, the second a
    "wrapped number" that needs no gradient: its edge is ``(None, 0)``.
    """
    if isinstance(value, Tensor):
        return value
    if not _number(value):
        raise TypeError(f"unsupported operand type for a toygrad tensor: "
                        f"{type(value).__name__}")
    return WrappedNumber(np.asarray(value, dtype=dtype))


def broadcast_shape(a, b):
    """The shape of ``a op b``, or PyTorch's error if they do not broadcast."""
    if a == b:
        return a
    shape = []
    for i in range(1, max(len(a), len(b)) + 1):
        m = a[-i] if i <= len(a) else 1
        n = b[-i] if i <= len(b) else 1
        if m != n and m != 1 and n != 1:
            raise RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b "
                f"({n}) at non-singleton dimension {max(len(a), len(b)) - i}")
        shape.append(n if m == 1 else m)
    return tuple(reversed(shape))


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


def linear_in(*positions):
    """The ``jvp`` of an operation linear in the inputs at ``positions``:
    the operation itself, applied to their tangents (chapter 13)."""
    def jvp(ctx, *tangents):
        args = list(ctx.primals)
        for position in positions:
            args[position] = tangents[position]
        return ctx._forward_cls.apply(*args)
    return staticmethod(jvp)


def alpha(value, x):
    """``add_``'s ``alpha``, as arguments: none when it is 1."""
    if value == 1:
        return ()
    if x.data.dtype.kind != "f" and isinstance(value, float):
        raise RuntimeError("For integral input tensors, argument alpha must "
                           "not be a floating point number.")
    return (value,)


def _is_bool(value):
    return isinstance(value, bool) or (isinstance(value, Tensor)
                                       and value.dtype == np.bool_)


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


def _promote(a, b, divide=False):
    """The arrays of ``a`` and ``b`` in the dtype of ``a op b``."""
    x, y = a.data, b.data
    if divide:
        dtype = true_divide_type(a, b)
    elif x.dtype is y.dtype or x.dtype == y.dtype:
        return x, y
    else:
        dtype = result_type(a, b)
    return x.astype(dtype, copy=False), y.astype(dtype, copy=False)


def floating(x):
    """``x`` itself; an integer tensor goes in as float32, as in PyTorch."""
    if x.data.dtype.kind == "f":
        return x
    return Tensor(x.data.astype(DEFAULT_FLOAT))


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


def saved_before_checks(*saved, inputs):
    """Save ``saved`` (None for one not saved) as the node of an operation
    whose checks are about to fail would, while recording: call it there.

    Chapters 10 and 11. PyTorch's autograd kernel (VariableType) makes the
    node and saves the tensors its formulas need before it calls the kernel
    that checks shapes, dtypes and overlaps; so when a check fails, a saved
    inference tensor is the error, and a pack hook has already seen each
    tensor saved, in the kernel's order. The node then goes away unused.
    Which tensors are saved, and in which order, is derivatives.yaml's
    (probed in tests/test_pack_before_checks.py).

    ``inputs`` are the operation's inputs: when every tensor among them is
    an inference tensor, none has an autograd dispatch key, so there is no
    autograd kernel, no node and nothing saved: the kernel's check speaks.
    """
    if not grad_mode.state.enabled or all(
            x._is_inference for x in inputs if isinstance(x, Tensor)):
        return
    hooks = current_saved_tensors_hooks()
    for x in saved:
        if x is None:
            continue
        if hooks and type(x) is not WrappedNumber:
            SavedTensor(x, None, hooks)  # refuses an inference tensor too
        elif x._is_inference:
            _refuse_inference(x)


def computes_gradient(x):
    """Whether a node computes a gradient for its input ``x``: PyTorch's
    ``should_compute_output``, an edge that leads to a node. A view made
    under no_grad of a tensor that requires grad requires grad too, but
    its edge leads nowhere (as ``function._connect`` finds it). A node
    guards a save with it where the tensor serves only some inputs'
    gradients (PyTorch's generated code): a product's, not max's. Only
    while recording: with grad mode off there is no node, and a view's
    node is not asked for (that could raise)."""
    return grad_mode.state.enabled and isinstance(x, Tensor) and (
        x.grad_fn is not None or x._requires_grad)


def saved_by_each_other(a, b, inputs=None):
    """``saved_before_checks`` for a product: ``a`` is saved for ``b``'s
    gradient, then ``b`` for ``a``'s (give them in the kernel's order);
    ``inputs``, the operation's, are ``(a, b)`` unless given."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        saved_before_checks(a if computes_gradient(b) else None,
                            b if computes_gradient(a) else None,
                            inputs=(a, b) if inputs is None else inputs)


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


def written_below_autograd(out, writes, *inputs):
    """``out``, counting the in-place writes torch's kernel makes into it
    when every input is an inference tensor, outside inference mode.

    Chapter 10. An inference tensor has no autograd dispatch key, so its
    operation skips the autograd kernel and the guard it sets
    (``AutoDispatchBelowADInplaceOrView``). The fresh result is a normal
    tensor, and outside inference mode ``ADInplaceOrView`` is in every
    thread's included keys (``c10::default_included_set``, which
    ``InferenceMode`` takes it out of), so each ``fill_``, ``copy_``,
    ``div_``, ``addmv_``, ``squeeze_`` the kernel makes on its result goes
    through ``ADInplaceOrView``, which bumps the version. Below the autograd
    kernel of a normal tensor the same calls count for nothing: 0 (see
    c10/core/DispatchKeySet.h and c10/core/InferenceMode.h).
    ``writes`` is how many such calls the kernel makes on its result (as
    torch.profiler lists them): clone's ``copy_``, sum's ``fill_``
    (``zero_`` when empty), mean's two (sum's ``fill_``, then ``div_``).
    """
    if grad_mode.state.inference:  # the results are inference tensors
        return out
    for x in inputs:
        if not x._is_inference:
            return out
    counter = out._shared_version_counter()
    counter[0] += writes
    return out


def written_by_a_formula(out, writes):
    """``out``, a new tensor made by a gradient formula, counting the
    in-place writes PyTorch's formula makes into it.

    A formula of FunctionsManual.cpp calls ATen above the autograd kernel,
    so each ``masked_fill_``, ``scatter_`` or ``copy_`` it makes on a fresh
    tensor goes through ``ADInplaceOrView`` and bumps its version, which a
    gradient returned by ``autograd.grad`` shows (max()'s is at version 1).
    In inference mode nothing counts (see written_below_autograd)."""
    if not grad_mode.state.inference:
        out._shared_version_counter()[0] += writes
    return out


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

    jvp = linear_in(0, 1)


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

    jvp = linear_in(0, 1)


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

    @staticmethod
    def jvp(ctx, ta, _):
        return -ta


class Mul(Function):
    node_name = "MulBackward0"
    saves_self = 1  # which saved tensor is the first input (see views)

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        # Save only what the needed gradients use: d(ab)/da = b, d(ab)/db = a.
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        ctx.shapes = a.data.shape, b.data.shape
        x, y = _promote(a, b)
        return Tensor(x * y)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        a_shape, b_shape = ctx.shapes
        # Only the gradients the pass needs (narrowed by autograd.grad, as
        # PyTorch's task_should_compute_output): under create_graph each
        # product records a node that saves (packs) its operands. b's first:
        # PyTorch's generated nodes compute their inputs' gradients in the
        # alphabetical order of their names (other, then self).
        need_a, need_b = ctx.needs_input_grad
        grad_b = (unbroadcast(grad * a, b_shape) if need_b and a is not None
                  else None)
        return (unbroadcast(grad * b, a_shape) if need_a and b is not None
                else None, grad_b)

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

    jvp = linear_in(0)


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

    jvp = linear_in(0)


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

    jvp = linear_in(0)


class ToCopy(Function):
    """``a.to(dtype)``: the numbers in another dtype (PyTorch's
    ``_to_copy``). The engine casts a gradient to its input's dtype with
    it, recorded under ``create_graph`` as PyTorch's engine records it."""
    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.dtype_in = a.dtype
        return Tensor(a.data.astype(dtype))

    @staticmethod
    def backward(ctx, grad):
        return ToCopy.apply(grad, ctx.dtype_in), None

    @staticmethod
    def jvp(ctx, ta, _):
        return ToCopy.apply(ta, ctx.primals[1])


def _zeros_like(x):
    """PyTorch's ``zeros_like`` in a formula: zeros, never a product by 0
    (which would turn an infinite or nan gradient into nan)."""
    return Tensor(np.zeros_like(x.data))


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

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        (out,) = ctx.results
        if type(tb) is ZeroTangent:  # (see Mul.jvp)
            return ta / b
        if type(ta) is ZeroTangent:
            return -(tb * out) / b
        return (ta - out * tb) / b


class Neg(Function):
    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(-a.data)

    @staticmethod
    def backward(ctx, grad):
        return -grad

    jvp = linear_in(0)


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

    @staticmethod
    def jvp(ctx, ta, _):
        (a,) = ctx.primals[:1]
        return _pow_backward(ta, a, ctx.exponent)


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

    # PyTorch's jvp: the two backward formulas applied to the tangents.
    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        (out,) = ctx.results
        return (_pow_backward_self(ta, a, b)
                + _pow_backward_exponent(tb, a, b, out))


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
    """``where(condition, zero, x)`` with a constant 0-dim ``zero``,
    recorded as PyTorch's ``where``: the gradient of ``x`` is
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

    @staticmethod
    def jvp(ctx, _, tx, __):
        return zero_where(ctx.condition, tx)


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

    @staticmethod
    def jvp(ctx, ta, _):
        (out,) = ctx.results
        return _rpow_backward(ta, ctx.primals[0], out, ctx)


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

    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return -ta * out * out


# Elementwise functions.

class Exp(Function):
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

    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ta * out


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

    @staticmethod
    def jvp(ctx, ta):
        (a,) = ctx.primals
        return ta / a


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

    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ta * (1 - out * out)


class TanhBackward(Function):
    """``grad * (1 - out ** 2)``: tanh's gradient, an operation of its own
    as PyTorch's ``tanh_backward``, so that a recorded backward pass
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

    # (g (1 - o^2))' = g' (1 - o^2) - 2 g o o'
    @staticmethod
    def jvp(ctx, t_grad, t_out):
        grad, out = ctx.primals
        return t_grad * (1 - out * out) - 2 * grad * out * t_out


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

    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ta * out * (1 - out)


class SigmoidBackward(Function):
    """``grad * out * (1 - out)``: sigmoid's gradient, an operation of its
    own as PyTorch's ``sigmoid_backward`` (see ``TanhBackward``)."""
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

    # (g o (1 - o))' = g' o (1 - o) + g (1 - 2 o) o'
    @staticmethod
    def jvp(ctx, t_grad, t_out):
        grad, out = ctx.primals
        return t_grad * out * (1 - out) + grad * (1 - 2 * out) * t_out


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

    @staticmethod
    def jvp(ctx, ta):
        (out,) = ctx.results
        return ThresholdBackward.apply(ta, out)


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

    jvp = linear_in(0)


# Reductions.

def reduce(all_function, dim_function, x, dim, keepdim):
    """``x.sum(dim, keepdim)`` or ``x.mean(...)``: PyTorch's two overloads.

    Without ``dim`` (and without ``keepdim``) it is the overload that
    reduces everything (``SumBackward0``); else the one with dims
    (``SumBackward1``), where an empty tuple means every dim too.
    """
    if all_function is MeanAll and x.data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either "
            "a floating point or complex dtype. Got: " + torch_name(x.dtype))
    if dim is None and not keepdim:
        out = all_function.apply(x)
    else:
        dims = canonical_dims(dim, x.ndim)
        # An empty tuple reduces every dim, as PyTorch's ``dim=[]``.
        out = dim_function.apply(x, dims, keepdim)
    if x._is_inference:  # sum_out's fill_ (or zero_), mean's div_ after it
        written_below_autograd(out, 1 if all_function is SumAll else 2, x)
    return out


def _sum(array, dims, keepdim):
    """``array`` summed over ``dims`` (all of them: None or ``()``).

    Integers and bools are summed in int64, as in PyTorch.
    """
    dtype = array.dtype if array.dtype.kind == "f" else np.int64
    return array.sum(axis=dims if array.ndim and dims != () else None,
                     keepdims=keepdim, dtype=dtype)


def _sum_down(array, dims):
    """``_sum(array, dims, True)``, for a gradient summed down to a
    broadcast input's shape. A batch of rows summed into one (a bias's
    gradient) is a product with a row of ones: NumPy's BLAS does it several
    times faster than its reduction. The same sum, rounded in another
    order (PyTorch's own kernel sums in yet another); a column of -0.0 sums
    to +0.0 either way, as in PyTorch."""
    if (dims == (0,) and array.ndim == 2 and array.dtype.kind == "f"
            and array.flags.c_contiguous):
        return _ones_column(array.shape[0], array.dtype).T @ array
    return _sum(array, dims, True)


def _mean(array, dims, keepdim):
    """``array``'s mean over ``dims``, as PyTorch computes it on the CPU:
    the sum, divided by the number of elements summed (``mean_out`` in
    aten/src/ATen/native/ReduceOps.cpp). The mean of nothing is 0 / 0, a
    nan with no warning (NumPy's ``mean`` warns "Mean of empty slice")."""
    total = _sum(array, dims, keepdim)
    count = int(np.prod([array.shape[d] for d in dims] if dims and array.ndim
                        else array.shape))
    with np.errstate(invalid="ignore"):
        return np.asarray(np.divide(total, count, dtype=array.dtype))


def _expand_back(grad, shape, dims, keepdim):
    """Spread the gradient of a reduction over ``dims`` back to ``shape``.

    PyTorch's ``sum_backward``: the reduced dims put back one
    ``unsqueeze`` at a time (in increasing order), then one ``expand``;
    with no dims (every dim reduced), the expand alone.
    """
    if not keepdim and shape and dims:
        if grad_mode.state.enabled:  # recorded: PyTorch's nodes
            for d in sorted(dims):
                grad = Unsqueeze.apply(grad, d)
        else:  # the same numbers, in one view
            kept = list(shape)
            for d in dims:
                kept[d] = 1
            grad = grad.reshape(tuple(kept))
    return grad.expand(shape)


class DivScalar(Function):
    """``grad / count`` inside a gradient formula: PyTorch's ``div.Scalar``
    (``DivBackward1``), the division of ``mean_backward``."""
    node_name = "DivBackward1"

    @staticmethod
    def forward(ctx, a, number):
        ctx.number = number
        return Tensor(np.divide(a.data, number, dtype=a.dtype))

    @staticmethod
    def backward(ctx, grad):
        return DivScalar.apply(grad, ctx.number), None

    jvp = linear_in(0)


class SumAll(Function):
    node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return Tensor(_sum(a.data, None, False))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)

    jvp = linear_in(0)


class Sum(Function):
    """``a.sum(dims, keepdim)``; ``dims == ()`` reduces every dim."""
    node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return Tensor(_sum(a.data, dims, keepdim))

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim), None, None

    jvp = linear_in(0)


class MeanAll(Function):
    node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return Tensor(_mean(a.data, None, False))

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's mean_backward: the gradient spread, then divided.
        return DivScalar.apply(grad.expand(ctx.shape),
                               int(np.prod(ctx.shape)))

    jvp = linear_in(0)


class Mean(Function):
    """``a.mean(dims, keepdim)``; ``dims == ()`` reduces every dim."""
    node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return Tensor(_mean(a.data, dims, keepdim))

    @staticmethod
    def backward(ctx, grad):
        shape, dims = ctx.shape, ctx.dims
        count = int(np.prod([shape[d] for d in dims] if dims and shape
                            else shape))
        return (DivScalar.apply(_expand_back(grad, shape, dims, ctx.keepdim),
                                count), None, None)

    jvp = linear_in(0)


def reduce_max(x, dim=None, keepdim=False):
    """``x.max()``, or ``x.max(dim)``: (values, indices) along ``dim``."""
    if dim is None:
        if x.data.size == 0:
            # Chapter 11: MaxBackward1 saves self before the kernel checks.
            saved_before_checks(x if x.requires_grad else None, inputs=(x,))
            raise RuntimeError(
                "max(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' "
                "argument.")
        out = MaxAll.apply(x)
        if x._is_inference:  # max's kernel: empty, then fill_
            written_below_autograd(out, 1, x)
        return out
    dim = canonical_dim(dim, x.ndim)
    if x.ndim and x.shape[dim] == 0:
        raise IndexError(
            f"max(): Expected reduction dim {dim} to have non-zero size.")
    values, indices = MaxDim.apply(x, dim, keepdim)
    if x._is_inference:
        # max.dim's kernel: a 0-dim input's values and indices by fill_ and
        # copy_ (one each); else without keepdim, each output is unsqueezed
        # in place (unsqueeze_) and squeezed back (squeeze_): two each.
        writes = 1 if not x.ndim else 0 if keepdim else 2
        written_below_autograd(values, writes, x)
        written_below_autograd(indices, writes, x)
    return MaxResult(values, indices)


class MaxAll(Function):
    node_name = "MaxBackward1"

    @staticmethod
    def forward(ctx, a):
        out = a.data.max()
        if out == 0 and a.data.dtype.kind == "f" and _holds_both_zeros(a.data):
            raise NotImplementedError(_MAX_OF_SIGNED_ZEROS)
        out = Tensor(out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return _evenly_distribute(grad, a.data, out.data)

    @staticmethod
    def jvp(ctx, ta):
        # The mean of the tangents where the max is, as PyTorch's
        # evenly_read_jvp: sum(mask * (t / count)), its mask input == max
        # (none where the max is nan: then 0 * (t / 0), a nan).
        (a,), (out,) = ctx.primals, ctx.results
        where = a.data == out.data
        with np.errstate(divide="ignore", invalid="ignore"):
            share = ta / Tensor(np.asarray(where.sum()))
            return (_constant(where.astype(ta.dtype)) * share).sum()


_MAX_OF_SIGNED_ZEROS = (
    "toygrad does not support max() of a tensor whose largest value is zero "
    "held as both 0.0 and -0.0: which of the two PyTorch returns follows the "
    "vector lanes of its CPU kernel, so it depends on the machine (x + 0.0 "
    "turns every -0.0 into 0.0)")


def _holds_both_zeros(array):
    zeros = array == 0
    return bool(np.signbit(array[zeros]).any() and
                not np.signbit(array[zeros]).all())


def _max_mask(array, value):
    """Where ``array`` holds its max ``value``: its NaNs if that is NaN."""
    if np.isnan(value):
        return np.isnan(array)
    return array == value


def _evenly_distribute(grad, array, value):
    """The gradient of ``max()``: ``grad`` shared evenly among the elements
    equal to the max, zeros (written, not multiplied) elsewhere.

    PyTorch's ``evenly_distribute_backward`` on the CPU:
    ``zeros.masked_fill_(mask, grad / mask.sum())``, so an inf or NaN
    gradient reaches only the max's elements.
    """
    mask = _max_mask(array, value)
    count = np.asarray(mask.sum())  # int64, as PyTorch's mask.sum()
    zeros = Tensor(np.zeros(array.shape, grad.dtype))
    if not grad_mode.state.enabled:  # not recorded: the numbers alone
        zeros.data[mask] = grad.data / count.astype(grad.dtype)
        return written_by_a_formula(zeros, 1)  # masked_fill_
    return written_by_a_formula(
        MaskedFill.apply(zeros, mask, grad / Tensor(count)), 1)


class MaskedFill(Function):
    """``a.masked_fill(mask, value)`` for a 0-dim tensor ``value``, inside
    a gradient formula (PyTorch's ``MaskedFillBackward1``)."""
    node_name = "MaskedFillBackward1"

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.save_for_backward(Tensor(mask))
        out = a.data.copy()
        out[mask] = value.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        need_a, _, need_value = ctx.needs_input_grad
        zeros = Tensor(np.zeros((), grad.dtype))
        # PyTorch's masked_fill_backward: grad.masked_select(mask).sum().
        return (MaskedFill.apply(grad, mask.data, zeros) if need_a else None,
                None,
                SumAll.apply(MaskedSelect.apply(grad, mask.data))
                if need_value else None)

    jvp = linear_in(0, 2)


class MaskedSelect(Function):
    """``a.masked_select(mask)`` (the elements where ``mask`` is true, in
    a 1-D tensor), inside a gradient formula."""
    node_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, a, mask):
        ctx.save_for_backward(Tensor(mask), a)
        return Tensor(a.data[mask])

    @staticmethod
    def backward(ctx, grad):
        mask, a = ctx.saved_tensors
        zeros = Tensor(np.zeros(a.shape, grad.dtype))
        return MaskedScatter.apply(zeros, mask.data, grad), None

    jvp = linear_in(0)


class MaskedScatter(Function):
    """``a.masked_scatter(mask, source)``: ``source``'s elements, in order,
    where ``mask`` is true (here exactly as many as ``source`` has)."""
    node_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, a, mask, source):
        ctx.save_for_backward(Tensor(mask))
        out = a.data.copy()
        out[mask] = source.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        need_a, _, need_source = ctx.needs_input_grad
        if need_a:
            raise NotImplementedError(
                "toygrad's masked_scatter is differentiable in its source "
                "only")
        return (None, None,
                MaskedSelect.apply(grad, mask.data) if need_source else None)

    jvp = linear_in(0, 2)


class MaxDim(Function):
    node_name = "MaxBackward0"

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        data = a.data if a.ndim else a.data.reshape(1)
        indices = np.expand_dims(data.argmax(axis=dim), dim)
        values = np.take_along_axis(data, indices, axis=dim)
        if not keepdim or not a.ndim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        values, indices = Tensor(values), Tensor(indices)
        ctx.mark_non_differentiable(indices)
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return _value_selecting_backward(grad_values, indices.data, ctx.shape,
                                         ctx.dim, ctx.keepdim), None, None

    @staticmethod
    def jvp(ctx, ta, _dim, _keepdim):
        values, indices = ctx.results
        data = ta.data if ta.ndim else ta.data.reshape(1)
        index = indices.data if ctx.keepdim and ta.ndim else np.expand_dims(
            indices.data, ctx.dim)
        picked = np.take_along_axis(data, index, axis=ctx.dim)
        return Tensor(picked.reshape(values.shape)), None


def _value_selecting_backward(grad, index, shape, dim, keepdim):
    """The gradient of ``max(dim)``: zeros, with ``grad`` written where
    ``index`` points along ``dim``.

    PyTorch's ``value_selecting_reduction_backward``: the reduced dim put
    back (``unsqueeze``), then ``zeros.scatter_(dim, index, grad)``.
    """
    if not keepdim and shape:
        grad = grad.unsqueeze(dim) if grad_mode.state.enabled else Tensor(
            np.expand_dims(grad.data, dim))
        index = np.expand_dims(index, dim)
    zeros = Tensor(np.zeros(shape, grad.dtype))
    # Two writes in PyTorch's formula, as its result's version shows.
    return written_by_a_formula(Scatter.apply(zeros, dim, index, grad), 2)


def _along(index, dim):
    """NumPy's index for the positions ``index`` names along ``dim`` (as
    ``scatter``/``gather`` read it): ``index`` there, ranges elsewhere."""
    ndim = index.ndim
    return tuple(index if d == dim else np.arange(n).reshape(
        (n,) + (1,) * (ndim - d - 1)) for d, n in enumerate(index.shape))


class Scatter(Function):
    """``a.scatter(dim, index, src)``: ``a`` with ``src`` written where
    ``index`` points along ``dim`` (PyTorch's ``ScatterBackward0``)."""
    node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim = dim
        ctx.save_for_backward(Tensor(index))
        out = a.data.copy()
        if out.ndim:
            out[_along(index, dim)] = src.data[
                tuple(slice(n) for n in index.shape)]
        else:  # a 0-dim tensor: its one element
            out[()] = src.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        need_a, _, _, need_src = ctx.needs_input_grad
        if need_a:
            raise NotImplementedError(
                "toygrad's scatter is differentiable in its src only")
        return (None, None, None,
                Gather.apply(grad, ctx.dim, index.data) if need_src else None)

    jvp = linear_in(0, 3)


class Gather(Function):
    """``a.gather(dim, index)``: the elements ``index`` points to along
    ``dim`` (PyTorch's ``GatherBackward0``)."""
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.dim = dim
        ctx.save_for_backward(Tensor(index), a)
        if not a.ndim:
            return Tensor(a.data.copy())
        return Tensor(a.data[_along(index, dim)])

    @staticmethod
    def backward(ctx, grad):
        index, a = ctx.saved_tensors
        zeros = Tensor(np.zeros(a.shape, grad.dtype))
        return ScatterAdd.apply(zeros, ctx.dim, index.data, grad), None, None

    jvp = linear_in(0)


class ScatterAdd(Function):
    """``a.scatter_add(dim, index, src)``: ``src`` added where ``index``
    points along ``dim`` (PyTorch's ``ScatterAddBackward0``)."""
    node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim = dim
        ctx.save_for_backward(Tensor(index))
        out = a.data.copy()
        if out.ndim:
            np.add.at(out, _along(index, dim),
                      src.data[tuple(slice(n) for n in index.shape)])
        else:
            out += src.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        need_a, _, _, need_src = ctx.needs_input_grad
        return (grad if need_a else None, None, None,
                Gather.apply(grad, ctx.dim, index.data) if need_src else None)

    jvp = linear_in(0, 3)


# Shapes. These return views: tensors that share the input's numbers (and
# its version counter), as PyTorch's do. Each view operation (``is_view``)
# says how to take the same view of another array (``take``), which is how
# an in-place change through a view finds its way into the base (see
# toygrad.views).

def _resolve_shape(shape, numel):
    """``shape`` with its one ``-1`` filled in, checked against ``numel``."""
    shape = tuple(int(size) for size in shape)
    unknown = [i for i, size in enumerate(shape) if size == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([size for size in shape if size != -1]))
    if any(size < -1 for size in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if unknown and known and numel % known == 0:
        shape = shape[:unknown[0]] + (numel // known,) + shape[unknown[0] + 1:]
    elif unknown or known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of "
                           f"size {numel}")
    return shape


def _can_view(array, shape):
    """Whether NumPy can give ``array`` this shape without copying."""
    try:
        array.view().shape = shape
    except AttributeError:
        return False
    return True


def view(x, shape):
    shape = _resolve_shape(shape, x.data.size)
    if not _can_view(x.data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride "
            "(at least one dimension spans across two contiguous subspaces). "
            "Use .reshape(...) instead.")
    return View.apply(x, shape)


def reshape(x, shape):
    """A view when the numbers allow one, else a copy (as PyTorch)."""
    shape = _resolve_shape(shape, x.data.size)
    if x.data.flags.c_contiguous:
        return View.apply(x, shape)
    if _can_view(x.data, shape):  # a view with other strides
        return ReshapeAlias.apply(x, shape)
    return UnsafeView.apply(Clone.apply(x), shape)  # copy into order first


class View(Function):
    node_name = "ViewBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape, ctx.new_shape = a.shape, shape
        return Tensor(View.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        view = array.view()
        view.shape = ctx.new_shape
        return view

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    jvp = linear_in(0)


class ReshapeAlias(View):
    """A reshape that is a view with other strides (not a plain view)."""
    node_name = "ReshapeAliasBackward0"


class UnsafeView(Function):
    """A reshape of a fresh copy: PyTorch does not track it as a view."""
    node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return Tensor(a.data.reshape(shape))

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    jvp = linear_in(0)


class Clone(Function):
    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(a.data.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad

    jvp = linear_in(0)


class Alias(Function):
    """``x[...]``: a new tensor for the same numbers."""
    node_name = "AliasBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return Tensor(Alias.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return array.view()

    @staticmethod
    def backward(ctx, grad):
        return grad

    jvp = linear_in(0)


def permute(x, dims):
    if len(dims) != x.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input "
            "does not match the length of the desired ordering of dimensions "
            f"i.e. input.dim() = {x.ndim} is not equal to len(dims) = "
            f"{len(dims)}")
    dims = tuple(canonical_dim(d, x.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(x, dims)


class Permute(Function):
    node_name = "PermuteBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return Tensor(Permute.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return array.transpose(ctx.dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(tuple(np.argsort(ctx.dims).tolist())), None

    jvp = linear_in(0)


def transpose(x, dim0, dim1):
    return Transpose.apply(x, canonical_dim(dim0, x.ndim),
                           canonical_dim(dim1, x.ndim))


class Transpose(Function):
    node_name = "TransposeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = dim0, dim1
        return Tensor(Transpose.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return np.swapaxes(array, *ctx.dims) if array.ndim else array.view()

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None

    jvp = linear_in(0)


def t(x):
    if x.data.ndim > 2:
        raise RuntimeError("t() expects a tensor with <= 2 dimensions, but "
                           f"self is {x.ndim}D")
    return T.apply(x)


class T(Function):
    """The transpose of a matrix, ``a.t()``."""
    node_name = "TBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a):
        return Tensor(a.data.T)  # T.take, written out: it runs very often

    @staticmethod
    def take(ctx, array):
        return array.T

    @staticmethod
    def backward(ctx, grad):
        # A view of grad, as PyTorch's grad.t(): it may become a leaf's
        # .grad as it is (Tensor._can_steal), sharing grad's memory and
        # version counter.
        if grad_mode.state.enabled or dual.level >= 0:
            return T.apply(grad)
        return views.untracked(T, grad, grad.data.T)

    jvp = linear_in(0)


class Unsqueeze(Function):
    node_name = "UnsqueezeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return Tensor(Unsqueeze.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        # PyTorch's inferUnsqueezeGeometry: the new dim's stride is
        # sizes[dim] * strides[dim], or 1 at the end (NumPy's expand_dims
        # reshapes, and picks other strides for it).
        dim, strides = ctx.dim, list(array.strides)
        strides.insert(dim, array.itemsize if dim == array.ndim
                       else array.shape[dim] * array.strides[dim])
        shape = array.shape[:dim] + (1,) + array.shape[dim:]
        return np.lib.stride_tricks.as_strided(array, shape, strides)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None

    jvp = linear_in(0)


def squeeze(x, dim=None):
    if dim is None:
        return Squeeze.apply(x, tuple(i for i, size in enumerate(x.shape)
                                      if size == 1))
    if isinstance(dim, (tuple, list)):
        raise NotImplementedError(
            "toygrad's squeeze takes one dim or none, not a tuple of dims")
    dim = canonical_dim(dim, x.ndim)
    dims = (dim,) if x.ndim and x.shape[dim] == 1 else ()
    return SqueezeDim.apply(x, dims)


class Squeeze(Function):
    """``x.squeeze()``: every dim of size 1 removed."""
    node_name = "SqueezeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.shape, ctx.dims = a.shape, dims
        return Tensor(Squeeze.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return np.squeeze(array, ctx.dims)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's unsqueeze_to (derivatives.yaml's squeeze entries, in
        # torch/csrc/autograd/FunctionsManual.cpp): one unsqueeze per
        # squeezed dim, in increasing order (UnsqueezeBackward0 nodes under
        # create_graph, and unsqueeze's strides); none, the gradient itself.
        for dim in ctx.dims:
            grad = grad.unsqueeze(dim)
        return grad, None

    jvp = linear_in(0)


class SqueezeDim(Squeeze):
    """``x.squeeze(dim)``: that dim removed if its size is 1."""
    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    """The squeeze ``matmul`` uses to drop a vector's added dim.

    PyTorch squeezes its own fresh result in place (``squeeze_``), so the
    result is not a view of anything.
    """
    node_name = "SqueezeBackward4"
    is_view = False


def expand(x, shape):
    return Expand.apply(x, expanded_shape(x, shape))


def expanded_shape(x, shape):
    """``shape`` with its -1s filled in, or PyTorch's error if ``x`` cannot
    be expanded to it."""
    shape = tuple(int(size) for size in shape)
    if len(shape) < x.ndim:
        raise RuntimeError(
            f"expand({tensor_type(x.dtype)}{{{list(x.shape)}}}, "
            f"size={list(shape)}): the number of sizes provided "
            f"({len(shape)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({x.ndim})")
    lead = len(shape) - x.ndim
    final = list(shape)
    for i in reversed(range(len(shape))):  # from the last, as PyTorch
        size = shape[i]
        if i < lead:
            if size < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) isn't allowed "
                    f"in a leading, non-existing dimension {i}")
            continue
        old = x.shape[i - lead]
        if size == -1:
            final[i] = old
        elif old != size and old != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) must match the "
                f"existing size ({old}) at non-singleton dimension {i}.  "
                f"Target sizes: {list(shape)}.  Tensor sizes: "
                f"{list(x.shape)}")
    return tuple(final)



class Expand(Function):
    node_name = "ExpandBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape, ctx.new_shape = a.shape, shape
        return Tensor(Expand.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        if array.shape == ctx.new_shape:  # nothing repeated: writable
            return array[...]
        # Read-only, as NumPy's broadcast_to (the writes that may go
        # through an expand go through its base), with the strides of
        # PyTorch's inferExpandGeometry: 0 for a repeated dim and for every
        # dim of an expanded 0-dim tensor; a new leading dim of size 1
        # takes the next dim's size * stride (broadcast_to gives 0).
        shape, strides = ctx.new_shape, [0] * len(ctx.new_shape)
        lead = len(shape) - array.ndim
        if array.ndim:
            for i in reversed(range(len(shape))):
                if i >= lead:
                    size = array.shape[i - lead]
                    stride = array.strides[i - lead]
                else:
                    size, stride = 1, shape[i + 1] * strides[i + 1]
                strides[i] = stride if size == shape[i] else 0
        return np.lib.stride_tricks.as_strided(array, shape, strides,
                                               writeable=False)

    @staticmethod
    def backward(ctx, grad):
        return unbroadcast(grad, ctx.shape), None

    jvp = linear_in(0)


def sum_to_size(x, shape):
    shape = tuple(shape)
    try:
        expanded = broadcast_shape(shape, x.shape)
    except RuntimeError:
        expanded = None
    if expanded != x.shape:
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to "
                           f"size {{{list(x.shape)}}}.")
    out = unbroadcast(x, shape)
    if x._is_inference and out is not x:  # sum_to's sum: its fill_
        written_below_autograd(out, 1, x)
    return out


# Indexing with ints, slices, None and ``...``, as PyTorch's basic indexing.

def getitem(x, key):
    """``x[key]``, one dimension at a time, recorded as PyTorch records it."""
    result = _take(x, key, setting=False)
    if result is x:  # nothing taken, as in x[...] or x[:, :]
        result = Alias.apply(x)
    return result


def setitem(x, key, value):
    """``x[key] = value``, as PyTorch's ``set_item`` and ``copy_to``.

    Indexing that takes nothing (``x[...]``, ``x[:]``) writes into ``x``
    itself; then a number or a 0-dim tensor is a ``fill_``
    (``FillBackward3``), a tensor of the same shape a ``copy_``
    (``CopyBackwards``). Another tensor is first viewed without its leading
    1s and expanded to the target's shape, as PyTorch records it.
    """
    if not isinstance(value, Tensor):  # first, as PyTorch's valueToTensor
        value = _wrap(_assignable(x, value), x.dtype)
    target = _take(x, key, setting=True)
    if value.shape == target.shape:
        return views.inplace(target, Copy, value)
    if value.ndim == 0:
        return views.inplace(target, Fill, value)
    shape = value.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    value = View.apply(value, shape)
    if shape != target.shape:
        value = expand(value, target.shape)
    return views.inplace(target, Copy, value)


def _assignable(x, value):
    """``value`` as a Python number, or PyTorch's error for ``x[k] = value``.

    PyTorch takes numbers and NumPy integers (as indices), not lists,
    arrays or other NumPy scalars.
    """
    if isinstance(value, complex):
        raise NotImplementedError("toygrad does not support complex numbers")
    if isinstance(value, np.integer):
        return int(value)
    if not _number(value):
        raise TypeError(f"can't assign a {type_name(value)} to a "
                        f"{tensor_type(x.dtype)}")
    return value


def _take(x, key, setting):
    """``x[key]`` as views of ``x``, or ``x`` itself if nothing is taken.

    ``x[a:b]`` alone is always a new slice when read, as in PyTorch; when
    written (``setting``) a slice that takes a whole dim is skipped.
    """
    single = not isinstance(key, tuple)
    items = (key,) if single else key
    for item in items:
        if not (item is None or item is Ellipsis
                or isinstance(item, slice) or _is_index(item)):
            _unsupported_index(item)
    used = sum(1 for item in items if item is not None and item is not
               Ellipsis)
    if used > x.ndim:
        if x.ndim == 0 and single and _is_index(key):  # as PyTorch's
            if int(key) != 0:
                raise IndexError(f"index {int(key)} is out of bounds for "
                                 "dimension 0 with size 0")
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                "Python or `tensor.item<T>()` in C++ to convert a 0-dim "
                "tensor to a number")
        if x.ndim == 0 and single and isinstance(key, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension "
                         f"{x.ndim}")
    if single and isinstance(key, slice) and not setting:
        return _slice(x, 0, key, always=True)
    result, dim = x, 0
    for item in items:
        if item is None:
            result = Unsqueeze.apply(result, dim)
            dim += 1
        elif item is Ellipsis:
            dim += x.ndim - used
        elif isinstance(item, slice):
            result = _slice(result, dim, item, always=False)
            dim += 1
        else:
            size = result.shape[dim]
            index = int(item)
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for "
                                 f"dimension {dim} with size {size}")
            result = Select.apply(result, dim, index % size)
    return result


def _is_index(item):
    return isinstance(item, (int, np.integer)) and not isinstance(
        item, (bool, np.bool_))


def _unsupported_index(item):
    if isinstance(item, (float, np.floating)):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or "
            "byte Variables are valid indices (got float)")
    kind = "a bool" if isinstance(item, (bool, np.bool_)) else \
        f"a {type(item).__name__}"
    raise NotImplementedError(
        f"toygrad supports basic indexing only (ints, slices, None, ...), "
        f"not indexing with {kind}: PyTorch's advanced indexing "
        "(IndexBackward0) is not implemented")


def _slice(x, dim, item, always):
    """``x`` sliced along ``dim`` (a full slice skipped unless ``always``)."""
    if item.step is not None and int(item.step) == 0:
        raise ValueError("slice step cannot be zero")
    if item.step is not None and int(item.step) < 0:
        raise ValueError("step must be greater than zero")
    size = x.shape[dim]
    # PyTorch skips a slice that takes the whole dim as written: from 0 (not
    # -size), to size or beyond, step 1.
    if not always and item.start in (None, 0) and item.step in (None, 1) and (
            item.stop is None or int(item.stop) >= size):
        return x
    start, stop, step = item.indices(size)
    stop = max(stop, start)
    return Slice.apply(x, dim, slice(start, stop, step))


def _index(dim, item):
    """A NumPy index that applies ``item`` to dimension ``dim``.

    The trailing ``...`` makes NumPy return a view even when every dimension
    is indexed by an int (a 0-dim array, not a copied scalar): an element is
    a view of its tensor, as in PyTorch, so ``x[0] = 5.0`` changes ``x``.
    """
    return (slice(None),) * dim + (item, Ellipsis)


class Select(Function):
    """``a[..., index, ...]``: one position of one dimension (an int)."""
    node_name = "SelectBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim, item):
        ctx.shape, ctx.dim, ctx.item = a.shape, dim, item
        return Tensor(Select.take(ctx, a.data))

    @staticmethod
    def take(ctx, array):
        return array[_index(ctx.dim, ctx.item)]

    @staticmethod
    def backward(ctx, grad):
        embed = ctx._forward_cls.embed  # SelectBackward, or SliceBackward
        return embed.apply(grad, ctx.shape, ctx.dim, ctx.item), None, None

    jvp = linear_in(0)


class Slice(Select):
    """``a[..., start:stop:step, ...]``: a slice of one dimension."""
    node_name = "SliceBackward0"


class SelectBackward(Function):
    """Put a gradient back where it was taken from, with zeros elsewhere."""
    node_name = "SelectBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, shape, dim, item):
        ctx.dim, ctx.item = dim, item
        out = np.zeros(shape, grad.dtype)
        out[_index(dim, item)] = grad.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        take = ctx._forward_cls.take_back  # Select, or Slice
        return take.apply(grad, ctx.dim, ctx.item), None, None, None

    jvp = linear_in(0)


class SliceBackward(SelectBackward):
    node_name = "SliceBackwardBackward0"


Select.embed, Slice.embed = SelectBackward, SliceBackward
SelectBackward.take_back, SliceBackward.take_back = Select, Slice


class Unbind(Function):
    """``x.unbind(dim)``, and iterating over a tensor: one node, n views."""
    node_name = "UnbindBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return tuple(Tensor(Unbind.take(ctx, a.data, i))
                     for i in range(a.shape[dim]))

    @staticmethod
    def take(ctx, array, output_nr=0):
        return array[_index(ctx.dim, output_nr)]

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(ctx.dim, *grads), None

    jvp = linear_in(0)


class Stack(Function):
    """Tensors of one shape stacked along a new dim (unbind's gradient)."""
    node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        return Tensor(np.stack([t.data for t in tensors], dim))

    @staticmethod
    def backward(ctx, grad):
        return (None,) + Unbind.apply(grad, ctx.dim)

    @staticmethod
    def jvp(ctx, _, *tangents):
        return Stack.apply(ctx.dim, *tangents)


class Fill(Function):
    """``a.fill_(value)`` with a 0-dim tensor ``value``, which is how
    ``x[...] = 2.0`` writes a number into a whole tensor (see setitem)."""
    node_name = "FillBackward3"

    @staticmethod
    def forward(ctx, a, value):
        return Tensor(np.full(a.shape, value.data, a.dtype))

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's formulas: zeros (written, not grad * 0, so an inf or
        # NaN in grad does not become NaN) and the sum for the value.
        need_a, need_value = ctx.needs_input_grad
        return (Tensor(np.zeros_like(grad.data)) if need_a else None,
                grad.sum() if need_value else None)

    @staticmethod
    def jvp(ctx, ta, tvalue):  # chapter 13: the value's tangent, filled
        return Fill.apply(ta, tvalue)


# Matrix products. ``matmul`` picks one as ``torch.matmul`` does.


def _same_dtype(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{c_name(a.dtype)} != {c_name(b.dtype)}")


def mm(a, b):
    if (a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]
            or a.dtype != b.dtype):
        saved_by_each_other(b, a)  # chapters 10, 11: saved before checks
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
            f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    _same_dtype(a, b)
    return Mm.apply(a, b)


def mv(a, v):
    if (a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]
            or a.dtype != v.dtype):
        saved_by_each_other(a, v)  # chapter 10: saved before the checks
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, "
                           f"{a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
            f"{a.shape[1]}), vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        names = [torch_name(t.dtype) for t in (v, a, v)]
        raise RuntimeError("addmv input tensors must have the same dtype, "
                           f"but got {names[0]}, {names[1]}, and {names[2]}")
    out = Mv.apply(a, v)
    if a._is_inference:  # mv's kernel: empty, then addmv_ into it
        written_below_autograd(out, 1, a, v)
    return out


def bmm(a, b):
    if (a.ndim != 3 or b.ndim != 3 or b.shape[:2] != (a.shape[0], a.shape[2])
            or a.dtype != b.dtype):
        saved_by_each_other(b, a)  # chapters 10, 11: saved before checks
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
            f"{b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected scalar type {torch_name(a.dtype)} but found "
            f"{torch_name(b.dtype)}")
    return Bmm.apply(a, b)


def _column_major(array):
    """Whether a matrix is stored column by column (a transposed matrix)."""
    item = array.itemsize
    return array.strides == (item, item * array.shape[0])


def _t(matrix):
    """``matrix.t()`` inside a gradient formula.

    Recorded (as ``TBackward0``) under ``create_graph``; otherwise the
    transpose is a temporary that only the next product reads, so it is
    taken directly, without the bookkeeping of a view.
    """
    if grad_mode.state.enabled:
        return T.apply(matrix)
    return Tensor(matrix.data.T)


def _grad_of_left(grad, right, column_major):
    """d(left @ right)/d(left): grad @ right.t(), computed as PyTorch's
    ``mm_mat1_backward`` does, in the layout the left matrix had."""
    if not grad_mode.state.enabled:  # not recorded: the product alone
        if column_major:
            return Tensor((right.data @ grad.data.T).T)
        return Tensor(grad.data @ right.data.T)
    if column_major:
        return _t(Mm.apply(right, _t(grad)))
    return Mm.apply(grad, _t(right))


def _grad_of_right(grad, left, column_major):
    """d(left @ right)/d(right): left.t() @ grad, computed as PyTorch's
    ``mm_mat2_backward`` does, in the layout the right matrix had (for
    ``x @ weight.t()``, the weight's own layout, so no copy is needed)."""
    if not grad_mode.state.enabled:  # not recorded: the product alone
        if column_major:
            return Tensor((grad.data.T @ left.data).T)
        return Tensor(left.data.T @ grad.data)
    if column_major:
        return _t(Mm.apply(_t(grad), left))
    return Mm.apply(_t(left), grad)


class Mm(Function):
    node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        ctx.column_major = _column_major(a.data), _column_major(b.data)
        return Tensor(a.data @ b.data)

    # Task 5.2: the two gradients of a matrix product
    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        a_columns, b_columns = ctx.column_major
        # The right matrix's gradient first, as PyTorch's MmBackward0
        # computes them (what a pack hook sees under create_graph).
        need_a, need_b = ctx.needs_input_grad  # narrowed by autograd.grad
        grad_b = (_grad_of_right(grad, a, b_columns) if need_b and a
                  is not None else None)
        return (_grad_of_left(grad, b, a_columns) if need_a and b is not None
                else None, grad_b)

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        return ta.mm(b) + a.mm(tb)


class Addmm(Function):
    """bias + a @ b, the operation behind ``nn.Linear``."""
    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, a, b):
        need_bias, need_a, need_b = ctx.needs_input_grad
        ctx.bias_shape = bias.shape
        # Saved in PyTorch's order: mat1 (for d/db), then mat2 (for d/da).
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        ctx.column_major = _column_major(a.data), _column_major(b.data)
        out = a.data @ b.data
        out += bias.data
        return Tensor(out)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_bias, need_a, need_b = ctx.needs_input_grad  # narrowed
        a_columns, b_columns = ctx.column_major
        grad_a = (_grad_of_left(grad, b, a_columns) if need_a and b is not None
                  else None)
        grad_b = (_grad_of_right(grad, a, b_columns) if need_b and a
                  is not None else None)
        # The bias's gradient last: PyTorch's engine sums a broadcast
        # input's gradient down after the node's formulas (so its nodes
        # are recorded after theirs, and run first in a pass over them).
        return (unbroadcast(grad, ctx.bias_shape) if need_bias else None,
                grad_a, grad_b)

    @staticmethod
    def jvp(ctx, tbias, ta, tb):
        _, a, b = ctx.primals
        return tbias + ta.mm(b) + a.mm(tb)


class Mv(Function):
    node_name = "MvBackward0"

    @staticmethod
    def forward(ctx, a, v):
        need_a, need_v = ctx.needs_input_grad
        ctx.save_for_backward(a if need_v else None, v if need_a else None)
        return Tensor(a.data @ v.data)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        need_a, need_v = ctx.needs_input_grad  # narrowed by autograd.grad
        # d/da: the outer product grad ⊗ v, as PyTorch's at::outer writes
        # it: grad.reshape(n, 1) * v.
        return (grad.reshape(len(grad), 1) * v if need_a and v is not None
                else None,
                a.t().mv(grad) if need_v and a is not None else None)

    @staticmethod
    def jvp(ctx, ta, tv):
        a, v = ctx.primals
        return ta.mv(v) + a.mv(tv)


class Dot(Function):
    node_name = "DotBackward0"

    @staticmethod
    def forward(ctx, v, w):
        need_v, need_w = ctx.needs_input_grad
        ctx.save_for_backward(v if need_w else None, w if need_v else None)
        return Tensor(v.data @ w.data)

    @staticmethod
    def backward(ctx, grad):
        v, w = ctx.saved_tensors
        need_v, need_w = ctx.needs_input_grad  # narrowed by autograd.grad
        return (grad * w if need_v and w is not None else None,
                grad * v if need_w and v is not None else None)

    @staticmethod
    def jvp(ctx, tv, tw):
        v, w = ctx.primals
        return Dot.apply(tv, w) + Dot.apply(v, tw)


class Bmm(Function):
    node_name = "BmmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        # Saved in PyTorch's order: mat2 (for d/da), then self (for d/db).
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return Tensor(a.data @ b.data)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad  # narrowed by autograd.grad
        # The second operand's gradient first, as PyTorch's BmmBackward0.
        grad_b = (a.transpose(1, 2).bmm(grad) if need_b and a is not None
                  else None)
        return (grad.bmm(b.transpose(1, 2)) if need_a and b is not None
                else None, grad_b)

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.primals
        return ta.bmm(b) + a.bmm(tb)


def matmul(a, b):
    """``a @ b`` for 1-D, 2-D and batched operands, split as PyTorch does."""
    if not isinstance(b, Tensor):
        raise TypeError("unsupported operand type(s) for @: 'Tensor' and "
                        f"'{type(b).__name__}'")
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        if a.shape != b.shape or a.dtype != b.dtype:
            saved_by_each_other(a, b)  # chapter 10: dot saves first
        # PyTorch's dot_check (aten/src/ATen/native/Blas.cpp): the dtypes
        # first, then the sizes.
        if a.dtype != b.dtype:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{torch_name(a.dtype)} and "
                f"{torch_name(b.dtype)}")
        if a.shape != b.shape:
            raise RuntimeError(
                "inconsistent tensor size, expected tensor [{0}] and src "
                "[{1}] to have the same number of elements, but got {0} and "
                "{1} elements respectively".format(a.shape[0], b.shape[0]))
        out = Dot.apply(a, b)
        if a._is_inference:  # dot's kernel: empty, then fill_
            written_below_autograd(out, 1, a, b)
        return out
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1 and b.ndim == 2:
        out = SqueezeDims.apply(mm(a.unsqueeze(0), b), (0,))
        # PyTorch squeezes its product in place (squeeze_): version 1. The
        # view's node is for that version, so it stays as it is.
        if not out._is_inference:  # (an inference tensor has no counter)
            if out._version_counter is None:
                out._version_counter = [0]
            out._version_counter[0] += 1
            out._view_version += 1
        return out
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if _should_fold(a, b):
        return _folded_matmul(a, b)
    return _batched_matmul(a, b)


# torch.matmul's N-d cases, as PyTorch's _matmul_impl and should_fold
# (aten/src/ATen/native/LinearAlgebra.cpp, linked in tests/test_matmul.py):
# the batch of the larger operand folded into the rows of one mm (or mv)
# where that needs no copy, or where the smaller operand requires grad (its
# gradient is then one mm, not a bmm summed over an expanded batch); else
# both expanded to the broadcast batch and multiplied by one bmm.

def _element_strides(x):
    return tuple(stride // x.data.itemsize for stride in x.data.strides)


def _should_fold(a, b):
    big, small = (a, b) if a.ndim >= b.ndim else (b, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:  # folding would need a transposed, copied result
        return False
    if big.data.size == 0:
        return True
    # t1 = the larger operand (b.mT() if it is b) viewed as
    # t1.view(-1, t1.size(-1)) without a copy: its first n-1 dims
    # contiguous, stride[i] == stride[i + 1] * size[i + 1].
    shape, strides = list(big.shape), list(_element_strides(big))
    if big is b:
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1]
               for i in range(big.ndim - 2))


def _folded_matmul(a, b):
    transpose = b.ndim > a.ndim
    big = b.transpose(-2, -1) if transpose else a
    small = (a if a.ndim == 1 else T.apply(a)) if transpose else b
    shape = big.shape[:-1]
    folded = big.reshape((int(np.prod(shape)), big.shape[-1]))
    if small.ndim == 1:
        return UnsafeView.apply(mv(folded, small), shape)
    out = UnsafeView.apply(mm(folded, small), shape + small.shape[1:])
    if not transpose:
        return out
    out = out.transpose(-2, -1)
    # .contiguous(): a copy (CloneBackward0) unless already in order
    return out if out.data.flags.c_contiguous else Clone.apply(out)


def _batched_matmul(a, b):
    if (a.ndim == 3 and b.ndim == 3 and a.shape[0] != b.shape[0]):
        # "If we're going to broadcast we force it to go through the
        # should_fold branch"
        if a.shape[0] == 1 and a.requires_grad:
            return matmul(a.squeeze(0), b)
        if b.shape[0] == 1 and b.requires_grad:
            return matmul(a, b.squeeze(0))
    n = a.shape[-2] if a.ndim > 1 else 1
    k = a.shape[-1]
    k2 = b.shape[-2] if b.ndim > 1 else b.shape[0]
    m = b.shape[-1] if b.ndim > 1 else 1
    batch = broadcast_shape(a.shape[:max(a.ndim - 2, 0)],
                            b.shape[:max(b.ndim - 2, 0)])
    count = int(np.prod(batch))
    a3 = a.expand(batch + (n, k)).reshape((count, n, k))
    if b.ndim == 1:
        b3 = b.expand(batch + (k2,)).reshape((count, k2)).unsqueeze(2)
    else:
        b3 = b.expand(batch + (k2, m)).reshape((count, k2, m))
    shape = batch + ((n,) if a.ndim > 1 else ()) + ((m,) if b.ndim > 1
                                                     else ())
    out = bmm(a3, b3)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return UnsafeView.apply(out, shape)




# Neural-network functions (see toygrad.nn.functional).

class LogSoftmax(Function):
    node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        x = a.data
        if x.size == 0:
            out = Tensor(x.copy())
        else:
            shifted = x - _row_max(x, dim)  # exp can't overflow
            log_sum = np.log(_row_sum(np.exp(shifted), dim))
            out = Tensor(shifted - log_sum)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if not grad_mode.state.enabled:  # not recorded: the numbers alone
            return Tensor(_log_softmax_backward(grad.data, out.data,
                                                ctx.dim)), None
        return LogSoftmaxBackwardData.apply(grad, out, ctx.dim), None

    @staticmethod
    def jvp(ctx, ta, _):
        (out,) = ctx.results
        return ta - (ta * out.exp()).sum(ctx.dim, keepdim=True)


@functools.lru_cache(maxsize=64)
def _ones_column(rows, dtype):
    """A read-only column of ones, made once per size and dtype."""
    ones = np.ones((rows, 1), dtype)
    ones.flags.writeable = False
    return ones


def _rows(x, dim):
    """Whether ``x`` is a batch of float rows, reduced along them."""
    return x.ndim == 2 and dim == 1 and x.dtype.kind == "f"


def _short_rows(x, dim):
    """Whether ``x`` is a batch of short rows (a few classes each), reduced
    along them: NumPy's reductions along short rows are slow (a loop per
    row), so log_softmax reduces them another way."""
    return _rows(x, dim) and x.shape[1] <= 64


def _row_max(x, dim):
    """``x.max(dim, keepdims=True)``. For short rows, the rows' maxima are
    taken column by column (the rows transposed, one contiguous copy): the
    same comparisons, element by element, several times faster. (Only a
    tie can make the order matter: a row whose largest numbers are +0.0
    and -0.0. Its maximum's sign then changes no result: the row's sum of
    exponentials is at least 2, so each zero's ``±0.0 - log_sum`` is
    ``-log_sum``.)"""
    if _short_rows(x, dim):
        return np.maximum.reduce(np.ascontiguousarray(x.T), axis=0)[:, None]
    return x.max(axis=dim, keepdims=True)


def _row_sum(x, dim):
    """``x.sum(dim, keepdims=True)``. For a batch of rows, each row's sum
    as a matrix-vector product, which NumPy's BLAS does several times
    faster than its reduction over short rows (10 classes): the same sum,
    rounded in another order."""
    if _rows(x, dim):
        return x @ _ones_column(x.shape[1], x.dtype)
    return x.sum(axis=dim, keepdims=True)


def _log_softmax_backward(grad, out, dim):
    """``grad - exp(out) * grad.sum(dim)`` for log_softmax's output ``out``."""
    total = _row_sum(grad, dim)
    if (dim == grad.ndim - 1 or not grad.ndim) and (
            np.count_nonzero(total) != total.size):  # a row sums to zero
        # PyTorch's kernel for the last dim (and a 0-dim tensor) sums a row
        # from its first element, so a row of -0.0 sums to -0.0 (NumPy's
        # from +0.0): then its gradient is -0.0 - exp(out) * -0.0, +0.0.
        negative_zeros = np.signbit(grad).all(axis=dim, keepdims=True) & (
            total == 0)
        total = np.where(negative_zeros, -total, total)
    return grad - np.exp(out) * total


class LogSoftmaxBackwardData(Function):
    """``grad - exp(out) * grad.sum(dim)``: log_softmax's gradient.

    An operation of its own, as PyTorch's ``_log_softmax_backward_data``;
    its backward is written, like every other, with toygrad operations.
    """
    node_name = "LogSoftmaxBackwardDataBackward0"

    @staticmethod
    def forward(ctx, grad, out, dim):
        ctx.save_for_backward(grad, out)
        ctx.dim = dim
        return Tensor(_log_softmax_backward(grad.data, out.data, dim))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, out = ctx.saved_tensors
        dim = ctx.dim
        need_grad, need_out = ctx.needs_input_grad[:2]
        # result = g - exp(out) * sum(g): linear in g. PyTorch's formulas,
        # grouped as its derivatives.yaml groups them (each its own exp).
        grad_g = (grad_grad - (grad_grad * out.exp()).sum(dim, keepdim=True)
                  if need_grad else None)
        grad_out = ((-grad.sum(dim, keepdim=True) * out.exp()) * grad_grad
                    if need_out else None)
        return grad_g, grad_out, None

    @staticmethod
    def jvp(ctx, tgrad, tout, _):
        grad, out, _ = ctx.primals
        softmax = out.exp()
        return (LogSoftmaxBackwardData.apply(tgrad, out, ctx.dim)
                - tout * softmax * grad.sum(ctx.dim, keepdim=True))


class NllLoss(Function):
    """``-log_probs[i, target[i]]`` for each row whose target is not
    ``ignore_index``: their mean (the default), their sum, or each row's
    (``reduction="none"``, an ignored row giving 0)."""
    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, labels, reduction="mean", ignore_index=-100,
                every_label_a_class=False):
        # The labels tensor comes in a tuple, so that it gets no edge (as in
        # PyTorch), and is saved itself, as PyTorch saves it.
        (labels,) = labels
        target = labels.data
        rows, taken = np.arange(len(target)), target
        classes = log_probs.data.shape[1]
        # Rows to ignore, unless none can be: ignore_index is not a class
        # and every label is one (as nll_loss found; read as unsigned, a
        # negative label is past the last class). One reduction, not a
        # mask: this runs at every step of a training loop.
        if (0 <= ignore_index < classes or not target.size or not (
                every_label_a_class
                or target.view(np.uint64).max() < classes)):
            kept = target != ignore_index
            if not kept.all():  # ignored rows count for nothing
                rows = rows[kept]
                taken = target[rows]
        try:
            picked = log_probs.data[rows, taken]
        except IndexError:  # a label past the last class
            bad = target[target >= log_probs.shape[1]][0]
            raise IndexError(f"Target {bad} is out of bounds.") from None
        dtype = log_probs.dtype
        # What PyTorch's node saves, in its order: the input, the target
        # and the total weight (the rows counted; 0 when not reduced).
        count = len(rows) if reduction != "none" else 0
        total_weight = Tensor(np.asarray(count, dtype))
        ctx.save_for_backward(log_probs, labels, total_weight)
        ctx.how = rows, reduction, ignore_index
        if reduction == "none":
            out = np.zeros(len(target), dtype)
            out[rows] = -picked
            return Tensor(out)
        # 0 - sum, not -sum: PyTorch subtracts from a zero, so a loss of
        # zero is +0.0, never -0.0.
        loss = 0.0 - picked.sum()
        if reduction == "mean" and count:
            loss = loss / dtype.type(count)
        elif reduction == "mean":  # every row ignored: 0 / 0, NaN as PyTorch
            with np.errstate(invalid="ignore", divide="ignore"):
                loss = loss / dtype.type(count)
        return Tensor(np.asarray(loss, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        log_probs, target, total_weight = ctx.saved_tensors
        how = ctx.how
        if not grad_mode.state.enabled:  # not recorded: the numbers alone
            return Tensor(_nll_loss_backward(
                grad.data, log_probs.shape, target.data,
                total_weight.data, how)), None, None, None, None
        return (NllLossBackward.apply(grad, log_probs, (target,),
                                      total_weight.data, how),
                None, None, None, None)

    jvp = linear_in(0)


def _nll_loss_backward(grad, shape, target, total_weight, how):
    """Zeros, and the gradient written at each counted row's target:
    ``-(grad / total_weight)`` for the mean, ``-grad`` for the sum and for
    each row: PyTorch's ``nll_loss_backward`` (written, so that an inf or
    NaN gradient reaches the targets only)."""
    rows, reduction, _ = how
    out = np.zeros(shape, grad.dtype)
    if reduction == "mean":
        out[rows, target[rows]] = -(grad / total_weight)
    elif reduction == "sum":
        out[rows, target[rows]] = -grad
    else:
        out[rows, target[rows]] = -grad[rows]
    return out


class NllLossBackward(Function):
    """nll_loss's gradient, an operation of its own as PyTorch's
    ``nll_loss_backward``: linear in ``grad``; its input ``log_probs``
    only gives its shape (its derivative is zero, as PyTorch's)."""
    node_name = "NllLossBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, log_probs, labels, total_weight, how):
        (labels,) = labels  # in a tuple: no edge, as in NllLoss
        ctx.save_for_backward(labels)
        ctx.shape, ctx.how = log_probs.shape, how
        return Tensor(_nll_loss_backward(grad.data, log_probs.shape,
                                         labels.data, total_weight, how))

    @staticmethod
    def backward(ctx, grad_grad):
        (target,) = ctx.saved_tensors
        need_grad, need_log_probs = ctx.needs_input_grad[:2]
        _, reduction, ignore_index = ctx.how
        # The gradient's own gradient is nll_loss again, with the same
        # rows and reduction.
        return (NllLoss.apply(grad_grad, (target,), reduction, ignore_index)
                if need_grad else None,
                Tensor(np.zeros(ctx.shape, grad_grad.dtype))
                if need_log_probs else None, None, None, None)

    jvp = linear_in(0)


# In-place operations (see toygrad.views.inplace): the forward computes the
# new numbers; inplace writes them into the tensor.

class Zero(Function):
    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, a):
        return Tensor(np.zeros_like(a.data))

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)  # zeros_like(grad), as PyTorch's

    jvp = linear_in(0)


class Copy(Function):
    """``a.copy_(source)``: ``a``'s numbers replaced by ``source``'s."""
    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, a, source):
        ctx.source_meta = source.shape, source.dtype
        return Tensor(np.broadcast_to(source.data, a.shape).astype(a.dtype))

    @staticmethod
    def backward(ctx, grad):
        # CopyBackwards: zeros_like(grad) for a; for the source, grad cast
        # to its dtype, then (as PyTorch's engine does) summed to its shape.
        shape, dtype = ctx.source_meta
        need_a, need_source = ctx.needs_input_grad
        if need_source and grad.dtype != dtype:
            grad = ToCopy.apply(grad, dtype)
        return (_zeros_like(grad) if need_a else None,
                unbroadcast(grad, shape) if need_source else None)

    jvp = linear_in(0, 1)


# view operations are tracked by toygrad.views, which builds on these.
from toygrad import views  # noqa: E402,F401
