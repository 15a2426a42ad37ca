"""Chapter 10: inference mode, inference tensors, the grad modes' threads,
scalar Values under no_grad, and a leaf's ``.grad`` over several backward
calls, each beside torch 2.13.

(Chapter 6's ``test_grad_mode.py`` tests the switches it explains; these
tests need chapter 10's code, so they live in a module of their own, which a
package cut after chapter 6 leaves out.)
"""

import threading

import numpy as np
import pytest
import torch

import toygrad
from toygrad.scalar import Value

pytestmark = pytest.mark.ch10

LIBS = (torch, toygrad)


@pytest.fixture(autouse=True)
def grad_mode_on():
    yield
    for lib in LIBS:
        lib.set_grad_enabled(True)


def both(scenario):
    seen = {lib: scenario(lib) for lib in LIBS}
    assert seen[toygrad] == seen[torch]
    return seen[torch]


def error_of(lib, action):
    try:
        action(lib)
    except Exception as error:  # noqa: BLE001  (compared with torch's)
        return type(error).__name__, str(error)
    return None


def modes(lib):
    return lib.is_grad_enabled(), lib.is_inference_mode_enabled()


def test_inference_mode_switches_grad_mode_off_and_back():
    def scenario(lib):
        seen = [modes(lib)]
        with lib.inference_mode():
            seen.append(modes(lib))
            with lib.inference_mode(False):
                seen.append(modes(lib))
            seen.append(modes(lib))
        with lib.no_grad(), lib.inference_mode(mode=False):
            seen.append(modes(lib))  # inference mode off means grad on
        seen.append(modes(lib))
        return seen

    both(scenario)


@pytest.mark.parametrize("how", ["bare", "called", "mode=False"])
def test_inference_mode_decorates(how):
    def scenario(lib):
        def probe():
            return modes(lib)
        if how == "bare":
            return lib.inference_mode(probe)(), modes(lib)
        if how == "called":
            return lib.inference_mode()(probe)(), modes(lib)
        return lib.inference_mode(mode=False)(probe)(), modes(lib)

    both(scenario)


def test_tensors_made_in_inference_mode_are_inference_tensors():
    def scenario(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.inference_mode():
            a = lib.ones(2)
            b = w * 2
            v = w[0]  # a view of a normal tensor stays normal
            c = lib.tensor([1.0], requires_grad=True)
        with lib.no_grad():
            n = lib.ones(2)
        return [(t.is_inference(), t.requires_grad, t.grad_fn is None)
                for t in (a, b, v, c, n, a.detach(), a[0], a.clone(),
                          a * 2)]

    both(scenario)


def _inference(lib):
    with lib.inference_mode():
        return lib.tensor([1.0, 2.0])


def _weight(lib):
    return lib.tensor([3.0, 4.0], requires_grad=True)


OUTSIDE = {
    "saved for backward (a * w)": lambda lib: _inference(lib) * _weight(lib),
    "saved for backward (w @ a)": lambda lib: _weight(lib) @ _inference(lib),
    "saved for backward (w / a)": lambda lib: _weight(lib) / _inference(lib),
    "not saved (a + w)": lambda lib: _inference(lib) + _weight(lib),
    "in place": lambda lib: _inference(lib).add_(1),
    "requires_grad_": lambda lib: _inference(lib).requires_grad_(),
    "_version": lambda lib: _inference(lib)._version,
    "in place on a clone": lambda lib: _inference(lib).clone().add_(1),
}


@pytest.mark.parametrize("action", OUTSIDE.values(), ids=OUTSIDE.keys())
def test_inference_tensors_outside_inference_mode(action):
    both(lambda lib: error_of(lib, action))


def test_the_numbers_change_before_the_in_place_error_as_in_pytorch():
    def scenario(lib):
        a = _inference(lib)
        error = error_of(lib, lambda lib: a.add_(1))
        return error[0], a.tolist()

    both(scenario)


def _inference_leaf(lib):
    with lib.inference_mode():
        return lib.tensor(2.0, dtype=lib.float64, requires_grad=True)


# An inference tensor has no autograd dispatch key: an in-place change whose
# tensors are all inference tensors skips autograd's checks (a leaf's among
# them) and fails at the version counter; a normal tensor among them, or a
# Python number (wrapped as a normal tensor), brings the checks back.
ON_AN_INFERENCE_LEAF = {
    "zero_()": lambda lib, x, y: x.zero_(),
    "mul_(inference y)": lambda lib, x, y: x.mul_(y),
    "add_(inference y, alpha=2)": lambda lib, x, y: x.add_(y, alpha=2),
    "copy_(inference y)": lambda lib, x, y: x.copy_(y),
    "x[()] = inference y": lambda lib, x, y: x.__setitem__((), y),
    "x[...] = inference y": lambda lib, x, y: x.__setitem__(..., y),
    "mul_(2.0)": lambda lib, x, y: x.mul_(2.0),
    "x[()] = 5.0": lambda lib, x, y: x.__setitem__((), 5.0),
    "mul_(normal y)": lambda lib, x, y: x.mul_(lib.ones((), dtype=x.dtype)),
}


@pytest.mark.parametrize("action", ON_AN_INFERENCE_LEAF.values(),
                         ids=ON_AN_INFERENCE_LEAF.keys())
def test_in_place_on_an_inference_leaf_checks_as_pytorch_dispatches(action):
    def scenario(lib):
        x, y = _inference_leaf(lib), _inference_leaf(lib)
        return error_of(lib, lambda lib: action(lib, x, y)), x.tolist()

    both(scenario)


@pytest.mark.parametrize("base", [0.0, 2.0, 1.0])
@pytest.mark.parametrize("where", ["normal tensor", "inference tensor"])
def test_number_to_a_tensor_s_power_writes_its_result_as_pytorch(base, where):
    # pow(Scalar, Tensor) is pow_out into a new tensor: where autograd does
    # not see the call (an inference exponent outside inference mode), the
    # write counts, and the result is at version 1.
    def scenario(lib):
        x = _inference(lib) if where == "inference tensor" else lib.ones(2)
        out = base ** x
        return out.tolist(), out._version, out.is_inference()

    both(scenario)


def _made(lib, where, shape):
    data = np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape)
    if where == "normal tensors":
        return lib.tensor(data)
    with lib.inference_mode():
        return lib.tensor(data)


# Operations whose kernel writes its new result in place (fill_, copy_,
# div_, addmv_, squeeze_), and some whose kernel does not: (shapes, call).
BELOW_AUTOGRAD = {
    "clone": ([(2, 3)], lambda lib, x: x.clone()),
    "expand(2, 3).clone()": ([(3,)], lambda lib, x: x.expand(2, 3).clone()),
    "sum()": ([(2, 3)], lambda lib, x: x.sum()),
    "sum() of an empty tensor": ([(0, 3)], lambda lib, x: x.sum()),
    "sum(0)": ([(2, 3)], lambda lib, x: x.sum(0)),
    "sum(1, keepdim=True)": ([(2, 3)], lambda lib, x: x.sum(1, keepdim=True)),
    "sum_to_size(1, 3)": ([(2, 3)], lambda lib, x: x.sum_to_size(1, 3)),
    "mean()": ([(2, 3)], lambda lib, x: x.mean()),
    "mean(1)": ([(2, 3)], lambda lib, x: x.mean(1)),
    "max()": ([(2, 3)], lambda lib, x: x.max()),
    "max(1)": ([(2, 3)], lambda lib, x: tuple(x.max(1))),
    "max(1, keepdim=True)": ([(2, 3)],
                             lambda lib, x: tuple(x.max(1, keepdim=True))),
    "0-dim max(0)": ([()], lambda lib, x: tuple(x.max(0))),
    "x ** 0": ([(3,)], lambda lib, x: x ** 0),
    "x ** 1.0": ([(3,)], lambda lib, x: x ** 1.0),
    "x ** 2": ([(3,)], lambda lib, x: x ** 2),
    "2.0 ** x": ([(3,)], lambda lib, x: 2.0 ** x),
    "x * 2": ([(3,)], lambda lib, x: x * 2),
    "1-D @ 1-D (dot)": ([(3,), (3,)], lambda lib, x, y: x @ y),
    "2-D @ 1-D (mv)": ([(2, 3), (3,)], lambda lib, x, y: x @ y),
    "x.mv(y)": ([(2, 3), (3,)], lambda lib, x, y: x.mv(y)),
    "2-D @ 2-D (mm)": ([(2, 3), (3, 2)], lambda lib, x, y: x @ y),
    "F.linear(x, w, b)": ([(2, 3), (4, 3), (4,)], lambda lib, x, w, b:
                          lib.nn.functional.linear(x, w, b)),
    "F.linear of a 1-D x with b": ([(3,), (4, 3), (4,)], lambda lib, x, w, b:
                                   lib.nn.functional.linear(x, w, b)),
    "F.linear(x, 1-D w)": ([(2, 3), (3,)],
                           lambda lib, x, w: lib.nn.functional.linear(x, w)),
    "log_softmax": ([(2, 3)],
                    lambda lib, x: lib.nn.functional.log_softmax(x, 1)),
}


@pytest.mark.parametrize("where", ["inference tensors", "normal tensors"])
@pytest.mark.parametrize("name", BELOW_AUTOGRAD)
def test_results_versions_outside_inference_mode_as_pytorch(name, where):
    # All inputs inference tensors, outside inference mode: the autograd
    # kernel is skipped, and the in-place writes of torch's kernel into its
    # new (normal) result go through ADInplaceOrView, which counts them.
    shapes, call = BELOW_AUTOGRAD[name]

    def scenario(lib):
        out = call(lib, *[_made(lib, where, shape) for shape in shapes])
        outs = out if isinstance(out, tuple) else (out,)
        return [(t.tolist(), str(t.dtype).split(".")[-1], t._version,
                 t.is_inference(), t._base is not None) for t in outs]

    both(scenario)


def _version_or_error(lib, tensor):
    return error_of(lib, lambda lib: tensor._version) or tensor._version


def test_detach_of_an_inference_tensor_outside_inference_mode_as_pytorch():
    # Outside inference mode, detach of an inference tensor is ATen's own
    # (shallow_copy_and_detach with a new version counter at 0): still an
    # inference tensor, but one whose version is read and counts in-place
    # changes outside inference mode (inside, nothing counts them). Its
    # views, and detach inside inference mode, have no version counter.
    def scenario(lib):
        x = _inference(lib)
        d = x.detach()
        seen = [d.is_inference(), d._version, d._base is not None]
        with lib.inference_mode():
            d.add_(1)
            seen += [d._version, _version_or_error(lib, x.detach())]
        d.mul_(2)
        seen += [d._version, x.tolist(), error_of(lib, lambda lib: x.add_(1))]
        seen += [_version_or_error(lib, d.detach()),
                 _version_or_error(lib, d.t()),
                 _version_or_error(lib, d[0]),
                 d.sum()._version, d.clone()._version,
                 error_of(lib, lambda lib: d.requires_grad_())]
        return seen

    both(scenario)


def _inference_of(lib, *shape):
    with lib.inference_mode():
        return lib.ones(*shape)


# Calls whose checks fail, with an inference tensor among the inputs and
# another input that requires grad (or not: then nothing is saved).
SAVED_FIRST = {
    "F.linear(x, w) of another width": lambda lib: lib.nn.functional.linear(
        lib.ones(4, 5, requires_grad=True), _inference_of(lib, 2, 3)),
    "F.linear(x, w, b) of another width": lambda lib: lib.nn.functional.linear(
        lib.ones(4, 5, requires_grad=True), _inference_of(lib, 2, 3),
        _inference_of(lib, 2)),
    "F.linear(x, w, b), x of another dtype": lambda lib:
        lib.nn.functional.linear(
            lib.ones(4, 3, dtype=lib.float64, requires_grad=True),
            _inference_of(lib, 2, 3), _inference_of(lib, 2)),
    "F.linear(x, w), nothing requires grad": lambda lib:
        lib.nn.functional.linear(lib.ones(4, 5), _inference_of(lib, 2, 3)),
    "x @ w, mm": lambda lib: lib.ones(4, 5, requires_grad=True)
        @ _inference_of(lib, 3, 2),
    "w @ x, mm": lambda lib: _inference_of(lib, 2, 3)
        @ lib.ones(4, 5, requires_grad=True),
    "w @ v, mv": lambda lib: _inference_of(lib, 2, 3)
        @ lib.ones(4, requires_grad=True),
    "v @ u, dot": lambda lib: lib.ones(4, requires_grad=True)
        @ _inference_of(lib, 3),
    "x.bmm(w)": lambda lib: lib.ones(2, 4, 5, requires_grad=True).bmm(
        _inference_of(lib, 2, 3, 2)),
    "x * w": lambda lib: lib.ones(4, 5, requires_grad=True)
        * _inference_of(lib, 2, 3),
    "x / w": lambda lib: lib.ones(4, 5, requires_grad=True)
        / _inference_of(lib, 2, 3),
    "w / x": lambda lib: _inference_of(lib, 2, 3)
        / lib.ones(4, 5, requires_grad=True),
    "x ** w": lambda lib: lib.ones(4, 5, requires_grad=True)
        ** _inference_of(lib, 2, 3),
    "x + w (saves nothing)": lambda lib: lib.ones(4, 5, requires_grad=True)
        + _inference_of(lib, 2, 3),
    "x @ w under no_grad": lambda lib: _no_grad_matmul(lib),
}


def _no_grad_matmul(lib):
    with lib.no_grad():
        return lib.ones(4, 5, requires_grad=True) @ _inference_of(lib, 3, 2)


@pytest.mark.parametrize("action", SAVED_FIRST.values(), ids=SAVED_FIRST.keys())
def test_inference_tensors_are_saved_before_the_checks_as_in_pytorch(action):
    # PyTorch's autograd kernel saves the inputs the node needs (refusing an
    # inference tensor) before the kernel checks shapes and dtypes.
    both(lambda lib: error_of(lib, action))


PARAMETERS = {
    "Parameter(x)": lambda lib, x: lib.nn.Parameter(x),
    "Parameter(x[0])": lambda lib, x: lib.nn.Parameter(x[0]),
    "Parameter(x.t())": lambda lib, x: lib.nn.Parameter(x.t()),
    "Parameter(x, requires_grad=False)": lambda lib, x: lib.nn.Parameter(
        x, requires_grad=False),
    "Parameter(integer x)": lambda lib, x: lib.nn.Parameter(
        _integers_in_inference_mode(lib)),
    "Parameter(integer x, requires_grad=False)": lambda lib, x:
        lib.nn.Parameter(_integers_in_inference_mode(lib),
                         requires_grad=False),
}


def _integers_in_inference_mode(lib):
    with lib.inference_mode():
        return lib.ones(2, dtype=lib.int64)


@pytest.mark.parametrize("inside", [False, True])
@pytest.mark.parametrize("make", PARAMETERS.values(), ids=PARAMETERS.keys())
def test_a_parameter_of_an_inference_tensor_as_pytorch(make, inside):
    # nn.Parameter sets requires_grad (Tensor._make_subclass): outside
    # inference mode an inference tensor refuses it, before the dtype check.
    def scenario(lib):
        x = _inference_of(lib, 2, 3)
        with lib.inference_mode(inside):
            made = []
            error = error_of(lib, lambda lib: made.append(make(lib, x)))
        if error:
            return error
        p = made[0]
        return type(p).__name__, p.is_inference(), p.requires_grad, p.tolist()

    both(scenario)


def test_a_leaf_s_first_gradient_made_in_inference_mode_is_an_inference_tensor():
    # AccumulateGrad copies the given gradient (the caller still holds it):
    # inside inference mode the copy is an inference tensor, so zeroing it
    # in place later, outside, is refused.
    def scenario(lib):
        w = lib.nn.Linear(3, 2).weight
        with lib.inference_mode():
            w.backward(lib.ones((2, 3)))
        zeroing = error_of(lib, lambda lib: w.grad.zero_())
        return w.grad.is_inference(), w.grad.requires_grad, zeroing

    both(scenario)


def test_inside_inference_mode_anything_goes():
    def scenario(lib):
        a, x = _inference(lib), lib.ones(2)
        with lib.inference_mode():
            a.add_(1)
            x.add_(1)  # a normal tensor: its version still counts
            y = a * _weight(lib)
        return a.tolist(), x._version, y.requires_grad, y.is_inference()

    both(scenario)


def test_grad_mode_is_per_thread():
    def scenario(lib):
        seen = {}

        def worker():
            seen["thread"] = modes(lib)
        with lib.no_grad():
            thread = threading.Thread(target=worker)
            thread.start()
            thread.join()
            seen["main"] = modes(lib)
        with lib.inference_mode():
            thread = threading.Thread(target=worker)
            thread.start()
            thread.join()
        seen["thread, inference"] = seen["thread"]
        return seen

    both(scenario)


def test_values_honour_no_grad_and_inference_mode():
    def recorded(make, mode):
        x = make(2.0)
        with mode():
            y = x * x
            z = x.exp()
        return [(t.requires_grad, t.grad_fn is None) for t in (y, z)]

    def value(number):
        return Value(number, requires_grad=True)

    def scalar_tensor(number):
        return torch.tensor(number, dtype=torch.float64, requires_grad=True)

    for mine, theirs in ((toygrad.no_grad, torch.no_grad),
                         (toygrad.inference_mode, torch.inference_mode),
                         (toygrad.enable_grad, torch.enable_grad)):
        assert recorded(value, mine) == recorded(scalar_tensor, theirs)


def test_detach_shares_numbers_and_version_and_has_no_history():
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = y.detach()
        d.add_(1)
        return (d.requires_grad, d.is_leaf, d.grad_fn is None,
                y._version, y.tolist() if lib is toygrad else
                y.detach().tolist())

    both(scenario)


REQUIRES_GRAD = {
    "integer leaf": lambda lib: lib.tensor([1, 2]).requires_grad_(),
    "non-leaf, False": lambda lib: (
        lib.tensor([1.0], requires_grad=True) * 2).requires_grad_(False),
    "non-leaf, True": lambda lib: (
        lib.tensor([1.0], requires_grad=True) * 2).requires_grad_(True),
    "integer at creation": lambda lib: lib.tensor([1], requires_grad=True),
}


@pytest.mark.parametrize("action", REQUIRES_GRAD.values(),
                         ids=REQUIRES_GRAD.keys())
def test_requires_grad_errors(action):
    both(lambda lib: error_of(lib, action))


def leaf_grads(lib, set_to_none):
    w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    seen = []
    for _ in range(2):  # two backward calls add up
        (w * w).sum().backward()
        seen.append(w.grad.tolist())
    grad = w.grad
    optimizer.zero_grad(set_to_none=set_to_none)
    seen.append(None if w.grad is None else (w.grad.tolist(),
                                             w.grad is grad))
    return seen


@pytest.mark.parametrize("set_to_none", [True, False])
def test_grads_accumulate_and_zero_grad_sets_none_or_zeros(set_to_none):
    both(lambda lib: leaf_grads(lib, set_to_none))


def test_zero_grad_sets_none_by_default():
    def scenario(lib):
        w = lib.tensor([1.0], requires_grad=True)
        (w * 2).sum().backward()
        lib.optim.SGD([w], lr=0.1).zero_grad()
        return w.grad is None

    assert both(scenario)


def test_scalar_value_leaf_under_no_grad_still_requires_grad():
    with toygrad.no_grad():
        v = Value(1.0, requires_grad=True)
    with torch.no_grad():
        t = torch.tensor(1.0, requires_grad=True)
    assert v.requires_grad == t.requires_grad
    assert np.isclose(v.data, t.item())


def test_a_custom_function_returning_its_input_in_inference_mode():
    """An input returned as it is comes back as ``x.view_as(x)``: a view of
    a normal tensor (not an inference tensor, free to change in place
    afterwards), and an inference tensor, not a view, for an inference
    tensor; both as PyTorch has them."""
    def run(lib):
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        normal = lib.tensor(np.ones(2))
        with lib.inference_mode():
            inference = lib.tensor(np.ones(2))
            outs = [(Id.apply(x), x) for x in (normal, inference)]
        seen = [(out is x, out._is_view(), out._base is x, out.is_inference())
                for out, x in outs]
        outs[0][0].mul_(2)
        return seen, normal.tolist()

    assert run(toygrad) == run(torch)
