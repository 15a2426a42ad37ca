"""Modules and parameters, as in ``torch.nn``: just enough to train an MLP."""

import math
from collections import OrderedDict, namedtuple
from importlib.util import find_spec

import numpy as np

from toygrad.nn import functional
from toygrad.tensor import Tensor
from toygrad.tensor import _refuse as _refuse_arguments


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

    # Chapter 15: saving and loading the numbers.

    def state_dict(self):
        """Every parameter by name, detached: the same memory, no history."""
        return OrderedDict((name, parameter.detach())
                           for name, parameter in self.named_parameters())

    def load_state_dict(self, state_dict, strict=True, **unsupported):
        """Copy the numbers of ``state_dict`` into the parameters, in place;
        with PyTorch's checks and its messages, word for word."""
        _refuse_arguments("nn.Module.load_state_dict", unsupported)
        own = dict(self.named_parameters())
        missing = [name for name in own if name not in state_dict]
        unexpected = []
        self._unexpected_keys(list(state_dict), "", unexpected)
        errors = []
        for name, parameter in own.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            if not isinstance(value, Tensor):
                raise NotImplementedError(
                    "toygrad's load_state_dict takes toygrad tensors only, "
                    f"not {type(value).__name__} (for {name})")
            if tuple(value.shape) != tuple(parameter.shape):
                errors.append(
                    f"size mismatch for {name}: copying a param with shape "
                    f"{_size(value.shape)} from checkpoint, the shape in "
                    f"current model is {_size(parameter.shape)}.")
                continue
            np.copyto(parameter.data, value.data)
            parameter._bump_version()  # PyTorch's copy_ under no_grad
        if strict and unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{name}"' for name in unexpected)))
        if strict and missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{name}"' for name in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}"
                               .format(type(self).__name__,
                                       "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _unexpected_keys(self, keys, prefix, unexpected):
        """As PyTorch's ``_load_from_state_dict``: a dotted key is unexpected
        where its first part names no submodule, another where it names no
        parameter; the keys under a submodule are judged by it, in order."""
        extra = prefix + "_extra_state"  # only modules with extra state
        if extra in keys:                # take this key
            unexpected.append(extra)
        for key in keys:
            if key == extra:
                continue
            first, *rest = key[len(prefix):].split(".", 1)
            if first not in (self._modules if rest else self._parameters):
                unexpected.append(key)
        for name, module in self._modules.items():
            child = prefix + name + "."
            module._unexpected_keys([key for key in keys
                                     if key.startswith(child)], child,
                                    unexpected)


class _IncompatibleKeys(
        namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


def _size(shape):
    return f"torch.Size({list(shape)})"


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


if find_spec("toygrad.nn.layers") is not None:  # chapter 15 on
    from toygrad.nn.layers import (  # noqa: E402,F401
        Conv2d, CrossEntropyLoss, Flatten, MaxPool2d)
