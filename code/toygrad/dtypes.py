"""PyTorch's dtype and dim rules, in one place.

A toygrad tensor keeps its numbers in a NumPy array, but NumPy's rules for
the dtype of ``a * b`` are not PyTorch's: NumPy makes ``int64 * 2.5``
float64 and ``float32 * int64`` float64, where PyTorch gives float32 for
both. The operations ask this module instead of NumPy.

The functions take operands as they come to an operation: a Python bool,
int or float, or anything with a NumPy array in ``.data`` (a Tensor).
"""

import operator

import numpy as np

BOOL, INT64 = np.dtype(np.bool_), np.dtype(np.int64)
FLOAT32, FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)
DEFAULT_FLOAT = FLOAT32  # torch.get_default_dtype(); toygrad cannot change it

# Promotion compares categories first: bool < integer < floating.
_CATEGORY = {BOOL: 0, INT64: 1, FLOAT32: 2, FLOAT64: 2}


def check_dtype(dtype):
    """Return ``dtype`` as a NumPy dtype if toygrad supports it, else raise.

    toygrad runs on bool, int64, float32 and float64 only; any other dtype
    would be computed with NumPy's rules, not PyTorch's, so it is refused.
    """
    if dtype is FLOAT32 or dtype is INT64 or dtype is FLOAT64 or (
            dtype is BOOL):  # quickly: NumPy's own dtype objects
        return dtype
    dtype = np.dtype(dtype)
    if dtype not in _CATEGORY:
        raise NotImplementedError(
            "toygrad supports the dtypes bool, int64, float32 and float64, "
            f"not {dtype.name}")
    return dtype


def is_dtype(value):
    """Whether a factory's ``dtype`` argument names a dtype, as PyTorch's
    argument parser reads it: a dtype (toygrad's are NumPy's, so
    ``toygrad.float32`` is ``np.float32``), or Python's ``bool``, ``int``,
    ``float`` or ``complex`` (PyTorch's bool, int64, float64, complex128).
    A string such as ``"float"`` is not: PyTorch raises a TypeError for it,
    where NumPy would read float64."""
    return (isinstance(value, np.dtype)
            or any(value is kind for kind in (bool, int, float, complex))
            or (isinstance(value, type) and issubclass(value, np.generic)))


def _kind(operand):
    """(priority, dtype): dim > 0 tensors 0, 0-dim tensors 1, scalars 2."""
    # bool before int: a Python bool is an int.
    if isinstance(operand, bool):
        return 2, BOOL
    if isinstance(operand, int):
        return 2, INT64
    if isinstance(operand, float):
        return 2, DEFAULT_FLOAT  # a Python float is not float64 here
    data = getattr(operand, "data", None)
    if isinstance(data, np.ndarray):
        return (1 if data.ndim == 0 else 0), check_dtype(data.dtype)
    refuse_operand(operand)


def refuse_operand(operand):
    """The refusal, by name, of an operand PyTorch takes and toygrad does
    not: a complex number, NumPy's scalars and arrays."""
    if isinstance(operand, complex):
        raise NotImplementedError(
            "toygrad supports the dtypes bool, int64, float32 and float64, "
            "not complex")
    raise NotImplementedError(
        f"toygrad does not support operands of type {type_name(operand)}")


def result_type(*operands):
    """The dtype of an elementwise operation, as ``torch.result_type``.

    The result's category (bool, integer, floating) is the highest among
    all operands. Its dtype comes from the operands of that category in the
    first class that has any: tensors with dims, then 0-dim tensors, then
    Python scalars. So ``float32 tensor * float64 0-dim tensor`` stays
    float32, but ``int64 tensor * float64 0-dim tensor`` is float64.
    """
    if not operands:
        raise TypeError("result_type() needs at least one operand")
    kinds = [_kind(operand) for operand in operands]
    category = max(_CATEGORY[dtype] for _, dtype in kinds)
    for priority in (0, 1, 2):
        dtypes = [dtype for p, dtype in kinds
                  if p == priority and _CATEGORY[dtype] == category]
        if dtypes:
            # Within one category the wider dtype wins (float64 > float32).
            return max(dtypes, key=lambda dtype: dtype.itemsize)


def true_divide_type(*operands):
    """The dtype ``/`` gives: ``result_type``, but never bool or integer.

    PyTorch divides bools and integers in the default dtype, float32
    (NumPy would use float64).
    """
    dtype = result_type(*operands)
    return dtype if _CATEGORY[dtype] == 2 else DEFAULT_FLOAT


def type_name(value):
    """The name PyTorch's messages give ``value``'s type: its ``tp_name``.

    A class written in Python is named alone ("ReLU"), as are Python's own
    types ("float"); a type written in C outside builtins with its module
    ("numpy.float64").
    """
    kind = type(value)
    if kind.__module__ == "builtins" or kind.__flags__ & _HEAP_TYPE:
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time


def _is_int(value):
    # A bool is an int to Python, but PyTorch refuses it as a dim.
    return (hasattr(value, "__index__")
            and not isinstance(value, (bool, np.bool_)))


def canonical_dim(dim, ndim, *, new_dim=False):
    """``dim`` as a non-negative dim of a tensor with ``ndim`` dims.

    Negative dims count from the end. With ``new_dim=True`` the dim is a
    position for a new dim (``unsqueeze``, ``stack``), so the range is that
    of ``ndim + 1``. A 0-dim tensor accepts -1 and 0, as in PyTorch.
    """
    if type(dim) is int and 0 <= dim < ndim:
        return dim  # the common case, quickly
    if not _is_int(dim):
        raise TypeError(
            f"argument 'dim' must be int, not {type_name(dim)}")
    dim = operator.index(dim)
    size = max(ndim + new_dim, 1)  # a 0-dim tensor behaves as 1-dim here
    if not -size <= dim < size:
        raise IndexError(
            f"Dimension out of range (expected to be in range of "
            f"[{-size}, {size - 1}], but got {dim})")
    return dim % size


def canonical_dims(dims, ndim):
    """The non-negative dims of a reduction, as a tuple in the given order.

    ``None`` means every dim; an int means that one dim. An empty tuple
    stays empty: what it means (all dims for ``sum``) is the operation's to
    say. As in PyTorch, all dims are checked for range before duplicates.
    """
    if dims is None:
        return tuple(range(ndim))
    if _is_int(dims):
        return (canonical_dim(dims, ndim),)
    if not isinstance(dims, (tuple, list)):
        raise TypeError(
            f"argument 'dim' must be tuple of ints, not {type_name(dims)}")
    for pos, dim in enumerate(dims):
        if not _is_int(dim):
            raise TypeError(
                "argument 'dim' must be tuple of ints, but found element "
                f"of type {type_name(dim)} at pos {pos}")
    dims = tuple(canonical_dim(dim, ndim) for dim in dims)
    seen = set()
    for dim in dims:
        if dim in seen:  # PyTorch names the first dim seen twice
            raise RuntimeError(
                f"dim {dim} appears multiple times in the list of dims")
        seen.add(dim)
    return dims


# How PyTorch's messages name the four dtypes.
_NAMES = {BOOL: ("Bool", "bool"), INT64: ("Long", "long int"),
          FLOAT32: ("Float", "float"), FLOAT64: ("Double", "double")}


def torch_name(dtype):
    """PyTorch's scalar-type name: float32 is 'Float'."""
    return _NAMES[np.dtype(dtype)][0]


def c_name(dtype):
    """PyTorch's C type name: float64 is 'double'."""
    return _NAMES[np.dtype(dtype)][1]


def tensor_type(dtype):
    """PyTorch's legacy tensor-type name: float32 is 'torch.FloatTensor'."""
    return f"torch.{torch_name(dtype)}Tensor"
