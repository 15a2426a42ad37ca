"""toygrad.autograd: the machinery behind ``backward``, named as in torch."""

from importlib.util import find_spec

from toygrad.autograd.gradcheck import GradcheckError, gradcheck

__all__ = ["GradcheckError", "gradcheck"]

if find_spec("toygrad.tensor") is not None:  # chapter 5 on: Functions
    # Tensor first: Function builds on Tensor, and Tensor's operations on
    # Function.
    import toygrad.tensor  # noqa: F401
    from toygrad.autograd.function import Function

    __all__ = ["Function", "GradcheckError", "gradcheck"]

if find_spec("toygrad.autograd.anomaly_mode") is not None:  # chapter 11 on
    from toygrad.autograd.anomaly_mode import (
        detect_anomaly, set_detect_anomaly)

    __all__ += ["detect_anomaly", "set_detect_anomaly"]

if find_spec("toygrad.autograd.differentiate") is not None:  # chapter 12 on
    from toygrad.autograd.differentiate import backward, grad
    from toygrad.autograd.gradgradcheck import gradgradcheck

    __all__ += ["backward", "grad", "gradgradcheck"]

if find_spec("toygrad.autograd.forward_ad") is not None:  # chapter 13 on
    from toygrad.autograd import forward_ad  # noqa: F401

    __all__ += ["forward_ad"]
