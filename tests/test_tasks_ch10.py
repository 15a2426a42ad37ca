"""Chapter 10's task: ``call_function`` runs a node's hooks in PyTorch's order."""

import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch10


def order_around_one_node(lib):
    """Each kind of hook on y = x * x and on x's AccumulateGrad, recorded."""
    order = []
    x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
    y = x * x
    y.register_hook(lambda g: order.append(("y hook", g.tolist())) or g * 2)
    y.retain_grad()
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
    y.sum().backward()
    order.append(("y.grad", y.grad.tolist()))
    return order


@pytest.mark.task10_1
def test_hooks_run_in_pytorch_s_order_with_pytorch_s_gradients():
    assert order_around_one_node(toygrad) == order_around_one_node(torch)


@pytest.mark.task10_1
def test_a_pre_hook_s_gradients_reach_the_node_and_a_post_hook_s_go_on():
    seen = {}
    for lib in (toygrad, torch):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x * 3
        y.grad_fn.register_prehook(lambda gout: (gout[0] * 10,))
        y.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, gin[1]))
        y.sum().backward()
        seen[lib] = x.grad.tolist()
    assert seen[toygrad] == seen[torch] == [31.0, 31.0]


@pytest.mark.task10_1
def test_a_hook_returning_the_wrong_size_is_refused_as_in_pytorch():
    messages = []
    for lib in (toygrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g.sum())
        with pytest.raises(RuntimeError) as error:
            (x * x).sum().backward()
        messages.append(str(error.value))
    assert messages[0] == messages[1]
