"""Chapter 11's tasks: a saved tensor through the pack hook, and checkpoint."""

import numpy as np
import pytest
import torch
import torch.utils.checkpoint

import toygrad
import toygrad.autograd.graph
import toygrad.utils.checkpoint

pytestmark = pytest.mark.ch11


def hooks(lib):
    return torch.autograd.graph if lib is torch else toygrad.autograd.graph


def checkpoint(lib):
    return (torch.utils.checkpoint.checkpoint if lib is torch
            else toygrad.utils.checkpoint.checkpoint)


def numbers(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.data


def saved_of(lib, node):
    """What a node unpacks, by the engine's route in each library."""
    return (node._saved_result if lib is torch else node.saved_tensors[0])


@pytest.mark.task11_2
def test_the_pack_hook_sees_each_saved_tensor_and_its_result_is_kept():
    seen = []
    for lib in (toygrad, torch):
        log = []

        def pack(t):
            log.append((tuple(t.shape), t.requires_grad, t.grad_fn.name()))
            return numbers(t) * 1.0  # a copy, as a NumPy array

        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        with hooks(lib).saved_tensors_hooks(pack, lambda a: lib.tensor(a)):
            y = x.exp()  # saves its result
        unpacked = saved_of(lib, y.grad_fn)
        seen.append((log, list(numbers(unpacked)),
                     unpacked.grad_fn is y.grad_fn))
    assert seen[0] == seen[1]
    assert seen[0][0] == [((2,), True, "ExpBackward0")]


@pytest.mark.task11_2
def test_a_pack_hook_that_changes_its_input_is_refused_with_pytorch_s_error():
    errors = []
    for lib in (toygrad, torch):
        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            with hooks(lib).saved_tensors_hooks(lambda t: t.mul_(2),
                                                lambda t: t):
                (x * 1.0).exp()
        errors.append(str(error.value))
    assert errors[0] == errors[1]
    assert "pack hook is modifying its input in place" in errors[0]


@pytest.mark.task11_1
def test_checkpoint_runs_the_function_again_when_a_saved_tensor_is_needed():
    seen = []
    for lib in (toygrad, torch):
        calls = []

        def f(h):
            calls.append(1)
            return h.exp()

        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        y = checkpoint(lib)(f, x, use_reentrant=False)
        after_forward = len(calls)
        unpacked = saved_of(lib, y.grad_fn)
        seen.append((after_forward, len(calls), list(numbers(unpacked))))
    assert seen[0] == seen[1]
    assert seen[0][:2] == (1, 2)


@pytest.mark.task11_1
def test_checkpoint_keeps_only_its_inputs_and_refuses_the_reentrant_variant():
    kept = []
    for lib in (toygrad, torch):
        log = []
        x = lib.tensor(np.ones((2, 3)), requires_grad=True)
        with hooks(lib).saved_tensors_hooks(
                lambda t: log.append(tuple(t.shape)) or t, lambda t: t):
            checkpoint(lib)(lambda h: (h * h).tanh(), x,
                            use_reentrant=False)
        kept.append(log)
    assert kept[0] == kept[1] == [(2, 3)]
    with pytest.raises(NotImplementedError, match="use_reentrant=True"):
        toygrad.utils.checkpoint.checkpoint(lambda h: h.exp(), x,
                                            use_reentrant=True)
