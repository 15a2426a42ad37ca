"""What every operation uses: its arguments checked and prepared as PyTorch
prepares them, the JVP of a linear operation, the versions a kernel's own
writes count, and NumPy's sums.

The first layer of ``toygrad.ops``: it imports none of the others.
"""

import functools

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.autograd.function import (
    SavedTensor, WrappedNumber, _refuse_inference)
from toygrad.autograd.graph import current_saved_tensors_hooks
from toygrad.dtypes import DEFAULT_FLOAT, result_type, true_divide_type
from toygrad.tensor import Tensor


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


#> ch13
def linear_in(*positions):
    """The ``jvp`` of an operation linear in the inputs at ``positions``:
    the operation itself, applied to their tangents (chapter 13)."""
    def jvp(ctx, *tangents):
        args = list(ctx.primals)
        for position in positions:
            args[position] = tangents[position]
        return ctx._forward_cls.apply(*args)
    return staticmethod(jvp)
#< ch13


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


def _zeros_like(x):
    """PyTorch's ``zeros_like`` in a formula: zeros, never a product by 0
    (which would turn an infinite or nan gradient into nan)."""
    return Tensor(np.zeros_like(x.data))


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


@functools.lru_cache(maxsize=64)
def _ones_column(rows, dtype):
    """A read-only column of ones, made once per size and dtype."""
    ones = np.ones((rows, 1), dtype)
    ones.flags.writeable = False
    return ones
