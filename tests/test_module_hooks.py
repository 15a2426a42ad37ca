"""A module's full backward hooks (chapter 10) beside torch.nn.Module's.

Each scenario is written once and run on both libraries; it returns a trace: the graph
walked from the output (node names and edges), then every hook call in order, with the
gradients it saw, then the leaves' gradients. The traces must be equal (numbers to
float64 rounding), as must the errors and warnings.
"""

import warnings
from collections import namedtuple

import numpy as np
import pytest
import torch

import toygrad
from graphs import structure

pytestmark = [pytest.mark.ch10, pytest.mark.differential]

LIBS = (torch, toygrad)


def numbers(value):
    """A gradient, or a tuple of them, as plain data (None stays None)."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(numbers(v) for v in value)
    return ("tensor", str(value.dtype).rsplit(".", 1)[-1], value.tolist())


def same(ours, theirs):
    if isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple)):
        return (type(ours) is type(theirs) and len(ours) == len(theirs)
                and all(same(a, b) for a, b in zip(ours, theirs)))
    if isinstance(ours, float) and isinstance(theirs, float):
        return bool(np.isclose(ours, theirs, rtol=1e-12, atol=1e-12))
    return ours == theirs


def linear(lib, n_in=3, n_out=2, seed=0):
    """A float64 Linear with the same numbers in both libraries."""
    rng = np.random.default_rng(seed)
    layer = lib.nn.Linear(n_in, n_out)
    with lib.no_grad():
        layer.weight = lib.nn.Parameter(lib.tensor(rng.standard_normal((n_out, n_in))))
        layer.bias = lib.nn.Parameter(lib.tensor(rng.standard_normal(n_out)))
    return layer


def leaf(lib, shape, seed=1, requires_grad=True):
    rng = np.random.default_rng(seed)
    return lib.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


def recorder(log, name):
    """A module hook and a module pre-hook that note what they see."""
    def hook(module, grad_input, grad_output):
        log.append((name + ": hook", numbers(grad_input), numbers(grad_output)))

    def pre_hook(module, grad_output):
        log.append((name + ": pre-hook", numbers(grad_output)))
    return hook, pre_hook


def graph(output):
    return structure(output)


def compare(scenario):
    ours, theirs = scenario(toygrad), scenario(torch)
    assert same(ours, theirs), (ours, theirs)
    return theirs


# The scenarios.

def one_linear(lib):
    log = []
    layer = linear(lib)
    hook, pre_hook = recorder(log, "linear")
    layer.register_full_backward_hook(hook)
    layer.register_full_backward_pre_hook(pre_hook)
    x = leaf(lib, (4, 3))
    y = layer(x)
    shown = graph(y)
    (y * y).sum().backward()
    return shown, log, numbers(x.grad), numbers(layer.weight.grad)


def test_one_linear_inserts_two_nodes_and_calls_pre_hook_then_hook():
    shown, log, _, _ = compare(one_linear)
    names = [name for name, _, _ in shown]
    assert names[0] == "BackwardHookFunctionBackward"
    assert names.count("BackwardHookFunctionBackward") == 2
    assert [event[0] for event in log] == ["linear: pre-hook", "linear: hook"]


def sequential(lib):
    log = []
    first, second = linear(lib, 3, 4, seed=2), linear(lib, 4, 2, seed=3)
    model = lib.nn.Sequential(first, lib.nn.ReLU(), second)
    for name, module in (("model", model), ("first", first), ("second", second)):
        hook, pre_hook = recorder(log, name)
        module.register_full_backward_hook(hook)
        module.register_full_backward_pre_hook(pre_hook)
    x = leaf(lib, (5, 3))
    y = model(x)
    shown = graph(y)
    y.sum().backward()
    return shown, log, numbers(x.grad)


def test_hooks_on_a_container_and_its_children():
    shown, log, _ = compare(sequential)
    assert [event[0] for event in log] == [
        "model: pre-hook", "second: pre-hook", "second: hook", "first: pre-hook",
        "first: hook", "model: hook"]


def two_inputs(lib):
    log = []

    class Scale(lib.nn.Module):
        def forward(self, a, b, factor):
            return a * b * factor, a - b

    module = Scale()
    hook, pre_hook = recorder(log, "scale")
    module.register_full_backward_hook(hook)
    module.register_full_backward_pre_hook(pre_hook)
    a, b = leaf(lib, (3,), seed=4), leaf(lib, (3,), seed=5, requires_grad=False)
    product, difference = module(a, b, 2.0)
    shown = graph(product), graph(difference)
    product.sum().backward()
    return shown, log, numbers(a.grad), b.grad is None


def test_an_input_that_needs_no_grad_and_a_number_argument():
    _, log, _, _ = compare(two_inputs)
    (_, grad_output), (_, grad_input, _) = log
    assert grad_output[1] is None and grad_input[2] is None  # (differ, 2.0)


def used_twice(lib):
    log = []
    layer = linear(lib)
    hook, pre_hook = recorder(log, "linear")
    layer.register_full_backward_hook(hook)
    layer.register_full_backward_pre_hook(pre_hook)
    x = leaf(lib, (2, 3))
    y = layer(x)
    (y * y + y.exp()).sum().backward()
    return graph(y), log, numbers(x.grad)


def test_an_output_used_twice_calls_each_hook_once():
    _, log, _ = compare(used_twice)
    assert len(log) == 2


def replacing(lib, prepend):
    log = []
    layer = linear(lib)
    x = leaf(lib, (2, 3))

    def doubled(module, grad_input, grad_output):
        log.append(("doubled", numbers(grad_input)))
        return (grad_input[0] * 2,)

    def shifted(module, grad_input, grad_output):
        log.append(("shifted", numbers(grad_input)))
        return (grad_input[0] + 1,)

    def halved_output(module, grad_output):
        log.append(("halved output", numbers(grad_output)))
        return (grad_output[0] / 2,)

    layer.register_full_backward_hook(doubled)
    layer.register_full_backward_hook(shifted, prepend=prepend)
    layer.register_full_backward_pre_hook(halved_output)
    (layer(x) ** 2).sum().backward()
    return log, numbers(x.grad), numbers(layer.weight.grad)


@pytest.mark.parametrize("prepend", [False, True])
def test_hooks_and_a_pre_hook_that_return_replacements(prepend):
    log, _, _ = compare(lambda lib: replacing(lib, prepend))
    order = [event[0] for event in log]
    assert order == (["halved output", "shifted", "doubled"] if prepend
                     else ["halved output", "doubled", "shifted"])


def removed(lib):
    log = []
    layer = linear(lib)
    hook, pre_hook = recorder(log, "linear")
    handles = [layer.register_full_backward_hook(hook),
               layer.register_full_backward_pre_hook(pre_hook)]
    x = leaf(lib, (2, 3))
    before = layer(x)
    for handle in handles:
        handle.remove()
    after = layer(x)
    (before.sum() + after.sum()).backward()  # the first call's hooks still fire
    return graph(before), graph(after), log, numbers(x.grad)


def test_removal_by_handle():
    _, shown_after, log, _ = compare(removed)
    assert "BackwardHookFunctionBackward" not in [name for name, _, _ in shown_after]
    assert len(log) == 2


def mixed(lib):
    log = []
    layer = linear(lib)
    hook, pre_hook = recorder(log, "linear")
    layer.register_full_backward_hook(hook)
    layer.register_full_backward_pre_hook(pre_hook)
    x = leaf(lib, (2, 3))
    h = x * 3  # a non-leaf input: its node runs after the module's
    h.register_hook(lambda g: log.append(("h: tensor hook", numbers(g))))
    y = layer(h)
    y.register_hook(lambda g: log.append(("y: tensor hook", numbers(g))))
    y.retain_grad()
    out_node = y.grad_fn  # the outputs' BackwardHookFunctionBackward
    out_node.register_prehook(lambda gout: log.append(("out node: pre-hook",)))
    out_node.register_hook(lambda gin, gout: log.append(("out node: post-hook",)))
    inner = out_node.next_functions[0][0]  # the Linear's own last node
    inner.register_prehook(lambda gout: log.append((inner.name() + ": pre-hook",)))
    in_node = h.grad_fn  # MulBackward0
    in_node.register_prehook(lambda gout: log.append(("h node: pre-hook",)))
    y.sum().backward()
    return graph(y), log, numbers(x.grad), numbers(y.grad)


def test_order_against_tensor_and_node_hooks():
    _, log, _, _ = compare(mixed)
    assert [event[0] for event in log] == [
        "y: tensor hook", "out node: pre-hook", "linear: pre-hook", "out node: post-hook",
        "AddmmBackward0: pre-hook", "linear: hook", "h: tensor hook", "h node: pre-hook"]


def no_input_needs_grad(lib):
    log = []
    layer = linear(lib)
    hook, pre_hook = recorder(log, "linear")
    layer.register_full_backward_hook(hook)
    layer.register_full_backward_pre_hook(pre_hook)
    x = leaf(lib, (2, 3), requires_grad=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = layer(x)
        y.sum().backward()
    said = [(w.category.__name__, str(w.message)) for w in caught]
    return graph(y), log, said, numbers(layer.bias.grad)


def test_no_input_needs_grad_calls_the_hook_at_the_outputs_and_warns():
    shown, log, said, _ = compare(no_input_needs_grad)
    # Only the outputs' identity node: the inputs' one is not made.
    assert [name for name, _, _ in shown].count("BackwardHookFunctionBackward") == 1
    assert [event[0] for event in log] == ["linear: pre-hook", "linear: hook"]
    assert log[1][1] == (None,)
    assert len(said) == 1 and "no inputs require gradients" in said[0][1]


def keyword_tensor(lib, first_requires_grad):
    """A tensor passed by keyword: never in grad_input, never through the identity."""
    log = []

    class Product(lib.nn.Module):
        def forward(self, a, b=None):
            return a * b

    module = Product()
    hook, pre_hook = recorder(log, "product")
    module.register_full_backward_hook(hook)
    module.register_full_backward_pre_hook(pre_hook)
    a = leaf(lib, (3,), seed=8, requires_grad=first_requires_grad)
    b = leaf(lib, (3,), seed=9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = module(a, b=b)
        y.sum().backward()
    said = [(w.category.__name__, str(w.message)) for w in caught]
    return graph(y), log, said, numbers(a.grad), numbers(b.grad)


@pytest.mark.parametrize("first_requires_grad", [True, False])
def test_a_keyword_tensor_has_no_place_in_grad_input(first_requires_grad):
    shown, log, said, _, b_grad = compare(
        lambda lib: keyword_tensor(lib, first_requires_grad))
    names = [name for name, _, _ in shown]
    (_, grad_output), (_, grad_input, _) = log
    assert len(grad_output) == 1 and len(grad_input) == 1  # a's place only
    assert b_grad is not None  # b still gets its gradient, past the hooks
    if first_requires_grad:
        assert names.count("BackwardHookFunctionBackward") == 2 and said == []
        assert grad_input[0] is not None
    else:  # b alone requires grad: no inputs' node, the hook fires at the outputs
        assert names.count("BackwardHookFunctionBackward") == 1 and len(said) == 1
        assert grad_input == (None,)


def output_kinds(lib):
    """Outputs that are not all tensors, a keyword tensor, no_grad."""
    log = []
    Pair = namedtuple("Pair", "value count")

    class Odd(lib.nn.Module):
        def forward(self, a, scale=None):
            return Pair(a * scale, 3)

    class Listed(lib.nn.Module):
        def forward(self, a):
            return [a * 2]

    odd, listed = Odd(), Listed()
    for name, module in (("odd", odd), ("listed", listed)):
        hook, pre_hook = recorder(log, name)
        module.register_full_backward_hook(hook)
        module.register_full_backward_pre_hook(pre_hook)
    a, scale = leaf(lib, (3,), seed=6), leaf(lib, (3,), seed=7)
    pair = odd(a, scale=scale)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (result,) = listed(a)
    with lib.no_grad():
        untouched = odd(a, scale=scale).value
    (pair.value.sum() + result.sum()).backward()
    said = [(w.category.__name__, str(w.message)) for w in caught]
    return (type(pair).__name__, pair.count, graph(pair.value), graph(result),
            untouched.grad_fn is None, log, said, numbers(a.grad), numbers(scale.grad))


def test_outputs_that_are_not_all_tensors_and_a_keyword_input():
    kind, _, _, shown_list, _, log, said, _, _ = compare(output_kinds)
    assert kind == "Pair" and [event[0] for event in log] == ["odd: pre-hook", "odd: hook"]
    assert shown_list[0][0] == "MulBackward0"  # the list's tensor is not wrapped
    assert len(said) == 1 and "should be a Tensor or a tuple of Tensors" in said[0][1]


def views(lib):
    """What the module's forward and its caller receive: views, not the tensors."""
    layer = linear(lib)
    seen = []
    layer.register_full_backward_hook(lambda *args: None)
    original = layer.forward
    layer.forward = lambda x: seen.append(x) or original(x)
    x = leaf(lib, (2, 3)) * 1
    y = layer(x)
    inner = seen[0]
    return (inner is x, inner._is_view(), inner._base is x, y._is_view(),
            y.grad_fn.name(), inner.grad_fn.name())


def test_forward_and_caller_get_views():
    assert compare(views)[:4] == (False, True, True, True)


# Errors.

def error_of(action):
    """The type and text of the error ``action(lib)`` raises on both libraries."""
    said = []
    for lib in (toygrad, torch):
        with pytest.raises(Exception) as caught:
            action(lib)
        said.append((type(caught.value).__name__, str(caught.value)))
    assert said[0] == said[1], said
    return said[1]


def with_hook(lib, hook=None, pre_hook=None, requires_grad=True):
    layer = linear(lib)
    if hook:
        layer.register_full_backward_hook(hook)
    if pre_hook:
        layer.register_full_backward_pre_hook(pre_hook)
    return layer, leaf(lib, (2, 3), requires_grad=requires_grad)


def backward_through(lib, **hooks):
    layer, x = with_hook(lib, **hooks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer(x).sum().backward()


ERRORS = {
    "hook returns too many": lambda lib: backward_through(
        lib, hook=lambda m, gi, go: gi + gi),
    "pre-hook returns too many": lambda lib: backward_through(
        lib, pre_hook=lambda m, go: go + go),
    "hook changes the shape": lambda lib: backward_through(
        lib, hook=lambda m, gi, go: (gi[0].sum(),)),
    "hook returns a gradient where no input needs one": lambda lib: backward_through(
        lib, hook=lambda m, gi, go: (go[0],), requires_grad=False),
    "output changed in place": lambda lib: linear_output_changed(lib),
    "input changed in place by forward": lambda lib: input_changed(lib),
}


def linear_output_changed(lib):
    layer, x = with_hook(lib, hook=lambda *args: None)
    layer(x).mul_(2)


def input_changed(lib):
    class InPlace(lib.nn.Module):
        def forward(self, a, b):
            return a.add_(1), b

    module = InPlace()
    module.register_full_backward_pre_hook(lambda *args: None)
    module(leaf(lib, (3,)) * 1, leaf(lib, (3,)) * 1)


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_pytorch(name):
    kind, text = error_of(ERRORS[name])
    assert kind in ("RuntimeError", "TypeError") and text


def test_the_non_full_hook_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="register_backward_hook"):
        toygrad.nn.Linear(2, 2).register_backward_hook(lambda *args: None)
