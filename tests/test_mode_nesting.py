"""Chapter 10: every nesting of the grad-mode switches, to depth 3, beside
torch 2.13.

``no_grad``, ``enable_grad``, ``set_grad_enabled(True/False)`` and
``inference_mode(True/False)``, each used as a ``with`` block or as a
decorator (and ``set_grad_enabled`` also as a plain statement), nested three
deep in every order. At every level the test compares what torch and toygrad
report (``is_grad_enabled``, ``is_inference_mode_enabled``) and what an
operation there gives (``requires_grad``, ``grad_fn``, ``is_inference``),
and after the whole nest, that the modes are back.
"""

import itertools

import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch12  # two tests take autograd.grad (chapter 12)

LIBS = (torch, toygrad)

SWITCHES = {
    "no_grad": lambda lib: lib.no_grad(),
    "enable_grad": lambda lib: lib.enable_grad(),
    "set_grad_enabled(True)": lambda lib: lib.set_grad_enabled(True),
    "set_grad_enabled(False)": lambda lib: lib.set_grad_enabled(False),
    "inference_mode(True)": lambda lib: lib.inference_mode(True),
    "inference_mode(False)": lambda lib: lib.inference_mode(False),
}


def _forms(name):
    forms = ["with", "decorator"]
    if name.startswith("set_grad_enabled"):
        forms.append("statement")  # sets the mode until changed again
    return forms


NESTS = [
    tuple(zip(names, forms))
    for names in itertools.product(SWITCHES, repeat=3)
    for forms in itertools.product(*[_forms(name) for name in names])]


@pytest.fixture(autouse=True)
def grad_mode_on():
    yield
    for lib in LIBS:  # a statement-form set_grad_enabled stays set
        lib.set_grad_enabled(True)


def observe(lib, x):
    """What the current modes are and what an operation records."""
    y = x * 2
    node = y.grad_fn
    return (lib.is_grad_enabled(), lib.is_inference_mode_enabled(),
            y.requires_grad, y.is_leaf, y.is_inference(),
            None if node is None else node.name())


def run_nest(lib, nest):
    """Enter the switches of ``nest`` one inside the other, observing at
    every level; return the observations, and the modes after."""
    x = lib.ones(2, requires_grad=True)
    seen = []

    def level(depth):
        seen.append(observe(lib, x))
        if depth == len(nest):
            return
        name, form = nest[depth]
        switch = SWITCHES[name]
        if form == "with":
            with switch(lib):
                level(depth + 1)
        elif form == "decorator":
            switch(lib)(level)(depth + 1)
        else:  # a plain statement: the mode stays as it sets it
            switch(lib)
            level(depth + 1)

    level(0)
    seen.append(observe(lib, x))
    return seen


@pytest.mark.parametrize("outer", SWITCHES)
def test_nested_modes_as_in_pytorch(outer):
    # One test per outermost switch, the nests inside it in a loop (pytest
    # would spend longer on 2748 tests than on running them).
    for nest in NESTS:
        if nest[0][0] != outer:
            continue
        seen = {}
        for lib in LIBS:
            lib.set_grad_enabled(True)
            seen[lib] = run_nest(lib, nest)
        assert seen[toygrad] == seen[torch], nest


def test_enable_grad_inside_inference_mode_records_nothing():
    # The example: grad mode on again, but inference mode still on.
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            with lib.enable_grad():
                y = x * x
            with lib.set_grad_enabled(True):
                z = x.exp()
        assert lib.is_grad_enabled()
        assert (y.requires_grad, y.grad_fn, y.is_inference()) == (
            False, None, True)
        assert (z.requires_grad, z.grad_fn) == (False, None)


def test_backward_inside_inference_mode_records_no_graph():
    # create_graph=True turns grad mode on for the pass; inference mode
    # still records nothing, so the gradient has no history.
    seen = {}
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        out = (x * x * x).sum()
        with lib.inference_mode():
            grad, = lib.autograd.grad(out, x, create_graph=True)
        seen[lib] = (grad.tolist(), grad.requires_grad, grad.grad_fn is None,
                     grad.is_inference())
    assert seen[toygrad] == seen[torch]


def test_grad_mode_inside_backward_is_create_graph_even_in_inference():
    seen = {}
    for lib in LIBS:
        modes = []

        class Spy(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                modes.append(("forward", lib.is_grad_enabled()))
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                modes.append(("backward", lib.is_grad_enabled(),
                              lib.is_inference_mode_enabled()))
                return grad * 2

        x = lib.ones(2, requires_grad=True)
        for create_graph in (False, True):
            out = Spy.apply(x).sum()
            with lib.inference_mode():
                lib.autograd.grad(out, x, create_graph=create_graph)
        seen[lib] = modes
    assert seen[toygrad] == seen[torch]


def test_a_custom_function_under_enable_grad_in_inference_is_refused():
    # PyTorch records a custom Function there (its built-in operations it
    # does not): toygrad refuses by name rather than differ.
    class Double(toygrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            assert not toygrad.is_grad_enabled()  # as PyTorch's forward
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = toygrad.ones(2, requires_grad=True)
    with toygrad.inference_mode(), toygrad.enable_grad():
        with pytest.raises(NotImplementedError, match="custom Function"):
            Double.apply(x)
        assert not Double.apply(x.detach()).requires_grad  # nothing to record
    with toygrad.inference_mode():  # grad mode off: nothing to refuse
        assert not Double.apply(x).requires_grad


def test_leaving_no_grad_out_of_order_keeps_inference_mode_on():
    # __exit__ restores grad mode only (torch's no_grad sets the mode it
    # found), so inference mode, entered later and still on, records
    # nothing.
    seen = {}
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        outer, inner = lib.no_grad(), lib.inference_mode()
        outer.__enter__()
        inner.__enter__()
        outer.__exit__(None, None, None)
        y = x * 2
        state = (lib.is_grad_enabled(), lib.is_inference_mode_enabled(),
                 y.requires_grad, y.is_inference())
        inner.__exit__(None, None, None)
        seen[lib] = state, lib.is_grad_enabled(), \
            lib.is_inference_mode_enabled()
    assert seen[toygrad] == seen[torch]
