"""Chapter 11: non-reentrant checkpoint recomputes exactly as far as torch
2.13's: it stops once the last tensor backward needs is saved again
(``early_stop``), or runs to the end with ``early_stop=False``; and it takes
or refuses checkpoint's other arguments as torch does.

Each step of the checkpointed function is a custom Function that counts its
forward calls, and saves its input or not; the counts after backward must be
torch's.
"""

import itertools
import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint

import toygrad
import toygrad.utils.checkpoint

pytestmark = pytest.mark.ch11

LIBS = (torch, toygrad)


def checkpoint(lib):
    return (torch.utils.checkpoint if lib is torch
            else toygrad.utils.checkpoint).checkpoint


def counted_steps(lib, saves):
    """One custom Function per step: doubles its input, counts its forward
    calls in ``calls``, and saves its input when ``saves[k]``."""
    calls = [0] * len(saves)
    steps = []
    for k, save in enumerate(saves):
        class Step(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=k, save=save):
                calls[k] += 1
                if save:
                    ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                saved = ctx.saved_tensors  # unpacked once: checkpoint's rule
                if saved:
                    assert saved[0].shape == grad.shape
                return grad * 2
        steps.append(Step)
    return steps, calls


def run(lib, saves, early_stop):
    steps, calls = counted_steps(lib, saves)

    def function(x):
        for step in steps:
            x = step.apply(x)
        return x

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    kwargs = {} if early_stop is None else {"early_stop": early_stop}
    out = checkpoint(lib)(function, x, use_reentrant=False, **kwargs)
    after_forward = list(calls)
    out.sum().backward()
    return after_forward, calls, x.grad.tolist()


@pytest.mark.parametrize("early_stop", [None, True, False])
@pytest.mark.parametrize(
    "saves", [s for n in range(1, 5)
              for s in itertools.product((False, True), repeat=n)
              if any(s)])
def test_recomputation_stops_where_pytorchs_does(saves, early_stop):
    assert run(toygrad, saves, early_stop) == run(torch, saves, early_stop)


def test_the_recomputation_stops_after_the_last_saved_tensor():
    # Two of the four steps save; torch recomputes steps 0 to 2 only.
    _, calls, _ = run(toygrad, (False, True, True, False), None)
    assert calls == run(torch, (False, True, True, False), None)[1]
    assert calls == [2, 2, 2, 1]


def outcome(lib, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            checkpoint(lib)(lambda x: x.exp(),
                            lib.tensor([1.0], requires_grad=True), **kwargs)
        except Exception as error:  # noqa: BLE001  (compared with torch's)
            return type(error).__name__, str(error)
    return "ok"


@pytest.mark.parametrize("kwargs", [
    {"use_reentrant": True, "unknown": 1},
    {"use_reentrant": True, "debug": True},
    {"use_reentrant": True, "context_fn": lambda: None},
    {"use_reentrant": False, "debug": False},
    {"use_reentrant": False, "early_stop": False},
    {"use_reentrant": False, "preserve_rng_state": False},
], ids=lambda kwargs: ",".join(kwargs))
def test_arguments_accepted_or_refused_as_pytorch(kwargs):
    ours, theirs = outcome(toygrad, **kwargs), outcome(torch, **kwargs)
    assert ours == theirs


@pytest.mark.parametrize("kwargs", [
    {"use_reentrant": True},
    {"use_reentrant": False, "debug": True},
    {"use_reentrant": False, "determinism_check": "none"},
    {"use_reentrant": False, "context_fn": lambda: None},
], ids=lambda kwargs: ",".join(  # a function by its name: the same id in every process
    f"{k}={getattr(v, '__name__', v)}" for k, v in kwargs.items()))
def test_what_toygrad_lacks_is_refused_by_name(kwargs):
    kind, message = outcome(toygrad, **kwargs)
    assert kind == "NotImplementedError" and "toygrad" in message
    assert outcome(torch, **kwargs) == "ok" or kwargs["use_reentrant"] is False
