"""Chapter 12: node names as torch 2.13 gives them. ``name()`` carries the
C++ namespace for the nodes PyTorch writes in C++ (AccumulateGrad,
CopySlices, CopyBackwards, Error), and not for the generated ones; the class
name (what ``repr`` of a node or tensor and torchviz show) has none."""

import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch12  # once_differentiable's Error needs grad()

LIBS = (torch, toygrad)


def leaf(lib):
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


def accumulate_grad(lib):
    return (leaf(lib) * 2).grad_fn.next_functions[0][0]


def copy_slices(lib):
    y = leaf(lib) * 1
    y[1:].mul_(2)
    return y.grad_fn


def copy_backwards(lib):
    z = lib.zeros(3)
    z.copy_(leaf(lib))
    return z.grad_fn


def error_node(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            return grad * 2

    x = leaf(lib)
    grad, = lib.autograd.grad((Twice.apply(x) * x).sum(), x,
                              create_graph=True)
    return next(node for node, _ in grad.grad_fn.next_functions
                if node is not None and "Error" in node.name())


def generated(lib):
    return (leaf(lib) * 2).grad_fn


@pytest.mark.parametrize("make", [accumulate_grad, copy_slices,
                                  copy_backwards, error_node, generated])
def test_names_as_pytorch(make):
    seen = {}
    for lib in LIBS:
        node = make(lib)
        seen[lib] = (node.name(), repr(node).split(" object")[0])
    assert seen[toygrad] == seen[torch]


def test_a_tensor_shows_its_node_by_class_name():
    seen = {}
    for lib in LIBS:
        y = leaf(lib) * 1
        y[1:].mul_(2)
        seen[lib] = repr(y).split("grad_fn=")[1]
    assert seen[toygrad] == seen[torch] == "<CopySlices>)"


# A message names a node by its forward operation, as PyTorch's
# Node::forward_op_name: "Backward0" dropped, another number kept (Pow2 for
# PowBackward2), a name without "Backward<N>" whole.
SAVED_OUTPUT_CHANGED = {
    "exp": lambda lib, x: x.exp(),
    "x ** x": lambda lib, x: x ** x,
    "0.0 ** x": lambda lib, x: 0.0 ** x,
    "2.0 ** x": lambda lib, x: 2.0 ** x,
}


@pytest.mark.parametrize("op", SAVED_OUTPUT_CHANGED.values(),
                         ids=SAVED_OUTPUT_CHANGED.keys())
def test_the_version_error_names_the_forward_op_as_pytorch(op):
    def message(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        out = op(lib, x)
        out.mul_(2)
        with pytest.raises(RuntimeError) as error:
            out.sum().backward()
        return str(error.value)

    assert message(toygrad) == message(torch)


def test_a_multi_output_view_error_names_the_forward_op_as_pytorch():
    def message(lib):
        rows = leaf(lib).clone().unbind()
        with pytest.raises(RuntimeError) as error:
            rows[0].mul_(2)
        return str(error.value)

    assert message(toygrad) == message(torch)
