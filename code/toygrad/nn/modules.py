"""Modules and parameters, as in ``torch.nn``: just enough to train an MLP.

``Module`` keeps PyTorch's bookkeeping (``torch/nn/modules/module.py``):
parameters, buffers and submodules live in three dictionaries, not in the
instance's ``__dict__``; ``__setattr__`` files a value in the right one (and
removes the name from the others), ``__getattr__`` finds it there and
``__delattr__`` removes it, with PyTorch's errors word for word.
"""

import itertools
import math
import operator
#> ch10
import warnings
#< ch10
from collections import OrderedDict, namedtuple

import numpy as np

from toygrad.autograd import grad_mode
from toygrad.dtypes import torch_name
from toygrad.nn import functional
from toygrad.tensor import Tensor
from toygrad.tensor import _check_bool
from toygrad.tensor import _refuse as _refuse_arguments
#> ch10
from toygrad.utils.hooks import BackwardHook, RemovableHandle
#< ch10


class Parameter(Tensor):
    """A tensor that is a module's learnable parameter: it requires grad.

    As ``torch.nn.Parameter``: a leaf sharing ``data``'s numbers and version
    counter; ``Parameter()`` is an empty float32 tensor.
    """

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        # torch.nn.Parameter hands the flag to Tensor._make_subclass, whose
        # parser takes a bool only.
        _check_bool(requires_grad, "_make_subclass", 3, "require_grad")
        if data is None:
            data = np.empty(0, np.float32)
        data_is_inference = (data._is_inference if isinstance(data, Tensor)
                             else None)
        if (requires_grad and data_is_inference
                and not grad_mode.state.inference):
            # Chapter 10: _make_subclass sets requires_grad, and
            # TensorImpl::set_requires_grad refuses an inference tensor
            # outside inference mode (before the dtype check).
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside "
                "InferenceMode is not allowed.")
        counter = data._version_counter if isinstance(data, Tensor) else None
        if (isinstance(data, Tensor) and counter is None
                and not data._is_inference):  # (an inference tensor has none)
            counter = data._version_counter = [0]
        data = np.asarray(data.data if isinstance(data, Tensor) else data)
        if requires_grad and not np.issubdtype(data.dtype, np.floating):
            raise RuntimeError("Only Tensors of floating point and complex "
                               "dtype can require gradients")
        super().__init__(data, requires_grad)
        if counter is not None:  # an in-place change of one is the other's
            self._version_counter = counter
        # An alias of ``data``: an inference tensor if it is one, or if made
        # from numbers in inference mode (as torch.empty there).
        self._is_inference = (data_is_inference if data_is_inference
                              is not None else grad_mode.state.inference)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


def _typename(value):
    """``torch.typename``: ``torch.FloatTensor`` for a tensor, else the
    type's dotted name (``int``, ``numpy.ndarray``)."""
    if isinstance(value, Tensor):
        return f"torch.{torch_name(value.dtype)}Tensor"
    kind = value if isinstance(value, type) else type(value)
    module = kind.__module__ or ""
    if module in ("", "builtins"):
        return kind.__qualname__
    return f"{module}.{kind.__qualname__}"


def _remove_from(name, *places):
    """``name`` out of each dictionary or set in ``places``."""
    for place in places:
        if name in place:
            if isinstance(place, dict):
                del place[name]
            else:
                place.discard(name)


_EXPECTED = {"parameter": "torch.nn.Parameter or None",
             "child module": "torch.nn.Module or None",
             "buffer": "torch.nn.Buffer, torch.Tensor or None"}


def _cannot_assign(value, kind, name):
    """PyTorch's TypeError for ``value`` assigned to a registered name."""
    return TypeError(f"cannot assign '{_typename(value)}' as {kind} "
                     f"'{name}' ({_EXPECTED[kind]} expected)")


# What torch.nn.Module offers that toygrad does not: refused by name.
_REFUSED_METHODS = (
    "to", "cuda", "cpu", "type", "float", "double", "half", "bfloat16",
    "to_empty", "share_memory", "register_forward_hook",
    "register_forward_pre_hook",
    #> ch05 until ch10
    #| "register_full_backward_hook", "register_full_backward_pre_hook",
    #< ch05 until ch10
    "register_backward_hook",
    "register_state_dict_pre_hook", "register_state_dict_post_hook",
    "register_load_state_dict_pre_hook",
    "register_load_state_dict_post_hook", "get_submodule", "set_submodule",
    "get_parameter", "get_buffer", "get_extra_state", "set_extra_state",
    "compile")


def zero_grads(parameters, set_to_none=True):
    """``zero_grad`` of a module and of an optimizer: each parameter's
    ``.grad`` set to None, or zeroed in place."""
    for parameter in parameters:
        grad = parameter.grad
        if grad is None:
            continue
        if set_to_none:
            parameter.grad = None
        elif grad.grad_fn is not None:  # PyTorch would detach_ it
            raise NotImplementedError(
                "toygrad's zero_grad(set_to_none=False) does not support "
                "a .grad that has a grad_fn (from create_graph=True)")
        else:
            grad.requires_grad_(False)
            grad.zero_()


class Module:
    """Base class of layers and models.

    Assigning a ``Parameter`` or a ``Module`` to an attribute registers it,
    so ``parameters()`` finds it. Calling the module calls ``forward``.
    """

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword "
                f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional "
                f"argument but {len(args) + 1} were given")
        # Past __setattr__, as PyTorch: these are plain attributes.
        setter = super().__setattr__
        setter("training", True)
        setter("_parameters", {})
        setter("_buffers", {})
        setter("_non_persistent_buffers_set", set())
        setter("_modules", {})
        #> ch10
        setter("_backward_hooks", OrderedDict())
        setter("_backward_pre_hooks", OrderedDict())
        #< ch10

    def __getattr__(self, name):
        """Only for names not found the usual way: a parameter, a buffer or
        a submodule, else PyTorch's AttributeError."""
        state = self.__dict__
        for where in ("_parameters", "_buffers", "_modules"):
            if where in state and name in state[where]:
                return state[where][name]
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        """File ``value`` by its kind: a ``Parameter`` in ``_parameters``, a
        ``Module`` in ``_modules``, anything else as a plain attribute."""
        if isinstance(value, Parameter):
            self._file_parameter(name, value)
        elif isinstance(value, Module):
            self._file_module(name, value)
        elif not self._reassign(name, value):
            super().__setattr__(name, value)

    # What __setattr__ does beyond filing, as PyTorch's: errors before
    # __init__, a name moving from one dictionary to another, and a name
    # already registered, which takes only None (or, a buffer, a tensor).

    def _file_parameter(self, name, param):
        if self.__dict__.get("_parameters") is None:
            raise AttributeError(
                "cannot assign parameters before Module.__init__() call")
        _remove_from(name, self.__dict__, self._buffers, self._modules,
                     self._non_persistent_buffers_set)
        self.register_parameter(name, param)

    def _file_module(self, name, module):
        params = self.__dict__.get("_parameters")
        if params is not None and name in params:
            raise _cannot_assign(module, "parameter", name)
        modules = self.__dict__.get("_modules")
        if modules is None:
            raise AttributeError(
                "cannot assign module before Module.__init__() call")
        _remove_from(name, self.__dict__, self._parameters, self._buffers,
                     self._non_persistent_buffers_set)
        modules[name] = module

    def _reassign(self, name, value):
        """``value``, neither a Parameter nor a Module, for a registered
        name: None empties it, a tensor replaces a buffer, anything else is
        PyTorch's TypeError. False if ``name`` is not registered."""
        params, modules, buffers = (self.__dict__.get(where) for where in (
            "_parameters", "_modules", "_buffers"))
        if params is not None and name in params:
            if value is not None:
                raise _cannot_assign(value, "parameter", name)
            self.register_parameter(name, value)
        elif modules is not None and name in modules:
            if value is not None:
                raise _cannot_assign(value, "child module", name)
            modules[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise _cannot_assign(value, "buffer", name)
            self.register_buffer(
                name, value, name not in self._non_persistent_buffers_set)
        else:
            return False
        return True

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def _check_name(self, name, kind, where):
        """PyTorch's checks of a name given to ``register_*``."""
        if not isinstance(name, str):
            raise TypeError(
                f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in where:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        """Add ``param`` (a ``Parameter``, or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                "cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter "
                f"'{name}' (torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                f"parameters must be created explicitly. To express '{name}' "
                "as a function of another Tensor, compute the value in the "
                "forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (a running mean):
        in ``state_dict`` unless ``persistent=False``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError(
                "cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer "
                f"'{name}' (torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add the submodule ``module`` (or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(
                f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for ``add_module``."""
        self.add_module(name, module)

    def forward(self, *inputs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required '
            '"forward" function')

    def __call__(self, *args, **kwargs):
        #> ch10
        if self._backward_hooks or self._backward_pre_hooks:
            return self._call_with_backward_hooks(args, kwargs)
        #< ch10
        return self.forward(*args, **kwargs)

    #> ch10 a module that takes part in backward
    def _call_with_backward_hooks(self, args, kwargs):
        """``forward`` between two ``BackwardHookFunction`` nodes, one on
        the positional tensor inputs and one on the tensor outputs, that
        call the hooks (PyTorch's ``Module._call_impl``)."""
        bw_hook = BackwardHook(self, list(self._backward_hooks.values()),
                               list(self._backward_pre_hooks.values()))
        args = bw_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output "
                          "should be a Tensor or a tuple of Tensors but "
                          f"received {type(result)}", stacklevel=2)
        return bw_hook.setup_output_hook(result)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` is called once the
        gradients with respect to the module's inputs are computed; it may
        return new ``grad_input``. Returns a removable handle."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` is called once the gradients with
        respect to the module's outputs are computed; it may return new
        ``grad_output``. Returns a removable handle."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)
    #< ch10

    # Walking the tree. A module or tensor reachable twice (tied weights, a
    # layer used twice) is listed once unless remove_duplicate=False.

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """This module and every module under it, with dotted names."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(
                memo, prefix + ("." if prefix else "") + name,
                remove_duplicate)

    def modules(self, remove_duplicate=True):
        for _, module in self.named_modules(
                remove_duplicate=remove_duplicate):
            yield module

    def named_children(self):
        """The direct submodules, each once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, members, prefix, recurse, remove_duplicate):
        """As ``named_parameters``, for what ``members(module)`` lists."""
        memo = set()
        modules = (self.named_modules(prefix=prefix,
                                      remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or id(value) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, \
                    value

    def named_parameters(self, prefix="", recurse=True,
                         remove_duplicate=True):
        """Every parameter by dotted name: the module's own, then each
        submodule's, in the order they were assigned; one shared by two
        layers (tied weights) once, unless ``remove_duplicate=False``."""
        seen = set()
        modules = (self.named_modules(prefix=prefix,
                                      remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, parameter in module._parameters.items():
                if parameter is None or id(parameter) in seen:
                    continue  # None: a removed bias, as layer.bias = None
                if remove_duplicate:
                    seen.add(id(parameter))
                yield (module_prefix + ("." if module_prefix else "") + name,
                       parameter)

    def parameters(self, recurse=True):
        for _, parameter in self.named_parameters(recurse=recurse):
            yield parameter

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(
            lambda module: module._buffers.items(), prefix, recurse,
            remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn):
        """``fn(module)`` for every submodule, then for this one."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for parameter in self.parameters():
            parameter.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients: None (the default, as in PyTorch), or with
        ``set_to_none=False`` zeros written into each ``.grad`` in place."""
        zero_grads(self.parameters(), set_to_none)

    # Printing, as PyTorch prints a module.

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra_lines = self.extra_repr().split("\n") if self.extra_repr() \
            else []
        child_lines = []
        for key, module in self._modules.items():
            text = repr(module).split("\n")
            text = "\n".join(text[:1] + ["  " + line for line in text[1:]])
            child_lines.append(f"({key}): {text}")
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(key for key in keys if not key[0].isdigit())

    # Chapter 15: saving and loading the numbers.

    def state_dict(self, *args, destination=None, prefix="",
                   keep_vars=False):
        """Every parameter and persistent buffer by name, detached (the same
        memory, no history); a tied one under each of its names."""
        if args:
            raise NotImplementedError(
                "toygrad's state_dict takes its arguments by keyword only "
                "(PyTorch deprecates positional ones)")
        if destination is None:
            destination = OrderedDict()
        for name, parameter in self._parameters.items():
            if parameter is not None:
                destination[prefix + name] = (
                    parameter if keep_vars else parameter.detach())
        for name, buffer in self._buffers.items():
            if (buffer is not None
                    and name not in self._non_persistent_buffers_set):
                destination[prefix + name] = (
                    buffer if keep_vars else buffer.detach())
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination,
                                  prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def _local_state(self):
        """What this module loads: its parameters and persistent buffers."""
        state = {name: p for name, p in self._parameters.items()
                 if p is not None}
        state.update((name, b) for name, b in self._buffers.items()
                     if b is not None
                     and name not in self._non_persistent_buffers_set)
        return state

    def load_state_dict(self, state_dict, strict=True, **unsupported):
        """Copy the numbers of ``state_dict`` into the parameters and
        buffers, in place; with PyTorch's checks and its messages."""
        _refuse_arguments("nn.Module.load_state_dict", unsupported)
        own = self.state_dict(keep_vars=True)
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
        parameter or buffer; the keys under a submodule are judged by it."""
        extra = prefix + "_extra_state"  # only modules with extra state
        if extra in keys:                # take this key
            unexpected.append(extra)
        local = self._local_state()
        for key in keys:
            if key == extra:
                continue
            first, *rest = key[len(prefix):].split(".", 1)
            if first not in (self._modules if rest else local):
                unexpected.append(key)
        for name, module in self._modules.items():
            if module is None:
                continue
            child = prefix + name + "."
            module._unexpected_keys([key for key in keys
                                     if key.startswith(child)], child,
                                    unexpected)


#> ch10
def _add_hook(hooks_dict, hook, prepend):
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = hook
    if prepend:
        hooks_dict.move_to_end(handle.id, last=False)
    return handle


#< ch10
def _refused_method(name):
    def refused(self, *args, **kwargs):
        raise NotImplementedError(
            f"toygrad's nn.Module does not support {name}()")
    refused.__name__ = name
    refused.__doc__ = f"Not in toygrad: ``nn.Module.{name}`` is refused."
    return refused


for _name in _REFUSED_METHODS:
    setattr(Module, _name, _refused_method(_name))
del _name


class _IncompatibleKeys(
        namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


def _size(shape):
    return f"torch.Size({list(shape)})"


def _initialised(parameter):
    """A new layer's parameter: PyTorch fills it in place (``init``'s
    ``uniform_``), so its version is 1 (an inference tensor has none)."""
    if not parameter._is_inference:
        parameter._version_counter = [1]
    return parameter


class Linear(Module):
    """``x @ weight.t() + bias``, initialised as PyTorch initialises it."""

    def __init__(self, in_features, out_features, bias=True, generator=None,
                 dtype=np.float32):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        rng = generator if generator is not None else np.random.default_rng()
        bound = 1 / math.sqrt(in_features)  # kaiming_uniform(a=sqrt(5))
        self.weight = _initialised(Parameter(rng.uniform(
            -bound, bound, (out_features, in_features)).astype(dtype)))
        if bias:
            self.bias = _initialised(Parameter(rng.uniform(
                -bound, bound, out_features).astype(dtype)))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        # From the dictionary: the hot path skips __getattr__'s search.
        parameters = self._parameters
        try:
            weight, bias = parameters["weight"], parameters["bias"]
        except KeyError:  # deleted: PyTorch's AttributeError, from there
            weight, bias = self.weight, self.bias
        return functional.linear(x, weight, bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, "
                f"out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        if inplace:
            raise NotImplementedError(
                "toygrad's nn.ReLU does not support inplace=True")
        self.inplace = inplace

    def forward(self, x):
        return functional.relu(x)


class Sequential(Module):
    """Modules applied one after the other: ``Sequential(a, b, c)``, or an
    ``OrderedDict`` of named modules."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(modules):
                self.add_module(str(index), module)

    def _item(self, items, index):
        size = len(self)
        index = operator.index(index)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return next(itertools.islice(items, index % size, None))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(
                list(self._modules.items())[index]))
        return self._item(self._modules.values(), index)

    def __setitem__(self, index, module):
        setattr(self, self._item(self._modules.keys(), index), module)

    def __delitem__(self, index):
        if isinstance(index, slice):
            for key in list(self._modules.keys())[index]:
                delattr(self, key)
        else:
            delattr(self, self._item(self._modules.keys(), index))
        # numbered 0, 1, 2... again, as PyTorch's
        self._modules = OrderedDict(
            (str(i), module)
            for i, module in enumerate(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    # As PyTorch's Sequential (torch/nn/modules/container.py): a list of
    # modules that grows, shrinks, is added to another and repeated.

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of "
                             f"Sequential class, but {type(other)} is given.")
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of "
                             f"Sequential class, but {type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _times(self, other):
        """PyTorch's checks of ``self * other``: a positive int."""
        if not isinstance(other, int):
            raise TypeError("unsupported operand type(s) for *: "
                            f"{type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(
                f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other):
        self._times(other)
        combined = Sequential()
        for _ in range(other):
            for module in self:
                combined.append(module)
        return combined

    __rmul__ = __mul__

    def __imul__(self, other):
        self._times(other)
        length = len(self)
        for offset in range(length, length * other, length):
            for i in range(length):
                self.add_module(str(i + offset), self._modules[str(i)])
        return self

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x
