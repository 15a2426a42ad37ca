"""toygrad.autograd: the machinery behind ``backward``, named as in torch."""

from toygrad.autograd.gradcheck import GradcheckError, gradcheck

__all__ = ["GradcheckError", "gradcheck"]

#> ch05 Functions
# Tensor first: Function builds on Tensor, and Tensor's operations on
# Function.
import toygrad.tensor  # noqa: F401,E402
from toygrad.autograd.function import Function  # noqa: E402

__all__ = ["Function", "GradcheckError", "gradcheck"]
#< ch05
#> ch10

# The hooks plug themselves into the graph and the engine (graph.extensions).
from toygrad.autograd import hooks  # noqa: F401,E402
#< ch10
#> ch11

from toygrad.autograd.anomaly_mode import (  # noqa: E402
    detect_anomaly, set_detect_anomaly)

__all__ += ["detect_anomaly", "set_detect_anomaly"]
#< ch11
#> ch12

from toygrad.autograd.differentiate import backward, grad  # noqa: E402
from toygrad.autograd.gradgradcheck import gradgradcheck  # noqa: E402

__all__ += ["backward", "grad", "gradgradcheck"]
#< ch12
#> ch13

from toygrad.autograd import forward_ad  # noqa: F401,E402

__all__ += ["forward_ad"]
#< ch13
