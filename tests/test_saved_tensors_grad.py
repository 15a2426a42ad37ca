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
