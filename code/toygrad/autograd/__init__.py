"""toygrad.autograd: the machinery behind ``backward``, named as in torch."""

# Tensor first: Function builds on Tensor, and Tensor's operations on Function.
import toygrad.tensor  # noqa: F401
from toygrad.autograd.function import Function
from toygrad.autograd.gradcheck import GradcheckError, gradcheck

__all__ = ["Function", "GradcheckError", "gradcheck"]
