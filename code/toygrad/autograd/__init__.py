"""toygrad.autograd: the machinery behind ``backward``.

Named as in ``torch.autograd``.
"""

from toygrad.autograd.gradcheck import GradcheckError, gradcheck

__all__ = ["GradcheckError", "gradcheck"]
