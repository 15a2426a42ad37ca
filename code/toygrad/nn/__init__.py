"""Neural-network modules, as in ``torch.nn``: just enough to train a network.

``Module``, ``Parameter``, ``Linear``, ``ReLU`` and ``Sequential`` live in
``modules.py`` (PyTorch's ``torch/nn/modules/``); chapter 15's layers for
images in ``layers.py``; the functions in ``functional.py``.
"""

from toygrad.nn import functional  # noqa: F401
from toygrad.nn.modules import (  # noqa: F401
    Linear, Module, Parameter, ReLU, Sequential)
#> ch15
from toygrad.nn.layers import (  # noqa: E402,F401
    Conv2d, CrossEntropyLoss, Flatten, MaxPool2d)
#< ch15
