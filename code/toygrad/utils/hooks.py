"""Handles that remove hooks, as ``torch.utils.hooks.RemovableHandle``; and
``BackwardHook``, which lets a module take part in backward.

Every ``register_*hook`` method keeps its hooks in a dict, in the order they
were registered, keyed by a number that no other hook ever gets; it returns a
handle that knows the dict (weakly: the handle does not keep the tensor's or
node's hooks alive) and the key.
"""

import itertools
import warnings
import weakref

from toygrad.autograd import grad_mode
from toygrad.autograd.function import Function
from toygrad.tensor import Tensor


class RemovableHandle:
    """Removes one hook: ``handle.remove()``, or at the end of a ``with``."""

    _next_id = itertools.count().__next__

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id()

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class BackwardHookFunction(Function):
    """The identity, recorded: one ``BackwardHookFunctionBackward`` node
    whose hooks see the gradients of the tensors it passes through.

    As PyTorch's (``torch/nn/modules/_functions.py``). An input that needs
    no gradient comes out with no ``grad_fn``; one that does, as a view of
    the input made inside a custom Function, which may not be changed in
    place.
    """

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(
            *[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


_NO_INPUT_NEEDS_GRAD = (
    "Full backward hook is firing when gradients are computed with respect "
    "to module outputs since no inputs require gradients. See "
    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


class BackwardHook:
    """A module's backward hooks, hung on two identity nodes: one on the
    module's tensor inputs, one on its tensor outputs (PyTorch's
    ``torch.utils.hooks.BackwardHook``).

    The outputs' node runs first in backward: it keeps ``grad_output``,
    after the pre-hooks. The inputs' node runs once the module's own nodes
    have run: its post-hook calls the hooks with ``grad_input`` and the
    kept ``grad_output``. Non-tensor arguments have ``None`` in both.
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks, self.user_pre_hooks = user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        packed = [None] * size
        for index, value in zip(indices, values, strict=True):
            packed[index] = value
        return tuple(packed)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple([values[index] for index in indices])

    def _apply_on_tensors(self, hang_hook, args):
        """``args`` with its tensors passed through one
        ``BackwardHookFunction`` node, on which ``hang_hook`` hangs a
        post-hook; and where the tensors were (None: nothing recorded)."""
        indices = [i for i, arg in enumerate(args)
                   if isinstance(arg, Tensor)]
        tensors = [args[i] for i in indices]
        if not (any(t.requires_grad for t in tensors)
                and grad_mode.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        hang_hook(next(t.grad_fn for t in new_tensors
                       if t.grad_fn is not None))
        new_args = list(args)
        for index, tensor in zip(indices, new_tensors):
            new_args[index] = tensor
        return (tuple(new_args) if type(args) is tuple
                else type(args)(*new_args)), indices

    def setup_input_hook(self, args):
        """The module's positional arguments, as ``forward`` gets them."""
        def hang_hook(grad_fn):
            def hook(grad_input, _):  # named as PyTorch's: errors name it
                return self._call_hooks(grad_input)
            grad_fn.register_hook(hook)

        new_args, self.input_tensors_index = self._apply_on_tensors(
            hang_hook, args)
        self.n_inputs = len(args)
        return new_args

    def _call_hooks(self, grad_input):
        if self.grad_outputs is None:
            # The gradient reached the inputs without passing through the
            # outputs (a double backward): PyTorch calls no hook then.
            return None
        result = self._pack_with_none(self.input_tensors_index, grad_input,
                                      self.n_inputs)
        for user_hook in self.user_hooks:
            out = user_hook(self.module, result, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(result):
                raise RuntimeError(
                    "Backward hook returned an invalid number of "
                    f"grad_input, got {len(out)}, but expected "
                    f"{len(result)}")
            result = out
        self.grad_outputs = None
        return self._unpack_none(self.input_tensors_index, result)

    def setup_output_hook(self, result):
        """What ``forward`` returned, as the module's caller gets it."""
        def hang_hook(grad_fn):
            def hook(_, grad_output):
                return self._keep_grad_outputs(grad_output)
            grad_fn.register_hook(hook)

        single = not isinstance(result, tuple)
        args = (result,) if single else result
        new_args, self.output_tensors_index = self._apply_on_tensors(
            hang_hook, args)
        self.n_outputs = len(args)
        return new_args[0] if single else new_args

    def _keep_grad_outputs(self, grad_output):
        self.grad_outputs = self._pack_with_none(
            self.output_tensors_index, grad_output, self.n_outputs)
        for user_pre_hook in self.user_pre_hooks:
            out = user_pre_hook(self.module, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of "
                    f"grad_output, got {len(out)}, but expected "
                    f"{len(self.grad_outputs)}")
            self.grad_outputs = out
        grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            # No input needs a gradient: the hooks are called now.
            warnings.warn(_NO_INPUT_NEEDS_GRAD, stacklevel=5)
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, grad_inputs, self.grad_outputs)
                if out is not None and not (isinstance(out, tuple) and all(
                        value is None for value in out)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires "
                        "gradient should always return None or None for all "
                        "gradients.")
            self.grad_outputs = None
        return self._unpack_none(self.output_tensors_index, grad_outputs)
