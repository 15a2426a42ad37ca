"""Forward-mode AD (chapter 13): dual tensors, a jvp for every operation.

Every case of the differential harness (tests/optable.py) whose inputs are
float64 tensors runs once more inside a dual level, on both libraries, with
the same random tangents: toygrad's tangents must be PyTorch's, and a
central finite difference's. Then the API's rules and errors, custom
Functions' ``jvp`` and ``save_for_forward``, and ``toygrad.func``.
"""

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as fwAD

import optable
import toygrad
import toygrad.func
from toygrad import ops, views
from toygrad.autograd import forward_ad
from toygrad.autograd.function import Function

pytestmark = pytest.mark.ch13

FORWARD = {"torch": fwAD, "toygrad": forward_ad}


def _float64_leaf(arg):
    return isinstance(arg, optable.Leaf) and arg.array.dtype == np.float64


def forward_cases():
    """The harness's cases with float64 tensor inputs, run without a
    context (a context may call backward or no_grad: reverse mode), but
    for those toygrad refuses by design (optable.UNSUPPORTED)."""
    return [case for case in optable.CASES
            if optable.offered(case.entry)
            and not case.sample.context and not case.sample.kwargs
            and case.id not in optable.UNSUPPORTED  # refused by design
            and any(_float64_leaf(arg) for arg in case.sample.args)
            and all(_float64_leaf(arg) or not isinstance(
                arg, (optable.Leaf, optable.Scalar))
                for arg in case.sample.args)]


def _tangents(case):
    rng = optable.rng_for("tangent " + case.id)
    return [rng.standard_normal(arg.array.shape) if _float64_leaf(arg)
            else None for arg in case.sample.args]


def _flat(result):
    if isinstance(result, (list, tuple)):
        return [t for item in result for t in _flat(item)]
    return [result]


def run_forward(lib, case, tangents, shift=None):
    """Run ``case`` on ``lib`` inside a dual level; each output's
    (values, tangent or None), or the error raised."""
    fw = FORWARD[lib.name]
    lib.watched = []  # optable.watch's list
    with fw.dual_level():
        args = []
        for arg, tangent in zip(case.sample.args, tangents):
            if tangent is None:
                args.append(optable._resolve(lib, arg, []))
                continue
            array = arg.array + (0 if shift is None else shift * tangent)
            args.append(fw.make_dual(lib.tensor(array), lib.tensor(tangent)))
        try:
            result = case.entry.fn(lib, *args)
        except Exception as error:
            return type(error).__name__
        out = []
        for item in _flat(result):
            if not isinstance(item, (torch.Tensor, toygrad.Tensor)):
                continue
            primal, tangent = fw.unpack_dual(item)
            values = (primal.detach().numpy() if lib.name == "torch"
                      else primal.data).astype(np.float64)
            out.append((values.copy(), None if tangent is None else np.array(
                tangent.detach().numpy() if lib.name == "torch"
                else tangent.data,
                dtype=np.float64)))
        return out


CASES = forward_cases()


def test_the_harness_gives_forward_ad_enough_cases():
    names = {case.entry.name for case in CASES}
    assert len(CASES) > 150 and len(names) > 40


# Entries whose function makes its own leaves that require grad (a module's
# parameters, an optimizer's): PyTorch gives tangents that require grad,
# toygrad refuses forward AD through them (NotImplementedError).
REFUSED = {"nn.Module.zero_grad()", "optim.SGD(params, lr).step(), .zero_grad()",
           "nn.Linear(in, out)(x)", "nn.Sequential(Linear, ReLU, Linear)(x)",
           "nn.Sequential as a list: append, extend, insert, pop, [i] =, del, "
           "+, +=, *, *=",
           "nn.Conv2d(in, out, k)(x)",
           "nn.Conv2d(in, out, k, stride, padding)(x)",
           "Conv2d, ReLU, MaxPool2d, Flatten, CrossEntropyLoss"}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_tangents_are_pytorchs(case):
    tangents = _tangents(case)
    with optable.quiet():
        theirs = run_forward(optable.TORCH, case, tangents)
        ours = run_forward(optable.TOYGRAD, case, tangents)
    if case.entry.name in REFUSED:
        assert ours == "NotImplementedError"
        return
    if isinstance(theirs, str):
        assert ours == theirs  # the same error's type
        return
    assert not isinstance(ours, str), f"toygrad raised {ours}"
    assert len(ours) == len(theirs)
    for (our_values, our_tangent), (values, tangent) in zip(ours, theirs):
        np.testing.assert_allclose(our_values, values, rtol=1e-10, atol=1e-10)
        assert (our_tangent is None) == (tangent is None)
        if tangent is not None:
            np.testing.assert_allclose(our_tangent, tangent,
                                       rtol=1e-10, atol=1e-10)


PURE = [case for case in CASES if "shares memory" not in case.entry.name
        and case.entry.name not in REFUSED]  # these change their input


@pytest.mark.parametrize("case", PURE, ids=[case.id for case in PURE])
def test_tangents_are_finite_differences(case):
    """``(f(x + h v) - f(x - h v)) / 2h`` is the tangent, where f is smooth
    there: where it is not (a tie of max, a kink), the one-sided
    differences must disagree."""
    tangents = _tangents(case)
    h = 1e-6
    with optable.quiet():
        ours = run_forward(optable.TOYGRAD, case, tangents)
        if isinstance(ours, str):
            pytest.skip(f"raises {ours}, as PyTorch (previous test)")
        plus = run_forward(optable.TOYGRAD, case, tangents, shift=h)
        minus = run_forward(optable.TOYGRAD, case, tangents, shift=-h)
    checked = kinks = skipped = 0
    for (near, tangent), (up, _), (down, _) in zip(ours, plus, minus):
        if tangent is None or not tangent.size:
            continue
        if not all(np.all(np.isfinite(a)) for a in (tangent, up, down)):
            skipped += 1  # nan or inf: log(-1), log(0), the mean of nothing
            continue
        estimate = (up - down) / (2 * h)
        if np.allclose(estimate, tangent, rtol=1e-5, atol=1e-5):
            checked += 1
            continue
        one_side, other_side = (up - near) / h, (near - down) / h
        assert not np.allclose(one_side, other_side, rtol=1e-3, atol=1e-3), (
            estimate, tangent)
        kinks += 1
    assert checked or kinks or skipped or all(
        t is None or not t.size for _, t in ours)


def test_every_operation_has_a_jvp_rule():
    functions = [value for module in (ops, views)
                 for value in vars(module).values()
                 if isinstance(value, type) and issubclass(value, Function)
                 and value is not Function]
    assert len(functions) > 40
    missing = [f.__name__ for f in functions if f.jvp is Function.jvp]
    assert not missing


def _pair(lib, data, tangent):
    return lib.tensor(np.array(data)), lib.tensor(np.array(tangent))


def _same_error(run):
    """``run(lib, fw)`` raises the same error on both libraries."""
    errors = []
    for lib in (optable.TORCH, optable.TOYGRAD):
        fw = FORWARD[lib.name]
        with pytest.raises(Exception) as info:
            run(lib, fw)
        if fw.state.level >= 0 if lib.name == "toygrad" else \
                fw._current_level >= 0:
            fw.exit_dual_level()
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
    return errors[0]


def test_no_level_no_dual():
    def run(lib, fw):
        fw.make_dual(*_pair(lib, [1.0], [1.0]))
    assert "no level exists" in _same_error(run)[1]


def test_levels_do_not_nest():
    def run(lib, fw):
        with fw.dual_level():
            with fw.dual_level():
                pass
    assert "Nested" in _same_error(run)[1]


def test_exit_without_a_level():
    def run(lib, fw):
        fw.exit_dual_level()
    _same_error(run)


def test_a_dual_of_a_dual():
    def run(lib, fw):
        with fw.dual_level():
            x, t = _pair(lib, [1.0, 2.0], [1.0, 1.0])
            fw.make_dual(fw.make_dual(x, t), t)
    assert "already has a forward gradient" in _same_error(run)[1]


def test_a_tangent_of_another_size():
    def run(lib, fw):
        with fw.dual_level():
            x, t = _pair(lib, [1.0, 2.0], [1.0, 1.0, 1.0])
            fw.make_dual(x, t)
    assert "different size" in _same_error(run)[1]


def test_an_integer_primal():
    def run(lib, fw):
        with fw.dual_level():
            x, t = _pair(lib, [1, 2], [1.0, 1.0])
            fw.make_dual(x, t)
    assert _same_error(run)[0] is ValueError


def test_unpack_outside_a_level_and_after_it():
    for lib in (optable.TORCH, optable.TOYGRAD):
        fw = FORWARD[lib.name]
        x, t = _pair(lib, [1.0, 2.0], [3.0, 4.0])
        assert fw.unpack_dual(x).tangent is None
        with fw.dual_level() as level:
            assert level == 0
            y = fw.make_dual(x, t) * 2
            unpacked = fw.unpack_dual(y)
            assert type(unpacked).__name__ == "UnpackedDualTensor"
            assert unpacked._fields == ("primal", "tangent")
            assert fw.unpack_dual(x).tangent is None  # x itself is no dual
            assert unpacked.tangent.tolist() == [6.0, 8.0]
        assert fw.unpack_dual(y).tangent is None  # the level took it away


def test_make_dual_is_a_view_and_keeps_the_tangent_as_it_is():
    for lib in (optable.TORCH, optable.TOYGRAD):
        fw = FORWARD[lib.name]
        x, t = _pair(lib, [1.0, 2.0], [3.0, 4.0])
        with fw.dual_level():
            dual = fw.make_dual(x, t)
            assert dual._base is x
            assert fw.unpack_dual(dual).tangent is t
            primal = fw.unpack_dual(dual).primal
            assert fw.unpack_dual(primal).tangent is None


def test_in_place_changes_the_tangent_too():
    results = []
    for lib in (optable.TORCH, optable.TOYGRAD):
        fw = FORWARD[lib.name]
        x, t = _pair(lib, [1.0, 2.0, 3.0], [1.0, -1.0, 0.5])
        with fw.dual_level():
            dual = fw.make_dual(x.clone(), t.clone())
            view = dual[1:]
            view.mul_(fw.make_dual(*_pair(lib, [2.0, 3.0], [1.0, 1.0])))
            dual.mul_(2.0)
            results.append([np.array(fw.unpack_dual(v).tangent.tolist())
                            for v in (dual, view)])
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


# Custom Functions: jvp and save_for_forward, as in PyTorch.

def _scaled_product(lib):
    class ScaledProduct(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_forward(a, b)
            ctx.k = k
            return a * b * k

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, None

        @staticmethod
        def jvp(ctx, ta, tb, tk):
            assert tk is None  # not a tensor
            a, b = ctx.saved_tensors
            return (ta * b + a * tb) * ctx.k
    return ScaledProduct


def test_custom_jvp_and_save_for_forward():
    outs = []
    for lib in (optable.TORCH, optable.TOYGRAD):
        fw = FORWARD[lib.name]
        x, t = _pair(lib, [1.0, 2.0], [0.5, -1.0])
        y = lib.tensor(np.array([3.0, 4.0]))  # no tangent: zeros
        with fw.dual_level():
            out = _scaled_product(lib).apply(fw.make_dual(x, t), y, 3.0)
            outs.append(np.array(fw.unpack_dual(out).tangent.tolist()))
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-10)


def test_a_custom_function_without_jvp_raises_pytorchs_error():
    def run(lib, fw):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
        with fw.dual_level():
            Double.apply(fw.make_dual(*_pair(lib, [1.0], [1.0])))
    error = _same_error(run)
    assert error[0] is NotImplementedError and "jvp" in error[1]


def test_a_jvp_that_returns_too_few_tangents():
    def run(lib, fw):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2, a * 3

            @staticmethod
            def backward(ctx, g, h):
                return g

            @staticmethod
            def jvp(ctx, ta):
                return ta * 2
        with fw.dual_level():
            Two.apply(fw.make_dual(*_pair(lib, [1.0], [1.0])))
    assert "invalid number of forward gradients" in _same_error(run)[1]


def test_a_jvp_of_the_wrong_size():
    def run(lib, fw):
        class Cut(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def jvp(ctx, ta):
                return ta[:1]
        with fw.dual_level():
            Cut.apply(fw.make_dual(*_pair(lib, [1.0, 2.0], [1.0, 1.0])))
    assert "different size" in _same_error(run)[1]


def test_forward_ad_through_a_graph_that_requires_grad_is_refused():
    x = toygrad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    with forward_ad.dual_level():
        with pytest.raises(NotImplementedError, match="require grad"):
            forward_ad.make_dual(x, toygrad.tensor(np.ones(2)))
        dual = forward_ad.make_dual(x.detach(), toygrad.tensor(np.ones(2)))
        with pytest.raises(NotImplementedError, match="require grad"):
            dual * x  # an input that requires grad


def test_no_level_leaves_no_trace():
    x = toygrad.tensor(np.array([1.0, 2.0]))
    (x * x).exp()
    assert forward_ad.state.level == -1 and not forward_ad.state.tangents


# toygrad.func: Jacobians by forward and by reverse mode.

def _f(lib):
    def f(x):
        return (x.exp() * x[0]).tanh() + x.sum()
    return f


@pytest.mark.parametrize("n", [1, 3, 5])
def test_jacfwd_and_jacrev_are_torch_funcs(n):
    x = np.random.default_rng(n).standard_normal(n)
    theirs = torch.func.jacfwd(_f(optable.TORCH))(torch.tensor(x)).numpy()
    for jac in (toygrad.func.jacfwd, toygrad.func.jacrev):
        ours = jac(_f(optable.TOYGRAD))(toygrad.tensor(x))
        assert ours.shape == theirs.shape and ours.dtype == toygrad.float64
        np.testing.assert_allclose(ours.data, theirs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        torch.func.jacrev(_f(optable.TORCH))(torch.tensor(x)).numpy(), theirs,
        rtol=1e-10, atol=1e-12)


def test_jacobians_of_a_matrix_function():
    x = np.random.default_rng(0).standard_normal((2, 3))
    w = np.random.default_rng(1).standard_normal((3, 4))

    def f(lib):
        return lambda m: (m @ lib.tensor(w)).tanh()
    theirs = torch.func.jacfwd(f(optable.TORCH))(torch.tensor(x)).numpy()
    for jac in (toygrad.func.jacfwd, toygrad.func.jacrev):
        ours = jac(f(optable.TOYGRAD))(toygrad.tensor(x))
        assert ours.shape == theirs.shape == (2, 4, 2, 3)
        np.testing.assert_allclose(ours.data, theirs, rtol=1e-10, atol=1e-12)


# The operations only a backward pass uses (their jvp serves forward AD
# through a gradient's computation), each beside the aten operation it is.

def _aten_cases():
    rng = np.random.default_rng(13)
    grad, out = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    relu_out = np.maximum(out, 0)
    indices = np.array([2, 0])
    return [
        ("ThresholdBackward", (grad, relu_out),
         lambda g, o: ops.ThresholdBackward.apply(g, o),
         lambda g, o: torch.ops.aten.threshold_backward(g, o, 0)),
        ("LogSoftmaxBackwardData", (grad, out),
         lambda g, o: ops.LogSoftmaxBackwardData.apply(g, o, 1),
         lambda g, o: torch.ops.aten._log_softmax_backward_data(
             g, o, 1, torch.float64)),
        ("SelectBackward", (grad[0],),
         lambda g: ops.SelectBackward.apply(g, (2, 3), 0, 0),
         lambda g: torch.ops.aten.select_backward(g, [2, 3], 0, 0)),
        ("SliceBackward", (grad[:, 1:],),
         lambda g: ops.SliceBackward.apply(g, (2, 3), 1, slice(1, None)),
         lambda g: torch.ops.aten.slice_backward(g, [2, 3], 1, 1, 3, 1)),
        ("value_selecting_backward", (grad[:, 0],),
         lambda g: ops._value_selecting_backward(g, indices, (2, 3), 1,
                                                 False),
         lambda g: torch.ops.aten.value_selecting_reduction_backward(
             g, 1, torch.tensor(indices), [2, 3], False)),
    ]


@pytest.mark.parametrize("name, arrays, ours, theirs", _aten_cases(),
                         ids=[case[0] for case in _aten_cases()])
def test_backward_operations_tangents_are_aten(name, arrays, ours, theirs):
    rng = np.random.default_rng(len(name))
    tangents = [rng.standard_normal(a.shape) for a in arrays]
    results = []
    for lib, f in ((optable.TOYGRAD, ours), (optable.TORCH, theirs)):
        fw = FORWARD[lib.name]
        with fw.dual_level():
            duals = [fw.make_dual(lib.tensor(a), lib.tensor(t))
                     for a, t in zip(arrays, tangents)]
            primal, tangent = fw.unpack_dual(f(*duals))
            results.append((np.array(primal.tolist()),
                            np.array(tangent.tolist())))
    for ours_, theirs_ in zip(*results):
        np.testing.assert_allclose(ours_, theirs_, rtol=1e-10, atol=1e-12)


def test_scatter_gather_overwrite_tangents_are_finite_differences():
    rng = np.random.default_rng(3)
    positions = np.array([[4, 1], [1, 0]])
    base, value = rng.standard_normal((2, 3)), rng.standard_normal((2, 2))
    functions = [
        (lambda g: views.Scatter.apply(g, positions, (2, 3)), (value,)),
        (lambda b: views.Gather.apply(b, positions), (base,)),
        (lambda b, v: views.Overwrite.apply(b, v, positions), (base, value)),
    ]
    for f, arrays in functions:
        tangents = [rng.standard_normal(a.shape) for a in arrays]
        with forward_ad.dual_level():
            tangent = forward_ad.unpack_dual(f(*[
                forward_ad.make_dual(toygrad.tensor(a), toygrad.tensor(t))
                for a, t in zip(arrays, tangents)])).tangent.data
        h = 1e-6
        up = f(*[toygrad.tensor(a + h * t) for a, t in zip(arrays, tangents)])
        down = f(*[toygrad.tensor(a - h * t)
                   for a, t in zip(arrays, tangents)])
        np.testing.assert_allclose(tangent, (up.data - down.data) / (2 * h),
                                   rtol=1e-6, atol=1e-8)


def test_tanh_and_sigmoid_backward_have_pytorchs_tangents():
    """The backward operations chapter 12 made Functions of, under forward AD."""
    import torch.autograd.forward_ad as torch_fwd
    from toygrad import ops
    from toygrad.autograd import forward_ad as toy_fwd

    rng = np.random.default_rng(0)
    grad, out, t_grad, t_out = (rng.standard_normal(4) for _ in range(4))
    for ours, theirs in ((ops.TanhBackward, torch.ops.aten.tanh_backward),
                         (ops.SigmoidBackward, torch.ops.aten.sigmoid_backward)):
        with torch_fwd.dual_level():
            result = theirs(*(torch_fwd.make_dual(torch.tensor(p), torch.tensor(t))
                              for p, t in ((grad, t_grad), (out, t_out))))
            expected = torch_fwd.unpack_dual(result).tangent.numpy()
        with toy_fwd.dual_level():
            result = ours.apply(*(toy_fwd.make_dual(toygrad.tensor(p), toygrad.tensor(t))
                                  for p, t in ((grad, t_grad), (out, t_out))))
            np.testing.assert_allclose(toy_fwd.unpack_dual(result).tangent.data,
                                       expected, rtol=1e-12, atol=1e-14)


def _view_jvp_outcome(lib, forward, jvp, tangent_kind):
    """A custom Function whose forward returns its input, or a view of it,
    under forward AD: its tangent, or the error for a jvp that does not
    return a view of the input's tangent (as PyTorch's
    ``_process_forward_mode_AD`` checks)."""
    fw = FORWARD[lib.__name__]

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return forward(x)

        @staticmethod
        def backward(ctx, grad):
            return grad

    F.jvp = staticmethod(lambda ctx, t: jvp(t))
    with fw.dual_level():
        x = lib.tensor(np.array([1.0, 2.0]))
        if tangent_kind == "none":
            dual = x
        elif tangent_kind == "a view":
            dual = fw.make_dual(x, lib.tensor(np.array([3.0, 4.0])).t())
        else:
            dual = fw.make_dual(x, lib.tensor(np.array([3.0, 4.0])))
        try:
            tangent = fw.unpack_dual(F.apply(dual)).tangent
        except RuntimeError as error:
            return "RuntimeError", str(error)
        return None if tangent is None else tangent.tolist()


VIEW_JVPS = {
    "x / t": (lambda x: x, lambda t: t),
    "x / t.view(2)": (lambda x: x, lambda t: t.view(2)),
    "x / t * 1": (lambda x: x, lambda t: t * 1),
    "x / (t * 1).view(2)": (lambda x: x, lambda t: (t * 1).view(2)),
    "x[0] / t[0]": (lambda x: x[0], lambda t: t[0]),
    "x[0] / t[0] * 1": (lambda x: x[0], lambda t: t[0] * 1),
    "x * 2 / t * 2": (lambda x: x * 2, lambda t: t * 2),
}


@pytest.mark.parametrize("tangent_kind", ("a tensor", "a view", "none"))
@pytest.mark.parametrize("case", list(VIEW_JVPS))
def test_a_view_output_needs_a_view_tangent_as_in_pytorch(case, tangent_kind):
    forward, jvp = VIEW_JVPS[case]
    ours = _view_jvp_outcome(toygrad, forward, jvp, tangent_kind)
    theirs = _view_jvp_outcome(torch, forward, jvp, tangent_kind)
    assert ours == theirs
