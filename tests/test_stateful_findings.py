"""Differences tests/test_stateful.py's random search found, each as a
short program run beside PyTorch (issue 24).

- A view made under no_grad of a tensor that requires grad requires grad
  too, but its edge leads nowhere: PyTorch's built-in nodes save for an
  input's gradient only where the edge leads somewhere
  (``should_compute_output``), so ``v * y`` saves ``v`` only, where toygrad
  saved ``y`` too.
- ``retain_grad`` asks ``is_leaf`` of the node as stored: on a view whose
  node is not made yet it does nothing, without an error, where toygrad
  made the node (or raised the no_grad view's error).
"""

import warnings

import pytest
import torch

import toygrad


def no_grad_view(M, take):
    a = M.zeros(3, 3, dtype=M.float64).requires_grad_()
    with M.no_grad():
        return take(a)


TAKES = {"x[0, ..., 0]": lambda a: a[0, ..., 0], "x[0]": lambda a: a[0],
         "x[0, 0]": lambda a: a[0, 0], "x.t()": lambda a: a.t(),
         "x.reshape(9)": lambda a: a.reshape(9)}
OPERATIONS = {"v * y": lambda v, y: v * y, "y * v": lambda v, y: y * v,
              "v / y": lambda v, y: v / y, "v ** y": lambda v, y: v ** y,
              "y ** v": lambda v, y: y ** v}


@pytest.mark.parametrize("take", sorted(TAKES))
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_a_no_grad_views_dead_edge_saves_as_pytorch(take, operation):
    def run(M):
        v = no_grad_view(M, TAKES[take])
        numbers = [0.5, 2.0, -3.0] if v.shape in ((), (3,)) else [0.5]
        y = M.tensor(numbers, dtype=M.float64, requires_grad=True)
        log = []
        with M.autograd.graph.saved_tensors_hooks(
                lambda t: log.append((tuple(t.shape), t.tolist())) or t,
                lambda t: t):
            out = OPERATIONS[operation](v, y)
        edges = [None if node is None else node.name().rsplit("::")[-1]
                 for node, _ in out.grad_fn.next_functions]
        out.sum().backward()
        return log, edges, v.requires_grad, y.grad.tolist()
    assert run(toygrad) == run(torch)


def observe(M, program):
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for what in program:
            try:
                out.append((what, repr(what(M)) if callable(what) else None))
            except Exception as error:  # noqa: BLE001 - compared
                out.append((type(error).__name__, str(error)))
    return [o[1:] if callable(o[0]) else o for o in out]


def test_retain_grad_on_a_view_whose_node_is_not_made_yet():
    def run(M):
        base = M.zeros(3)
        view = base[:2]
        base.mul_(M.ones(3, requires_grad=True))
        view.retain_grad()
        retains = view.retains_grad
        view.sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return retains, view.retains_grad, view.grad is None
    assert run(toygrad) == run(torch) == (False, False, True)


def test_retain_grad_on_a_changed_no_grad_view_does_nothing():
    def run(M):
        M.set_grad_enabled(False)
        try:
            a = M.zeros(3, 3, dtype=M.float64).requires_grad_()
            v = a[0, ..., 0]
            v[()] *= v
            results = []
            for step in (lambda: v.retain_grad(), lambda: v.retains_grad,
                         lambda: v.requires_grad, lambda: v.grad_fn):
                try:
                    results.append(("ok", step()))
                except RuntimeError as error:
                    results.append(("error", str(error)))
            return results
        finally:
            M.set_grad_enabled(True)
    assert run(toygrad) == run(torch)
