"""Chapter 11's probes: a saved tensor through the pack hook (task 11.2), and checkpoint
(task 11.1). Each is written for either library (``lib``: toygrad here, torch for the
expectations in tests/test_tasks_ch11.py)."""

import numpy as np

import toygrad
import toygrad.autograd.graph
import toygrad.utils.checkpoint
from verdict import error_of, vary


def hooks(lib):
    return lib.autograd.graph


def checkpoint(lib):
    if lib is toygrad:
        return toygrad.utils.checkpoint.checkpoint
    import torch.utils.checkpoint
    return torch.utils.checkpoint.checkpoint


def numbers(t):
    return t.data if isinstance(t, toygrad.Tensor) else t.detach().numpy()


def saved_of(lib, node):
    """What a node unpacks, by the engine's route in each library."""
    return node.saved_tensors[0] if lib is toygrad else node._saved_result


def pack_hook(lib, seed=0):
    """exp under a pack hook that keeps a NumPy copy: what the hook saw, and what comes
    back unpacked."""
    log = []

    def pack(t):
        log.append((tuple(t.shape), t.requires_grad, t.grad_fn.name()))
        return numbers(t) * 1.0  # a copy, as a NumPy array

    x = lib.tensor(list(vary(seed, 0.5, -1.0)), dtype=lib.float64, requires_grad=True)
    with hooks(lib).saved_tensors_hooks(pack, lambda a: lib.tensor(a)):
        y = x.exp()  # saves its result
    unpacked = saved_of(lib, y.grad_fn)
    return [log, list(numbers(unpacked)), unpacked.grad_fn is y.grad_fn]


def pack_hook_that_changes_its_input(lib, seed=0):
    x = lib.tensor(list(vary(seed, 0.5, -1.0)), dtype=lib.float64, requires_grad=True)

    def save():
        with hooks(lib).saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):
            (x * 1.0).exp()
    return error_of(save)


def recomputed(lib, seed=0):
    """A checkpointed exp: the function's calls after forward, then after its saved
    tensor is unpacked, and the numbers unpacked."""
    calls = []

    def f(h):
        calls.append(1)
        return h.exp()

    x = lib.tensor(list(vary(seed, 0.5, -1.0)), dtype=lib.float64, requires_grad=True)
    y = checkpoint(lib)(f, x, use_reentrant=False)
    after_forward = len(calls)
    unpacked = saved_of(lib, y.grad_fn)
    return [after_forward, len(calls), list(numbers(unpacked))]


def kept_by_checkpoint(lib, seed=0):
    """The shapes a pack hook sees while a checkpointed function runs: its inputs only."""
    log = []
    x = lib.tensor(np.ones((2, 3)), requires_grad=True)
    with hooks(lib).saved_tensors_hooks(lambda t: log.append(tuple(t.shape)) or t,
                                        lambda t: t):
        checkpoint(lib)(lambda h: (h * h).tanh(), x, use_reentrant=False)
    return log


def reentrant_refused(seed=0):
    x = toygrad.tensor(np.ones((2, 3)), requires_grad=True)
    try:
        toygrad.utils.checkpoint.checkpoint(lambda h: h.exp(), x, use_reentrant=True)
    except NotImplementedError as error:  # refused by name, as toygrad does
        return "use_reentrant=True" in str(error)
    return False


# What the sandbox runs: each probe on toygrad.

def pack_hook_toygrad(seed=0):
    return pack_hook(toygrad, seed)


def pack_hook_that_changes_its_input_toygrad(seed=0):
    return pack_hook_that_changes_its_input(toygrad, seed)


def recomputed_toygrad(seed=0):
    return recomputed(toygrad, seed)


def kept_by_checkpoint_toygrad(seed=0):
    return kept_by_checkpoint(toygrad, seed)
