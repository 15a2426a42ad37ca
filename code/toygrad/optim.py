"""Optimizers, as in ``torch.optim``.

An optimizer holds a list of parameters and reads only their ``.grad``, which
the engine's ``AccumulateGrad`` nodes wrote. It never sees the graph. Each
``step`` follows the single-tensor (``foreach=False``) update of
``torch/optim/sgd.py`` and ``torch/optim/adam.py`` in the same order of
floating-point operations, so that the two libraries' trajectories agree.
"""

import warnings

import numpy as np

from toygrad import views
from toygrad.autograd.grad_mode import no_grad
from toygrad.nn.modules import zero_grads
from toygrad.tensor import Tensor, _refuse


def _add_(param, update):
    """``param.add_(update)`` (an array), the write every update ends with, as
    PyTorch's optimizers make it: in place, under no_grad, a new version.

    Into the parameter's own memory when NumPy can write it as it is (the
    common case, quickly); else through toygrad's ``add_``, which writes
    through a view's base and raises PyTorch's errors (an expanded tensor,
    whose elements share memory, refuses the write)."""
    data = param.data
    if data.flags.writeable and (data.flags.c_contiguous
                                 or not views._overlaps_itself(data)):
        data += update
        param._bump_version()
        return
    with no_grad():
        param.add_(Tensor(np.asarray(update, data.dtype)))


def _typename(value):
    """``torch.typename``: ``torch.FloatTensor`` for a tensor."""
    from toygrad.nn.modules import _typename as typename
    return typename(value)


class Optimizer:
    """The parameters, in groups of one (``param_groups``), and zero_grad."""

    def __init__(self, params, defaults):
        # PyTorch's checks (torch/optim/optimizer.py), with its messages.
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an "
                "iterable of Tensors or dicts, but got " + _typename(params))
        params = list(params)
        if len(params) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if isinstance(params[0], dict):
            raise NotImplementedError(
                f"toygrad's {type(self).__name__} does not support parameter "
                "groups (dicts); pass one iterable of tensors")
        group = {}
        named = [p for p in params if isinstance(p, tuple)]
        if named:  # named_parameters(): (name, tensor) pairs
            if len(named) != len(params):
                raise ValueError("all optimizer params should be with/without "
                                 "names. Some param names are missing")
            group["param_names"] = [name for name, _ in params]
            params = [p for _, p in params]
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one "
                                "of the params is " + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                "optimizer contains a parameter group with duplicate "
                "parameters; in future, this will cause an error; see "
                "github.com/pytorch/pytorch/issues/40967 for more "
                "information", UserWarning, stacklevel=3)
            self._duplicates = True
        self.defaults = defaults
        self.params = params
        self.param_groups = [{"params": params, **group, **defaults}]
        self.state = {}  # per parameter (by id): momentum buffers, moments

    def _refuse_duplicates(self, stateful):
        """PyTorch gives each copy of a duplicated parameter its own slot
        in a step's lists of state; toygrad's dict by id cannot."""
        if stateful and getattr(self, "_duplicates", False):
            raise NotImplementedError(
                f"toygrad's {type(self).__name__} does not support duplicate "
                "parameters with momentum or moments (plain SGD only)")

    def zero_grad(self, set_to_none=True):
        """Forget the gradients: None (the default, as in PyTorch), or with
        ``set_to_none=False`` zeros written into each ``.grad`` in place."""
        zero_grads(self.params, set_to_none)

    def step(self):
        raise NotImplementedError


def _check_lr(lr):
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")


class SGD(Optimizer):
    """Stochastic gradient descent, with momentum and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0,
                 weight_decay=0, nesterov=False, *, maximize=False,
                 **unsupported):
        _refuse("optim.SGD", unsupported)  # foreach, differentiable, fused
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(
            lr=lr, momentum=momentum, dampening=dampening,
            weight_decay=weight_decay, nesterov=nesterov, maximize=maximize))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError(
                "Nesterov momentum requires a momentum and zero dampening")
        self._refuse_duplicates(momentum != 0)
        self.lr = lr

    def step(self):
        """One update of every parameter that has a gradient, in place."""
        if self._plain_step():  # no momentum, weight decay or maximize
            return
        group = self.param_groups[0]
        settings = {key: group[key] for key in (
            "lr", "momentum", "dampening", "weight_decay", "nesterov",
            "maximize")}
        for p in self.params:
            if p.grad is not None:
                self.state[id(p)] = sgd_update(
                    p, p.grad.data, self.state.get(id(p)), **settings)

    def _plain_step(self):
        """Plain SGD, the common case, quickly: ``p -= lr * grad``, what
        ``sgd_update`` computes, with less Python per parameter (the
        benchmark of ``bench/digits_mlp.py`` times it). False, doing
        nothing, when the group has momentum, weight decay or maximize."""
        group = self.param_groups[0]
        if group["momentum"] or group["weight_decay"] or group["maximize"]:
            return False
        lr = group["lr"]
        for p in self.params:
            grad = p.grad
            if grad is not None:
                _add_(p, -(lr * grad.data))
        return True


# Task 15.1: SGD's update, with momentum and weight decay
def sgd_update(param, grad, buffer, *, lr, momentum, dampening, weight_decay,
               nesterov, maximize):
    """One SGD update of ``param`` (in place) by its gradient ``grad`` (an
    array), in the order of PyTorch's ``_single_tensor_sgd``. ``buffer`` is
    the momentum buffer (None before the first step); returns the new one."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad + weight_decay * param.data  # grad.add(p, alpha=wd)
    if momentum != 0:
        if buffer is None:
            buffer = grad.copy()
        else:  # buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            buffer *= momentum
            buffer += (1 - dampening) * grad
        grad = grad + momentum * buffer if nesterov else buffer
    _add_(param, -lr * grad)  # p.add_(grad, alpha=-lr)
    return buffer


class Adam(Optimizer):
    """Adam: steps scaled by running averages of the gradient and its
    square, with their bias corrected."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, amsgrad=False, *, maximize=False,
                 **unsupported):
        _refuse("optim.Adam", unsupported)  # foreach, fused, capturable...
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
            amsgrad=amsgrad, maximize=maximize))
        self._refuse_duplicates(True)

    # Task 15.2: Adam's step
    def step(self):
        """One Adam update of every parameter that has a gradient."""
        group = self.param_groups[0]
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        for p in self.params:
            if p.grad is None:
                continue
            grad = self._gradient(p)  # maximize and weight decay, if set
            state = self._state(p)  # zero averages before the first step
            state["step"] += 1
            t, m, v = state["step"], state["exp_avg"], state["exp_avg_sq"]
            _lerp_(m, grad, 1 - beta1)  # m = beta1 * m + (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            if group["amsgrad"]:
                v = _running_max(state, v)
            step_size = lr / (1 - beta1 ** t)
            denom = np.sqrt(v) / (1 - beta2 ** t) ** 0.5 + eps
            _add_(p, -step_size * m / denom)

    def _gradient(self, p):
        """``p.grad``'s numbers; negated with ``maximize``, then plus
        ``weight_decay * p``, as PyTorch's Adam (an L2 penalty's)."""
        group = self.param_groups[0]
        grad = p.grad.data if not group["maximize"] else -p.grad.data
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * p.data
        return grad

    def _state(self, p):
        """``p``'s state, PyTorch's names: the step count and the two
        running averages, zeros at first (and amsgrad's running maximum)."""
        state = self.state.get(id(p))
        if state is None:
            state = self.state[id(p)] = {
                "step": 0.0, "exp_avg": np.zeros_like(p.data),
                "exp_avg_sq": np.zeros_like(p.data)}
            if self.param_groups[0]["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(p.data)
        return state


def _lerp_(average, value, weight):
    """``average.lerp_(value, weight)``: ``average + weight * (value -
    average)`` in place, with ATen's formulas. Of the two, each the more
    accurate on its own half of the weights, ATen picks by
    ``|weight| < 1/2`` (where the CPU fuses a multiply-add, ATen rounds
    once and NumPy twice: the last bits may differ)."""
    if abs(weight) < 0.5:
        average += weight * (value - average)
    else:
        average[...] = value - (value - average) * (1 - weight)


def _running_max(state, exp_avg_sq):
    """amsgrad: the running maximum of ``exp_avg_sq``, updated in place in
    ``state``; Adam divides by it instead."""
    np.maximum(state["max_exp_avg_sq"], exp_avg_sq,
               out=state["max_exp_avg_sq"])
    return state["max_exp_avg_sq"]
