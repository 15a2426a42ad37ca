"""Chapter 10's task: ``call_function`` runs a node's hooks in PyTorch's order.

The tests call ``call_function`` by hand, node by node, as the engine would,
and compare with PyTorch's backward.
"""

import pytest
import torch

import toygrad
from toygrad.autograd.hooks import call_function

pytestmark = pytest.mark.ch10


def hooked(lib, order):
    """y = x * 3, with each kind of hook on y, its node, x and x's node."""
    x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: order.append(("y hook", g.tolist())) or g * 2)
    y.grad_fn.register_prehook(
        lambda gout: order.append(("pre", gout[0].tolist())))
    y.grad_fn.register_hook(
        lambda gin, gout: order.append(("post", gin[0].tolist())))
    leaf_node = y.grad_fn.next_functions[0][0]
    leaf_node.register_prehook(
        lambda gout: order.append(("leaf pre", gout[0].tolist())))
    leaf_node.register_hook(lambda gin, gout: order.append(("leaf post",)))
    x.register_hook(lambda g: order.append(("x hook", g.tolist())))
    x.register_post_accumulate_grad_hook(
        lambda p: order.append(("x accumulated", p.grad.tolist())))
    return x, y, leaf_node


def run_by_hand(node, grad):
    """What the engine does for one node: its hooks and the node, via
    call_function; returns the gradients it sends on."""
    with toygrad.no_grad():  # as during backward
        return call_function(node, (grad,))[1]


@pytest.mark.task10_1
def test_hooks_run_in_pytorch_s_order_with_pytorch_s_gradients():
    ours, theirs = [], []
    x, y, leaf_node = hooked(toygrad, ours)
    to_x, to_3 = run_by_hand(y.grad_fn,
                             toygrad.ones(2, dtype=toygrad.float64))
    assert to_3 is None  # the number 3 needs no gradient
    assert run_by_hand(leaf_node, to_x) == ()
    tx, ty, _ = hooked(torch, theirs)
    ty.backward(torch.ones(2, dtype=torch.float64))
    assert ours == theirs
    assert x.grad.tolist() == tx.grad.tolist()


@pytest.mark.task10_1
def test_a_pre_hook_s_gradients_reach_the_node_and_a_post_hook_s_go_on():
    x = toygrad.tensor([1.0, 2.0], dtype=toygrad.float64, requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda gout: (gout[0] * 10,))
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, gin[1]))
    grads_in, grads_out = call_function(
        y.grad_fn, (toygrad.ones(2, dtype=toygrad.float64),))
    assert [g.tolist() for g in grads_in] == [[10.0, 10.0]]
    assert grads_out[0].tolist() == [31.0, 31.0] and grads_out[1] is None
    t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    ty = t * 3
    ty.grad_fn.register_prehook(lambda gout: (gout[0] * 10,))
    ty.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, gin[1]))
    ty.sum().backward()
    assert t.grad.tolist() == grads_out[0].tolist()


@pytest.mark.task10_1
def test_a_hook_returning_the_wrong_size_is_refused_as_in_pytorch():
    messages = []
    x = toygrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g.sum())
    leaf_node = (x * 1).grad_fn.next_functions[0][0]
    with pytest.raises(RuntimeError) as error:
        call_function(leaf_node, (toygrad.ones(2),))
    messages.append(str(error.value))
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    t.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError) as error:
        (t * 1).sum().backward()
    messages.append(str(error.value))
    assert messages[0] == messages[1]


def retained(lib):
    """y = x * x retains its gradient over two backward calls."""
    x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
    y = x * x
    y.retain_grad()
    y.retain_grad()  # a second call adds nothing
    (y * 3).sum().backward(retain_graph=True)
    first = y.grad
    first_numbers = first.tolist()
    (y * 3).sum().backward()
    return (first_numbers, y.grad.tolist(), first.tolist(),
            y.grad is first, y.retains_grad)


@pytest.mark.task10_2
def test_a_retained_gradient_is_kept_then_added_into_a_new_tensor():
    assert retained(toygrad) == retained(torch)


@pytest.mark.task10_2
def test_retain_grad_refuses_a_tensor_without_grad_and_skips_a_leaf():
    seen = {}
    for lib in (toygrad, torch):
        leaf = lib.tensor([1.0], requires_grad=True)
        leaf.retain_grad()
        with pytest.raises(RuntimeError) as error:
            lib.tensor([1.0]).retain_grad()
        seen[lib] = (leaf.retains_grad, str(error.value))
    assert seen[toygrad] == seen[torch]


@pytest.mark.task10_2
def test_a_retained_gradient_is_read_without_a_warning():
    import warnings
    x = toygrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [1.0, 1.0]
