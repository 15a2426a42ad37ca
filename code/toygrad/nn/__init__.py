"""Modules and parameters, as in ``torch.nn``: just enough to train an MLP."""

import math

import numpy as np

from toygrad.nn import functional
from toygrad.tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module's learnable parameter: it requires grad."""

    __slots__ = ()

    def __init__(self, data, requires_grad=True):
        data = np.asarray(data.data if isinstance(data, Tensor) else data)
        if requires_grad and not np.issubdtype(data.dtype, np.floating):
            raise RuntimeError("Only Tensors of floating point and complex "
                               "dtype can require gradients")
        super().__init__(data, requires_grad)


class Module:
    """Base class of layers and models.

    Assigning a ``Parameter`` or a ``Module`` to an attribute registers it,
    so ``parameters()`` finds it. Calling the module calls ``forward``.
    """

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def forward(self, *inputs):
        raise NotImplementedError

    def __call__(self, *inputs):
        return self.forward(*inputs)

    def named_parameters(self, prefix=""):
        for name, parameter in self._parameters.items():
            yield prefix + name, parameter
        for name, module in self._modules.items():
            yield from module.named_parameters(f"{prefix}{name}.")

    def parameters(self):
        for _, parameter in self.named_parameters():
            yield parameter

    def zero_grad(self):
        for parameter in self.parameters():
            parameter.grad = None


class Linear(Module):
    """``x @ weight.t() + bias``, initialised as PyTorch initialises it."""

    def __init__(self, in_features, out_features, bias=True, generator=None,
                 dtype=np.float32):
        super().__init__()
        rng = generator if generator is not None else np.random.default_rng()
        bound = 1 / math.sqrt(in_features)  # kaiming_uniform(a=sqrt(5))
        self.weight = Parameter(rng.uniform(
            -bound, bound, (out_features, in_features)).astype(dtype))
        if bias:
            self.bias = Parameter(rng.uniform(
                -bound, bound, out_features).astype(dtype))
        else:
            self.bias = None

    def forward(self, x):
        return functional.linear(x, self.weight, self.bias)


class ReLU(Module):
    def forward(self, x):
        return functional.relu(x)


class Sequential(Module):
    """Modules applied one after the other."""

    def __init__(self, *modules):
        super().__init__()
        for index, module in enumerate(modules):
            setattr(self, str(index), module)

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x
