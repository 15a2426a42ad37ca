"""Chapter 12 meets chapter 11: what a pack hook sees in a ``create_graph``
pass of ``autograd.grad`` (chapter 12), beside PyTorch's. Kept apart from
``test_saved_tensors.py`` so that a package cut after chapter 11, which has
no ``autograd.grad``, passes that file's tests."""

import pytest

from test_saved_tensors import LIBS, hooks, leaf, numbers

pytestmark = pytest.mark.ch12


@pytest.mark.parametrize("op", ["x / y", "x ** y"])
def test_a_create_graph_backward_packs_what_pytorch_packs_in_its_order(op):
    """DivBackward0 and PowBackward1 compute the second input's gradient
    first; pow's where() saves its condition."""
    seen = []
    for lib in LIBS:
        log = []

        def pack(t):
            log.append((str(t.dtype).replace("torch.", ""), tuple(t.shape),
                        None if t.grad_fn is None else t.grad_fn.name(),
                        numbers(t).tolist()))
            return t
        x, y = leaf(lib, [2.0, 0.0]), leaf(lib, [3.0, 0.5])
        with hooks(lib).saved_tensors_hooks(pack, lambda t: t):
            out = x / y if op == "x / y" else x ** y
            lib.autograd.grad(out.sum(), [x, y], create_graph=True)
        seen.append(log)
    assert seen[0] == seen[1]


def test_autograd_grad_computes_and_packs_only_the_gradients_it_needs():
    """grad of x in x @ w.t(), w requiring grad too: PyTorch's MmBackward0
    computes only x's gradient (task_should_compute_output), so a
    create_graph pass packs one tensor, not two."""
    seen = []
    for lib in LIBS:
        log = []
        w = leaf(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        x = w * w
        with hooks(lib).saved_tensors_hooks(
                lambda t: log.append(numbers(t).tolist()) or t, lambda t: t):
            out = x @ w.t()
            log.append("|")
            g, = lib.autograd.grad(out.sum(), [x], create_graph=True)
        seen.append((log, numbers(g).tolist()))
    assert seen[0] == seen[1]


def _linear(lib):
    return lib.nn.functional.linear


NARROWED = {  # (function, input shapes)
    "a * b": (lambda lib, a, b: a * b, [(2, 3), (2, 3)]),
    "a * b, broadcast": (lambda lib, a, b: a * b, [(2, 3), (3,)]),
    "v @ w": (lambda lib, a, b: a @ b, [(3,), (3,)]),
    "a.mv(v)": (lambda lib, a, b: a.mv(b), [(2, 3), (3,)]),
    "a.mm(b)": (lambda lib, a, b: a.mm(b), [(2, 3), (3, 4)]),
    "a.bmm(b)": (lambda lib, a, b: a.bmm(b), [(2, 2, 3), (2, 3, 4)]),
    "F.linear(x, w, b)": (lambda lib, x, w, b: _linear(lib)(x, w, b),
                          [(2, 3), (4, 3), (4,)]),
}


@pytest.mark.parametrize("name", NARROWED)
def test_a_node_computes_only_the_gradients_autograd_grad_asks_for(name):
    """autograd.grad for one input of mul, dot, mv, mm, bmm or addmm:
    PyTorch's node runs only the formulas task_should_compute_output
    allows, so a create_graph pass records and packs only what that
    gradient needs (toygrad computed every gradient, and packed more)."""
    import numpy as np
    f, shapes = NARROWED[name]
    rng = np.random.default_rng(12)
    arrays = [rng.standard_normal(shape) for shape in shapes]
    for wanted in range(len(shapes)):
        seen = []
        for lib in LIBS:
            log = []
            inputs = [leaf(lib, a) for a in arrays]
            out = f(lib, *inputs)
            with hooks(lib).saved_tensors_hooks(
                    lambda t: log.append((tuple(t.shape),
                                          numbers(t).round(12).tolist())) or t,
                    lambda t: t):
                g, = lib.autograd.grad(out.sum(), [inputs[wanted]],
                                       create_graph=True)
            seen.append((log, numbers(g).round(12).tolist(),
                         g.grad_fn.name() if g.grad_fn else None))
        assert seen[0] == seen[1], wanted
