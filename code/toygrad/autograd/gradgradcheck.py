"""``gradgradcheck``: are the gradients of the gradients right?

As ``torch.autograd.gradgradcheck`` does it: the gradient of ``func``,
``(inputs, v) -> v^T J``, computed by ``autograd.grad(...,
create_graph=True)``, is itself a function of the inputs and of ``v``; its
Jacobians, computed by backward through the recorded backward pass, must
match finite differences. A wrong second derivative, or a backward pass that
was not recorded (its gradient would seem constant), fails.
"""

import numpy as np

from toygrad.autograd.differentiate import _as_tuple, grad
from toygrad.autograd.gradcheck import GradcheckError, _set_at
from toygrad.tensor import Tensor


def _differentiable(outputs):
    return tuple(out for out in _as_tuple(outputs) if out.requires_grad)


def _flat_outputs(func, inputs):
    return [np.array(out.data, dtype=np.float64).reshape(-1)
            for out in _as_tuple(func(*inputs))]


def _zero_jacobians(outputs, inputs):
    """One zero matrix (input.numel(), output.numel()) per output and
    input, as a list (one per output) of lists (one per input)."""
    return [[np.zeros((x.data.size, out.data.size)) for x in inputs]
            for out in outputs]


def _basis(out, i):
    """A gradient for ``out``: 1 at element ``i``, 0 elsewhere."""
    basis = np.zeros(out.data.size, out.dtype)
    basis[i] = 1.0
    return Tensor(basis.reshape(out.shape))


# Task 12.2: the Jacobians of a function with several outputs, both ways
def jacobians(func, inputs, eps=1e-6):
    """d output_k / d input_j for every output and differentiable input,
    numerically and analytically: two lists (one per output) of lists (one
    per input) of matrices of shape (input.numel(), output.numel())."""
    differentiable = [x for x in inputs if getattr(x, "requires_grad", False)]
    outputs = _as_tuple(func(*inputs))
    # Numerically: nudge one element of one input, get a row of each.
    numerical = _zero_jacobians(outputs, differentiable)
    for j, x in enumerate(differentiable):
        for index, original in enumerate(x.data.reshape(-1).copy()):
            _set_at(x, index, original + eps)
            plus = _flat_outputs(func, inputs)
            _set_at(x, index, original - eps)
            minus = _flat_outputs(func, inputs)
            _set_at(x, index, original)
            for k, (p, m) in enumerate(zip(plus, minus)):
                numerical[k][j][index] = (p - m) / (2 * eps)
    # Analytically: one grad per output element, a column of each.
    analytical = _zero_jacobians(outputs, differentiable)
    for k, out in enumerate(outputs):
        for i in range(out.data.size if out.requires_grad else 0):
            grads = grad(out, differentiable, _basis(out, i),
                         retain_graph=True, allow_unused=True)
            for j, g in enumerate(grads):
                if g is not None:
                    analytical[k][j][:, i] = np.reshape(g.data, -1)
    return numerical, analytical, [out.requires_grad for out in outputs]


def _check_overlap(inputs):
    """PyTorch's check: finite differences need each element of an input
    to be stored once (no stride 0, as a broadcast view has)."""
    for index, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and not all(
                stride > 0 or size <= 1
                for stride, size in zip(x.data.strides, x.data.shape)):
            raise RuntimeError(
                f"The {index}th input has a dimension with stride 0. "
                "gradcheck only supports inputs that are non-overlapping to "
                "be able to compute the numerical gradients correctly. You "
                "should call .contiguous on the input before passing it to "
                "gradcheck.")


def _check(func, inputs, eps, atol, rtol, raise_exception):
    if not any(getattr(x, "requires_grad", False) for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to "
                         "require gradient, but none of the them have "
                         "requires_grad=True.")
    _check_overlap(inputs)
    numerical, analytical, differentiable = jacobians(func, inputs, eps)
    for k, (nums, anas) in enumerate(zip(numerical, analytical)):
        if not differentiable[k]:
            if any(np.any(num != 0) for num in nums):
                message = ("Numerical gradient for function expected to be "
                           "zero")
                if raise_exception:
                    raise GradcheckError(message)
                return False
            continue
        for j, (num, ana) in enumerate(zip(nums, anas)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if raise_exception:
                    raise GradcheckError(
                        f"Jacobian mismatch for output {k} with respect to "
                        f"input {j},\nnumerical:{num}\nanalytical:{ana}\n")
                return False
    return True


def _check_options(check_rev_over_rev, check_undefined_grad, refused):
    """PyTorch's checks of the options, then toygrad's refusal of those that
    ask for checks it does not make (``refused``: name -> (value,
    default))."""
    if not (refused["check_fwd_over_rev"][0] or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or "
                             "check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires "
                             "check_rev_over_rev to be True")
    if refused["check_batched_grad"][0] and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires "
                             "check_rev_over_rev to be True")
    for name, (value, default) in refused.items():
        if value != default:
            raise NotImplementedError(
                f"toygrad's gradgradcheck does not support {name}={value!r}")


def _grad_outputs(func, inputs, grad_outputs):
    """The ``v`` of ``v^T J``: those given, or random in [-1, 1], one per
    differentiable output, requiring grad."""
    if grad_outputs is None:
        rng = np.random.default_rng()
        grad_outputs = tuple(
            Tensor(rng.uniform(-1, 1, out.shape).astype(out.dtype),
                   requires_grad=True)
            for out in _differentiable(func(*inputs)))
    grad_outputs = _as_tuple(grad_outputs)
    for v in grad_outputs:  # PyTorch reads which of them require grad first
        v.requires_grad
    return grad_outputs


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5,
                  rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False):
    """True if the second derivatives of ``func`` at ``inputs`` match
    finite differences of its first ones (PyTorch's signature and test).
    ``grad_outputs`` are the ``v`` of ``v^T J`` (random if not given)."""
    _check_options(check_rev_over_rev, check_undefined_grad, dict(
        gen_non_contig_grad_outputs=(gen_non_contig_grad_outputs, False),
        nondet_tol=(nondet_tol, 0.0),
        check_grad_dtypes=(check_grad_dtypes, False),
        check_batched_grad=(check_batched_grad, False),
        check_fwd_over_rev=(check_fwd_over_rev, False),
        fast_mode=(fast_mode, False), masked=(masked, False)))
    inputs = _as_tuple(inputs)
    grad_outputs = _grad_outputs(func, inputs, grad_outputs)
    count = len(grad_outputs)

    def new_func(*args):  # (inputs, v) -> v^T J, with its graph recorded
        input_args, v = args[:-count], args[-count:]
        wanted = tuple(x for x in input_args
                       if isinstance(x, Tensor) and x.requires_grad)
        grads = grad(_differentiable(func(*input_args)), wanted, v,
                     create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return _check(new_func, inputs + grad_outputs, eps, atol, rtol,
                  raise_exception)
