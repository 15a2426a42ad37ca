"""Chapter 14: the fixed ScipyConv2d as a custom operator, beside the Function of
chapter 8 and PyTorch's own conv2d, eager and traced ahead of time."""

import pytest
import torch
from torch._functorch.aot_autograd import aot_function, make_boxed_func

from toygrad.examples import scipy_conv_op, scipy_conv_torch

pytestmark = pytest.mark.ch14

SHAPES = [((5, 5), (3, 3)), ((6, 7), (3, 2)), ((4, 9), (1, 4))]


def inputs(x_shape, w_shape, seed, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, dtype=dtype, generator=generator,
                             requires_grad=True)
                 for shape in (x_shape, w_shape, (1,)))


@pytest.mark.parametrize("x_shape, w_shape", SHAPES)
@pytest.mark.parametrize("seed", [0, 1])
def test_operator_matches_the_function_and_conv2d(x_shape, w_shape, seed):
    x, w, b = inputs(x_shape, w_shape, seed)
    out = scipy_conv_op.scipy_conv2d(x, w, b)
    function_out = scipy_conv_torch.ScipyConv2dFunction.apply(x, w, b)
    reference = torch.nn.functional.conv2d(x[None, None], w[None, None], b)[0, 0]
    torch.testing.assert_close(out, function_out, rtol=0, atol=0)
    torch.testing.assert_close(out, reference)
    upstream = torch.randn(out.shape, dtype=torch.float64)
    for ours, theirs in zip(torch.autograd.grad(out, (x, w, b), upstream),
                            torch.autograd.grad(reference, (x, w, b), upstream)):
        torch.testing.assert_close(ours, theirs)
    assert torch.autograd.gradcheck(scipy_conv_op.scipy_conv2d, (x, w, b))


def test_float32_stays_float32():
    x, w, b = inputs((5, 4), (2, 2), 0, dtype=torch.float32)
    out = scipy_conv_op.scipy_conv2d(x, w, b)
    grads = torch.autograd.grad(out.sum(), (x, w, b))
    assert out.dtype == torch.float32
    assert [g.dtype for g in grads] == [torch.float32] * 3
    assert [g.shape for g in grads] == [x.shape, w.shape, b.shape]


def test_opcheck_passes():
    # PyTorch's own test of a custom operator's registrations: schema, autograd,
    # fake (shape-only) kernel, and tracing by AOTAutograd.
    x, w, b = inputs((6, 5), (3, 2), 3)
    torch.library.opcheck(scipy_conv_op.scipy_conv2d, (x, w, b))
    grad = torch.randn(4, 4, dtype=torch.float64)
    torch.library.opcheck(scipy_conv_op.scipy_conv2d_backward,
                          (grad, x.detach(), w.detach()))


def test_traced_ahead_of_time_each_operator_is_one_call():
    graphs = {}

    def keep(name):
        def compiler(graph_module, example_inputs):
            graphs[name] = graph_module
            return make_boxed_func(graph_module)
        return compiler

    def loss(x, w, b):
        return scipy_conv_op.scipy_conv2d(x, w, b).tanh().sum()

    x, w, b = inputs((6, 6), (3, 3), 4)
    compiled = aot_function(loss, keep("forward"), keep("backward"))
    out = compiled(x, w, b)
    grads = torch.autograd.grad(out, (x, w, b))
    expected = torch.autograd.grad(loss(x, w, b), (x, w, b))
    for ours, theirs in zip(grads, expected):
        torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12)
    calls = {name: [str(node.target) for node in graph.graph.nodes
                    if node.op == "call_function"]
             for name, graph in graphs.items()}
    assert calls["forward"].count("toygrad.scipy_conv2d.default") == 1
    assert calls["backward"].count("toygrad.scipy_conv2d_backward.default") == 1
    assert "toygrad.scipy_conv2d.default" not in calls["backward"]
