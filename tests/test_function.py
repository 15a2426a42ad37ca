"""Chapter 6: toygrad's Function API behaves as torch.autograd.Function."""

import numpy as np
import pytest
import torch

import toygrad
from toygrad import ops
from toygrad.autograd import Function, gradcheck
from toygrad.autograd.function import BackwardFunction

pytestmark = pytest.mark.ch06


def scaled_tanh(base):
    """The same custom Function, written once for each library: y = s * tanh(x)."""

    class ScaledTanh(base):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.grad_mode_in_forward = (torch.is_grad_enabled() if base is torch.autograd.Function
                                        else toygrad.is_grad_enabled())
            y = x.tanh()
            ctx.save_for_backward(y)
            ctx.scale = scale
            return y * scale

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * ctx.scale * (1 - y * y), None

    return ScaledTanh


def test_a_custom_function_records_like_pytorch():
    x_array = np.array([0.3, -1.1, 2.0])
    results = {}
    for lib, base in ((toygrad, Function), (torch, torch.autograd.Function)):
        F = scaled_tanh(base)
        x = lib.tensor(x_array, requires_grad=True)
        out = F.apply(x, 2.5)
        node = out.grad_fn
        contexts_are_nodes = node.grad_mode_in_forward is False and type(node).__name__ == "ScaledTanhBackward"
        out.sum().backward()
        results[lib] = (contexts_are_nodes, node.name(),
                        [n.name().split("::")[-1] for n, _ in node.next_functions],
                        np.asarray(x.grad.data if lib is toygrad else x.grad).tolist())
    assert results[toygrad] == results[torch]
    assert results[toygrad][0]


def test_ctx_is_the_node_and_its_class_is_generated():
    F = scaled_tanh(Function)
    seen = []

    class Keep(F):
        @staticmethod
        def forward(ctx, x, scale):
            seen.append(ctx)
            return F.forward(ctx, x, scale)

    out = Keep.apply(toygrad.tensor(np.ones(2), requires_grad=True), 1.0)
    assert out.grad_fn is seen[0]
    assert type(seen[0]) is Keep._backward_cls
    assert type(seen[0]).__name__ == "KeepBackward"
    assert isinstance(seen[0], BackwardFunction)


def test_needs_input_grad_and_recording_rules_match_pytorch():
    def probe(lib, base):
        record = []

        class Probe(base):
            @staticmethod
            def forward(ctx, a, b, k):
                record.append(ctx.needs_input_grad)
                return a * b * k

            @staticmethod
            def backward(ctx, grad):
                return grad, grad, None

        a = lib.tensor(np.ones(2), requires_grad=True)
        b = lib.tensor(np.ones(2))
        outs = [Probe.apply(a, b, 3.0), Probe.apply(b, b, 3.0)]
        with lib.no_grad():
            outs.append(Probe.apply(a, b, 3.0))
        return record, [o.grad_fn is None for o in outs], [o.requires_grad for o in outs]

    assert probe(toygrad, Function) == probe(torch, torch.autograd.Function)


def test_forward_already_sees_the_nodes_edges_as_in_pytorch():
    """THPFunction_apply links the node to its inputs' nodes before forward runs."""
    def edge_names(edges):
        return [(None if node is None else type(node).__name__, nr)
                for node, nr in edges]

    seen = {toygrad: [], torch: []}
    for lib in (toygrad, torch):
        class Watched(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                seen[lib].append(edge_names(ctx.next_functions))
                return a * b

            @staticmethod
            def backward(ctx, grad):
                return grad, grad

        leaf = lib.tensor(np.ones(2), requires_grad=True)
        out = Watched.apply(leaf, leaf.exp())             # two recorded inputs
        assert edge_names(out.grad_fn.next_functions) == seen[lib][-1]
        Watched.apply(leaf, lib.tensor(np.ones(2)))     # one constant input
        with lib.no_grad():
            Watched.apply(leaf, leaf)                     # nothing recorded
    assert seen[toygrad] == seen[torch]
    assert seen[torch] == [[("AccumulateGrad", 0), ("ExpBackward0", 0)],
                           [("AccumulateGrad", 0), (None, 0)], []]


def test_forward_and_setup_context_split_as_in_pytorch():
    """A forward without ctx, and setup_context(ctx, inputs, output) right after it."""
    seen = {}
    for lib in (toygrad, torch):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, factor=3.0):
                return x * factor

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen[lib] = (len(inputs), inputs[1], lib.is_grad_enabled(),
                             output.requires_grad)
                ctx.factor = inputs[1]
                ctx.save_for_backward(output)

            @staticmethod
            def backward(ctx, grad):
                (output,) = ctx.saved_tensors
                return grad * ctx.factor + output * 0, None

        x = lib.tensor(np.array([1.0, -2.0]), requires_grad=True)
        y = Scale.apply(x)
        y.sum().backward()
        assert type(y.grad_fn).__name__ == "ScaleBackward"
        assert np.array_equal(np.asarray(x.grad.data if lib is toygrad else x.grad),
                              [3.0, 3.0])
    assert seen[toygrad] == seen[torch] == (2, 3.0, False, False)

    messages = []
    for lib in (toygrad, torch):
        class NoSetup(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x

        with pytest.raises(TypeError) as error:
            NoSetup.apply(lib.tensor(np.ones(2), requires_grad=True))
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_an_input_returned_unrecorded_comes_back_as_a_new_tensor():
    """Not recorded, an input that forward returns as it is is a new tensor."""
    seen = {}
    for lib in (toygrad, torch):
        class Same(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x, y * 1

            @staticmethod
            def backward(ctx, grad_x, grad_y):
                return grad_x, grad_y

        leaf = lib.tensor(np.ones(2), requires_grad=True)
        with lib.no_grad():
            same, other = Same.apply(leaf, leaf)
        constant = lib.tensor(np.ones(2))
        alone, _ = Same.apply(constant, constant)
        same.mul_(2)  # shares the leaf's numbers and version counter
        seen[lib] = (same is leaf, same.requires_grad, same.grad_fn, leaf._version,
                     float(leaf.detach()[0]), alone is constant, alone.requires_grad)
    assert seen[toygrad] == seen[torch] == (False, False, None, 1, 2.0, False, False)


def test_mark_non_differentiable_and_multiple_outputs():
    def run(lib, base):
        class SortWithIndex(base):
            @staticmethod
            def forward(ctx, x):
                order = np.argsort(x.detach().numpy() if lib is torch else x.data)
                values = x[order.tolist()] if lib is torch else lib.tensor(x.data[order])
                index = lib.tensor(order)
                ctx.order = order
                ctx.mark_non_differentiable(index)
                return values * 1, index

            @staticmethod
            def backward(ctx, grad_values, grad_index):
                grad = np.zeros_like(grad_values.detach().numpy() if lib is torch else grad_values.data)
                grad[ctx.order] = (grad_values.detach().numpy() if lib is torch else grad_values.data)
                return lib.tensor(grad)

        x = lib.tensor(np.array([3.0, 1.0, 2.0]), requires_grad=True)
        values, index = SortWithIndex.apply(x)
        (values * lib.tensor(np.array([1.0, 10.0, 100.0]))).sum().backward()
        return (values.requires_grad, index.requires_grad, index.grad_fn is None,
                values.grad_fn.name(), np.asarray(x.grad.tolist()).tolist())

    assert run(toygrad, Function) == run(torch, torch.autograd.Function)


def test_backward_errors_match_pytorch():
    def errors(lib, base):
        class TooFew(base):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, grad):
                return grad

        class WrongShape(base):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, grad):
                return grad.sum(0)

        x = lib.tensor(np.ones((2, 3)), requires_grad=True)
        messages = []
        for attempt in (lambda: TooFew.apply(x, x).sum().backward(),
                        lambda: WrongShape.apply(x).sum().backward()):
            with pytest.raises(RuntimeError) as error:
                attempt()
            messages.append(str(error.value))
        return messages

    assert errors(toygrad, Function) == errors(torch, torch.autograd.Function)


def test_saved_tensors_are_freed_and_checked():
    F = scaled_tanh(Function)
    x = toygrad.tensor(np.array([0.5, 1.5]), requires_grad=True)
    out = F.apply(x, 2.0)
    node = out.grad_fn
    (y,) = node.saved_tensors
    np.testing.assert_allclose(y.data, np.tanh([0.5, 1.5]))
    out.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph"):
        node.saved_tensors


def test_custom_function_passes_gradcheck_in_both_engines():
    x_array = np.array([0.2, -0.7, 1.3])
    for lib, base in ((toygrad, Function), (torch, torch.autograd.Function)):
        F = scaled_tanh(base)
        x = lib.tensor(x_array, requires_grad=True)
        assert gradcheck(lambda t: F.apply(t, 1.7), (x,))


def test_every_builtin_operation_is_a_function_with_a_pytorch_name():
    functions = [value for value in vars(ops).values()
                 if isinstance(value, type) and issubclass(value, Function) and value is not Function]
    assert len(functions) >= 35
    for function in functions:
        name = function._backward_cls.__name__
        # copy_'s node is the one PyTorch names without a number
        assert name.endswith(("Backward0", "Backward1", "Backward2", "Backward3",
                              "Backward4")) \
            or name == torch.zeros(1).copy_(torch.ones(1, requires_grad=True)).grad_fn.name().rsplit("::")[-1], name
    x = toygrad.tensor(np.ones((2, 2)), requires_grad=True)
    for result in (x + 1, x * x, x @ x, x.sum(), x.exp(), x[0], x.T):
        assert type(result.grad_fn)._forward_cls in functions
