"""Check gradients by finite differences, as ``torch.autograd.gradcheck`` does.

Written against the API that PyTorch's tensors, toygrad's ``Value`` and
toygrad's tensors share (``.data``, ``.detach()``, ``.backward(gradient)``,
``.grad``, ``.requires_grad``), so the same function checks all three.
"""

import numpy as np


class GradcheckError(RuntimeError):
    """Raised when an analytical and a finite-difference gradient differ."""


def _values(obj):
    """A float64 NumPy copy of the numbers held by ``obj``.

    ``obj`` is a tensor, a Value or a plain number.
    """
    data = getattr(obj, "data", obj)
    numbers = data.tolist() if hasattr(data, "tolist") else data
    return np.array(numbers, dtype=np.float64)


def _set_at(obj, index, value):
    """Set element ``index`` (row-major order) of ``obj.data`` to ``value``.

    ``obj`` is changed in place.
    """
    if isinstance(obj.data, float):  # a scalar Value holds a Python float
        obj.data = value
    else:
        obj.data[np.unravel_index(index, tuple(obj.data.shape))] = value


def _flat_grad(x):
    """``x.grad`` as a flat float64 array; zeros if no gradient arrived."""
    if x.grad is None:
        return np.zeros(_values(x).size)
    return _values(x.grad).reshape(-1)


def _check_inputs(inputs):
    """PyTorch's ValueError if no input requires grad."""
    if not any(getattr(x, "requires_grad", False) for x in inputs):
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True.")


def _get_notallclose_msg(numerical, analytical, index):
    """PyTorch's message for a mismatch of the Jacobians of input ``index``."""
    return ("Jacobian mismatch for output 0 "
            f"with respect to input {index},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


# Task 2.1: a numerical Jacobian by central differences
def numerical_jacobian(func, inputs, eps=1e-6):
    """d output / d input by central differences, one matrix per input that
    requires grad, of shape (input.numel(), output.numel()): row ``j`` comes
    from nudging input element ``j``."""
    jacobians = []
    for x in inputs:
        if not getattr(x, "requires_grad", False):
            continue
        rows = []
        for j, original in enumerate(_values(x).reshape(-1)):
            _set_at(x, j, original + eps)
            plus = _values(func(*inputs)).reshape(-1)
            _set_at(x, j, original - eps)
            minus = _values(func(*inputs)).reshape(-1)
            _set_at(x, j, original)
            rows.append((plus - minus) / (2 * eps))
        jacobians.append(np.array(rows))
    return jacobians


# Task 2.2: the Jacobian that backward computes, one row per backward
def analytical_jacobian(func, inputs):
    """d output / d input as ``backward`` computes it, in the layout of
    ``numerical_jacobian``: column ``i`` comes from one backward with a
    gradient that is 1 at output element ``i`` and 0 elsewhere."""
    differentiable = [x for x in inputs if getattr(x, "requires_grad", False)]
    size = _values(func(*inputs)).size
    columns = [[] for _ in differentiable]
    for i in range(size):
        for x in differentiable:
            x.grad = None
        output = func(*inputs)
        basis = output.detach() * 0.0
        _set_at(basis, i, 1.0)
        output.backward(basis)
        for column, x in zip(columns, differentiable):
            column.append(_flat_grad(x))
    for x in differentiable:
        x.grad = None
    return [np.array(column).T for column in columns]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3,
              raise_exception=True):
    """True if backward's gradients of ``func`` at ``inputs`` match finite
    differences, with ``torch.autograd.gradcheck``'s defaults and test:
    ``|analytical - numerical| <= atol + rtol * |numerical|`` for every
    Jacobian entry. On a mismatch, raise ``GradcheckError`` (or return False
    if not ``raise_exception``). Use float64 inputs."""
    inputs = tuple(inputs)
    _check_inputs(inputs)
    numerical = numerical_jacobian(func, inputs, eps)
    kept = [(x, x.grad) for x in inputs if getattr(x, "requires_grad", False)]
    try:  # PyTorch's gradcheck leaves the inputs' .grad as it found them
        analytical = analytical_jacobian(func, inputs)
    finally:
        for x, grad in kept:
            x.grad = grad
    for index, (num, ana) in enumerate(zip(numerical, analytical)):
        if not np.allclose(ana, num, rtol=rtol, atol=atol):
            if raise_exception:
                raise GradcheckError(_get_notallclose_msg(num, ana, index))
            return False
    return True
