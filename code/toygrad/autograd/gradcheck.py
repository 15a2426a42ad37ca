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


# Task 2.1: a numerical Jacobian by central differences
def numerical_jacobian(func, inputs, eps=1e-6):
    """d output / d input by central differences.

    One matrix per input that requires grad, stored transposed as
    ``torch.autograd.gradcheck`` stores it, of shape (input.numel(),
    output.numel()): row ``j`` comes from nudging input element ``j``, so
    entry ``[j, i]`` estimates d output_i / d input_j, as
    ``(f(x + eps) - f(x - eps)) / (2 eps)``, whose error shrinks like
    ``eps**2``.
    """
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
    """d output / d input as the engine's ``backward`` computes it.

    For each output element ``i``, one backward with a gradient that is 1
    at ``i`` and 0 elsewhere: what arrives at the inputs is row ``i`` of the
    Jacobian, stored as column ``i`` (the layout of ``numerical_jacobian``).
    """
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
            if x.grad is None:
                grad = np.zeros(_values(x).size)
            else:
                grad = _values(x.grad).reshape(-1)
            column.append(grad)
    for x in differentiable:
        x.grad = None
    return [np.array(column).T for column in columns]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3,
              raise_exception=True):
    """True if backward's gradients of ``func`` match finite differences.

    Both are computed at ``inputs``. Same defaults and same test as
    ``torch.autograd.gradcheck``: every Jacobian entry must satisfy
    ``|analytical - numerical| <= atol + rtol * |numerical|``. Use float64
    inputs: with float32 the finite differences are too noisy for these
    tolerances.

    Args:
        func: takes ``*inputs`` and returns one tensor or Value.
        inputs: tensors or Values; those with ``requires_grad`` are checked.
        raise_exception: raise ``GradcheckError`` on a mismatch (else return
            False).
    """
    inputs = tuple(inputs)
    if not any(getattr(x, "requires_grad", False) for x in inputs):
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True.")
    numerical = numerical_jacobian(func, inputs, eps)
    analytical = analytical_jacobian(func, inputs)
    for index, (num, ana) in enumerate(zip(numerical, analytical)):
        if not np.allclose(ana, num, rtol=rtol, atol=atol):
            if raise_exception:
                raise GradcheckError(
                    "Jacobian mismatch for output 0 "
                    f"with respect to input {index},\n"
                    f"numerical:{num}\nanalytical:{ana}\n"
                )
            return False
    return True
