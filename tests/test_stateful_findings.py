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
- ``(-inf) ** tensor(0.5)`` is inf (C's pow), where NumPy's power took a
  square root; and a tensor to 3 or -2 is PyTorch's products, not pow.
- A leaf moved into the graph by an in-place change is refused by its
  AccumulateGrad, as PyTorch's.
- Under create_graph inside inference mode, AccumulateGrad copies and adds
  out of place; an element of an expanded inference tensor is written, then
  refused, as in PyTorch.
"""

import warnings

import numpy as np
import pytest
import torch

import toygrad


def outcomes(*steps):
    """Each step's result, or its RuntimeError's message: what is compared."""
    results = []
    for step in steps:
        try:
            results.append(("ok", step()))
        except RuntimeError as error:
            results.append(("error", str(error)))
    return results


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
            return outcomes(lambda: v.retain_grad(), lambda: v.retains_grad,
                            lambda: v.requires_grad, lambda: v.grad_fn)
        finally:
            M.set_grad_enabled(True)
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("flag", [False, True])
@pytest.mark.parametrize("how", ["requires_grad_", "setter"])
def test_requires_grad_of_a_changed_no_grad_view(flag, how):
    """PyTorch's requires_grad_ and requires_grad setter ask is_leaf() of
    the node as stored: a view made under no_grad, changed in place since,
    is a leaf to them (its node is not renewed, so no error), as the
    random search found."""
    def run(M):
        with M.no_grad():
            a = M.zeros((), dtype=M.float64).requires_grad_()
            v = a.t()
            v[()] *= 0.0 ** v
            return outcomes(lambda: v.requires_grad_(flag) is v if how ==
                            "requires_grad_" else setattr(v, "requires_grad",
                                                          flag),
                            lambda: v.requires_grad, lambda: v._version,
                            lambda: a.requires_grad)
    assert run(toygrad) == run(torch)


# In-place writes whose input shares memory with the target. A 0-dim input
# of x[key] = v is a fill_ (PyTorch's copy_to reads v.item() first), never
# an overlap; where PyTorch calls the overlap too hard to check, toygrad
# runs the write if no element reads memory that the write changes at
# another element (then every kernel order agrees), and otherwise refuses
# by name, changing nothing.
OVERLAPS = [
    "x[...] = x[1, 1]", "x[...] = x[0, 0]", "x[1:] = x[0, 0]",
    "x[0] = x[0, 0]", "x[0, ..., 0] = x[1, 1]", "x.copy_(x[0, 0])",
    "x.add_(x[0, 0])", "x[0].add_(x[0, 1])", "x[...] = x[0]",
    "x[...] = x[:1]", "x[...] = x[:, :1]", "x[...] = x[:1].expand(3, 3)",
    "x[1:] = x[:1].expand(2, 3)", "x[::2] = x[1:2]", "x[:, ::2] = x[:, 1:2]",
    "x[0] = x[:, 0]", "x[:, 0] = x[0]", "x[0] += x[:, 0]",
    "x[::2].add_(x[:2])", "x.t()[0].copy_(x[0])", "x[0].copy_(x[:, 0])",
    "x[0, ..., 0] *= x[1, 1]", "x[1:] = x[:-1]", "x[...] = x.t()",
]
ORDER_DEPENDENT = [
    "x[:, 1:].copy_(x[:, :-1])", "x[:, 1:].add_(x[:, :-1])",
    "x[..., 1:] = x[..., :-1]", "x[:, :2].copy_(x[:, 1:])",
]


def write(M, program):
    x = M.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    try:
        exec(program, {"x": x})
        return "ok", x.tolist(), x._version
    except Exception as error:  # noqa: BLE001 - compared
        return type(error).__name__, str(error), x.tolist(), x._version


@pytest.mark.parametrize("program", OVERLAPS)
def test_writes_from_overlapping_memory_as_pytorch(program):
    assert write(toygrad, program) == write(torch, program)


@pytest.mark.parametrize("program", ORDER_DEPENDENT)
def test_writes_whose_result_is_pytorchs_kernel_order_are_refused(program):
    """PyTorch runs these (TOO_HARD); its answer depends on its kernel's
    order. toygrad names what it does not support, before any change."""
    assert write(torch, program)[0] == "ok"
    kind, message, numbers, version = write(toygrad, program)
    assert kind == "NotImplementedError" and "TOO_HARD" in message
    assert numbers == write(toygrad, "pass")[1] and version == 0


@pytest.mark.parametrize("values", [
    [0.0, -0.0], [-0.0, 0.0], [-1.0, 0.0, -0.0], [-0.0, -2.0, 0.0, -0.0]])
def test_max_of_both_zeros_is_refused_by_name(values):
    """Which zero PyTorch's x.max() returns follows its kernel's vector
    lanes (the machine's); toygrad names the call it does not support,
    and x + 0.0 (every -0.0 made 0.0) agrees with PyTorch."""
    with pytest.raises(NotImplementedError, match="0.0 and -0.0"):
        toygrad.tensor(values).max()
    ours = (toygrad.tensor(values) + 0.0).max().item()
    assert ours == (torch.tensor(values) + 0.0).max().item() == 0.0
    assert not np.signbit(ours)


@pytest.mark.parametrize("values", [
    [0.0, 0.0], [-0.0, -0.0], [-1.0, -0.0], [1.0, 0.0, -0.0],
    [float("nan"), 0.0, -0.0]])
def test_max_without_the_tie_runs_as_pytorch(values):
    ours = toygrad.tensor(values).max().item()
    theirs = torch.tensor(values).max().item()
    assert np.array_equal(ours, theirs, equal_nan=True)
    if not np.isnan(theirs):  # (a NaN's sign bit is not compared here)
        assert np.signbit(ours) == np.signbit(theirs)


def test_a_second_backward_through_copy_slices_is_backward_twice():
    """PyTorch's CopySlices drops its fn once it ran (release_variables), so
    a second backward fails there first: "backward through the graph a
    second time", even when the first failed further on."""
    def run(M):
        x = M.zeros(2, 3, dtype=M.float64).requires_grad_()
        y = 0.0 ** x  # saves its result, which the next line changes
        y[0] = x[-1]
        errors = []
        for _ in range(2):
            try:
                y.backward(M.ones(2, 3, dtype=M.float64))
            except RuntimeError as error:
                errors.append(str(error))
        return errors, x.grad
    assert run(toygrad) == run(torch)


def test_create_graph_through_a_changed_view_is_refused_before_any_hook():
    """toygrad refuses create_graph through CopySlices by name; it does so
    before the pass starts, so no hook has run and no gradient is kept."""
    x = toygrad.zeros(2, 3, dtype=toygrad.float64).requires_grad_()
    y = x * 2
    y[0] = x[-1]
    y.retain_grad()
    seen = []
    y.register_hook(seen.append)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError, match="create_graph through"):
            y.backward(toygrad.ones(2, 3, dtype=toygrad.float64),
                       create_graph=True)
        with pytest.raises(NotImplementedError, match="create_graph through"):
            toygrad.autograd.grad(y.sum(), [x], create_graph=True)
    assert seen == [] and y.grad is None and x.grad is None


@pytest.mark.parametrize("shape,expanded", [
    ((2, 3), (2, 2, 3)), ((2, 3), (1, 2, 3)), ((3,), (2, 3)),
    ((1, 3), (2, 3)), ((2, 1), (2, 3)), ((2, 3), (2, 1, 2, 3))])
def test_a_gradient_summed_to_fewer_dims_is_a_view_as_in_pytorch(
        shape, expanded):
    """PyTorch's sum_to sums keeping the dims, then views the sum without
    the leading ones: the gradient autograd.grad returns is that view."""
    def run(M):
        x = M.ones(*shape, requires_grad=True) * 1
        (g,) = M.autograd.grad(x.expand(*expanded).sum(), [x])
        (b,) = M.autograd.grad((x + M.ones(*expanded)).sum(), [x])
        return [(t.tolist(), None if t._base is None else tuple(t._base.shape))
                for t in (g, b)]
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("program", [
    "y.t().add_(y)", "y.add_(y.t().t())", "y.copy_(y)", "z.add_(1)",
    "y[...] = y", "w.add_(w[1:])"])
def test_an_empty_tensor_overlaps_nothing(program):
    """PyTorch's get_overlap_status: an empty tensor overlaps nothing, so
    the shape's error comes first (toygrad called it a partial overlap)."""
    def run(M):
        y, z, w = M.zeros(1, 3)[1:], M.zeros(1, 0).expand(3, 0), M.zeros(1, 3)
        try:
            exec(program, {"y": y, "z": z, "w": w})
            return "ok"
        except RuntimeError as error:
            return str(error)
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("program", [
    "T(-0.) ** T(0.5)", "T([-0.]) ** T(0.5)", "T([-0., 0., 4.]) ** T([0.5])",
    "T(-0., dtype=M.float64) ** T(0.5, dtype=M.float64)",
    "T([[-0.], [4.]]) ** T(0.5)", "T(-0.) ** 0.5", "T([-0., 4.]) ** T(-0.5)",
    "T([-0., 4.]) ** 0.5"])
def test_minus_zero_to_a_tensor_power_of_a_half(program):
    """A tensor exponent is std::pow in PyTorch (pow(-0.0, 0.5) is +0.0);
    NumPy took the square root for one exponent of 0.5 (-0.0). A number
    exponent is PyTorch's sqrt too (-0.0)."""
    ours, theirs = (eval(program, {"T": M.tensor, "M": M})
                    for M in (toygrad, torch))
    assert np.array_equal(ours.data, theirs.numpy())
    assert np.array_equal(np.signbit(ours.data), np.signbit(theirs.numpy()))


@pytest.mark.parametrize("operation", ["x @ w.t()", "F.linear(x, w)",
                                       "x * w", "x / w", "x.max()"])
def test_a_dead_edge_saves_nothing_before_a_failing_check(operation):
    """A failing check comes after the node saved what PyTorch's formulas
    need for the gradients it computes (should_compute_output): for a view
    made under no_grad, whose edge leads nowhere, nothing, as for a
    successful call (found by the random search, for F.linear)."""
    def run(M):
        x0 = M.tensor(0.0, dtype=M.float64, requires_grad=True)
        with M.no_grad():
            x = x0.unsqueeze(0)
            if operation == "x.max()":
                x = x0.reshape(1)[:0]  # empty: max() refuses
        w = M.nn.Parameter(M.tensor([0.5, 0.0, 2.0], dtype=M.float64))
        log = []
        calls = {"x @ w.t()": lambda: x @ w.t(),
                 "F.linear(x, w)": lambda: M.nn.functional.linear(x, w),
                 "x * w": lambda: x * M.ones(2, 3, dtype=M.float64,
                                             requires_grad=True),
                 "x / w": lambda: x / M.ones(2, 3, dtype=M.float64,
                                             requires_grad=True),
                 "x.max()": lambda: x.max()}
        with M.autograd.graph.saved_tensors_hooks(
                lambda t: log.append(tuple(t.shape)) or t, lambda t: t):
            try:
                calls[operation]()
                outcome = "ok"
            except RuntimeError as error:
                outcome = str(error).split(",")[0]
        return outcome, log
    assert run(toygrad) == run(torch)


def test_a_second_hook_does_not_ask_for_a_changed_views_node():
    """torch's register_hook asks for grad_fn only when the tensor has no
    hooks yet: a second hook on a view made under no_grad, whose base was
    changed in place since, is added without the view's error (found by
    the random search)."""
    def run(M):
        x = M.tensor(0.0, dtype=M.float64, requires_grad=True)
        with M.no_grad():
            view = x.t()
        results = [view.register_hook(lambda g: g) is not None]
        with M.no_grad():
            x -= 0.1
        return results + outcomes(
            lambda: view.register_hook(lambda g: g) is not None,
            lambda: view.grad_fn)
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("grad_on", [False, True])
def test_the_node_of_a_changed_inference_mode_view_is_pytorchs_error(
        grad_on):
    """A view made in inference mode of a normal tensor, changed in place
    there (through itself): asking for its node afterwards is PyTorch's
    RuntimeError, word for word (found by the random search)."""
    def run(M):
        weight = M.nn.Linear(3, 2, bias=False, dtype=M.float64).weight
        with M.set_grad_enabled(grad_on), M.inference_mode():
            view = weight[0, 0]
            view[()] *= view
        results = []
        for step in (lambda: view.is_leaf, lambda: view.grad_fn):
            try:
                results.append(("ok", step()))
            except Exception as error:  # noqa: BLE001 - compared
                results.append((type(error).__name__, str(error)))
        return results
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("ask_for_the_node", [False, True])
def test_an_in_place_write_into_a_stale_view_is_pytorchs_leaf_check(
        ask_for_the_node):
    """A view of a tensor that needs no grad (a gradient autograd.grad made
    under create_graph), whose base then took a grad through another view:
    PyTorch's check_inplace asks is_leaf() of the view's node as stored,
    so ``x[()] *= y`` raises "a leaf Variable ..." until the view's new node
    is asked for (found by the random search)."""
    def run(M):
        t0 = M.tensor(0.0, dtype=M.float64, requires_grad=True)
        t1 = t0 * 1
        (t2,) = M.autograd.grad(t1.sum(), [t1], create_graph=True)
        inner = t2[()]
        inner.mul_(t1.tanh())
        if ask_for_the_node:
            t2.grad_fn
        return outcomes(lambda: t2.copy_(inner) is t2,
                        lambda: t2.grad_fn.name(), lambda: t2._version)
    assert run(toygrad) == run(torch)


def test_the_gradient_through_a_changed_view_is_a_view_of_new_zeros():
    """AsStridedBackward0's gradient, as PyTorch's as_strided_backward
    makes it: copied into zeros of the base's size and returned as a view
    of them, at version 1 (found by the random search, which compares
    every tensor's version and base)."""
    def run(M):
        x = M.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=M.float64,
                     requires_grad=True)
        y = x.clone()
        view = y[0]
        y.add_(M.ones(3, dtype=M.float64))
        (g,) = M.autograd.grad(view.sum(), [x])
        return (view.grad_fn.name(), g.tolist(), g._version,
                g._base is not None, tuple(g._base.shape))
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("take", ["max()", "max(0)", "max(1, keepdim)"])
def test_max_s_gradient_is_at_pytorchs_version(take):
    """max's gradient is written in place by PyTorch's formula (new zeros,
    then masked_fill_ or scatter_): versions 1 and 2, as an
    autograd.grad result shows (found by the random search)."""
    def run(M):
        x = M.tensor([[1.0, 3.0], [3.0, 0.0]], dtype=M.float64,
                     requires_grad=True)
        out = {"max()": lambda: x.max(), "max(0)": lambda: x.max(0)[0],
               "max(1, keepdim)": lambda: x.max(1, keepdim=True)[0]}[take]()
        (g,) = M.autograd.grad(out.sum(), [x])
        return g.tolist(), g._version
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("operation", ["F.linear(x, y)", "x.mm(y)", "x @ y",
                                       "x * z"])
@pytest.mark.parametrize("x_made_in_inference_mode", [False, True])
def test_a_bad_shape_among_inference_tensors_is_the_kernels_error(
        operation, x_made_in_inference_mode):
    """When every input is an inference tensor, none has an autograd
    dispatch key: there is no autograd kernel to save them first, and the
    kernel's shape check is the error, though x requires grad. With a
    normal x, saving the inference y is (found by the random search)."""
    def run(M):
        def leaf():
            return M.zeros(1, 3, dtype=M.float64, requires_grad=True)
        with M.inference_mode():
            y = M.zeros(1, 1, dtype=M.float64)
            z = M.zeros(2, dtype=M.float64)
            x = leaf() if x_made_in_inference_mode else None
        x = leaf() if x is None else x
        do = {"F.linear(x, y)": lambda: M.nn.functional.linear(x, y),
              "x.mm(y)": lambda: x.mm(y), "x @ y": lambda: x @ y,
              "x * z": lambda: x * z}[operation]
        return outcomes(do)
    assert run(toygrad) == run(torch)


@pytest.mark.parametrize("optimizer", ["SGD", "SGD(momentum=0.9)", "Adam"])
@pytest.mark.parametrize("shape", [(2, 3), (1, 1)])
def test_an_optimizer_writes_an_expanded_parameter_as_add_does(optimizer, shape):
    """A parameter that is an expand (autograd.grad's gradient of a sum,
    then requires_grad_): PyTorch's optimizers write it with add_, which
    refuses elements that share memory, and writes a single element
    through its base. toygrad's optimizers wrote NumPy's memory directly
    and raised NumPy's ValueError (found by the random search)."""
    def run(M):
        w = M.ones(shape, dtype=M.float64, requires_grad=True)
        (p,) = M.autograd.grad(w.sum(), [w])
        p.requires_grad_(True)
        make = {"SGD": lambda: M.optim.SGD([p], lr=0.1),
                "SGD(momentum=0.9)": lambda: M.optim.SGD([p], lr=0.1,
                                                         momentum=0.9),
                "Adam": lambda: M.optim.Adam([p], lr=0.1)}[optimizer]
        opt = make()
        (p * M.tensor(2.0, dtype=M.float64)).sum().backward()
        return outcomes(lambda: opt.step(), lambda: p.tolist(),
                        lambda: p._version)
    assert run(toygrad) == run(torch)


def test_a_hook_after_one_that_failed_on_a_changed_no_grad_view_is_added():
    """torch's register_hook makes the tensor's hook dict before it asks for
    grad_fn: when that raises (a view made under no_grad whose base an
    optimizer changed since), the dict stays, and a second register_hook
    adds its hook without asking (found by the random search)."""
    def run(M):
        w = M.nn.Parameter(M.zeros(2, 3, dtype=M.float64))
        opt = M.optim.SGD([w], lr=0.1)
        w.backward(M.ones(2, 3, dtype=M.float64))
        with M.no_grad():
            view = w.t()
            opt.step()
            return outcomes(lambda: view.register_hook(lambda g: g) is None,
                            lambda: view.register_hook(lambda g: g) is None,
                            lambda: view.grad_fn)
    assert run(toygrad) == run(torch)


def test_a_bad_shape_under_no_grad_is_the_kernel_s_error_before_a_view_s():
    """With grad mode off no node is made, so the node of a view made under
    no_grad (whose base requires grad now, and was changed in place) is
    not asked for: a write of the wrong shape is the kernel's error, not
    the view's (found by the random search)."""
    def run(M):
        with M.no_grad():
            base = M.zeros(2, 3, dtype=M.float64)
            view = base[-1]
            view[0] = 5.0
            base.requires_grad_(True)
            target = M.zeros(3, dtype=M.float64)

            def write():
                target[0] *= view
            return outcomes(write, lambda: target.tolist())
    assert run(toygrad) == run(torch)


# Powers. PyTorch takes a float tensor to 2, 3, -1, -2, 0.5 and -0.5 by products,
# divisions and square roots (1.1 ** 3 rounds as 1.1 * 1.1 * 1.1; 1e160 ** -2
# underflows to 0), and a tensor to a tensor with C's pow, whatever the exponent:
# (-inf) ** tensor(0.5) is inf where NumPy, for an exponent of 0.5 broadcast over
# the base, takes sqrt(-inf), nan. The random search found the last.
BASES = [1e160, 1.1, 3.3, 7.7e-3, -np.inf, -0.0, 0.0, np.inf, -2.5, 1e-200, 2.0]


def same_numbers(ours, theirs, rtol=0.0):
    """The values, the sign of every zero and where NaNs are (a NaN's sign is not
    compared: neither library promises one)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0, equal_nan=True)
    assert np.array_equal(np.signbit(ours[ours == 0]), np.signbit(theirs[theirs == 0]))


@pytest.mark.parametrize("exponent", [2, 3, -1, -2, 0.5, -0.5, 0, 1])
def test_a_tensor_to_a_number_by_pytorch_s_products(exponent):
    ours = toygrad.tensor(BASES, dtype=toygrad.float64) ** exponent
    theirs = torch.tensor(BASES, dtype=torch.float64) ** exponent
    # Whole-number exponents: the same products, the same numbers. A half: a square root,
    # correctly rounded in NumPy; PyTorch's float64 sqrt comes from MKL's vector maths,
    # within one ulp, and which numbers it rounds the other way depends on the processor
    # (on an AVX512 Xeon, torch.sqrt of 2.0 is 1.414213562373095, and 816 of 100,000
    # uniform numbers differ from NumPy's by one ulp): so within one ulp.
    rtol = np.finfo(np.float64).eps if exponent in (0.5, -0.5) else 0.0
    same_numbers(ours.numpy(), theirs.numpy(), rtol=rtol)


@pytest.mark.parametrize("shape", [(), (1,), (3, 1), (1, 11)])
@pytest.mark.parametrize("exponent", [0.5, 2.0, -1.0, 3.0, -0.5])
def test_a_tensor_to_a_tensor_is_c_s_pow_however_it_broadcasts(exponent, shape):
    base = np.tile(np.array(BASES), (3, 1))
    ours = toygrad.tensor(base) ** toygrad.tensor(np.full(shape, exponent))
    theirs = torch.tensor(base) ** torch.tensor(np.full(shape, exponent))
    # ulps apart where both libraries call their own pow (NumPy's and PyTorch's
    # vectorized pows round apart)
    same_numbers(ours.numpy(), theirs.numpy(), rtol=4e-16)
    # and a number to a tensor: the same pow
    for number in (-np.inf, -0.0, 2.0):
        same_numbers((number ** toygrad.tensor(np.full(shape, exponent))).numpy(),
                     (number ** torch.tensor(np.full(shape, exponent))).numpy(), 4e-16)


def test_a_leaf_moved_into_the_graph_refuses_its_gradient():
    # A leaf that stops requiring grad and is then changed in place by a tensor that
    # requires grad gets a node: it is a leaf no more. A graph made while it was one
    # still leads to its AccumulateGrad, which refuses, as PyTorch's does.
    def story(M):
        w = M.zeros(3, dtype=M.float64, requires_grad=True)
        copy = w.clone()
        w.requires_grad_(False)
        w += copy
        return outcomes(lambda: w.is_leaf,
                        lambda: copy.backward(M.ones(3, dtype=M.float64)),
                        lambda: w.grad is None)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # .grad of a non-leaf
        ours, theirs = story(toygrad), story(torch)
    assert ours == theirs
    assert theirs[1] == ("error", "leaf variable has been moved into the graph interior")


@pytest.mark.parametrize("first", ["float64", "float32", None])
def test_create_graph_inside_inference_mode_accumulates_out_of_place(first):
    # During backward, grad mode is create_graph, inside inference mode too (where
    # nothing is recorded): PyTorch's AccumulateGrad then copies a first gradient and
    # adds a second out of place, as it asks GradMode, not whether it records.
    def story(M):
        w = M.zeros(2, 3, dtype=M.float64, requires_grad=True)
        seen = []
        with M.inference_mode():
            if first is not None:
                g = M.zeros(2, 3, dtype=getattr(M, first))
                w.backward(g)
                seen.append(w.grad is g)
            before = w.grad
            g = M.ones(2, 3, dtype=M.float64)
            w.backward(g, create_graph=True)
            seen += [w.grad is before, w.grad is g, w.grad.is_inference(),
                     w.grad.requires_grad, w.grad.grad_fn is None, w.grad.tolist()]
        return seen

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # create_graph's reference cycle
        assert story(toygrad) == story(torch)


def test_an_element_of_an_expanded_inference_tensor_is_written_then_refused():
    # An inference tensor's views are untracked (no _base), and NumPy marks every view of
    # an expand read-only: toygrad refused such an element's in-place change as if its
    # memory overlapped. PyTorch checks shapes and overlap, writes, and only then refuses
    # the version bump outside inference mode: the numbers change.
    def story(M):
        with M.inference_mode():
            s = M.tensor(3.0, dtype=M.float64)
            m = M.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=M.float64)
        results = outcomes(lambda: s.expand(2)[1].mul_(2),
                           lambda: s.expand(2)[0].mul_(s.expand(2)),
                           lambda: m.t()[1].add_(10),
                           lambda: m.expand(3, 2, 2)[1, 0].add_(100),
                           lambda: m.expand(3, 2, 2)[1].mul_(2),
                           lambda: s.expand(2).mul_(2))
        return results, s.tolist(), m.tolist()

    assert story(toygrad) == story(torch)
