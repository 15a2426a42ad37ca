"""Element views, writes through views, and in-place checks (issue 24).

Every program runs on torch and on toygrad with the same numbers; what it
returns (tensors' values, dtypes and versions, graphs, gradients) or the
error it raises must be the same. Before these fixes an element ``t[0]`` was
a copy, so ``t[0] = 5.0`` left ``t`` unchanged while gradients were computed
as if the write had happened; ``x[...] = v`` recorded ``CopySlices`` where
PyTorch records ``FillBackward3`` or ``CopyBackwards``; and in-place changes
to rows of ``unbind`` were refused where PyTorch allows them.
"""

import numpy as np
import pytest
import torch

import toygrad
from graphs import structure

pytestmark = pytest.mark.ch11


def observe(value):
    """What a reader can see of ``value``, comparable across libraries."""
    if isinstance(value, (torch.Tensor, toygrad.Tensor)):
        dtype = str(value.dtype).replace("torch.", "")
        grad_fn = value.grad_fn
        return ("tensor", np.asarray(value.detach().numpy()).tolist(), dtype,
                tuple(value.shape), value._version, structure(value),
                None if grad_fn is None else grad_fn.name().rsplit("::")[-1])
    if isinstance(value, (tuple, list)):
        return tuple(observe(v) for v in value)
    return value


def outcome(lib, program):
    try:
        return observe(program(lib))
    except Exception as error:  # compared: type and message
        return ("raised", type(error).__name__, str(error))


def agree(program):
    """Run ``program(lib)`` on torch and toygrad; assert the same outcome."""
    expected = outcome(torch, program)
    assert outcome(toygrad, program) == expected
    return expected


def ramp(lib, *shape, requires_grad=False):
    numbers = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    return lib.tensor(numbers, requires_grad=requires_grad)


# 1. An element is a view: writing it writes its tensor.

def test_writing_one_element_writes_the_tensor():
    def program(lib):
        t = lib.tensor([1.0, 2.0, 3.0])
        t[0] = 5.0
        t[1] += 1.0
        t[2].mul_(10)
        return t, t[0], t[-1]
    assert agree(program)[0][1] == [5.0, 3.0, 30.0]


def test_the_issues_example_element_writes_and_gradients():
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        y[1].mul_(5)
        y[2] = 0.0
        (y * y).sum().backward()
        return y, x.grad
    assert agree(program)[1][1] == [2.0, 100.0, 0.0]


def test_the_textbook_sgd_loop_element_by_element():
    def program(lib):
        w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        (w * w * w).sum().backward()
        with lib.no_grad():
            for i in range(3):
                w[i] -= 0.1 * w.grad[i]
        # (w.grad's own version differs: PyTorch's engine sums the three
        # gradients in place, toygrad's does not; not compared here)
        return w, w.grad.detach().clone()
    agree(program)


def test_an_element_of_a_matrix_and_of_a_row():
    def program(lib):
        t = ramp(lib, 2, 3)
        t[1, 2] = -1.0
        t[0][1] = -2.0
        for row in t:
            row[0] *= 10
        return t
    agree(program)


def test_iterating_a_vector_gives_views():
    def program(lib):
        t = lib.zeros(3)
        for element in t:
            element.add_(1)
        return t
    agree(program)


def test_an_element_is_a_select_view_sharing_the_version():
    def program(lib):
        x = ramp(lib, 3, requires_grad=True)
        y = x * 2
        element = y[1]
        y.mul_(3)  # the base changes: the element sees it
        return element, y, element._is_view(), element._base is y
    agree(program)


# Every view operation: writes through the view reach the base, and the
# base's writes show through the view (0-dim and one-element cases too).

VIEWS = {
    "view": (lambda lib: ramp(lib, 2, 2), lambda t: t.view(4)),
    "view to 0-dim": (lambda lib: ramp(lib, 1), lambda t: t.view(())),
    "reshape to 0-dim": (lambda lib: ramp(lib, 1, 1), lambda t: t.reshape(())),
    "reshape alias": (lambda lib: ramp(lib, 2, 2),
                      lambda t: t.t().reshape(2, 2, 1)),
    "alias": (lambda lib: ramp(lib, 2), lambda t: t[...]),
    "alias of 0-dim": (lambda lib: ramp(lib, 1)[0], lambda t: t[...]),
    "permute": (lambda lib: ramp(lib, 2, 3), lambda t: t.permute(1, 0)),
    "permute of 0-dim": (lambda lib: ramp(lib, 1).view(()),
                         lambda t: t.permute(())),
    "transpose": (lambda lib: ramp(lib, 2, 3), lambda t: t.transpose(0, 1)),
    "transpose of 1 element": (lambda lib: ramp(lib, 1),
                               lambda t: t.transpose(0, 0)),
    "t": (lambda lib: ramp(lib, 2, 3), lambda t: t.t()),
    "t of a vector": (lambda lib: ramp(lib, 2), lambda t: t.t()),
    "T": (lambda lib: ramp(lib, 2, 3), lambda t: t.T),
    "unsqueeze of 0-dim": (lambda lib: ramp(lib, 1).view(()),
                           lambda t: t.unsqueeze(0)),
    "squeeze to 0-dim": (lambda lib: ramp(lib, 1), lambda t: t.squeeze()),
    "squeeze(dim) to 0-dim": (lambda lib: ramp(lib, 1),
                              lambda t: t.squeeze(0)),
    "squeeze of 2x1": (lambda lib: ramp(lib, 2, 1), lambda t: t.squeeze(1)),
    "expand (read only)": (lambda lib: ramp(lib, 1), lambda t: t.expand(3)),
    "select": (lambda lib: ramp(lib, 2, 3), lambda t: t[1]),
    "select to 0-dim": (lambda lib: ramp(lib, 3), lambda t: t[2]),
    "select, negative, to 0-dim": (lambda lib: ramp(lib, 2, 3),
                                   lambda t: t[-1, -2]),
    "select of a row": (lambda lib: ramp(lib, 2, 3), lambda t: t[1][0]),
    "slice": (lambda lib: ramp(lib, 4), lambda t: t[1:3]),
    "slice of one element": (lambda lib: ramp(lib, 4), lambda t: t[3:]),
    "unbind": (lambda lib: ramp(lib, 2, 3), lambda t: t.unbind(1)[2]),
    "unbind to 0-dim": (lambda lib: ramp(lib, 3), lambda t: t.unbind()[1]),
    "None then int": (lambda lib: ramp(lib, 3), lambda t: t[None, 1]),
    "ellipsis then int": (lambda lib: ramp(lib, 2, 3), lambda t: t[..., 1]),
}


@pytest.mark.parametrize("name", VIEWS)
def test_a_write_through_a_view_reaches_its_base(name):
    make, take = VIEWS[name]

    def program(lib):
        base = make(lib)
        view = take(base)
        view.mul_(-1)  # refused by both for expand's overlapping numbers
        return base, view
    agree(program)


@pytest.mark.parametrize("name", VIEWS)
def test_a_write_to_the_base_shows_through_its_view(name):
    make, take = VIEWS[name]

    def program(lib):
        base = make(lib)
        view = take(base)
        base.add_(100)
        return view, base
    agree(program)


# 2. A setitem over a whole tensor writes the tensor itself.

S = slice
KEYS = [Ellipsis, S(None), S(0, 10), S(None, None, 1), S(-3, None), S(0, 2),
        S(None, None, 2), (S(None), S(None)), (Ellipsis, S(-3, None)),
        (S(None), 0), 0, (0, 1), (-1, Ellipsis), None]
VALUES = {
    "2.0": lambda lib: 2.0,
    "0-dim": lambda lib: lib.tensor(3.0, requires_grad=True),
    "a row": lambda lib: lib.tensor([4.0, 5.0, 6.0], requires_grad=True),
    "a 1x3 row": lambda lib: lib.tensor([[4.0, 5.0, 6.0]],
                                        requires_grad=True),
    "2x3": lambda lib: ramp(lib, 2, 3, requires_grad=True) * 10,
}


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("on", ["non-leaf", "view", "leaf without grad"])
def test_setitem_records_what_pytorch_records(key, value, on):
    def program(lib):
        x = ramp(lib, 2, 3, requires_grad=True)
        y = {"non-leaf": lambda: x * 1, "view": lambda: (x * 1)[:, :2],
             "leaf without grad": lambda: ramp(lib, 2, 3)}[on]()
        v = VALUES[value](lib)
        y[key] = v
        base = y if y._base is None else y._base
        base.backward(ramp(lib, 2, 3))
        grad_v = v.grad if getattr(v, "is_leaf", False) else None
        return y, base, x.grad, grad_v
    agree(program)


def test_setitem_on_a_vector_fills_or_copies():
    def program(lib):
        x = ramp(lib, 3, requires_grad=True)
        y, z = x * 1, x * 1
        y[...] = 2.0
        z[:] = lib.tensor([7.0, 8.0, 9.0], requires_grad=True)
        return y.grad_fn.name().rsplit("::")[-1], y, z
    assert agree(program)[0] == "FillBackward3"


def test_a_fill_turns_no_infinite_gradient_into_nan():
    def program(lib):
        x = ramp(lib, 3, requires_grad=True)
        y = x * 1
        y[...] = 2.0
        y.backward(lib.tensor([float("inf"), float("nan"), -0.0]))
        return x.grad
    agree(program)


# 3. In-place checks: what PyTorch allows and refuses, with its messages.

def test_rows_of_unbind_may_change_when_nothing_requires_grad():
    def program(lib):
        t = lib.zeros(2, 3)
        rows = t.unbind()
        rows[0].add_(1)
        rows[1][2] = 5.0
        return t
    agree(program)


IN_PLACE_CASES = {
    "an unbind row of a non-leaf":
        lambda lib, x: (x * 1).unbind()[0].mul_(2),
    "an element of an unbind row": lambda lib, x: (x * 1).unbind()[0][1]
        .mul_(2),
    "a slice of an unbind row": lambda lib, x: (x * 1).unbind()[0][1:]
        .mul_(2),
    "an unbind row of a leaf": lambda lib, x: x.unbind()[0].mul_(2),
    "an unbind row of a leaf, no_grad": lambda lib, x: _no_grad(
        lib, lambda: x.unbind()[0].mul_(2)) or x,
    "an unbind row made without grad, other requires grad":
        lambda lib, x: lib.zeros(2, 3).unbind()[0].add_(x[0]),
    "a view made in no_grad, other requires grad":
        lambda lib, x: _no_grad(lib, lambda: lib.zeros(3)[:2]).add_(x[0, :2]),
    "a view of a view made in no_grad": lambda lib, x: _view_of_no_grad_view(
        lib, x).mul_(2),
    "a view made in no_grad of a leaf":
        lambda lib, x: _no_grad(lib, lambda: x[0]).mul_(2),
    "a view of a leaf": lambda lib, x: x[0].mul_(2),
}


def _no_grad(lib, function):
    with lib.no_grad():
        return function()


def _view_of_no_grad_view(lib, x):
    y = x * 1
    with lib.no_grad():
        row = y[0]
    return row[1:]


@pytest.mark.parametrize("case", IN_PLACE_CASES)
def test_in_place_checks_on_views(case):
    agree(lambda lib: IN_PLACE_CASES[case](lib, ramp(lib, 2, 3,
                                                     requires_grad=True)))


def test_unbind_rows_changed_under_no_grad_then_read():
    def program(lib):
        x = ramp(lib, 2, 3, requires_grad=True)
        y = x * 1
        rows = y.unbind()
        with lib.no_grad():
            rows[0].mul_(2)
        y.sum().backward()
        return y, x.grad, _grad_fn_or_error(rows[1])
    agree(program)


def _grad_fn_or_error(tensor):
    try:
        return tensor.grad_fn.name()
    except RuntimeError as error:
        return str(error)


# zero_ may write through an expand (it writes one number): PyTorch allows
# it, and refuses at backward, when the gradient is copied into the view.

EXPAND_CASES = {
    "zero_ of an expand": lambda lib: _expanded(lib).zero_(),
    "zero_ of a transposed expand": lambda lib: _expanded(lib).t().zero_(),
    "mul_ of an expand": lambda lib: _expanded(lib).mul_(0),
    "fill of a whole expand": lambda lib: _expanded(lib).__setitem__(
        Ellipsis, 2.0),
    "fill of a column of an expand": lambda lib: _expanded(lib).__setitem__(
        (slice(None), 1), lib.tensor(2.0)),
    "fill of a row of an expand": lambda lib: _expanded(lib).__setitem__(
        0, 2.0),
    "copy into an expand": lambda lib: _expanded(lib).__setitem__(
        Ellipsis, lib.ones(2)),
    # copy_ of the very numbers it writes returns before copy_'s checks
    # ("views of the same data"); of other numbers it is refused.
    "copy_ of an expand onto itself": lambda lib: (
        lambda e: e.copy_(e))(_expanded(lib)),
    "copy_ of an expand's alias into it": lambda lib: (
        lambda e: e.copy_(e.detach()))(_expanded(lib)),
    "copy_ of another expand of the base into it": lambda lib: (
        lambda e: e.copy_(lib.base.expand(3, 2)))(_expanded(lib)),
    "copy_ of the base into an expand": lambda lib: (
        lambda e: e.copy_(lib.base))(_expanded(lib)),
    "copy_ of a row of the base into an expand": lambda lib: (
        lambda e: e.copy_(lib.base[0]))(_expanded(lib)),
}


def _expanded(lib):
    lib.base = lib.ones(1, 2)
    return lib.base.expand(3, 2)


@pytest.mark.parametrize("case", EXPAND_CASES)
def test_in_place_through_an_expand(case):
    def program(lib):
        EXPAND_CASES[case](lib)
        return lib.base
    agree(program)


@pytest.mark.parametrize("backward_through", ["base", "expand"])
def test_zero_through_an_expand_refused_at_backward(backward_through):
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        e = y.expand(3, 2)
        e.zero_()
        seen = (y, e)
        (y if backward_through == "base" else e).sum().backward()
        return seen
    agree(program)


def test_zero_through_an_expand_under_no_grad():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        e = y.expand(3, 2)
        with lib.no_grad():
            e.zero_()
        y.sum().backward()
        return y, x.grad
    agree(program)


OVERLAP_CASES = {
    # the same memory from the same start, other strides: PyTorch's
    # get_overlap_status is PARTIAL, checked before the shapes
    "x.t().add_(x), 3x3": lambda lib: ramp(lib, 3, 3).t().add_(
        ramp(lib, 3, 3)),
    "x.t().add_(x), 2x3": lambda lib: (lambda x: x.t().add_(x))(
        ramp(lib, 2, 3)),
    "x.t().copy_(x), 3x3": lambda lib: (lambda x: x.t().copy_(x))(
        ramp(lib, 3, 3)),
    "x.t().mul_(x.view(3, 3))": lambda lib: (lambda x: x.t().mul_(
        x.view(3, 3)))(ramp(lib, 3, 3)),
    "x.add_(x.view(3, 3))": lambda lib: (lambda x: x.add_(x.view(3, 3)))(
        ramp(lib, 3, 3)),
}


@pytest.mark.parametrize("case", OVERLAP_CASES)
def test_an_operand_that_is_its_target_transposed_is_refused(case):
    agree(OVERLAP_CASES[case])


# 4. retain_grad and hooks across an in-place change (PyTorch's
# update_tensor_hooks_on_new_gradfn): retain_grad moves to the new node.

def _retained(lib, change, read_again):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    v = y[0:2]
    v.retain_grad()
    change(y, v)
    if read_again:
        v.retain_grad()  # reads grad_fn: the view's new node
    (v * lib.tensor([1.0, 2.0])).sum().backward()
    return v.grad, x.grad, v.grad_fn.name()


@pytest.mark.parametrize("read_again", [False, True])
@pytest.mark.parametrize("change", ["base", "view", "element"])
def test_retain_grad_on_a_view_survives_an_in_place_change(change, read_again):
    how = {"base": lambda y, v: y.mul_(2), "view": lambda y, v: v.mul_(2),
           "element": lambda y, v: y.__setitem__(1, 5.0)}[change]
    agree(lambda lib: _retained(lib, how, read_again))


def test_retain_grad_and_hooks_of_a_tensor_changed_in_place():
    def program(lib):
        seen = []
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: seen.append(("old", g.tolist())) or g * 10)
        w = y * 3
        y[1] = 7.0
        y.register_hook(lambda g: seen.append(("new", g.tolist())))
        (w.sum() + (y * lib.tensor([1.0, 2.0, 3.0])).sum()).backward()
        return seen, y.grad, x.grad
    agree(program)


def test_a_view_that_cannot_be_renewed_prints_and_keeps_its_grad():
    def program(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = x * 1
        row = y.unbind()[1]
        row.retain_grad()
        with lib.no_grad():
            y.mul_(2)
        y.sum().backward()
        return repr(row), row.grad, x.grad
    agree(program)


# Views of views: a saved view, then an in-place change through another
# chain of views (or under no_grad), then backward. The values, versions,
# graphs (of the base and of the saved view, renewed) and gradients, or the
# errors, are PyTorch's. A fixed sample of the 5760 combinations.

CHAINS = ["[0]", "[1:]", ".t()", "[:, 1]", "[0][1]", ".view(6)",
          ".unsqueeze(0)", "[...]", ".transpose(0, 1)[1:]", ".unbind()[0]",
          "[1, 2]", ".view(6)[2:4]"]
SAVES = ["a * a", "a.exp()", "(a * 2).sum()", "a * 3"]
CHANGES = ["b.mul_(2)", "b.zero_()", "b.add_(1)", "b[...] = 4.0",
           "b.copy_(b * 0 + 3)"]


def _saved_then_changed(lib, saved_chain, changed_chain, save, change,
                        no_grad):
    x = ramp(lib, 2, 3, requires_grad=True)
    y = x * 1
    scope = {"y": y}
    scope["a"] = a = eval("y" + saved_chain, scope)
    z = eval(save, scope)
    scope["b"] = eval("y" + changed_chain, scope)
    if no_grad:
        with lib.no_grad():
            exec(change, scope)
    else:
        exec(change, scope)
    seen = [y, _grad_fn_or_error(a)]
    if not isinstance(seen[1], str):
        seen[1] = structure(a)
    z.sum().backward()
    # (x.grad's own version is not compared: PyTorch's engine may sum into
    # a gradient in place, toygrad's does not)
    return seen + [x.grad.clone()]


def _combinations(count, seed=24):
    import itertools
    import random
    every = list(itertools.product(CHAINS, CHAINS, SAVES, CHANGES,
                                   (False, True)))
    return random.Random(seed).sample(every, count)


def test_in_place_changes_through_views_of_views():
    differ = [case for case in _combinations(600)
              if outcome(torch, lambda lib: _saved_then_changed(lib, *case))
              != outcome(toygrad,
                         lambda lib: _saved_then_changed(lib, *case))]
    assert differ == []


@pytest.mark.parametrize("value", [
    np.float32(2.5), np.int64(3), np.bool_(True), (1, 2, 3), None, "a",
    [1.0], np.ones(3), np.float64(2.5), True], ids=repr)
def test_setitem_takes_what_pytorch_takes(value):
    def program(lib):
        x = lib.ones(3)
        x[1:] = value
        return x
    agree(program)


# Sequences of writes, as a training loop or a user's notebook makes them:
# after each step the values, version and graph of y, then the gradients.

WRITES = [
    "y[0, 1] = 5.0", "y[1] += 1", "y[:, 2].mul_(3)", "y[0][0].zero_()",
    "y[...] = y * 1", "y[:] = 2.0", "y[-1, -1] -= y[0, 0]",
    "r = y.unbind()[1]\nwith lib.no_grad():\n    r.add_(1)",
    "y.t()[2].div_(2)", "y[1:, 1:] = t", "y[0] = t[0]",
    "e = y[0, 2]\ne.copy_(t[0, 0])", "y.view(6)[3] = 7.0",
    "k = y[1]\nk[0] = -1.0", "s = y * y\ny[0, 0] = 1.0",
    "with lib.no_grad():\n    y[1, 1] = 9.0",
    "y.unsqueeze(0)[0, 1, 1] *= 2", "y[...] = t", "y[..., 0] = t[:, 0]",
    "y[None][0][1] = t[0, 1]"]


def _writes(lib, steps):
    x = ramp(lib, 2, 3, requires_grad=True)
    t = lib.tensor(np.arange(10.0, 16.0).reshape(2, 3) / 7,
                   requires_grad=True)
    scope = {"lib": lib, "y": x * 1, "t": t}
    seen = []
    for step in steps:
        try:
            exec(step, scope)
            seen.append(observe(scope["y"]))
        except Exception as error:
            seen.append((type(error).__name__, str(error)))
    (scope["y"] * ramp(lib, 2, 3)).sum().backward()
    return seen, x.grad.clone(), None if t.grad is None else t.grad.clone()


def test_sequences_of_element_and_view_writes():
    import random
    rng = random.Random(24)
    differ = []
    for _ in range(300):
        steps = [rng.choice(WRITES) for _ in range(rng.randint(1, 4))]
        if outcome(torch, lambda lib: _writes(lib, steps)) != outcome(
                toygrad, lambda lib: _writes(lib, steps)):
            differ.append(steps)
    assert differ == []


@pytest.mark.parametrize("change", ["element of the view", "the view",
                                    "the base, by the view's numbers"])
def test_a_view_that_requires_grad_of_a_leaf_is_checked_as_pytorch(change):
    """PyTorch's check_inplace asks whether the view requires grad and its
    base is a leaf, not whether the base requires grad: a view of a tensor
    that does not, made to require grad itself, may not be changed in place
    (found by the stateful test's random search)."""
    def run(lib):
        x = lib.zeros(3)
        v = x[-1]
        v.requires_grad_(True)
        write = {"element of the view": lambda: v[()].mul_(v),
                 "the view": lambda: v.mul_(2.0),
                 "the base, by the view's numbers": lambda: x[0:2].mul_(v)}
        try:
            write[change]()
        except RuntimeError as error:
            return ("error", str(error))
        return ("ok", x.detach().numpy().tolist(), v.requires_grad)
    assert run(toygrad) == run(torch)
