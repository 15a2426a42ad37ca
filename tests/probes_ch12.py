"""Chapter 12's probes: autograd.grad (task 12.1), and the Jacobians gradgradcheck checks
(task 12.2). Each is written for either library (``lib``: toygrad here, torch for the
expectations in tests/test_tasks_ch12.py)."""

import numpy as np

import toygrad
from toygrad.autograd.gradgradcheck import jacobians


def numbers_xw(seed=0):
    rng = np.random.default_rng(1212 + seed)
    return rng.standard_normal((2, 3)), rng.standard_normal(3)


def numbers(t):
    return t.data if isinstance(t, toygrad.Tensor) else t.detach().numpy()


def pair(lib, seed=0):
    x, w = numbers_xw(seed)
    return lib.tensor(x.copy(), requires_grad=True), lib.tensor(w.copy(), requires_grad=True)


def gradients(lib, seed=0):
    """grad of ((x * w).tanh() * x).sum() for x and w, and the .grad it left (none)."""
    x, w = pair(lib, seed)
    y = ((x * w).tanh() * x).sum()
    grads = lib.autograd.grad(y, [x, w])
    return [[numbers(g) for g in grads], x.grad is None and w.grad is None]


def non_leaf_and_unused(lib, seed=0):
    """grad for a non-leaf, a leaf and an unused input; then the error without
    allow_unused."""
    x, w = pair(lib, seed)
    z = x * w
    loss = (z * z).sum()
    gz, gx, unused = lib.autograd.grad(
        loss, [z, x, lib.tensor(numbers_xw(seed)[1], requires_grad=True)],
        allow_unused=True)
    try:
        lib.autograd.grad((x * 2).sum(), [x, w])
        error = None
    except RuntimeError as raised:
        if isinstance(raised, NotImplementedError):
            raise
        error = str(raised)
    return [numbers(gz), numbers(gx), unused, error]


def runs_only_what_leads_to_the_inputs(seed=0):
    """grad(y, x) must not run w's ExpBackward0: it keeps what it saved for grad(y, w)."""
    x, w = pair(toygrad, seed)
    y = (x * 2).sum() + w.exp().sum()
    toygrad.autograd.grad(y, x)
    (gw,) = toygrad.autograd.grad(y, w)
    return gw.data


def second_derivatives(lib, seed=0):
    x, w = pair(lib, seed)
    (g,) = lib.autograd.grad((x * x * x * w).sum(), x, create_graph=True)
    return [numbers(s) for s in lib.autograd.grad(g.sum(), [x, w])]


def two_output_jacobians(seed=0):
    """jacobians of f(a, b) = ((a * b).tanh(), (a * a).sum(1)): the flag per output, the
    shapes, how far the numerical ones are from the analytical ones, and the first."""
    x, w = pair(toygrad, seed)

    def f(a, b):
        return (a * b).tanh(), (a * a).sum(1)

    numerical, analytical, differentiable = jacobians(f, (x, w))
    apart = max(float(np.max(np.abs(num - ana), initial=0.0)) for nums, anas in
                zip(numerical, analytical) for num, ana in zip(nums, anas))
    return {"differentiable": differentiable,
            "shapes": [[list(m.shape) for m in row] for row in analytical],
            "numerical vs analytical": apart, "first": analytical[0][0]}


def square_with_a_lost_second_derivative(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            # right first derivative, but detached: its own derivative is lost,
            # so the second derivative is wrong
            return grad * 2 * a.detach()
    return Square.apply


def gradgradcheck_verdicts(lib, seed=0):
    x_numbers, w_numbers = numbers_xw(seed)
    x = lib.tensor(w_numbers.copy(), requires_grad=True)
    v = lib.tensor(x_numbers[0].copy(), requires_grad=True)
    return [lib.autograd.gradgradcheck(square_with_a_lost_second_derivative(lib), (x,),
                                       (v,), raise_exception=False),
            lib.autograd.gradgradcheck(lambda a: a * a, (x,), (v,))]


# What the sandbox runs: each probe on toygrad.

def gradients_toygrad(seed=0):
    return gradients(toygrad, seed)


def non_leaf_and_unused_toygrad(seed=0):
    return non_leaf_and_unused(toygrad, seed)


def second_derivatives_toygrad(seed=0):
    return second_derivatives(toygrad, seed)


def gradgradcheck_verdicts_toygrad(seed=0):
    return gradgradcheck_verdicts(toygrad, seed)
