"""toygrad never silently disagrees with PyTorch (issue 10, one test per class).

Each program runs on torch and on toygrad with the same numbers; ``agree``
compares what a reader could see: the result's values, dtype and graph, every
leaf's gradient, or the error type and message. Every example here gave a
different answer (or no error) before views, in-place operations, dims,
dtypes and the engine's order were made PyTorch's.
"""

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import toygrad
import toygrad.nn.functional as TF
import torch.nn.functional as PF
from toygrad.autograd import engine, gradcheck
from graphs import structure as graph_structure

pytestmark = pytest.mark.ch06

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
W = np.array([0.2, 0.4, -0.3])


class Lib:
    """What a program needs of a library: torch, or toygrad named as torch."""

    def __init__(self, module, functional):
        self.module, self.F = module, functional

    def __getattr__(self, name):
        return getattr(self.module, name)


TORCH, TOYGRAD = Lib(torch, PF), Lib(toygrad, TF)


def observe(lib, program, backward=True):
    """What the reader sees when ``program(lib, a, w)`` runs."""
    a = lib.tensor(A.copy(), requires_grad=True)
    w = lib.tensor(W.copy(), requires_grad=True)
    try:
        y = program(lib, a, w)
        seen = {"value": np.asarray(y.detach().numpy()).tolist(),
                "dtype": str(y.dtype).replace("torch.", ""),
                "graph": graph_structure(y) if y.requires_grad else None}
        if backward and y.requires_grad:
            y.sum().backward()
            seen["grads"] = [None if leaf.grad is None
                             else leaf.grad.numpy().tolist()
                             for leaf in (a, w)]
        return seen
    except Exception as error:  # the error is what the reader sees
        return {"error": type(error).__name__, "message": str(error)}


def agree(program, backward=True):
    theirs = observe(TORCH, program, backward)
    ours = observe(TOYGRAD, program, backward)
    if "value" in theirs and "value" in ours:
        pairs = [(ours["value"], theirs["value"])]
        if "grads" in theirs and "grads" in ours:
            pairs += [pair for pair in zip(ours["grads"], theirs["grads"])
                      if None not in pair]
        for mine, expected in pairs:
            np.testing.assert_allclose(np.array(mine, dtype=float),
                                       np.array(expected, dtype=float),
                                       rtol=1e-6, atol=1e-12)
        ours["value"] = theirs["value"]
        if "grads" in theirs and "grads" in ours:
            ours["grads"] = [None if o is None else t for o, t
                             in zip(ours["grads"], theirs["grads"])]
    assert ours == theirs
    return theirs


# 1. Views and in-place operations.

VIEWS = {
    "in-place on a slice of a saved output": lambda t, a, w: _run(
        a.exp(), lambda y: y[1:].mul_(2)),
    "in-place on a row of a non-leaf": lambda t, a, w: _run(
        a * 1.0, lambda h: h[0].mul_(2)),
    "in-place on a view of a leaf": lambda t, a, w: _run(
        a, lambda x: x[0].mul_(2)),
    "in-place through a transpose": lambda t, a, w: _run(
        a * 1.0, lambda h: h.t()[0].mul_(w[:2])),
    "in-place through a chain of views": lambda t, a, w: _run(
        a * 1.0, lambda h: h.view(6)[1:4].view(3, 1).mul_(3)),
    "zero_ through a view": lambda t, a, w: _run(
        a.tanh(), lambda h: h[:, 1].zero_()),
    "a view read after its base changed": lambda t, a, w: _base_changed(a),
    "an expanded view after its base changed": lambda t, a, w:
        _expanded_after(w),
    "a saved view changed through another view": lambda t, a, w: _run(
        a * 1, lambda z: z[0].mul_(z[1])),
    "a view made under no_grad, changed with grad": lambda t, a, w:
        _no_grad_view(t, a),
    "in-place on an expanded view": lambda t, a, w: _run(
        a * 1, lambda h: h[0].expand(2, 3).mul_(2)),
    "an unbound row changed in place": lambda t, a, w: _run(
        a * 2, lambda h: list(h)[0].mul_(2)),
    "in-place on a detached alias": lambda t, a, w: _run(
        a.exp(), lambda h: h.detach().mul_(2)),
    "a view of a tensor that needs no grad gets history": lambda t, a, w:
        _run(t.zeros(2, 3, dtype=t.float64), lambda b: b[1].add_(w)),
    "mul_ by a tensor that requires grad": lambda t, a, w: _run(
        a * 1.0, lambda h: h.mul_(w)),
    "x[0] = w": lambda t, a, w: _setitem(a, w),
}


def _run(tensor, change):
    change(tensor)
    return tensor


def _base_changed(a):
    h = a * 1.0
    view = h[1:]
    h.add_(1)
    return view * 2


def _expanded_after(w):
    h = w * 1
    expanded = h.expand(2, 3)
    h.add_(1)
    return expanded


def _no_grad_view(lib, a):
    h = a * 1
    with lib.no_grad():
        view = h[0]
    view.mul_(2)
    return h


def _setitem(a, w):
    h = a * 1.0
    h[0] = w
    h[1] += 1
    h[1] *= w
    return h


@pytest.mark.parametrize("name", VIEWS)
def test_views_and_inplace_agree_with_pytorch(name):
    agree(VIEWS[name])


def test_views_share_the_version_counter_of_their_base():
    for lib in (torch, toygrad):
        base = lib.tensor(A.copy())
        view, alias = base[0], base.detach()
        view.mul_(2)
        alias.add_(1)
        assert base._version == view._version == alias._version == 2
        assert view._base is base and view._is_view()


# 2. Augmented assignment is in place.

def test_augmented_assignment_updates_parameters_in_place():
    for lib in (torch, toygrad):
        p = lib.tensor(W.copy(), requires_grad=True)
        before = p
        (p * p).sum().backward()
        with lib.no_grad():
            p -= 0.5 * p.grad
        assert p is before and p._version == 1
        np.testing.assert_allclose(p.detach().numpy(), W - 0.5 * 2 * W)


@pytest.mark.parametrize("operator", ["+=", "-=", "*=", "/="])
def test_augmented_assignment_records_as_pytorch(operator):
    def program(lib, a, w):
        h = a * 1.0
        exec(f"h {operator} w", {}, {"h": h, "w": w})
        return h
    agree(program)
    agree(lambda lib, a, w: eval(compile(f"a {operator} 1", "", "exec")))


# 3. Dimensions.

DIMS = {
    "permute(-1, 0)": lambda t, a, w: a.permute(-1, 0) * 2,
    "sum(2) of a matrix": lambda t, a, w: a.sum(2),
    "sum((0, 0))": lambda t, a, w: a.sum((0, 0)),
    "sum(-3)": lambda t, a, w: a.sum(-3),
    "mean(-1, keepdim)": lambda t, a, w: a.mean(-1, keepdim=True),
    "max(-1)": lambda t, a, w: a.max(-1)[0],
    "max(2)": lambda t, a, w: a.max(2)[0],
    "transpose(-1, -2)": lambda t, a, w: a.transpose(-1, -2) * 1,
    "transpose(0, 2)": lambda t, a, w: a.transpose(0, 2),
    "unsqueeze(-1)": lambda t, a, w: a.unsqueeze(-1) * 1,
    "unsqueeze(3)": lambda t, a, w: a.unsqueeze(3),
    "squeeze(-3)": lambda t, a, w: a.squeeze(-3),
    "log_softmax(a, 2)": lambda t, a, w: t.F.log_softmax(a, 2),
    "permute(0, 0)": lambda t, a, w: a.permute(0, 0),
    "x[5]": lambda t, a, w: a[5],
}


@pytest.mark.parametrize("name", DIMS)
def test_dims_agree_with_pytorch(name):
    agree(DIMS[name])


# 4. Dtypes follow PyTorch's promotion.

DTYPES = {
    "int64 * 2.5": lambda t, a, w: t.tensor([1, 2, 3]) * 2.5 * w,
    "int64 / int64": lambda t, a, w: t.tensor([1, 2, 3]) / t.tensor([2, 4, 8]),
    "float32 * int64": lambda t, a, w: t.ones(3) * t.tensor([1, 2, 3]),
    "float32 * float64 0-dim": lambda t, a, w:
        t.ones(3) * t.tensor(0.1, dtype=t.float64),
    "float64 leaf * float32": lambda t, a, w: w * t.ones(3),
    "bool + bool": lambda t, a, w: t.tensor([True]) + t.tensor([False]),
    "bool - bool": lambda t, a, w: t.tensor([True]) - t.tensor([False]),
    "1 - bool": lambda t, a, w: 1 - t.tensor([True]),
    "int ** -1": lambda t, a, w: t.tensor([1, 2]) ** -1,
    "int += 2.5": lambda t, a, w: t.tensor([1, 2]).add_(2.5),
    "sum of ints": lambda t, a, w: t.tensor([1, 2]).sum(),
    "mean of ints": lambda t, a, w: t.tensor([1, 2]).mean(),
    "exp of ints": lambda t, a, w: t.tensor([1, 2]).exp(),
}


@pytest.mark.parametrize("name", DTYPES)
def test_dtypes_agree_with_pytorch(name):
    agree(DTYPES[name])


# 5. 0-dim results are 0-dim arrays.

def test_zero_dim_results_work_with_gradcheck_and_in_place():
    x = toygrad.tensor(np.array([0.3, -0.2, 0.9]), requires_grad=True)
    assert gradcheck(lambda t: (t * t).sum() * 2, (x,))
    agree(lambda t, a, w: _run(w.sum() * 3, lambda s: s.mul_(2)))
    agree(lambda t, a, w: _run(w[0] + w[1], lambda s: s.add_(w[2])))


# 6. Every node releases what it saved.

RELEASED = {
    "max()": lambda t, x: x.max(),
    "max(dim)": lambda t, x: x.max(1)[0].sum(),
    "nll_loss": lambda t, x: t.F.nll_loss(t.F.log_softmax(x, 1),
                                         t.tensor([0, 2])),
    "relu then mul": lambda t, x: (x.relu() * x).sum(),
}


def test_relu_passes_gradients_where_pytorch_does():
    # threshold_backward is where(out <= 0, 0, grad): a nan input passes
    # its gradient on, and an infinite gradient at an inactive unit is 0.
    inputs = np.array([np.nan, -1.0, 2.0, 0.0, -3.0])
    upstream = np.array([1.0, np.inf, np.nan, 5.0, np.nan])
    grads = []
    for lib in (torch, toygrad):
        x = lib.tensor(inputs, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # and no NumPy warning leaks
            x.relu().backward(lib.tensor(upstream))
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("name", RELEASED)
def test_a_second_backward_raises_as_in_pytorch(name):
    messages = []
    for lib in (TORCH, TOYGRAD):
        x = lib.tensor(A.copy(), requires_grad=True)
        y = RELEASED[name](lib, x)
        y.backward()
        with pytest.raises(RuntimeError) as raised:
            y.backward()
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


# 7. Every node runs once and receives the sum of its gradients.

OPS = [lambda x, y: x * y, lambda x, y: x + y, lambda x, y: x - y,
       lambda x, y: x / (y * y + 1), lambda x, y: (x * y).tanh(),
       lambda x, y: x.exp() * 0.5 + y, lambda x, y: x[0:2].sum() * y]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 99),
                          st.integers(0, 99)), min_size=1, max_size=12))
def test_every_node_runs_once_with_all_its_gradients(program):
    values = {}
    for lib in (torch, toygrad):
        leaves = [lib.tensor(W * (i + 1), requires_grad=True)
                  for i in range(3)]
        pool = list(leaves)
        for op, i, j in program:
            pool.append(OPS[op](pool[i % len(pool)], pool[j % len(pool)]))
        values[lib] = leaves, pool
    leaves, pool = values[torch]
    # PyTorch's gradient of every tensor of the program.
    expected = torch.autograd.grad(pool[-1].sum(), pool, allow_unused=True)
    ours, our_pool = values[toygrad]
    out = our_pool[-1].sum()
    runs = {}
    for node, grads_in, _ in engine.execute(
            out.grad_fn, toygrad.tensor(np.float64(1.0))):
        assert node not in runs, f"{node.name()} ran twice"
        runs[node] = grads_in
    for tensor, grad in zip(our_pool, expected):
        node = tensor.grad_fn
        if node is None:
            node = tensor._gradient_edge()[0]
        if grad is None:
            continue
        assert node in runs, f"{node.name()} never ran"
        received = runs[node][tensor.output_nr]
        np.testing.assert_allclose(received.data, grad.numpy(), rtol=1e-9,
                                   atol=1e-12)
    for leaf, theirs in zip(ours, leaves):
        if theirs.grad is not None:
            np.testing.assert_allclose(leaf.grad.data, theirs.grad.numpy(),
                                       rtol=1e-9, atol=1e-12)


# 8. Graphs.

GRAPHS = {
    "linear, 1-D input": lambda t, a, w: t.F.linear(w, a, a[:, 0] * 1),
    "linear, 1-D input, strided bias": lambda t, a, w: t.F.linear(
        w, a, a[:, 0]),
    "linear, 3-D contiguous input": lambda t, a, w: t.F.linear(
        a.reshape(2, 1, 3) * 1, a, w[:2]),
    "linear, 1-D input, no bias": lambda t, a, w: t.F.linear(w, a),
    "linear, 3-D input": lambda t, a, w: t.F.linear(
        a.reshape(2, 1, 3).expand(2, 2, 3), a, w[:2]),
    "linear, 3-D input, no bias": lambda t, a, w: t.F.linear(
        a.reshape(2, 1, 3) * 1, a),
    "squeeze(dim)": lambda t, a, w: a.unsqueeze(0).squeeze(0),
    "squeeze()": lambda t, a, w: a.unsqueeze(1).squeeze(),
    "x[:]": lambda t, a, w: a[:],
    "x[...]": lambda t, a, w: a[...],
    "x[:, :]": lambda t, a, w: a[:, :],
    "x[None, 0]": lambda t, a, w: a[None, 0],
    "x[1, None, 1:]": lambda t, a, w: a[1, None, 1:],
    "iterating over a tensor": lambda t, a, w: _product(list(a * 1)),
    "x[1.0]": lambda t, a, w: a[1.0],
    "x[:, ::-1]": lambda t, a, w: a[:, ::-1],
    "x[::0]": lambda t, a, w: a[::0],
    "0-dim x[0]": lambda t, a, w: w.sum()[0],
    "x.t() of a 3-D tensor": lambda t, a, w: a.reshape(1, 2, 3).t(),
    "1-D @ 2-D": lambda t, a, w: a[0, :2] @ a,
}


def _product(rows):
    return rows[0] * rows[1]


@pytest.mark.parametrize("name", GRAPHS)
def test_graphs_agree_with_pytorch(name):
    agree(GRAPHS[name])


# 9. Messages.

MESSAGES = {
    "broadcast": lambda t, a, w: a + t.ones(2, dtype=t.float64),
    "matmul": lambda t, a, w: a @ a,
    "mm": lambda t, a, w: a.mm(a),
    "mv": lambda t, a, w: a.mv(w[:2]),
    "dot": lambda t, a, w: w @ w[:2],
    "bmm": lambda t, a, w: a.bmm(a),
    "mixed-dtype matmul": lambda t, a, w: a @ t.ones(3, 2),
    "view": lambda t, a, w: a.view(4),
    "view of a transpose": lambda t, a, w: a.t().view(6),
    "expand": lambda t, a, w: a.expand(3, 3),
    "in-place broadcast": lambda t, a, w: (w * 1).add_(a),
    "item of many": lambda t, a, w: a.item(),
    "bool of many": lambda t, a, w: bool(a),
    "numpy of a tensor that requires grad": lambda t, a, w: a.numpy(),
    "requires_grad on a non-leaf": lambda t, a, w: setattr(
        a * 1, "requires_grad", False),
    "requires_grad on an int tensor": lambda t, a, w: t.tensor([1])
        .requires_grad_(),
    "grad of the wrong shape": lambda t, a, w: setattr(a, "grad", w),
    "grad of the wrong dtype": lambda t, a, w: setattr(
        w, "grad", t.ones(3)),
    "grad that is not a tensor": lambda t, a, w: setattr(w, "grad", 3),
    "backward of a tensor that needs no grad": lambda t, a, w:
        t.ones(2).sum().backward(),
    "sum_to_size": lambda t, a, w: a.sum_to_size(3, 3),
    "neg of bool": lambda t, a, w: -t.tensor([True]),
    "relu of bool": lambda t, a, w: t.F.relu(t.tensor([True])),
    "max of nothing": lambda t, a, w: t.zeros(0).max(),
}


@pytest.mark.parametrize("name", MESSAGES)
def test_error_messages_are_pytorch_s(name):
    seen = agree(MESSAGES[name], backward=False)
    assert "error" in seen


def test_reading_grad_of_a_non_leaf_warns_as_pytorch():
    caught = []
    for lib in (torch, toygrad):
        x = lib.tensor(W.copy(), requires_grad=True)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            assert (x * 2).grad is None
        # PyTorch adds the C++ line that warned: "(Triggered internally..."
        caught.append([(w.category, str(w.message).split(" (Triggered")[0])
                       for w in record])
    assert caught[0] == caught[1] and len(caught[0]) == 1


def test_parameters_of_integers_are_refused_as_in_pytorch():
    messages = []
    for parameter in (torch.nn.Parameter, toygrad.nn.Parameter):
        lib = torch if parameter is torch.nn.Parameter else toygrad
        with pytest.raises(RuntimeError) as raised:
            parameter(lib.tensor([1, 2]))
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_matrix_at_batch_is_folded_as_pytorch_folds_it():
    # PyTorch computes matrix @ batch as (batch^T @ matrix^T)^T, folded into
    # one mm (_matmul_impl's should_fold); so does toygrad (chapter 7).
    def program(lib, a, w):
        return a.t() @ a.reshape(1, 2, 3)
    theirs, ours = observe(TORCH, program), observe(TOYGRAD, program)
    np.testing.assert_allclose(ours["value"], theirs["value"], rtol=1e-12)
    np.testing.assert_allclose(ours["grads"][0], theirs["grads"][0],
                               rtol=1e-12)
    assert [name for name, *_ in theirs["graph"]][:3] == [
        "CloneBackward0", "TransposeBackward0", "UnsafeViewBackward0"]
    assert ours["graph"] == theirs["graph"]


# What toygrad deliberately does differently, pinned.

@pytest.mark.parametrize("key", ["True", "[0]", "np.array([0, 1])"])
def test_advanced_indexing_is_refused_by_name(key):
    x = toygrad.tensor(A.copy(), requires_grad=True)
    with pytest.raises(NotImplementedError, match="basic indexing only"):
        x[eval(key)]


def test_a_leaf_s_gradient_has_the_leaf_s_memory_layout():
    # PyTorch's AccumulateGrad "obeys the layout contract": the gradient of
    # a weight used as weight.t() comes out in the weight's own layout.
    layouts = []
    for lib, nn in ((torch, torch.nn), (toygrad, toygrad.nn)):
        layer = nn.Linear(4, 3)
        x = lib.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4))
        layer(x).sum().backward()
        weight_grad = layer.weight.grad
        data = weight_grad.numpy() if lib is torch else weight_grad.data
        layouts.append((data.flags.c_contiguous, data.flags.f_contiguous))
    assert layouts[0] == layouts[1] == (True, False)


def test_nan_and_inf_warn_as_in_pytorch_that_is_not_at_all():
    """NumPy's "invalid value encountered" warnings do not leak out of toygrad.

    Run in a fresh interpreter with every warning shown: pytest restores the
    warning filters after collecting, which drops the one toygrad adds on import.
    """
    script = textwrap.dedent("""
        import warnings
        import numpy as np
        import torch
        import toygrad

        for lib in (toygrad, torch):
            with warnings.catch_warnings(record=True) as seen:
                x = lib.tensor(np.array([0.0, -1.0, 1e308]), requires_grad=True)
                y = (x.log() * 2 + (x * 0).exp() / x + x * 10).sum()
                y.backward()
            grad = x.grad.detach().numpy() if lib is torch else x.grad.data
            assert np.isnan(grad[0])
            print(lib.__name__, [str(w.message) for w in seen])
        with warnings.catch_warnings(record=True) as seen:
            np.array([0.0]) / 0.0          # NumPy itself still warns
        print("numpy", [w.category.__name__ for w in seen])
    """)
    run = subprocess.run([sys.executable, "-W", "always", "-c", script],
                         capture_output=True, text=True, check=True)
    assert run.stdout.splitlines() == ["toygrad []", "torch []",
                                       "numpy ['RuntimeWarning']"], run.stderr


def test_numpy_refuses_a_tensor_that_requires_grad_only_in_grad_mode():
    outcomes = {}
    for lib in (toygrad, torch):
        x = lib.tensor(np.ones(2), requires_grad=True)
        with lib.no_grad():
            allowed = np.asarray(x.numpy()).tolist()
        with pytest.raises(RuntimeError) as refused:
            x.numpy()
        outcomes[lib] = (allowed, str(refused.value))
    assert outcomes[toygrad] == outcomes[torch]
