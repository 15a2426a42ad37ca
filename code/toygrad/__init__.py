"""toygrad: a small autodiff engine that mirrors PyTorch's autograd.

The book builds it chapter by chapter. Comments ``#> chNN`` and ``#< chNN``
mark the lines chapter NN adds (tests/chapters.py): the package as any
chapter leaves it (its snapshot) imports and passes that chapter's tests, and
each chapter's listings are read from it, so the reader sees exactly what the
tests test.
"""

import warnings

__version__ = "0.1.0"
__all__ = []

# NumPy warns when arithmetic meets inf or NaN ("invalid value encountered in
# multiply"); PyTorch computes the same IEEE results without a word. So that
# toygrad warns where PyTorch warns, and only there, NumPy's warnings raised
# from toygrad's own code are not shown (a user's own NumPy code still warns).
warnings.filterwarnings(
    "ignore", r"(invalid value|divide by zero|overflow|underflow) encountered",
    RuntimeWarning, r"toygrad(\.|$)")

#> ch05 tensors
from toygrad.autograd.grad_mode import (  # noqa: E402
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
    no_grad, set_grad_enabled)
from toygrad.tensor import (  # noqa: E402
    Tensor, float32, float64, from_numpy, int64, ones, randn, tensor, zeros)

Tensor.__module__ = "toygrad"  # toygrad.Tensor, as torch.Tensor is torch's
from toygrad import methods  # noqa: E402,F401 (gives Tensor its operations)

# As with torch.nn and torch.optim, one import makes the submodules
# available.
from toygrad import autograd, nn, optim  # noqa: E402

__all__ = ["Tensor", "tensor", "from_numpy", "zeros", "ones", "randn",
           "float32", "float64", "int64", "no_grad", "enable_grad",
           "is_grad_enabled", "set_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]
#< ch05
