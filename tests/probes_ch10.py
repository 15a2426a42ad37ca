"""Chapter 10's probes: call_function runs a node's hooks in PyTorch's order (task 10.1),
called by hand, node by node, as the engine would; retain_grad (task 10.2).
tests/test_tasks_ch10.py says what they must return."""

import warnings

import toygrad
from toygrad.autograd.hooks import call_function
from verdict import error_of, vary


def hooked(lib, order, seed=0):
    """y = x * 3, with each kind of hook on y, its node, x and x's node (lib: toygrad,
    or torch for the expectations)."""
    x = lib.tensor(list(vary(seed, 1.5, -2.0)), dtype=lib.float64, requires_grad=True)
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
    """What the engine does for one node: its hooks and the node, via call_function;
    the gradients it sends on."""
    with toygrad.no_grad():  # as during backward
        return call_function(node, (grad,))[1]


def hooks_in_order(seed=0):
    order = []
    x, y, leaf_node = hooked(toygrad, order, seed)
    to_x, to_3 = run_by_hand(y.grad_fn, toygrad.ones(2, dtype=toygrad.float64))
    from_leaf = run_by_hand(leaf_node, to_x)
    # to_3: the number 3 needs no gradient; the leaf's node sends nothing on
    return {"order": order, "to the number": to_3, "from the leaf": list(from_leaf),
            "x.grad": x.grad.tolist()}


def pre_and_post_hooks(seed=0):
    x = toygrad.tensor(list(vary(seed, 1.0, 2.0)), dtype=toygrad.float64,
                       requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda gout: (gout[0] * 10,))
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, gin[1]))
    grads_in, grads_out = call_function(y.grad_fn, (toygrad.ones(2, dtype=toygrad.float64),))
    return {"in": [g.tolist() for g in grads_in], "out": grads_out[0].tolist(),
            "to the number": grads_out[1]}


def hook_of_the_wrong_size(seed=0):
    x = toygrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g.sum())
    leaf_node = (x * 1).grad_fn.next_functions[0][0]
    return error_of(call_function, leaf_node, (toygrad.ones(2),))


def retained(lib, seed=0):
    """y = x * x retains its gradient over two backward calls (lib: toygrad, or torch)."""
    x = lib.tensor(list(vary(seed, 1.0, -2.0)), dtype=lib.float64, requires_grad=True)
    y = x * x
    y.retain_grad()
    y.retain_grad()  # a second call adds nothing
    (y * 3).sum().backward(retain_graph=True)
    first = y.grad
    first_numbers = first.tolist()
    (y * 3).sum().backward()
    return [first_numbers, y.grad.tolist(), first.tolist(), y.grad is first,
            y.retains_grad]


def retained_by_toygrad(seed=0):
    return retained(toygrad, seed)


def refusals(lib, seed=0):
    leaf = lib.tensor([1.0], requires_grad=True)
    leaf.retain_grad()
    return [leaf.retains_grad, error_of(lib.tensor([1.0]).retain_grad)]


def refusals_of_toygrad(seed=0):
    return refusals(toygrad, seed)


def read_without_a_warning(seed=0):
    x = toygrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = y.grad.tolist()
    return [grad, [str(warning.message) for warning in caught]]
