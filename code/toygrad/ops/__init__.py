"""The built-in operations on tensors, each a ``Function``, by kind.

Each forward computes with NumPy on ``.data``; each backward is written with
toygrad's own operations, so that with ``create_graph=True`` the backward pass
is recorded too and gradients can be differentiated again. ``node_name`` is
PyTorch's name for the node of the same operation and overload. Before an
operation runs, its arguments are checked as PyTorch checks them (dims,
dtypes, shapes), so that a mistake gets PyTorch's error and never a silently
different answer.

The modules, each built only on those before it:

- ``common``: argument checks and conversions, the JVP of a linear operation;
- ``shapes``: views, reshapes, ``expand``, and broadcasting undone;
- ``pointwise``: arithmetic with broadcasting, ``exp``, ``tanh``, ``relu``...;
- ``indexing``: ``x[key]``, ``unbind``, masks, ``scatter`` and ``gather``;
- ``reductions``: ``sum``, ``mean``, ``max``;
- ``linalg``: ``mm``, ``mv``, ``bmm``, ``matmul``, ``addmm``;
- ``nn_functions``: ``log_softmax`` and ``nll_loss``;
- ``inplace``: ``zero_`` and ``copy_``.

A backward formula that needs an operation of a later module calls it as a
tensor method (``grad.sum(dims, keepdim=True)``), as PyTorch's formulas call
``at::`` functions. ``toygrad.ops.X`` names every operation and helper,
whichever module defines it (the loop below gathers them).
"""

from types import ModuleType

# ToCopy, the engine's cast and an operation too, is defined with Function.
from toygrad.autograd.function import Function, ToCopy  # noqa: F401
from toygrad.dtypes import (  # noqa: F401 (toygrad.ops.canonical_dim...)
    canonical_dim, canonical_dims, check_dtype)
from toygrad.ops import (
    common, indexing, inplace, linalg, nn_functions, pointwise, reductions,
    shapes)

for _module in (common, shapes, pointwise, indexing, reductions, linalg,
                nn_functions, inplace):
    globals().update({
        name: value for name, value in vars(_module).items()
        if not name.startswith("__") and not isinstance(value, ModuleType)
        and getattr(value, "__module__", _module.__name__)
        == _module.__name__})
del _module
