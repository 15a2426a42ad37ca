"""Chapter 10: the engine runs the nodes in PyTorch's order, as hooks see it.

PyTorch's ready queue runs the newest ready node first, but an AccumulateGrad
node counts as the newest of all (``UINT64_MAX``): a leaf's hooks fire as
soon as its last gradient has arrived, not when the leaf's turn by creation
comes. Random graphs, with shared subexpressions and several leaves, record
every hook there is (tensor hooks, post-accumulate-grad hooks, node pre- and
post-hooks, on results and on leaves' AccumulateGrad nodes) in torch and in
toygrad; the logs must be the same.
"""

import random

import numpy as np
import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch12  # autograd.grad and backward(inputs=...)

LIBS = (torch, toygrad)

UNARY = ("exp", "tanh", "sigmoid", "relu")
BINARY = {"mul": lambda a, b: a * b, "add": lambda a, b: a + b,
          "sub": lambda a, b: a - b}


def build(lib, recipe):
    """The graph ``recipe`` describes, in ``lib``: a pool of labelled
    tensors, leaves first, and the outputs."""
    leaves, steps, outputs = recipe
    pool = {}
    for k, values in enumerate(leaves):
        pool[f"leaf{k}"] = lib.tensor(values, requires_grad=True)
    for label, op, args in steps:
        operands = [pool[a] for a in args]
        if op in UNARY:
            pool[label] = getattr(operands[0], op)()
        else:
            pool[label] = BINARY[op](*operands)
    outs = [sum((pool[a] for a in out[1:]), pool[out[0]]).sum()
            for out in outputs]
    return pool, outs


def random_recipe(rng):
    n_leaves = rng.randint(2, 4)
    leaves = [[rng.uniform(0.5, 1.5) for _ in range(2)]
              for _ in range(n_leaves)]
    labels = [f"leaf{k}" for k in range(n_leaves)]
    steps = []
    for k in range(rng.randint(2, 7)):
        op = rng.choice(UNARY + tuple(BINARY) * 2)
        count = 1 if op in UNARY else 2
        args = [rng.choice(labels) for _ in range(count)]
        steps.append((f"t{k}", op, args))
        labels.append(f"t{k}")
    outputs = [rng.sample(labels, rng.randint(1, min(3, len(labels))))
               for _ in range(rng.randint(1, 2))]
    return leaves, steps, outputs


def add_hooks(lib, pool, outs, log):
    """A logging hook of every kind on every tensor and node."""
    names = {}
    for label, tensor in pool.items():
        tensor.register_hook(lambda g, label=label: log.append(
            ("tensor", label)))
        if tensor.grad_fn is None:
            tensor.register_post_accumulate_grad_hook(
                lambda t, label=label: log.append(("post-accumulate", label)))
        else:
            names.setdefault(tensor.grad_fn, label)
    stack = [out.grad_fn for out in outs]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if node not in names:  # a leaf's AccumulateGrad, or an output's sum
            variable = getattr(node, "variable", None)
            names[node] = next(
                (label for label, t in pool.items() if t is variable),
                node.name())
        label = names[node]
        node.register_prehook(lambda g, label=label: log.append(
            ("node pre", label)))
        node.register_hook(lambda gi, go, label=label: log.append(
            ("node post", label)))
        stack.extend(next_node for next_node, _ in node.next_functions)


def run(lib, recipe, how):
    log = []
    pool, outs = build(lib, recipe)
    add_hooks(lib, pool, outs, log)
    some = [pool[label] for label in sorted(pool)[::2]]
    if how == "backward":
        outs[0].backward()
    elif how == "autograd.backward":
        lib.autograd.backward(outs)
    elif how == "autograd.grad":
        lib.autograd.grad(outs, some, allow_unused=True)
    else:  # backward(inputs=...)
        lib.autograd.backward(outs, inputs=some)
    grads = {label: None if t.grad is None else np.asarray(t.grad.tolist())
             for label, t in pool.items() if t.grad_fn is None}
    return log, grads


@pytest.mark.parametrize("how", ["backward", "autograd.backward",
                                 "autograd.grad", "inputs"])
@pytest.mark.parametrize("seed", range(40))
def test_hooks_fire_in_pytorchs_order(seed, how):
    recipe = random_recipe(random.Random(seed))
    (log_torch, grads_torch) = run(torch, recipe, how)
    (log_ours, grads_ours) = run(toygrad, recipe, how)
    assert log_ours == log_torch, recipe
    assert grads_ours.keys() == grads_torch.keys()
    for label, grad in grads_torch.items():
        if grad is None:
            assert grads_ours[label] is None
        else:
            np.testing.assert_allclose(grads_ours[label], grad, rtol=1e-6)


def test_leaf_hooks_of_a_product_fire_in_pytorchs_order():
    # The example: x * w fires x's hooks first, as PyTorch's.
    seen = {}
    for lib in LIBS:
        log = []
        x = lib.ones(2, requires_grad=True)
        w = lib.ones(2, requires_grad=True)
        for name, t in (("x", x), ("w", w)):
            t.register_hook(lambda g, name=name: log.append(("hook", name)))
            t.register_post_accumulate_grad_hook(
                lambda t, name=name: log.append(("post", name)))
        (x * w).sum().backward()
        seen[lib] = log
    assert seen[toygrad] == seen[torch]


def test_a_leaf_runs_as_soon_as_its_last_gradient_arrives():
    seen = {}
    for lib in LIBS:
        log = []
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        c = lib.ones(2, requires_grad=True)
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: log.append(name))
        u = a * b
        u.register_hook(lambda g: log.append("u"))
        (u * c + u + a).sum().backward()
        seen[lib] = log
    assert seen[toygrad] == seen[torch]
