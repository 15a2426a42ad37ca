"""Saved-tensor pack hooks run before an operation's checks, as PyTorch's.

PyTorch's autograd kernel (VariableType) makes the node and saves the
tensors the backward formulas need (``SavedVariable``, which calls the pack
hook) before it calls the kernel that checks shapes, dtypes and overlaps;
so when a check fails, the pack hook has already seen those tensors
(issue 24). ``x @ y`` of (2, 3) and (2, 3) packs ``y`` then ``x``, then mm
raises. Each case runs one statement on toygrad and on torch inside a
logging ``saved_tensors_hooks`` and compares the error and the pack log:
which tensor was packed (by name, or "new"), in which order, its dtype,
shape, ``grad_fn`` and numbers."""

import warnings

import numpy as np
import pytest
import torch
import torch.autograd.graph

import toygrad
import toygrad.autograd.graph
import toygrad.nn.functional

pytestmark = pytest.mark.ch11

RNG = np.random.default_rng(11)
INPUTS = {  # name -> (array, requires_grad)
    "A": (RNG.normal(size=(2, 3)), True),
    "B": (RNG.normal(size=(2, 3)), True),
    "N": (RNG.normal(size=(2, 3)), False),
    "F": (RNG.normal(size=(2, 3)).astype(np.float32), True),
    "I": (RNG.integers(-3, 3, (2, 3)), False),
    "V2": (RNG.normal(size=2), True),
    "V3": (RNG.normal(size=3), True),
    "V4": (RNG.normal(size=4), True),
    "N2": (RNG.normal(size=2), False),
    "N3": (RNG.normal(size=3), False),
    "C": (RNG.normal(size=(3, 4)), True),
    "NC": (RNG.normal(size=(3, 4)), False),
    "FC": (RNG.normal(size=(3, 4)).astype(np.float32), True),
    "X": (RNG.normal(size=(4, 3)), True),
    "NX": (RNG.normal(size=(4, 3)), False),
    "X3": (RNG.normal(size=(2, 4, 3)), True),
    "XF": (RNG.normal(size=(4, 3)).astype(np.float32), True),
    "V2F": (RNG.normal(size=2).astype(np.float32), True),
    "PF": (RNG.normal(size=(2, 2, 3)).astype(np.float32), True),
    "P": (RNG.normal(size=(2, 2, 3)), True),
    "Q": (RNG.normal(size=(3, 3, 4)), True),
    "NQ": (RNG.normal(size=(2, 3, 4)), False),
    "E": (np.zeros(0), True),
    "E2": (np.zeros((0, 3)), True),
    "T": (np.array([0, 5, 1, 2]), False),
    "TF": (np.array([0.0, 1.0, 1.0, 2.0]), False),
    "T3": (np.array([0, 1, 2]), False),
}

CASES = [
    # Binary products: mul saves each operand for the other's gradient
    # (other, then self); div and pow save both. add and sub save nothing.
    "A * V2", "A * N2", "N * V2", "A / V2", "A / N2", "N / V2",
    "A ** V2", "A ** N2", "N ** V2", "A + V2", "A - V2", "V2 * A",
    # In place: ``original_self`` (a recorded clone) and the other operand
    # are saved before the kernel checks the broadcast, the overlap and the
    # cast.
    "y = A.clone(); y.mul_(B.sum(0, keepdim=True).expand(4, 3))",
    "y = V3.clone(); y.mul_(A)", "y = V3.clone(); y.div_(A)",
    "y = V3.clone(); y *= A", "y = V3.clone(); y /= A",
    "y = V3.clone(); y.mul_(N)", "y = N3.clone(); y.mul_(A)",
    "y = A.clone(); y[0].mul_(V2)", "y = A.clone(); y[0, 0].mul_(V3)",
    "y = A.clone(); y[0, 0].div_(V3)",
    "y = A.clone(); y.mul_(y[0])", "y = A.clone(); y.div_(y[0])",
    "y = A.clone(); y[0].mul_(y[:, 0].t())",
    "y = I.clone(); y.mul_(A)", "y = I.clone(); y.div_(A)",
    "y = V3.clone(); y.add_(A)", "y = V3.clone(); y.sub_(A)",
    "A.mul_(V2)", "y = V3.clone(); y.mul_(2.0); y.mul_(N)",
    # Matrix products.
    "A @ B", "A @ N", "N @ B", "V3 @ V4", "V3 @ N2", "A @ V2", "V2 @ C",
    "F @ C", "A @ FC", "P @ Q", "X3 @ B", "B @ X3", "A.mm(B)", "V3.mm(C)",
    "A.mm(V3)", "F.mm(C)", "N.mm(B)", "A.mv(V2)", "V3.mv(V3)", "F.mv(V3)",
    "A.mv(N2)", "P.bmm(Q)", "A.bmm(C)", "P.bmm(NC)", "PF.bmm(NQ)", "P.bmm(NQ.t())",
    # linear: addmm(bias, x, weight.t()), or a matmul of a view.
    "L.linear(X, C)", "L.linear(X, C, V3)", "L.linear(NX, C, V3)",
    "L.linear(X, NC, N3)", "L.linear(V2, B)", "L.linear(V2, B, V2)",
    "L.linear(X3, C, V3)", "L.linear(X3, C)", "L.linear(X3.transpose(0, 1), C, V3)",
    "L.linear(XF, B)", "L.linear(XF, B, V2)", "L.linear(X, B, V3)",
    "L.linear(X3, B, V3)", "L.linear(X, B, V2F)", "L.linear(X, V3, V4.sum())",
    "L.linear(N.t(), B)", "L.linear(X3, C.t(), V3)", "L.linear(X, B, N.t())",
    # Losses: nll_loss saves self and target before checking the target.
    "L.nll_loss(L.log_softmax(X, 1), T)", "L.nll_loss(X, T)",
    "L.nll_loss(X, TF)", "L.nll_loss(X, T, reduction='sum')",
    "L.nll_loss(X, T, ignore_index=0)", "L.nll_loss(X, T3)",
    "L.nll_loss(X, T, reduction='bogus')", "L.nll_loss(NX, T)",
    "L.cross_entropy(X, T)", "L.cross_entropy(X, TF)",
    "L.cross_entropy(X, T, reduction='none')", "L.cross_entropy(X, T3)",
    "L.cross_entropy(X, T, reduction='bogus')", "L.cross_entropy(NX, T)",
    # Reductions that save their input.
    "E.max()", "E2.max()", "E2.t().max()", "E.max(0)", "E2.max(0)",
    "A.max(2)", "E.sum(1)", "L.log_softmax(A, 2)", "L.relu(A).max(2)",
]


def namespace(lib):
    names = {name: lib.tensor(array, requires_grad=grad)
             for name, (array, grad) in INPUTS.items()}
    names["L"] = lib.nn.functional
    return names


def array_of(t):
    return (t.detach().numpy() if isinstance(t, torch.Tensor)
            else t.data).tolist()


def run(lib, statement):
    """The statement's error (or "ok") and its pack log."""
    names = namespace(lib)
    log = []

    def pack(t):
        name = next((k for k, v in names.items() if v is t), "new")
        log.append((name, str(t.dtype).replace("torch.", ""),
                    tuple(t.shape),
                    None if t.grad_fn is None else t.grad_fn.name(),
                    array_of(t)))
        return t
    with warnings.catch_warnings(), \
            lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        warnings.simplefilter("ignore")
        try:
            exec(statement, names)  # noqa: S102 - the cases above
            outcome = "ok"
        except Exception as error:  # noqa: BLE001 - the errors are compared
            outcome = (type(error).__name__, str(error))
    return outcome, log


@pytest.mark.parametrize("statement", CASES)
def test_pack_log_of_a_failing_call_is_pytorchs(statement):
    theirs = run(torch, statement)
    assert theirs[0] != "ok", "each case is a call that fails in torch"
    assert run(toygrad, statement) == theirs
