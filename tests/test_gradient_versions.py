"""A gradient's ``_version`` and memory are PyTorch's (issue 24).

Three rules of PyTorch's engine decide them, and toygrad follows each:

- ``InputBuffer::accumulate`` adds a node's second gradient for one input
  *in place* when the buffer holds the last reference to the first one and
  to its memory (``x * x``: ``x.grad._version == 1``);
- ``AccumulateGrad`` steals a gradient nobody else holds when its layout
  obeys the leaf's (``obeys_layout_contract``), even a view of memory the
  caller holds (``x.reshape(2, 2).backward(g)``: ``x.grad`` is ``g``'s
  memory, so ``g.mul_(3)`` changes it), and otherwise copies it with
  ``clone_obey_contract``, an in-place ``copy_`` (version 1) for a dense
  leaf, a contiguous clone (version 0) for one that is not;
- a view's backward gives a view of its gradient (``TBackward0``), sharing
  its version counter.

Each program runs on both libraries, and everything observable about the
gradients is compared: values, ``_version`` (also after the caller changes
a gradient it gave), whether memory is shared, ``_base``.
"""

import warnings

import numpy as np
import pytest
import torch

import toygrad


def shares_memory(a, b):
    if isinstance(a, torch.Tensor):
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    return np.shares_memory(a.data, b.data)


def seen(t):
    """What a reader can see of gradient ``t``: its numbers (to 4 decimals:
    exp's last bit is NumPy's, not PyTorch's), version, and whether it is
    a view."""
    return (np.round(np.array(t.tolist()), 4).tolist(), t._version,
            t._base is None)


def leaf(M, *shape):
    n = int(np.prod(shape))
    return M.tensor([float(i + 1) for i in range(n)]).reshape(
        *shape).detach().requires_grad_()


def backward_of(body):
    """A program: ``body(M, x)`` runs backward, then x.grad is read."""
    def program(M):
        x = leaf(M, 3)
        body(M, x)
        return seen(x.grad)
    return program


def w23(M):
    return M.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


PROGRAMS = {
    # one gradient, or several summed in the engine's buffer
    "x * 2": backward_of(lambda M, x: (x * 2).sum().backward()),
    "x.sum()": backward_of(lambda M, x: x.sum().backward()),
    "x * x": backward_of(lambda M, x: (x * x).sum().backward()),
    "x * x * x": backward_of(lambda M, x: (x * x * x).sum().backward()),
    "x + x": backward_of(lambda M, x: (x + x).sum().backward()),
    "x @ x": backward_of(lambda M, x: (x @ x).backward()),
    "x.exp() * x": backward_of(lambda M, x: (x.exp() * x).sum().backward()),
    "x * x, twice": backward_of(lambda M, x: [
        (x * x).sum().backward() for _ in range(2)]),
    "x[0] * x[1] + x[1:].sum()": backward_of(
        lambda M, x: (x[0] * x[1] + x[1:].sum()).backward()),
    "(x * w) * (x * w)": backward_of(lambda M, x: (
        (x * M.tensor([1.0, 2.0, 3.0])) ** 2).sum().backward()),
    "relu, then y * y + y.exp()": backward_of(lambda M, x: (
        lambda y: (y * y + y.exp()).sum().backward())(x.relu())),
    "y[...] = x": backward_of(lambda M, x: (
        lambda y: (y.__setitem__(Ellipsis, x), y.sum().backward()))(
            M.zeros(3))),
    "y[1:4] = x": backward_of(lambda M, x: (
        lambda y: (y.__setitem__(slice(1, 4), x), y.sum().backward()))(
            M.zeros(5))),
    "y[0] = x, (y * w).sum()": backward_of(lambda M, x: (
        lambda y: (y.__setitem__(0, x), (y * w23(M)).sum().backward()))(
            M.zeros(2, 3))),
    "retain_grad on y * y": lambda M: (lambda x: (lambda y: (
        y.retain_grad(), (y * y).sum().backward(), seen(y.grad),
        seen(x.grad))[2:])(x * 2))(leaf(M, 3)),
    "a hook on y": backward_of(lambda M, x: (lambda y: (
        y.register_hook(lambda g: None), (y * y + y).sum().backward()))(
            x * 2)),
    "autograd.grad": lambda M: (lambda x: [
        seen(M.autograd.grad(f(x).sum(), [x])[0])
        for f in (lambda x: x * x, lambda x: x * x * x,
                  lambda x: x.exp() * x, lambda x: x, lambda x: x * 2)])(
        leaf(M, 3)),
}


def matrices(body):
    def program(M):
        x = leaf(M, 2, 3)
        body(M, x)
        return seen(x.grad)
    return program


PROGRAMS.update({
    "x.t() * w": matrices(lambda M, x: (x.t() * w23(M).t()).sum().backward()),
    "x.t() * w + x * w.t()": matrices(lambda M, x: (
        (x.t() * w23(M).t()).sum() + (x * w23(M)).sum()).backward()),
    "x * w + x.t() * w.t()": matrices(lambda M, x: (
        (x * w23(M)).sum() + (x.t() * w23(M).t()).sum()).backward()),
    "x @ x.t()": matrices(lambda M, x: (x @ x.t()).sum().backward()),
    "x.t() @ x": matrices(lambda M, x: (x.t() @ x).sum().backward()),
    "a, b = x[0], x[1]; a * b": matrices(
        lambda M, x: (x[0] * x[1]).sum().backward()),
})


def given_gradient(body):
    """A program that gives ``backward`` a gradient ``g``, then changes
    ``g`` in place: where PyTorch's ``x.grad`` is ``g``'s memory, so is
    toygrad's."""
    def program(M):
        x = leaf(M, 4)
        g = M.ones(2, 2)
        body(M, x, g)
        before = seen(x.grad)
        g.mul_(3)
        return before, seen(x.grad), shares_memory(x.grad, g)
    return program


def square(x):
    return x.reshape(2, 2)


PROGRAMS.update({
    "x.reshape(2, 2).backward(g)": given_gradient(
        lambda M, x, g: square(x).backward(g)),
    "x.reshape(2, 2).backward(g), twice": given_gradient(
        lambda M, x, g: [square(x).backward(g) for _ in range(2)]),
    "x.backward(g)": given_gradient(
        lambda M, x, g: x.backward(g.reshape(4))),
    "(x * 1).reshape(2, 2).backward(g)": given_gradient(
        lambda M, x, g: square(x * 1).backward(g)),
    "x.reshape(2, 2).t().backward(g)": given_gradient(
        lambda M, x, g: square(x).t().backward(g)),
    "x.reshape(2, 2).t().backward(g.t())": given_gradient(
        lambda M, x, g: square(x).t().backward(g.t())),
    "x.reshape(1, 4).backward(g)": given_gradient(
        lambda M, x, g: x.reshape(1, 4).backward(g.reshape(1, 4))),
    "x[None] backward(g)": given_gradient(
        lambda M, x, g: x[None].backward(g.reshape(1, 4))),
    "autograd.grad(x.reshape(2, 2), x, g)": lambda M: (lambda x, g: (
        lambda r: (seen(r), g.mul_(3), seen(r))[::2])(
            M.autograd.grad(square(x), x, g)[0]))(leaf(M, 4), M.ones(2, 2)),
})


def not_dense(body):
    """A leaf whose elements do not tile its memory (every other row)."""
    def program(M):
        x = M.ones(4, 3)[::2].detach().requires_grad_()
        body(M, x)
        strides = (x.grad.stride() if M is torch else tuple(
            s // x.grad.data.itemsize for s in x.grad.data.strides))
        return seen(x.grad), strides
    return program


PROGRAMS.update({
    "not dense: x * 2": not_dense(lambda M, x: (x * 2).sum().backward()),
    "not dense: x * x": not_dense(lambda M, x: (x * x).sum().backward()),
    "not dense: x.sum()": not_dense(lambda M, x: x.sum().backward()),
    "not dense: x.backward(g)": not_dense(
        lambda M, x: x.backward(M.ones(2, 3))),
})


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradients_have_pytorchs_versions_and_memory(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert PROGRAMS[name](toygrad) == PROGRAMS[name](torch)


def test_create_graph_sums_are_new_tensors():
    """Under create_graph the buffer adds out of place (PyTorch: GradMode
    is enabled), so the sum is recorded and no _version moves."""
    def run(M):
        x = leaf(M, 3)
        (g,) = M.autograd.grad((x * x).sum(), [x], create_graph=True)
        return seen(g.detach()), g.grad_fn.name().rsplit("::")[-1]
    assert run(toygrad) == run(torch)


HOOKS = {"g * 2": lambda g: g * 2, "None": lambda g: None,
         "g itself": lambda g: g}
GRAPHS = {"x * 2": lambda x: x * 2, "x * x": lambda x: x * x,
          "x": lambda x: x, "x.exp()": lambda x: x.exp()}


@pytest.mark.parametrize("hook", sorted(HOOKS))
@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_a_leafs_hooks_leave_stealing_as_pytorch_has_it(hook, graph):
    """A hook on the leaf runs before AccumulateGrad; the gradient it
    returns (or leaves) is stolen or copied as PyTorch's engine decides,
    which moves gradients and so holds no reference of its own."""
    def run(M):
        x = leaf(M, 3)
        x.register_hook(HOOKS[hook])
        x.register_post_accumulate_grad_hook(lambda t: None)
        GRAPHS[graph](x).sum().backward()
        return seen(x.grad)
    assert run(toygrad) == run(torch)
