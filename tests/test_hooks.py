"""Chapter 10: hooks run as in torch 2.13: the same calls, in the same order,
with the same gradients, and the same errors.

Every test runs one piece of code with ``lib = torch`` and ``lib = toygrad``
and compares what the two saw.
"""

import re
import warnings

import numpy as np
import pytest
import torch

import toygrad
from toygrad.utils.hooks import RemovableHandle

pytestmark = pytest.mark.ch10

LIBS = (torch, toygrad)


def numbers(t):
    return None if t is None else t.detach().numpy().tolist()


def both(scenario):
    """``scenario(lib)`` for both libraries: they must give the same."""
    seen = {lib: scenario(lib) for lib in LIBS}
    assert seen[toygrad] == seen[torch]
    return seen[torch]


def error_of(lib, action, kind=Exception):
    with pytest.raises(kind) as caught:
        action(lib)
    return type(caught.value).__name__, str(caught.value)


def record_every_hook(lib):
    """One graph, every kind of hook, and the order they fire in."""
    order = []
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    y.register_hook(lambda g: order.append(("y hook 1", numbers(g))))
    y.retain_grad()
    y.register_hook(lambda g: order.append(("y hook 2", numbers(g))) or g * 10)
    y.grad_fn.register_prehook(
        lambda gout: order.append(("MulBackward0 pre", numbers(gout[0]))))
    y.grad_fn.register_hook(lambda gin, gout: order.append(
        ("MulBackward0 post", [numbers(g) for g in gin], numbers(gout[0]))))
    accumulate = y.grad_fn.next_functions[0][0]
    accumulate.register_prehook(
        lambda gout: order.append(("AccumulateGrad pre", numbers(gout[0]))))
    accumulate.register_hook(lambda gin, gout: order.append(
        ("AccumulateGrad post", len(gin), numbers(gout[0]))))
    x.register_hook(lambda g: order.append(("x hook", numbers(g))))
    x.register_post_accumulate_grad_hook(
        lambda p: order.append(("x post-accumulate", numbers(p.grad))))
    z.backward()
    order.append(("y.grad", numbers(y.grad), y.retains_grad, x.retains_grad))
    return order


def test_hooks_fire_in_pytorch_s_order_with_pytorch_s_gradients():
    order = both(record_every_hook)
    assert [event[0] for event in order] == [
        "y hook 1", "y hook 2", "MulBackward0 pre", "MulBackward0 post",
        "x hook", "AccumulateGrad pre", "x post-accumulate",
        "AccumulateGrad post", "y.grad"]


def test_a_tensor_hook_replaces_the_gradient_of_a_leaf_and_of_a_non_leaf():
    def scenario(lib):
        x = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64,
                       requires_grad=True)
        x.register_hook(lambda g: g * 2)
        y = x.exp()
        y.register_hook(lambda g: g + 1)
        (y * x).sum().backward()
        return numbers(x.grad)

    both(scenario)


def test_hooks_of_one_tensor_run_in_registration_order_each_seeing_the_last():
    def scenario(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        for k in (2, 3, 5):
            x.register_hook(lambda g, k=k: seen.append(numbers(g)) or g * k)
        (x * x).sum().backward()
        return seen, numbers(x.grad)

    both(scenario)


def test_a_node_prehook_and_posthook_replace_gradients():
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        y = x * w
        y.grad_fn.register_prehook(lambda gout: (gout[0] * 2,))
        y.grad_fn.register_hook(lambda gin, gout: (gin[0], gin[1] * -1))
        y.sum().backward()
        return numbers(x.grad), numbers(w.grad)

    both(scenario)


def test_a_removed_hook_does_not_run_and_handles_work_as_context_managers():
    def scenario(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        handle = x.register_hook(lambda g: seen.append("removed"))
        handle.remove()
        handle.remove()  # twice is fine
        with x.register_hook(lambda g: seen.append("inside")):
            (x * 2).sum().backward()
        (x * 2).sum().backward()
        y = x * 2
        node_handle = y.grad_fn.register_prehook(
            lambda gout: seen.append("pre"))
        node_handle.remove()
        y.sum().backward()
        return seen, numbers(x.grad)

    assert both(scenario)[0] == ["inside"]


def test_handles_are_removable_handles_with_increasing_ids():
    x = toygrad.tensor([1.0], requires_grad=True)
    first, second = x.register_hook(print), x.register_hook(print)
    assert isinstance(first, RemovableHandle)
    assert second.id > first.id


def test_retain_grad_keeps_a_non_leaf_s_gradient_without_the_warning():
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x * x
        y.retain_grad()
        y.retain_grad()  # twice: one copy, not two
        x.retain_grad()  # a leaf: nothing to do
        (y * 3).sum().backward(retain_graph=True)
        (y * 3).sum().backward()  # accumulates
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            grad = numbers(y.grad)
        return grad, y.retains_grad, x.retains_grad

    both(scenario)


def test_the_non_leaf_grad_warning_is_pytorch_s():
    messages = []
    for lib in LIBS:
        y = lib.tensor([1.0], requires_grad=True) * 2
        with pytest.warns(UserWarning) as caught:
            assert y.grad is None
        # PyTorch adds the C++ line that warned: "(Triggered internally..."
        messages.append(str(caught[0].message).split(" (Triggered")[0])
    assert messages[0] == messages[1]


def test_post_accumulate_grad_hook_sees_the_updated_grad_and_can_step():
    def scenario(lib):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)

        def step(p):
            with lib.no_grad():
                p -= 0.5 * p.grad

        w.register_post_accumulate_grad_hook(step)
        (w * w).sum().backward()
        return numbers(w), numbers(w.grad)

    both(scenario)


ERRORS = {
    "register_hook, no grad": lambda lib: lib.tensor([1.0]).register_hook(
        lambda g: g),
    "post-accumulate hook, no grad":
        lambda lib: lib.tensor([1.0]).register_post_accumulate_grad_hook(
            print),
    "post-accumulate hook, non-leaf":
        lambda lib: (lib.tensor([1.0], requires_grad=True) * 2)
        .register_post_accumulate_grad_hook(print),
    "retain_grad, no grad": lambda lib: lib.tensor([1.0]).retain_grad(),
}


def _backward_with(lib, where, hook, kind="tensor"):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    target = x if where == "leaf" else y
    if kind == "tensor":
        target.register_hook(hook)
    elif kind == "pre":
        y.grad_fn.register_prehook(hook)
    else:
        y.grad_fn.register_hook(hook)
    (y * y).sum().backward()


def wrong_size(g):
    return lib_of(g).ones(3)


def lib_of(t):
    return torch if isinstance(t, torch.Tensor) else toygrad


def wrong_dtype(g):
    lib = lib_of(g)
    return lib.tensor(np.ones(2), dtype=lib.float64)


for where in ("leaf", "non-leaf"):
    ERRORS[f"tensor hook, {where}, wrong size"] = (
        lambda lib, w=where: _backward_with(lib, w, wrong_size))
    ERRORS[f"tensor hook, {where}, wrong dtype"] = (
        lambda lib, w=where: _backward_with(lib, w, wrong_dtype))
    ERRORS[f"tensor hook, {where}, not a tensor"] = (
        lambda lib, w=where: _backward_with(lib, w, lambda g: 3))
ERRORS.update({
    "prehook returns no tuple":
        lambda lib: _backward_with(lib, "", lambda g: 3, "pre"),
    "prehook returns two": lambda lib: _backward_with(
        lib, "", lambda g: (g[0], g[0]), "pre"),
    "prehook wrong size": lambda lib: _backward_with(
        lib, "", lambda g: (wrong_size(g[0]),), "pre"),
    "posthook returns one of two": lambda lib: _backward_with(
        lib, "", lambda gin, gout: (gin[0],), "post"),
    "posthook returns no tuple": lambda lib: _backward_with(
        lib, "", lambda gin, gout: 5, "post"),
})


@pytest.mark.parametrize("action", ERRORS.values(), ids=ERRORS.keys())
def test_errors_are_pytorch_s(action):
    errors = [error_of(lib, action) for lib in LIBS]
    assert errors[1] == errors[0]


def test_an_error_message_matches_when_taken_from_torch_at_run_time():
    kind, message = error_of(torch, ERRORS["register_hook, no grad"])
    with pytest.raises(RuntimeError, match=re.escape(message)):
        ERRORS["register_hook, no grad"](toygrad)


def clip_each_parameter(lib, max_norm):
    """Per-parameter clipping by a hook: each gradient scaled to norm
    ``max_norm`` at most, as it arrives."""
    gen = np.random.default_rng(0)
    w1, w2 = (lib.tensor(gen.standard_normal(shape), requires_grad=True)
              for shape in ((4, 3), (3, 2)))
    for w in (w1, w2):
        def clip(g):
            norm = float((g * g).sum()) ** 0.5
            return g * min(1.0, max_norm / (norm + 1e-6))
        w.register_hook(clip)
    x = lib.tensor(gen.standard_normal((5, 4)))
    ((x @ w1).tanh() @ w2).sum().backward()
    return [numbers(w.grad) for w in (w1, w2)]


def test_clipping_by_hook_gives_pytorch_s_gradients():
    mine, theirs = (clip_each_parameter(lib, 0.5) for lib in (toygrad, torch))
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)
        assert np.linalg.norm(a) <= 0.5 + 1e-9


def test_in_place_on_a_tensor_with_hooks_moves_retain_grad_only():
    # As PyTorch's update_tensor_hooks_on_new_gradfn: hooks registered
    # before the change stay on the old node, later ones go to the new
    # node, and retain_grad moves to the new node.
    def scenario(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: seen.append(("old", g.tolist())))
        w = y * 3
        y.mul_(2)
        y.register_hook(lambda g: seen.append(("new", g.tolist())))
        (w.sum() + (y * lib.tensor([1.0, 5.0])).sum()).backward()
        return seen, y.grad.tolist(), x.grad.tolist()
    assert scenario(toygrad) == scenario(torch)


def test_hooks_on_scalar_values_nodes():
    from toygrad.scalar import Value
    seen = []
    x = Value(2.0, requires_grad=True)
    y = x * x
    y.grad_fn.register_prehook(lambda gout: seen.append(gout) or (gout[0] * 3,))
    y.backward()
    assert seen == [(1.0,)] and x.grad == 12.0


def test_hooks_on_the_root_and_on_the_outputs_of_a_multi_output_node():
    def scenario(lib):
        seen = []
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: seen.append(("y", g.tolist())) or g * 3)
        y.backward(lib.ones(3))  # y is the root: its hook sees the seed
        x.register_hook(lambda g: seen.append(("x", g.tolist())))
        x.backward(lib.ones(3))  # a leaf as the root
        a, b, c = (x * 1).unbind(0)
        for name, t in (("b", b), ("c", c)):  # c receives no gradient
            t.register_hook(lambda g, name=name: seen.append(
                (name, None if g is None else g.tolist())))
        (a * 5 + b).backward()
        return seen, x.grad.tolist()

    both(scenario)
