"""toygrad.autograd: the machinery behind ``backward``, named as in ``torch.autograd``."""

from toygrad.autograd.gradcheck import GradcheckError, gradcheck

__all__ = ["GradcheckError", "gradcheck"]
