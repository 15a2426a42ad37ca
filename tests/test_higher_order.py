"""Chapter 12: autograd.grad, backward(inputs=...), gradients of gradients.

Every case runs on PyTorch and on toygrad from the same numbers; what each
returns (values, None, or the error's type and message) must be the same.
"""

import warnings

import numpy as np
import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch12

RNG = np.random.default_rng(12)
X, W = RNG.standard_normal(3), RNG.standard_normal(3)


def plain(obj):
    """A result as plain data: tensors as rounded lists, errors as text."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (tuple, list)):
        return [plain(item) for item in obj]
    if isinstance(obj, torch.Tensor):
        return ["tensor", str(obj.dtype).split(".")[-1],
                obj.detach().numpy().round(10).tolist()]
    if isinstance(obj, toygrad.Tensor):
        return ["tensor", str(obj.dtype), np.round(obj.data, 10).tolist()]
    raise TypeError(type(obj))


def run(lib, case):
    x = lib.tensor(X.copy(), requires_grad=True)
    w = lib.tensor(W.copy(), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return plain(case(lib, x, w))
        except Exception as error:
            return type(error).__name__, str(error)


def grad(lib):
    return lib.autograd.grad


def _hooked_leaf(lib, x, w):
    x.register_hook(lambda g: g * 10)
    return grad(lib)((x * x).sum(), x)


def _hooked_non_leaf(lib, x, w, also_x):
    c = x * 1
    c.register_hook(lambda g: g * 100)
    return grad(lib)((c * c).sum(), [c, x] if also_x else [c])


def _second(lib, x, w):
    (g,) = grad(lib)((x * x * w).sum(), x, create_graph=True)
    return g, grad(lib)(g.sum(), [x, w]), x.grad, w.grad


def _backward_inputs_non_leaf(lib, x, w):
    z = x * 2
    (z * w).sum().backward(inputs=[z, w])
    return z.grad, w.grad, x.grad, z.retains_grad


def _backward_inputs_create_graph(lib, x, w):
    (x * x * w).sum().backward(inputs=x, create_graph=True)
    first = x.grad
    (first.sum()).backward(inputs=[w])
    return first, first.requires_grad, w.grad


CASES = {
    "grad of two leaves, no .grad touched": lambda lib, x, w: (
        grad(lib)((x * w).sum(), [x, w]), x.grad, w.grad),
    "an unused input": lambda lib, x, w: grad(lib)(
        (x * w).sum(), [x, lib.tensor([1.0, 2.0], requires_grad=True)]),
    "allow_unused": lambda lib, x, w: grad(lib)(
        (x * x).sum(), [x, w], allow_unused=True),
    "materialize_grads": lambda lib, x, w: grad(lib)(
        (x * x).sum(), [x, w], materialize_grads=True),
    "materialize_grads with allow_unused=False": lambda lib, x, w: grad(lib)(
        (x * x).sum(), [x, w], allow_unused=False, materialize_grads=True),
    "an input that does not require grad": lambda lib, x, w: grad(lib)(
        (x * w).sum(), [x, lib.tensor([1.0, 2.0])]),
    "a non-scalar output without grad_outputs": lambda lib, x, w: grad(lib)(
        x * w, [x]),
    "grad_outputs of the wrong shape": lambda lib, x, w: grad(lib)(
        x * w, [x], lib.tensor([1.0, 2.0], dtype=lib.float64)),
    "grad_outputs of another dtype": lambda lib, x, w: grad(lib)(
        (x * w).sum(), x, lib.tensor(2.0)),
    "a number as grad_outputs": lambda lib, x, w: grad(lib)(
        (x * w).sum(), x, 1.0),
    "a string in grad_outputs": lambda lib, x, w: grad(lib)(
        (x * w).sum(), x, ["a"]),
    "fewer grad_outputs than outputs": lambda lib, x, w: grad(lib)(
        [x * w, x.exp()], [x, w], [w * 1]),
    "a non-leaf input": lambda lib, x, w: (lambda z: grad(lib)(
        (z * z).sum(), [z, x]))(x * 2),
    "the graph is freed": lambda lib, x, w: (lambda h: (
        grad(lib)(h, x), grad(lib)(h, x)))((x.exp()).sum()),
    "two outputs": lambda lib, x, w: grad(lib)(
        [(x * w).sum(), (x * x).sum()], [x, w]),
    "two outputs with grad_outputs": lambda lib, x, w: grad(lib)(
        [x * w, x.exp()], [x, w], [w * 1, x.detach()]),
    "an output that does not require grad": lambda lib, x, w: grad(lib)(
        x.detach() * 2, [x]),
    "no inputs": lambda lib, x, w: grad(lib)((x * w).sum(), []),
    "the output itself as input": lambda lib, x, w: (lambda y: grad(lib)(
        y, y))((x * w).sum()),
    "a leaf as output": lambda lib, x, w: grad(lib)(
        x, x, lib.ones(3, dtype=lib.float64)),
    "a hook on a leaf input": _hooked_leaf,
    "a hook on a non-leaf input that runs": lambda lib, x, w:
        _hooked_non_leaf(lib, x, w, True),
    "a hook on a non-leaf input that does not run": lambda lib, x, w:
        _hooked_non_leaf(lib, x, w, False),
    "create_graph: a second derivative": _second,
    "is_grads_batched": lambda lib, x, w: grad(lib)(
        (x * w).sum(), x, lib.tensor(1.0), is_grads_batched=True)
    if lib is torch else grad(lib)((x * w).sum(), x, is_grads_batched=True),
    "backward(inputs=[x])": lambda lib, x, w: (
        (x * w).sum().backward(inputs=[x]), x.grad, w.grad),
    "backward(inputs=[z, w]), z a non-leaf": _backward_inputs_non_leaf,
    "backward(inputs=[])": lambda lib, x, w: (x * w).sum().backward(
        inputs=[]),
    "backward(inputs=) a tensor without grad": lambda lib, x, w: (
        x * w).sum().backward(inputs=[lib.tensor([1.0])]),
    "backward(inputs=) an unreached leaf": lambda lib, x, w: (
        (x * x).sum().backward(inputs=[w]), w.grad, x.grad),
    "backward(inputs=x, create_graph=True)": _backward_inputs_create_graph,
    "autograd.backward of two outputs": lambda lib, x, w: (
        lib.autograd.backward([(x * w).sum(), (x * x).sum()]), x.grad,
        w.grad),
    "autograd.backward of two outputs, inputs=[w]": lambda lib, x, w: (
        lib.autograd.backward([(x * w).sum(), (x * x).sum()], inputs=[w]),
        x.grad, w.grad),
}

CASES["a dict of inputs"] = lambda lib, x, w: lib.autograd.grad(
    (x * w).sum(), {"x": x, "w": w})

# toygrad refuses, naming what, where PyTorch answers.
UNSUPPORTED = {"is_grads_batched": "is_grads_batched",
               "a dict of inputs": "dict"}


@pytest.mark.parametrize("name", CASES)
def test_grad_and_backward_inputs_agree_with_pytorch(name):
    theirs, ours = run(torch, CASES[name]), run(toygrad, CASES[name])
    if name in UNSUPPORTED:
        assert ours[0] == "NotImplementedError" and UNSUPPORTED[name] in ours[1]
        assert theirs[0] != "NotImplementedError"
    else:
        assert ours == theirs


def test_grad_runs_only_the_nodes_that_lead_to_the_inputs():
    """grad(y, x) leaves the branch to w alone: its ExpBackward0 keeps what
    it saved, so a second pass through it needs no retain_graph."""
    def twice(lib):
        x = lib.tensor(X.copy(), requires_grad=True)
        w = lib.tensor(W.copy(), requires_grad=True)
        y = (x * 2).sum() + (w.exp()).sum()
        grad(lib)(y, x)
        return grad(lib)(y, w)
    assert run(torch, lambda lib, x, w: twice(lib)) == run(
        toygrad, lambda lib, x, w: twice(lib))
    assert np.allclose(twice(toygrad)[0].data, np.exp(W))
    # The check can fail: once the branch has run, a second pass cannot.
    w = toygrad.tensor(W.copy(), requires_grad=True)
    y = w.exp().sum()
    toygrad.autograd.grad(y, w)
    with pytest.raises(RuntimeError, match="second time"):
        toygrad.autograd.grad(y, w)


def test_create_graph_warning_with_backward_inputs():
    # PyTorch's engine warns once per process (engine.cpp): what toygrad
    # says every time is what Tensor.backward says (tested in chapter 10).
    x = toygrad.tensor(X.copy(), requires_grad=True)
    with pytest.warns(UserWarning, match="will create a reference cycle"):
        (x * x).sum().backward(inputs=[x], create_graph=True)


def _f(x):
    return (x * x * x).tanh().sum() + x.exp().sum() * (x * x).sum()


def test_hessian_and_hvp_by_double_backward_equal_torch_functional():
    x = toygrad.tensor(X.copy(), requires_grad=True)
    (g,) = toygrad.autograd.grad(_f(x), x, create_graph=True)
    rows = [toygrad.autograd.grad(g[i], x, retain_graph=True)[0].data
            for i in range(3)]
    v = RNG.standard_normal(3)
    (hv,) = toygrad.autograd.grad((g * toygrad.tensor(v)).sum(), x)
    hessian = torch.autograd.functional.hessian(_f, torch.tensor(X))
    _, hvp = torch.autograd.functional.hvp(_f, torch.tensor(X),
                                           torch.tensor(v))
    assert np.allclose(np.stack(rows), hessian.numpy(), rtol=1e-10)
    assert np.allclose(hv.data, hvp.numpy(), rtol=1e-10)


def _gradient_of(lib):
    x = lib.tensor(X.copy(), requires_grad=True)
    w = lib.tensor(W.copy(), requires_grad=True)
    (g,) = lib.autograd.grad((x.tanh() * w).sum() + (x.sigmoid() * x).sum(),
                             x, create_graph=True)
    return g


def test_the_graph_create_graph_records_is_pytorch_s():
    from toygrad.viz import graph_structure
    ours, theirs = graph_structure(_gradient_of(toygrad)), graph_structure(
        _gradient_of(torch))
    assert ours == theirs
    names = [name for name, *_ in ours]
    assert "TanhBackwardBackward0" in names
    assert "SigmoidBackwardBackward0" in names


def _penalty(lib):
    rng = np.random.default_rng(3)
    x = lib.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    first = lib.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    second = lib.tensor(rng.standard_normal(5), requires_grad=True)
    scores = (x @ first.t()).tanh() @ second
    (dx,) = lib.autograd.grad(scores.sum(), x, create_graph=True)
    loss = scores.mean() + 0.5 * (dx * dx).sum(1).mean()
    loss.backward()
    return loss, first.grad, second.grad, x.grad


def test_a_gradient_penalty_trains_as_in_pytorch():
    assert plain(_penalty(toygrad)) == plain(_penalty(torch))
