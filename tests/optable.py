"""Every public toygrad operation in one table, each run beside PyTorch.

In the spirit of PyTorch's OpInfo: an entry names an operation as a reader
writes it, gives ONE function that runs on either library (``lib`` is torch's
or toygrad's namespace, below) and a function that makes its sample inputs.
``run_case`` runs one (entry, sample) pair on both libraries with the same
numbers and lists every way toygrad differs: value, dtype, shape, graph,
gradients, version counters, error type and message. An empty list means
toygrad agrees with PyTorch.

``UNSUPPORTED`` names the cases toygrad deliberately leaves out, each with the
error it must raise instead of answering. ``KNOWN_DIVERGENCES`` lists the cases
that differ today, with why: the to-do list of toygrad's core, emptied as
cases are fixed.

Used by tests/test_differential.py and by the appendix page "What toygrad
supports" (chapters/appendix_support.md).
"""

import contextlib
import copy
import operator
import time
import types
import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np
import torch

import toygrad
import toygrad.nn.functional
from toygrad.scalar import Value
from toygrad.viz import graph_structure

# The two libraries, under the names the table's functions use.

TORCH = types.SimpleNamespace(
    name="torch", Tensor=torch.Tensor, tensor=torch.tensor,
    zeros=torch.zeros, ones=torch.ones, randn=torch.randn,
    from_numpy=torch.from_numpy, no_grad=torch.no_grad,
    enable_grad=torch.enable_grad, is_grad_enabled=torch.is_grad_enabled,
    set_grad_enabled=torch.set_grad_enabled, F=torch.nn.functional,
    nn=torch.nn, optim=torch.optim, autograd=torch.autograd,
    float32=torch.float32, float64=torch.float64, int64=torch.int64,
    bool=torch.bool,
    # toygrad's scalar Value is compared with a 0-dim float64 tensor.
    Value=lambda data, requires_grad=False: torch.tensor(
        float(data), dtype=torch.float64, requires_grad=requires_grad))

TOYGRAD = types.SimpleNamespace(
    name="toygrad", Tensor=toygrad.Tensor, tensor=toygrad.tensor,
    zeros=toygrad.zeros, ones=toygrad.ones, randn=toygrad.randn,
    from_numpy=toygrad.from_numpy, no_grad=toygrad.no_grad,
    enable_grad=toygrad.enable_grad, is_grad_enabled=toygrad.is_grad_enabled,
    set_grad_enabled=toygrad.set_grad_enabled, F=toygrad.nn.functional,
    nn=toygrad.nn, optim=toygrad.optim, autograd=toygrad.autograd,
    float32=toygrad.float32, float64=toygrad.float64, int64=toygrad.int64,
    bool=getattr(toygrad, "bool", np.bool_), Value=Value)

LIBRARIES = (TORCH, TOYGRAD)


def watch(lib, leaf):
    """Compare ``leaf``'s gradient too (a leaf made inside a function)."""
    lib.watched.append(leaf)
    return leaf


# Sample inputs: descriptions that become the same numbers in either library.

@dataclass(frozen=True, eq=False)
class Leaf:
    """A leaf tensor holding ``array``: ``lib.tensor(array, requires_grad)``."""
    array: np.ndarray
    requires_grad: bool = False


@dataclass(frozen=True)
class Scalar:
    """A scalar ``Value`` (toygrad) or a 0-dim float64 tensor (torch)."""
    data: float
    requires_grad: bool = False


@dataclass(frozen=True)
class Dtype:
    """A dtype named as both libraries name it: ``lib.float64`` ..."""
    name: str


@dataclass
class Sample:
    """Arguments for an entry's function, and a readable id."""
    id: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    context: str = None  # run the function inside one of CONTEXTS


@dataclass
class OpEntry:
    """One operation: ``fn(lib, *args)`` and its samples."""
    name: str  # as the reader writes it
    fn: object
    samples: object  # samples(rng) -> list of Sample
    api: tuple  # the toygrad names it exercises ("Tensor.sum", ...)
    checks: str = "value, dtype, grads, graph, error"

    @property
    def checked(self):
        return {word.strip() for word in self.checks.split(",")}


@dataclass
class Case:
    entry: OpEntry
    sample: Sample

    @property
    def id(self):
        return f"{self.entry.name}: {self.sample.id}"

    @property
    def precision(self):
        """float32 if any input is: then float64 results carry its error."""
        arrays = [arg.array for arg in self.sample.args
                  if isinstance(arg, Leaf)]
        return ("float32" if any(a.dtype == np.float32 for a in arrays)
                else "float64")


SHORT = {"float64": "f64", "float32": "f32", "int64": "i64", "bool": "bool"}
FLOATS = ("float64", "float32")


def shape_id(shape):
    return "0-dim" if shape == () else "x".join(map(str, shape))


def array(rng, shape, dtype="float64", low=-2.0, high=2.0, nonzero=False):
    """Random numbers of ``dtype`` in [low, high] (away from 0 if nonzero)."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == "int64":
        values = np.asarray(rng.integers(int(low), int(high) + 1, shape))
        if nonzero:
            values[values == 0] = 1
        return values.astype(np.int64)
    values = rng.uniform(low, high, shape)
    if nonzero:
        values = np.sign(values + (values == 0)) * (0.5 + np.abs(values))
    return np.asarray(values, dtype)  # an array even for shape ()


def leaf(rng, shape, dtype="float64", grad=None, **limits):
    """A leaf; floating ones require grad unless ``grad`` says otherwise."""
    grad = dtype in FLOATS if grad is None else grad
    return Leaf(array(rng, shape, dtype, **limits), grad)


def describe(*leaves):
    """``f64 2x3`` for each leaf (``f64 2x3 (no grad)`` if it could)."""
    words = []
    for x in leaves:
        dtype = str(x.array.dtype)
        text = f"{SHORT[dtype]} {shape_id(x.array.shape)}"
        if dtype in FLOATS and not x.requires_grad:
            text += " (no grad)"
        words.append(text)
    return ", ".join(words)


# Sample generators shared by many entries.

UNARY_SHAPES = [(), (3,), (2, 3), (2, 1, 3), (0,)]


def unary_samples(dtypes=("float32", "int64", "bool"), **limits):
    """Shapes from 0-dim to 3-D and empty, then the other dtypes."""
    def samples(rng):
        out = [Sample(describe(x), (x,))
               for x in (leaf(rng, s, **limits) for s in UNARY_SHAPES)]
        for dtype in dtypes:
            x = leaf(rng, (2, 3), dtype, **limits)
            out.append(Sample(describe(x), (x,)))
        x = leaf(rng, (2, 3), grad=False, **limits)
        out.append(Sample(describe(x), (x,)))
        x = leaf(rng, (3, 2), **limits)
        out.append(Sample(describe(x) + ", of x.t()", (x,), context="of x.t()"))
        return out
    return samples


BROADCAST_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)),
                   ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), ()), ((), ()),
                   ((0, 3), (3,)), ((2, 3), (2,))]
DTYPE_PAIRS = [("float32", "float32"), ("int64", "int64"), ("bool", "bool"),
               ("float32", "float64"), ("int64", "float32"),
               ("float64", "int64"), ("bool", "float64")]


def binary_samples(low=-2.0, high=2.0, b_nonzero=False, b_low=None,
                   b_high=None, dtype_pairs=DTYPE_PAIRS):
    """Broadcasting pairs in float64, then mixed dtypes and 0-dim operands."""
    b_limits = dict(low=low if b_low is None else b_low,
                    high=high if b_high is None else b_high,
                    nonzero=b_nonzero)

    def pair(rng, a_shape, b_shape, a_dtype="float64", b_dtype="float64",
             a_grad=None, b_grad=None):
        a = leaf(rng, a_shape, a_dtype, a_grad, low=low, high=high)
        b = leaf(rng, b_shape, b_dtype, b_grad, **b_limits)
        return Sample(describe(a, b), (a, b))

    def samples(rng):
        out = [pair(rng, a, b) for a, b in BROADCAST_PAIRS]
        out.append(pair(rng, (2, 3), (3,), b_grad=False))
        out.append(pair(rng, (2, 3), (3,), a_grad=False))
        out += [pair(rng, (2, 3), (3,), a, b) for a, b in dtype_pairs]
        # A 0-dim tensor does not promote a tensor of the same kind.
        out.append(pair(rng, (2, 3), (), "float32", "float64"))
        out.append(pair(rng, (2, 3), (), "int64", "float64"))
        return out
    return samples


# Inputs at the special points of the elementwise formulas (issue 24): the
# zeros of both signs, the infinities, nan, extreme magnitudes, and two
# ordinary numbers. Their gradients, from special upstream gradients too
# (tests/test_differential_special.py), must be PyTorch's, nans and signed
# zeros included.
SPECIAL_POINTS = {
    "float64": (0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e-300, 2.0, -0.5),
    "float32": (0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -1e-45, 2.0, -0.5)}


def with_special_points(samples, pairs=False, numbers=None):
    """``samples``, then inputs at SPECIAL_POINTS in float64 and float32:
    one tensor of them; every pair of them (``pairs``, for a binary
    operation); or one tensor of them with each of ``numbers``."""
    def more(rng):
        out = samples(rng)
        for dtype in FLOATS:
            short = SHORT[dtype]
            points = np.array(SPECIAL_POINTS[dtype], dtype)
            if pairs:
                a = Leaf(np.repeat(points, len(points)), True)
                b = Leaf(np.tile(points, len(points)), True)
                out.append(Sample(f"{short} every pair of special points",
                                  (a, b)))
            elif numbers:
                for number in numbers:
                    x = Leaf(points.copy(), True)
                    out.append(Sample(f"{short} special points, {number!r}",
                                      (x, number)))
            else:
                out.append(Sample(f"{short} special points",
                                  (Leaf(points.copy(), True),)))
        return out
    return more


NUMBERS = (2, 2.5, True)


def number_samples(numbers=NUMBERS, dtypes=("float64", "float32", "int64",
                                             "bool"), **limits):
    """A tensor and a Python number, for ``a + 2``, ``2 * a`` ..."""
    def samples(rng):
        out = []
        for dtype in dtypes:
            for number in numbers:
                x = leaf(rng, (2, 3), dtype, **limits)
                out.append(Sample(f"{describe(x)}, {number!r}", (x, number)))
        x = leaf(rng, (), **limits)
        out.append(Sample(f"{describe(x)}, 2.5", (x, 2.5)))
        return out
    return samples


def dim_samples(dims, keepdim=None, dtypes=("float32", "int64", "bool")):
    """A reduction's ``dim`` in range, negative, out of range, and 0-dim."""
    def samples(rng):
        out = []
        for dim in dims:
            x = leaf(rng, (2, 3))
            out.append(Sample(f"{describe(x)}, dim={dim!r}", (x, dim)))
        x = leaf(rng, (2, 3, 2))
        out.append(Sample(f"{describe(x)}, dim=-2", (x, -2)))
        for dim in (0, -1, 1):
            x = leaf(rng, ())
            out.append(Sample(f"{describe(x)}, dim={dim}", (x, dim)))
        for dtype in dtypes:
            x = leaf(rng, (2, 3), dtype)
            out.append(Sample(f"{describe(x)}, dim=1", (x, 1)))
        x = leaf(rng, (0, 3))
        out.append(Sample(f"{describe(x)}, dim=0", (x, 0)))
        return out
    return samples


def fixed(*samples):
    """Samples written out by hand: ``(id, make_args[, context])``.

    ``make_args(rng)`` returns the arguments, or the only argument.
    """
    def make(rng):
        out = []
        for sample_id, make_args, *context in samples:
            args = make_args(rng)
            if not isinstance(args, tuple):
                args = (args,)
            out.append(Sample(sample_id, args,
                              context=context[0] if context else None))
        return out
    return make


# In-place operations run in one of these situations; each returns what is
# compared (the tensors involved, and whether the operation returned self).

def _on_leaf(lib, op, x, *rest):
    return x, op(x, *rest) is x


def _on_non_leaf(lib, op, x, *rest):
    y = x.clone()
    same = op(y, *rest) is y
    return y, same


def _on_view_of_non_leaf(lib, op, x, *rest):
    y = x.clone()
    view = y[0]
    same = op(view, *rest) is view
    return y, view, same


def _on_view_of_leaf(lib, op, x, *rest):
    view = x[0]
    return view, op(view, *rest) is view


def _under_no_grad(lib, op, x, *rest):
    with lib.no_grad():
        same = op(x, *rest) is x
    return x * 1, same


def _on_saved_input(lib, op, x, *rest):
    # y * y saves y; changing y afterwards must make backward fail.
    y = x.clone()
    z = y * y
    op(y, *rest)
    return z


def _on_saved_output(lib, op, x, *rest):
    # exp saves its output; changing it must make backward fail.
    z = x.exp()
    op(z, *rest)
    return z


def _on_base_of_a_view(lib, op, x, *rest):
    y = x.clone()
    view = y[0]
    op(y, *rest)
    return view, y


def _with_own_view(lib, op, x, *rest):
    # The operand overlaps the tensor written to.
    y = x.clone()
    return y, op(y, y[0]) is y


def _of_transpose(lib, op, x, *rest):
    return op(x.t(), *rest)


def _on_element(lib, op, x, *rest):
    # x[i, j] is a 0-dim view: the change reaches y (issue 24).
    y = x.clone()
    element = y[0, 1]
    same = op(element, *rest) is element
    return y, element, same


def _on_view_of_view(lib, op, x, *rest):
    y = x.clone()
    row = y[1]
    view = row[1:]
    same = op(view, *rest) is view
    return y, row, view, same


def _on_unbind_row_under_no_grad(lib, op, x, *rest):
    # PyTorch allows it under no_grad; reading the other rows' grad_fn
    # afterwards is what it refuses.
    y = x.clone()
    rows = y.unbind()
    with lib.no_grad():
        same = op(rows[0], *rest) is rows[0]
    return y, same


CONTEXTS = {
    "on a leaf": _on_leaf,
    "on a non-leaf": _on_non_leaf,
    "on a view of a non-leaf": _on_view_of_non_leaf,
    "on a view of a leaf": _on_view_of_leaf,
    "under no_grad": _under_no_grad,
    "on an input saved for backward": _on_saved_input,
    "on an output saved for backward": _on_saved_output,
    "on the base of a view": _on_base_of_a_view,
    "with a view of itself as other": _with_own_view,
    "of x.t()": _of_transpose,
    "on an element of a non-leaf": _on_element,
    "on a view of a view of a non-leaf": _on_view_of_view,
    "on a row of unbind under no_grad": _on_unbind_row_under_no_grad,
}


def inplace_samples(operand=True):
    """An in-place operation in every situation CONTEXTS describes."""
    def other(rng, shape=(3,), dtype="float64"):
        return (leaf(rng, shape, dtype, low=0.5, high=2.0),) if operand else ()

    def samples(rng):
        out = []
        for context in ("on a leaf", "on a non-leaf", "on a view of a non-leaf",
                        "on a view of a leaf", "under no_grad",
                        "on an input saved for backward",
                        "on an output saved for backward",
                        "on the base of a view", "on an element of a non-leaf",
                        "on a view of a view of a non-leaf",
                        "on a row of unbind under no_grad"):
            args = (leaf(rng, (2, 3)),) + other(rng)
            out.append(Sample(f"{context}, {describe(*args)}", args,
                              context=context))
            if operand:
                args = (leaf(rng, (2, 3)), 2.5)
                out.append(Sample(f"{context}, f64 2x3, 2.5", args,
                                  context=context))
        x = leaf(rng, (2, 3), grad=False)
        out.append(Sample(f"on a leaf, {describe(x)}", (x,) + other(rng),
                          context="on a leaf"))
        for dtype in ("float32", "int64", "bool"):
            args = (leaf(rng, (2, 3), dtype),) + other(rng, dtype=dtype)
            out.append(Sample(f"on a non-leaf, {describe(*args)}", args,
                              context="on a non-leaf"))
        if operand:
            x = leaf(rng, (2, 3), "int64")
            out.append(Sample(f"on a non-leaf, {describe(x)}, 2.5", (x, 2.5),
                              context="on a non-leaf"))
            # The result must fit in the tensor written to.
            args = (leaf(rng, (3,)), leaf(rng, (2, 3)))
            out.append(Sample(f"on a non-leaf, {describe(*args)}", args,
                              context="on a non-leaf"))
            args = (leaf(rng, (2, 3)), leaf(rng, (), "float32"))
            out.append(Sample(f"on a non-leaf, {describe(*args)}", args,
                              context="on a non-leaf"))
            x = leaf(rng, (2, 3))
            out.append(Sample(f"with a view of itself as other, {describe(x)}",
                              (x,), context="with a view of itself as other"))
        return out
    return samples


def setitem_samples(rng):
    """``x[index] = value`` in the situations of an in-place operation."""
    out = []
    for context in ("on a non-leaf", "on a view of a non-leaf", "on a leaf",
                    "under no_grad", "on an input saved for backward",
                    "on the base of a view"):
        for text, index, value in (
                ("[0] = f64 3", 0, leaf(rng, (3,))),
                ("[:, 1] = 2.5", (slice(None), 1), 2.5)):
            out.append(Sample(f"{context}, f64 2x3, {text}",
                              (leaf(rng, (2, 3)), index, value),
                              context=context))
    out.append(Sample("on a non-leaf, i64 2x3, [0] = 2.5",
                      (leaf(rng, (2, 3), "int64"), 0, 2.5),
                      context="on a non-leaf"))
    out.append(Sample("on a non-leaf, f64 2x3, [5] = 1.0",
                      (leaf(rng, (2, 3)), 5, 1.0), context="on a non-leaf"))
    # Elements, and keys that take the whole tensor: PyTorch writes the
    # tensor itself (FillBackward3, CopyBackwards), not a view of it.
    for context in ("on a non-leaf", "on a view of a non-leaf",
                    "on a view of a view of a non-leaf"):
        for text, index, value in (
                ("[1, 2] = 2.5", (1, 2), 2.5),
                ("[0, -1] = f64 0-dim", (0, -1), leaf(rng, ())),
                ("[...] = 2.5", Ellipsis, 2.5),
                ("[:] = f64 0-dim", slice(None), leaf(rng, ())),
                ("[:, :] = f64 3", (slice(None), slice(None)),
                 leaf(rng, (3,))),
                ("[...] = f64 1x3", Ellipsis, leaf(rng, (1, 3))),
                ("[..., -3:] = 2.5", (Ellipsis, slice(-3, None)), 2.5)):
            out.append(Sample(f"{context}, f64 2x3, {text}",
                              (leaf(rng, (2, 3)), index, value),
                              context=context))
    return out


# Functions that read better as statements than as lambdas.

def _iadd(lib, x, other):
    x += other
    return x


def _isub(lib, x, other):
    x -= other
    return x


def _imul(lib, x, other):
    x *= other
    return x


def _itruediv(lib, x, other):
    x /= other
    return x


def _max_dim(lib, x, dim, keepdim=False):
    result = x.max(dim, keepdim=keepdim)
    values, indices = result
    return result.values, result.indices, values is result.values, indices


def _numpy_shares_memory(lib, x):
    numbers = x.numpy()
    numbers[...] = 7
    return x, numbers


def _from_numpy_shares_memory(lib, numbers):
    x = lib.from_numpy(numbers)
    numbers[...] = 7
    return x


def _detach_shares_memory(lib, x):
    alias = x.detach()
    alias.zero_()
    return x * 1, alias


def _requires_grad_of_non_leaf(lib, x):
    return (x * 2).requires_grad_(False)


def _leaf_flags(lib, x):
    return [(t.is_leaf, t.requires_grad, t.grad is None, t.grad_fn is None)
            for t in (x, x * 2, x.detach())]


def _hooked_backward(lib, x):
    """Every tensor hook doubles the gradient; y keeps its own in .grad."""
    x.register_hook(lambda g: g * 2)
    y = x * x
    y.register_hook(lambda g: g * 2)
    y.retain_grad()
    y.sum().backward()
    return x.grad, y.grad, y.retains_grad, x.retains_grad


def _post_accumulate_backward(lib, x):
    seen = []
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad * 1))
    (x * x).sum().backward()
    (x * 3).sum().backward()
    return seen


def _inference_tensor(lib, x):
    with lib.inference_mode():
        a = x * 1
        inside = lib.is_inference_mode_enabled()
    return (inside, lib.is_inference_mode_enabled(), a.is_inference(),
            x.is_inference(), (x * a).sum())


def _backward(lib, x, gradient=None, **options):
    y = (x * x).sum() if gradient is None else x * x
    y.backward(gradient, **options)
    return x.grad


def _backward_twice(lib, x, retain_graph):
    y = (x.exp() * 2).sum()
    y.backward(retain_graph=retain_graph)
    first = x.grad * 1
    y.backward()
    return first, x.grad


def _backward_without_saved_tensors_twice(lib, x):
    y = (x + 2).sum()
    y.backward()
    y.backward()
    return x.grad


def _double_backward(lib, x):
    y = (x * x * x).sum()
    y.backward(create_graph=True)
    return x.grad


def _backward_of_two_uses(lib, x):
    # x is used twice: its gradients add up in one AccumulateGrad.
    y = x * 2
    z = (y * y + y.exp()).sum()
    z.backward()
    return x.grad


def _backward_that_fails(lib, x):
    # tanh's saved output is changed, so backward fails at TanhBackward0;
    # the leaf's other path, x * x, has run by then.
    t = x.tanh()
    t.add_(t)
    loss = t.sum() + (x * x).sum()
    try:
        loss.backward()
    except RuntimeError as error:
        return type(error).__name__, x.grad
    return None, x.grad


def _norm_at_zero(x):
    # The length of a zero vector: its backward meets 0 * inf, a NaN.
    return ((x - x.detach()) ** 2).sum() ** 0.5


def _anomaly_finds_nan(lib, x):
    with lib.autograd.detect_anomaly():
        _norm_at_zero(x).backward()


def _anomaly_finds_nan_in_copy_slices(lib, x):
    with lib.autograd.detect_anomaly():
        h = x * 1
        h[1:].div_(0.0)  # its backward divides a zero gradient by zero
        (h * 0).sum().backward()


def _anomaly_without_nan_check(lib, x):
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        _norm_at_zero(x).backward()
    return x.grad


def _grad_mode_functions(lib, x):
    with lib.no_grad():
        inside = lib.is_grad_enabled()
        y = x * 2
        with lib.enable_grad():
            z = x * 3
    with lib.set_grad_enabled(False):
        w = x * 4
    decorated = lib.no_grad()(lambda t: t * 5)(x)
    return y, z, w, decorated, inside, lib.is_grad_enabled()


def _set_grad_enabled_as_a_call(lib, x):
    lib.set_grad_enabled(False)
    try:
        y = x * 2
    finally:
        lib.set_grad_enabled(True)
    return y, lib.is_grad_enabled()


def _spec(spec):
    """``2x3`` for ``((2, 3),)``, ``i64 2x3`` for ``((2, 3), "int64")``."""
    dtype = spec[1] if len(spec) > 1 else "float64"
    return ("" if dtype == "float64" else SHORT[dtype] + " ") + shape_id(
        spec[0])


def _linear_module(lib, x, weight, bias=None):
    layer = lib.nn.Linear(weight.shape[1], weight.shape[0],
                          bias=bias is not None)
    layer.weight = watch(lib, lib.nn.Parameter(weight))
    if bias is not None:
        layer.bias = watch(lib, lib.nn.Parameter(bias))
    return layer(x)


def _mlp(lib, x, w1, b1, w2, b2):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(),
                              lib.nn.Linear(4, 2))
    for name, value in (("0.weight", w1), ("0.bias", b1), ("2.weight", w2),
                        ("2.bias", b2)):
        index, attribute = name.split(".")
        setattr(getattr(model, index), attribute,
                watch(lib, lib.nn.Parameter(value)))
    names = [name for name, _ in model.named_parameters()]
    return model(x), names, len(list(model.parameters()))


def _sequential_as_a_list(lib, x, w1, b1, w2, b2):
    """A Sequential grown, cut and repeated as a list (PyTorch's container
    API), then run: its modules, in order, and the output."""
    def linear(weight, bias):
        layer = lib.nn.Linear(weight.shape[1], weight.shape[0])
        layer.weight = watch(lib, lib.nn.Parameter(weight))
        layer.bias = watch(lib, lib.nn.Parameter(bias))
        return layer

    model = lib.nn.Sequential(linear(w1, b1))
    model.append(lib.nn.ReLU())
    model.extend([linear(w2, b2), lib.nn.ReLU()])
    model.insert(1, lib.nn.ReLU())
    model.pop(1)
    model[3] = lib.nn.ReLU()
    del model[3]
    model += lib.nn.Sequential(lib.nn.ReLU())
    model = model + lib.nn.Sequential(linear(w2, b2)) * 1
    model *= 1
    names = [type(module).__name__ for module in model]
    return model(x), names, len(list(model.parameters()))


def _fresh_linear(lib, in_features, out_features, bias):
    layer = lib.nn.Linear(in_features, out_features, bias=bias)
    return [(name, tuple(p.shape), str(p.dtype).rsplit(".", 1)[-1],
             p.requires_grad, p.is_leaf)
            for name, p in layer.named_parameters()], layer.bias is None


def _zero_grad(lib, x, weight):
    layer = lib.nn.Linear(3, 2, bias=False)
    layer.weight = lib.nn.Parameter(weight)
    layer(x).sum().backward()
    had = layer.weight.grad is not None
    layer.zero_grad()
    return had, layer.weight.grad is None


def _sgd_step(lib, x, weight, bias, lr):
    layer = lib.nn.Linear(3, 2)
    layer.weight = lib.nn.Parameter(weight)
    layer.bias = lib.nn.Parameter(bias)
    unused = lib.nn.Parameter(weight * 1)  # no gradient: step skips it
    optimizer = lib.optim.SGD([layer.weight, layer.bias, unused], lr=lr)
    layer(x).sum().backward()
    optimizer.step()
    after = (layer.weight.detach() * 1, layer.bias.detach() * 1,
             unused.detach() * 1, layer.weight._version)
    optimizer.zero_grad()
    return after + (layer.weight.grad is None,)


def _conv_module(lib, x, weight, bias=None):
    layer = lib.nn.Conv2d(weight.shape[1], weight.shape[0], weight.shape[2],
                          bias=bias is not None)
    layer.weight = watch(lib, lib.nn.Parameter(weight))
    if bias is not None:
        layer.bias = watch(lib, lib.nn.Parameter(bias))
    return layer(x)


_CONV_OPTIONS = [
    ("stride=2", dict(kernel_size=3, stride=2)),
    ("padding=1", dict(kernel_size=3, padding=1)),
    ("k=(3, 2), stride=(2, 1), padding=(1, 0)",
     dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0))),
    ("padding='same'", dict(kernel_size=3, padding="same")),
    ("padding='valid', stride=(1, 2)",
     dict(kernel_size=2, padding="valid", stride=(1, 2))),
]


def _conv_options(lib, x, weight, bias, options):
    layer = lib.nn.Conv2d(weight.shape[1], weight.shape[0], **options)
    layer.weight = watch(lib, lib.nn.Parameter(weight))
    layer.bias = watch(lib, lib.nn.Parameter(bias))
    return layer(x)


def _pool_input(rng, special):
    x = leaf(rng, (2, 2, 6, 7))
    if special:  # PyTorch takes the last NaN of a window
        x.array[rng.random(x.array.shape) < 0.3] = np.nan
    return x


def _cnn(lib, x, weight, bias, target):
    model = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(),
                              lib.nn.MaxPool2d(2), lib.nn.Flatten())
    conv = model._modules["0"]
    conv.weight = watch(lib, lib.nn.Parameter(weight))
    conv.bias = watch(lib, lib.nn.Parameter(bias))
    return lib.nn.CrossEntropyLoss()(model(x), target)


def _state_dict_round_trip(lib, weight, bias, strict):
    source = lib.nn.Linear(3, 2)
    source.weight, source.bias = (lib.nn.Parameter(weight),
                                  lib.nn.Parameter(bias))
    state = source.state_dict()
    target = lib.nn.Linear(3, 2)
    state = dict(state, extra=state["bias"])
    del state["weight"]
    result = target.load_state_dict(state, strict=strict)
    return (list(source.state_dict()), state["bias"].requires_grad,
            target.bias.detach() * 1, repr(result))


def _optimizer_steps(lib, weight, name, kwargs):
    w = lib.nn.Parameter(weight)
    optimizer = getattr(lib.optim, name)([w], **kwargs)
    for _ in range(3):
        optimizer.zero_grad()
        (w * w * w).sum().backward()
        optimizer.step()
    return w.detach() * 1, w._version


def _module_bookkeeping(lib, weight, action):
    """What nn.Module's bookkeeping shows after ``action``: the names it
    lists, what state_dict holds, the modes, the printout."""
    def named(pairs):
        return [name for name, _ in pairs]

    first = lib.nn.Linear(3, 2)
    first.weight = lib.nn.Parameter(weight)
    model = lib.nn.Sequential(first, lib.nn.ReLU(), lib.nn.Linear(2, 2))
    if action == "tied":  # the same parameter and layer twice
        model.add_module("again", first)
        model.register_module("head", lib.nn.Linear(3, 2))
        model.head.weight = first.weight
        return (named(model.named_parameters()),
                named(model.named_parameters(remove_duplicate=False)),
                len(list(model.parameters())),
                len(list(model.parameters(recurse=False))),
                named(model.named_modules()), len(list(model.modules())),
                named(model.named_children()), len(list(model.children())),
                list(model.state_dict()))
    if action == "None and del":
        first.bias = None
        delattr(model, "2")
        return named(model.named_parameters()), list(model.state_dict())
    if action == "a tensor for a parameter":
        first.weight = weight * 1
    if action == "buffers":
        first.register_buffer("mean", weight.detach() * 0)
        first.register_buffer("scratch", weight.detach(), persistent=False)
        first.mean = weight.detach() * 2
        return (named(model.named_buffers()), len(list(model.buffers())),
                list(model.state_dict()),
                repr(model.load_state_dict(model.state_dict())))
    if action == "register_parameter":
        first.register_parameter("extra", lib.nn.Parameter(weight * 1))
        return named(model.named_parameters())
    if action == "modes":
        seen = []
        model.eval()
        modes = [m.training for m in model.modules()]
        model.train()
        model.apply(lambda m: seen.append(type(m).__name__))
        model.requires_grad_(False)
        return (modes, [m.training for m in model.modules()], seen,
                [p.requires_grad for p in model.parameters()])
    if action == "zero_grad(set_to_none=False)":
        first(weight).sum().backward()  # saves only fixed numbers
        model.zero_grad(set_to_none=False)
        return [p.grad * 1 for p in model.parameters()]
    if action == "repr":
        return repr(model), first.extra_repr()


def _refused_module_method(lib, weight, name):
    layer = lib.nn.Linear(3, 2)
    arguments = {"to": (lib.float64,), "type": (lib.float64,),
                 "get_submodule": ("",), "get_parameter": ("weight",),
                 "set_submodule": ("x", lib.nn.ReLU())}.get(name)
    if arguments is None and name.startswith("register_"):
        arguments = (lambda *args: None,)
    if name == "get_buffer":
        layer.register_buffer("mean", weight)
        arguments = ("mean",)
    getattr(layer, name)(*(arguments or ()))
    return len(list(layer.parameters()))


_REFUSED_MODULE_METHODS = (
    "to", "cpu", "type", "float", "double", "half", "bfloat16",
    "share_memory", "register_forward_hook", "register_forward_pre_hook",
    "register_backward_hook", "register_state_dict_pre_hook",
    "register_state_dict_post_hook", "register_load_state_dict_pre_hook",
    "register_load_state_dict_post_hook", "get_submodule", "set_submodule",
    "get_parameter", "get_buffer")


def _module_backward_hooks(lib, x, weight, action):
    """A Linear with full backward hooks (chapter 10): the output, whose
    graph holds the hooks' nodes; the harness's backward then calls them,
    and what they return shows in the leaves' gradients."""
    layer = lib.nn.Linear(3, 2, bias=False)
    layer.weight = watch(lib, lib.nn.Parameter(weight))

    def doubled(module, grad_input, grad_output):
        return tuple(None if g is None else g * 2 for g in grad_input)

    def shifted(module, grad_input, grad_output):
        return tuple(None if g is None else g + 1 for g in grad_input)

    def halved(module, grad_output):
        return tuple(g / 2 for g in grad_output)

    layer.register_full_backward_hook(doubled)
    layer.register_full_backward_hook(shifted, prepend=action == "prepend")
    if action != "hooks only":
        layer.register_full_backward_pre_hook(halved)
    if action == "removed":
        handle = layer.register_full_backward_pre_hook(halved)
        handle.remove()
    return layer(x if action != "no input grad" else x.detach())


_FUNCTIONS = {}


def custom_functions(lib):
    """Custom Functions written once against ``lib.autograd.Function``."""
    if lib.name in _FUNCTIONS:
        return _FUNCTIONS[lib.name]

    class Cube(lib.autograd.Function):
        """x ** 3, with a hand-written backward."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    class WrongCube(Cube):
        """x ** 3 with a wrong backward, for gradcheck to catch."""

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x * x

    class ScaleAndCount(lib.autograd.Function):
        """(x * y, x * 0 + 2): the second output is not differentiable."""

        @staticmethod
        def forward(ctx, x, y, factor):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x, y)
            ctx.factor = factor
            count = x * 0 + 2
            ctx.mark_non_differentiable(count)
            return x * y * factor, count

        @staticmethod
        def backward(ctx, grad, grad_count):
            x, y = ctx.saved_tensors
            need_x, need_y, _ = ctx.needs_input_grad
            return (grad * y * ctx.factor if need_x else None,
                    grad * x * ctx.factor if need_y else None, None)

    class DoubleInPlace(lib.autograd.Function):
        """x.mul_(2) as a Function that changes its input: mark_dirty."""

        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Same(lib.autograd.Function):
        """Returns its input as it is: PyTorch hands back a view of it."""

        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class OnceSquare(lib.autograd.Function):
        """x ** 2 whose backward cannot be differentiated again."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    _FUNCTIONS[lib.name] = types.SimpleNamespace(
        Cube=Cube, WrongCube=WrongCube, ScaleAndCount=ScaleAndCount,
        DoubleInPlace=DoubleInPlace, OnceSquare=OnceSquare, Same=Same)
    return _FUNCTIONS[lib.name]


def _tangent_of(lib, x, tangent):
    """Forward AD (chapter 13): the value and tangent of a small function."""
    forward_ad = lib.autograd.forward_ad
    with forward_ad.dual_level():
        y = (forward_ad.make_dual(x, tangent) * x.exp()).sum(0)
        return tuple(forward_ad.unpack_dual(y))


def _custom_jvp(lib, x, tangent):
    """A custom Function's jvp, reading what forward saved for it."""
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            return grad

        @staticmethod
        def jvp(ctx, x_tangent):
            (x,) = ctx.saved_tensors
            return 3 * x * x * x_tangent
    forward_ad = lib.autograd.forward_ad
    with forward_ad.dual_level():
        y = Cube.apply(forward_ad.make_dual(x, tangent))
        return tuple(forward_ad.unpack_dual(y))


def _same_then_changed(lib, x):
    # A custom Function's output that is its input is a view made inside
    # a custom Function: an in-place change of it is refused when it
    # requires grad (issue 30's ALIAS task).
    out = custom_functions(lib).Same.apply(x * 1)
    out.mul_(2)
    return out


def _create_graph_through_copy_slices(lib, x):
    h = x * 2
    h[0] *= 3  # an in-place change through a view: CopySlices
    h.sum().backward(create_graph=True)
    return x.grad


def _shift_within_rows(lib, x):
    # x[:, 1:] = x[:, :-1]: each element reads memory the write changes at
    # another element, through strided views (PyTorch: TOO_HARD to check)
    y = x * 1
    y[:, 1:] = y[:, :-1]
    return y


def _once_differentiable(lib, x, upstream):
    y = custom_functions(lib).OnceSquare.apply(x)
    # "plain": the gradient reaching backward needs none itself;
    # "y * y": it does, so differentiating x.grad again must fail.
    out = (y * y).sum() if upstream == "y * y" else y.sum()
    out.backward(create_graph=True)
    return x.grad


def _gradcheck(lib, x, function):
    apply = getattr(custom_functions(lib), function).apply
    return lib.autograd.gradcheck(lambda t: apply(t).sum(), (x,))


def _autograd_grad(lib, x, w):
    y = (x * w).exp().sum()
    return lib.autograd.grad(y, [x, w]), x.grad, w.grad


def _second_derivative(lib, x, w):
    (gx,) = lib.autograd.grad((x * x * w).tanh().sum(), x, create_graph=True)
    return gx, lib.autograd.grad((gx * gx).sum(), [x, w]), x.grad


def _autograd_backward_inputs(lib, x, w):
    lib.autograd.backward([(x * w).sum(), (x * x).exp().sum()], inputs=[w])
    return x.grad, w.grad


def _gradgradcheck(lib, x, v, function):
    if function == "tanh(x ** 3)":
        return lib.autograd.gradgradcheck(lambda t: (t * t * t).tanh(), (x,),
                                          (v,))
    apply = getattr(custom_functions(lib), function).apply
    return lib.autograd.gradgradcheck(apply, (x,), (v,))


def _randn(lib, *shape, **options):
    return lib.randn(*shape, **options)


def _value_backward(lib, v, w, gradient=None):
    y = (v * w).exp() + v
    if gradient is None:
        y.backward()
    else:
        y.backward(lib.Value(gradient))
    return y.detach()


def _value_backward_twice(lib, v, retain_graph):
    y = v.exp() * 2
    y.backward(retain_graph=retain_graph)
    y.backward()
    return y.detach()


def _value_detach_item(lib, v):
    d = (v * 3).detach()
    return d, d.requires_grad, d.is_leaf, d.item(), type(d.item()).__name__


def _set_item(lib, x, index, value):
    x[index] = value
    return x


def _copy_(lib, x, src):
    return x.copy_(src)


def _float(lib, x):
    return float(x)


def _membership(lib, x):
    return 1.0 in x


def _backward_inputs(lib, x, w):
    (x * w).sum().backward(inputs=[x])
    return x.grad, w.grad


def _sgd_momentum(lib, weight):
    w = lib.nn.Parameter(weight)
    (w * w).sum().backward()
    lib.optim.SGD([w], lr=0.1, momentum=0.9).step()
    return w.detach() * 1


# Indexing: every kind of index, written as the reader writes it.

INDEXES = [
    ("0", 0), ("-1", -1), ("2", 2), ("1:", slice(1, None)),
    (":2", slice(None, 2)), ("::2", slice(None, None, 2)),
    ("-2:", slice(-2, None)), ("1:-1", slice(1, -1)), ("2:1", slice(2, 1)),
    ("1:10", slice(1, 10)), (":", slice(None)), ("::-1", slice(None, None, -1)),
    ("0, 1", (0, 1)), (":, 0", (slice(None), 0)), ("..., 0", (Ellipsis, 0)),
    ("...", Ellipsis), ("None", None), ("0, None", (0, None)),
    (":, None, 1:", (slice(None), None, slice(1, None))),
    ("()", ()), ("np.int64(1)", np.int64(1)), ("0, 0, 0", (0, 0, 0)),
    ("1, ..., 1", (1, Ellipsis, 1)), ("..., ...", (Ellipsis, Ellipsis)),
    ("True", True), ("[0, 2]", [0, 2]), ("1.5", 1.5),
]


def index_samples(rng):
    out = []
    for text, index in INDEXES:
        x = leaf(rng, (3, 4))
        out.append(Sample(f"{describe(x)}, [{text}]", (x, index)))
    for text, index in (("0", 0), ("...", Ellipsis), ("None", None),
                        ("()", ())):
        x = leaf(rng, ())
        out.append(Sample(f"{describe(x)}, [{text}]", (x, index)))
    for text, index in (("1, :, 0", (1, slice(None), 0)),
                        ("..., 1:", (Ellipsis, slice(1, None)))):
        x = leaf(rng, (2, 3, 4))
        out.append(Sample(f"{describe(x)}, [{text}]", (x, index)))
    for dtype in ("float32", "int64", "bool"):
        x = leaf(rng, (3, 4), dtype)
        out.append(Sample(f"{describe(x)}, [1:, 0]", (x, (slice(1, None), 0))))
    return out


def _two_selections(lib, x):
    # Two views of one tensor: their gradients meet in one AccumulateGrad.
    return x[0] * x[1:].sum(0), x[:, 1]


# The table.

def matmul_samples(pairs, dtype_pairs=()):
    def samples(rng):
        out = []
        for a_shape, b_shape in pairs:
            a, b = leaf(rng, a_shape), leaf(rng, b_shape)
            out.append(Sample(describe(a, b), (a, b)))
        for a_dtype, b_dtype in dtype_pairs:
            a, b = leaf(rng, pairs[0][0], a_dtype), leaf(rng, pairs[0][1],
                                                         b_dtype)
            out.append(Sample(describe(a, b), (a, b)))
        a, b = leaf(rng, pairs[0][0]), leaf(rng, pairs[0][1], grad=False)
        out.append(Sample(describe(a, b), (a, b)))
        return out
    return samples


MATMUL_PAIRS = [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)),
                ((3,), (3, 2)), ((2, 2, 3), (3, 4)), ((2, 2, 3), (3,)),
                ((3,), (2, 3, 4)), ((5, 3), (2, 3, 4)),
                ((2, 2, 3), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)),
                ((), (3,)), ((2, 3), (2, 3)), ((3,), (4,)),
                # PyTorch's folding and batch rules (_matmul_impl)
                ((1, 2, 3), (2, 3, 4)), ((2, 3, 1, 3), (3,)),
                ((2, 3), (4, 1, 3, 2)), ((3,), (2, 2, 3, 1)),
                ((0, 2, 3), (3, 4)), ((2, 2, 3), (3, 3, 2))]
MATRIX_DTYPES = [("float32", "float32"), ("int64", "int64"),
                 ("float32", "float64")]

_REDUCTION_DIMS = (0, 1, -1, -2, 2, (0, 1), (-1, 0), [0, 1], (), (0, 0))


def _tensor_data_samples(rng):
    data = [("[1.5, 2.0]", [1.5, 2.0]), ("[1, 2]", [1, 2]),
            ("[True, False]", [True, False]), ("[True, 2]", [True, 2]),
            ("[1, 2.5]", [1, 2.5]), ("[[1.0, 2.0], [3.0, 4.0]]",
                                     [[1.0, 2.0], [3.0, 4.0]]),
            ("2.5", 2.5), ("3", 3), ("[]", []), ("[[1, 2], [3]]",
                                                 [[1, 2], [3]]),
            ("f64 array", array(rng, (2, 2))),
            ("f32 array", array(rng, (2, 2), "float32")),
            ("i64 array", array(rng, (2,), "int64")),
            ("bool array", array(rng, (2,), "bool")),
            ("0-dim f64 array", array(rng, ())),
            ("np.float64(2.5)", np.float64(2.5)),
            ("np.float32(2.5)", np.float32(2.5)),
            ("np.int64(3)", np.int64(3)),
            ("[np.float64(2.5)]", [np.float64(2.5)]),
            ("[1 + 2j]", [1 + 2j]),
            ("i32 array", np.array([1, 2], np.int32))]
    return [Sample(text, (value,)) for text, value in data]


def _tensor_option_samples(rng):
    out = []
    for text, data, options in (
            ("[1, 2], dtype=f64", [1, 2], dict(dtype=Dtype("float64"))),
            ("[1.5], dtype=i64", [1.5], dict(dtype=Dtype("int64"))),
            ("[0, 1], dtype=bool", [0, 1], dict(dtype=Dtype("bool"))),
            ("[1.5, 2.0], requires_grad", [1.5, 2.0],
             dict(requires_grad=True)),
            ("[1, 2], requires_grad", [1, 2], dict(requires_grad=True)),
            ("[1, 2], dtype=f32, requires_grad", [1, 2],
             dict(dtype=Dtype("float32"), requires_grad=True)),
            ("f32 array, dtype=f64", array(rng, (2,), "float32"),
             dict(dtype=Dtype("float64")))):
        out.append(Sample(text, (data,), options))
    return out


def _filled_samples(rng):
    out = []
    for text, shape, options in (
            ("2, 3", (2, 3), {}), ("(2, 3)", ((2, 3),), {}),
            ("[2, 3]", ([2, 3],), {}), ("()", ((),), {}), ("0", (0,), {}),
            ("3, dtype=f64", (3,), dict(dtype=Dtype("float64"))),
            ("3, dtype=i64", (3,), dict(dtype=Dtype("int64"))),
            ("3, dtype=bool", (3,), dict(dtype=Dtype("bool"))),
            ("3, requires_grad", (3,), dict(requires_grad=True)),
            ("3, dtype=i64, requires_grad", (3,),
             dict(dtype=Dtype("int64"), requires_grad=True)),
            ("-1", (-1,), {})):
        out.append(Sample(text, shape, options))
    return out


def _value_pairs(rng):
    out = []
    for a, b in ((1.5, -0.5), (2.0, 3.0), (-1.0, 2.0), (0.0, 2.0)):
        for a_grad, b_grad in ((True, True), (True, False), (False, True)):
            flags = {(True, True): "", (True, False): ", w needs no grad",
                     (False, True): ", v needs no grad"}[a_grad, b_grad]
            out.append(Sample(f"v={a}, w={b}{flags}",
                              (Scalar(a, a_grad), Scalar(b, b_grad))))
    return out


def _value_and_number(rng):
    return [Sample(f"v={a}, {n!r}", (Scalar(a, True), n))
            for a in (1.5, -2.0, 0.0) for n in (2, 0.5, -1)]


def _value_and_base(rng):
    return [Sample(f"v={a}, {n!r}", (Scalar(a, True), n))
            for a in (1.5, -2.0, 0.0) for n in (2, 0.5, 1)]


def _values(*numbers):
    def samples(rng):
        return [Sample(f"v={a}", (Scalar(a, True),)) for a in numbers]
    return samples


def _nll_samples(rng):
    out = []
    for text, shape, target, dtype in (
            ("4x3, target 4", (4, 3), [0, 2, 1, 2], "float64"),
            ("1x3, target 1", (1, 3), [1], "float64"),
            ("f32 4x3, target 4", (4, 3), [0, 2, 1, 0], "float32"),
            ("3, target 0-dim", (3,), 1, "float64"),
            ("2x3, target out of range", (2, 3), [1, 5], "float64"),
            ("2x3, target of 3", (2, 3), [0, 1, 2], "float64"),
            ("2x3, float target", (2, 3), [0.0, 1.0], "float64")):
        x = leaf(rng, shape, dtype, high=0.0)
        out.append(Sample(text, (x, Leaf(np.array(target)))))
    return out

# Inputs at the special points of the reductions, products and losses
# (issue 24): zeros of both signs, infinities, nan, extreme magnitudes, ties.
# Their gradients, from special upstream gradients too
# (tests/test_differential_special.py), must be PyTorch's.
REDUCTION_POINTS = {
    "float64": ((0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e-300, 2.0,
                 -0.5, 2.0),
                (0.0, -0.0, np.inf, np.inf, -np.inf, 1e300, 2.0, 2.0, -0.5,
                 -0.0)),
    "float32": ((0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -1e-45, 2.0,
                 -0.5, 2.0),
                (0.0, -0.0, np.inf, np.inf, -np.inf, 3e38, 2.0, 2.0, -0.5,
                 -0.0))}


def special_point_samples(*extra, matrix=False):
    """2x5 tensors of REDUCTION_POINTS (with nan, then without: ties of
    inf, 2.0 and the zeros), in float64 and float32, each with ``extra``
    arguments; with ``matrix``, also a 5x3 operand of ordinary numbers."""
    def samples(rng):
        out = []
        for dtype in FLOATS:
            for name, points in zip(("nan", "ties"), REDUCTION_POINTS[dtype]):
                x = Leaf(np.array(points, dtype).reshape(2, 5), True)
                args = (x, leaf(rng, (5, 3), dtype)) if matrix else (x,)
                for more in extra or ((),):
                    text = f"{SHORT[dtype]} special points, {name}"
                    if more:
                        text += ", " + ", ".join(map(repr, more))
                    out.append(Sample(text, args + more))
        return out
    return samples


def _special_nll_samples(rng):
    out = []
    for dtype in FLOATS:
        points = np.array(REDUCTION_POINTS[dtype][0], dtype).reshape(2, 5)
        out.append(Sample(f"{SHORT[dtype]} special points, target [4, 0]",
                          (Leaf(points, True), Leaf(np.array([4, 0])))))
        out.append(Sample(f"{SHORT[dtype]} special points, target [1, 2]",
                          (Leaf(points, True), Leaf(np.array([1, 2])))))
    return out



def _ignore_samples(rng):
    """Targets PyTorch ignores (its default ignore_index, -100, and
    another), all ignored, none, under each reduction; and the errors."""
    out = []
    for reduction in ("mean", "sum", "none"):
        for text, target, ignore in (
                ("target 4", [0, 2, 1, 2], -100),
                ("target 4 with -100", [0, -100, 1, -100], -100),
                ("every target -100", [-100, -100, -100, -100], -100),
                ("ignore_index=1", [0, 1, 2, 1], 1),
                ("ignore_index=2, target -100", [0, -100, 2, 1], 2),
                ("target 3 out of range", [0, 3, -100, 1], -100)):
            if (reduction, text) == ("mean", "target 4"):
                continue  # the entries without arguments have it
            x = leaf(rng, (4, 3), high=0.0)
            out.append(Sample(f"{reduction}, 4x3, {text}", (
                x, Leaf(np.array(target)), ignore, reduction)))
    # Labels that only a check of every label tells apart (a negative
    # one, an ignore_index outside the classes that labels hold).
    for text, target, ignore in (
            ("target -1 out of range", [0, -1, -100, 1], -100),
            ("ignore_index=-1, target -1", [0, -1, 2, 1], -1),
            ("ignore_index=5, target 5", [5, 1, 2, 5], 5),
            ("ignore_index=5, target 4 out of range", [5, 4, 2, 1], 5)):
        for reduction in ("mean", "none"):
            x = leaf(rng, (4, 3), high=0.0)
            out.append(Sample(f"{reduction}, 4x3, {text}", (
                x, Leaf(np.array(target)), ignore, reduction)))
    x = leaf(rng, (4, 3), "float32", high=0.0)
    out.append(Sample("mean, f32 4x3, target 4 with -100", (
        x, Leaf(np.array([0, -100, 1, 2])), -100, "mean")))
    out.append(Sample("bogus, 4x3, target 4", (
        leaf(rng, (4, 3), high=0.0), Leaf(np.array([0, 2, 1, 2])), -100,
        "bogus")))
    return out


# Version counters are compared where in-place semantics are the point;
# elsewhere they only reflect how torch reuses its own buffers.
IN_PLACE_CHECKS = "value, dtype, grads, graph, version, error"

ENTRIES = [
    # Arithmetic, with broadcasting, dtypes and 0-dim operands.
    OpEntry("a + b", lambda lib, a, b: a + b,
            with_special_points(binary_samples(), pairs=True),
            ("Tensor.__add__",)),
    OpEntry("a - b", lambda lib, a, b: a - b,
            with_special_points(binary_samples(), pairs=True),
            ("Tensor.__sub__",)),
    OpEntry("a * b", lambda lib, a, b: a * b,
            with_special_points(binary_samples(), pairs=True),
            ("Tensor.__mul__",)),
    OpEntry("a / b", lambda lib, a, b: a / b,
            with_special_points(binary_samples(b_nonzero=True), pairs=True),
            ("Tensor.__truediv__",)),
    OpEntry("a ** b", lambda lib, a, b: a ** b,
            with_special_points(binary_samples(
                low=0.5, high=2.0,
                dtype_pairs=DTYPE_PAIRS[:2] + DTYPE_PAIRS[3:5]), pairs=True),
            ("Tensor.__pow__",)),
    OpEntry("a + number", lambda lib, a, n: a + n, number_samples(),
            ("Tensor.__add__",)),
    OpEntry("number + a", lambda lib, a, n: n + a, number_samples(),
            ("Tensor.__radd__",)),
    OpEntry("a - number", lambda lib, a, n: a - n, number_samples(),
            ("Tensor.__sub__",)),
    OpEntry("number - a", lambda lib, a, n: n - a, number_samples(),
            ("Tensor.__rsub__",)),
    OpEntry("a * number", lambda lib, a, n: a * n,
            with_special_points(number_samples(), numbers=(2.5, 0.0, -1)),
            ("Tensor.__mul__",)),
    OpEntry("number * a", lambda lib, a, n: n * a,
            with_special_points(number_samples(), numbers=(2.5, 0.0, -1)),
            ("Tensor.__rmul__",)),
    OpEntry("a / number", lambda lib, a, n: a / n,
            with_special_points(number_samples(), numbers=(2.5, 0.0, -1)),
            ("Tensor.__truediv__",)),
    OpEntry("number / a", lambda lib, a, n: n / a,
            with_special_points(number_samples(nonzero=True),
                                numbers=(2.5, -1)),
            ("Tensor.__rtruediv__",)),
    OpEntry("a ** number", lambda lib, a, n: a ** n,
            with_special_points(number_samples(
                (2, 0.5, -1, 0, 3), ("float64", "float32", "int64"),
                low=0.5, high=2.0), numbers=(2, 0.5, -1, 0, 3, 1, -2.5)),
            ("Tensor.__pow__",)),
    OpEntry("number ** a", lambda lib, a, n: n ** a,
            with_special_points(number_samples(
                (2, 0.5, 2.5, 0.0), ("float64", "float32", "int64")),
                numbers=(2, 0.5, 0.0, -2.0, 1.0)),
            ("Tensor.__rpow__",)),
    OpEntry("-a", lambda lib, a: -a, with_special_points(unary_samples()),
            ("Tensor.__neg__",)),

    # In-place operations and augmented assignment.
    OpEntry("Tensor.add_(other)", lambda lib, x, o: x.add_(o),
            inplace_samples(), ("Tensor.add_",), IN_PLACE_CHECKS),
    OpEntry("Tensor.add_(other, alpha=2)",
            lambda lib, x, o: x.add_(o, alpha=2), inplace_samples(),
            ("Tensor.add_",), IN_PLACE_CHECKS),
    OpEntry("Tensor.mul_(other)", lambda lib, x, o: x.mul_(o),
            inplace_samples(), ("Tensor.mul_",), IN_PLACE_CHECKS),
    OpEntry("Tensor.zero_()", lambda lib, x: x.zero_(),
            inplace_samples(operand=False), ("Tensor.zero_",),
            IN_PLACE_CHECKS),
    OpEntry("Tensor.sub_(other)", lambda lib, x, o: x.sub_(o),
            inplace_samples(), ("Tensor.sub_",), IN_PLACE_CHECKS),
    OpEntry("Tensor.div_(other)", lambda lib, x, o: x.div_(o),
            inplace_samples(), ("Tensor.div_",), IN_PLACE_CHECKS),
    OpEntry("Tensor.copy_(src)", _copy_, inplace_samples(),
            ("Tensor.copy_",), IN_PLACE_CHECKS),
    OpEntry("x[index] = value", _set_item, setitem_samples,
            ("Tensor.__setitem__",), IN_PLACE_CHECKS),
    OpEntry("a += b", _iadd, inplace_samples(), ("Tensor.__iadd__",),
            IN_PLACE_CHECKS),
    OpEntry("a -= b", _isub, inplace_samples(), ("Tensor.__isub__",),
            IN_PLACE_CHECKS),
    OpEntry("a *= b", _imul, inplace_samples(), ("Tensor.__imul__",),
            IN_PLACE_CHECKS),
    OpEntry("a /= b", _itruediv, inplace_samples(), ("Tensor.__itruediv__",),
            IN_PLACE_CHECKS),

    # Matrix products.
    OpEntry("a @ b", lambda lib, a, b: a @ b,
            matmul_samples(MATMUL_PAIRS, MATRIX_DTYPES),
            ("Tensor.__matmul__",)),
    OpEntry("a.mm(b)", lambda lib, a, b: a.mm(b),
            matmul_samples([((2, 3), (3, 4)), ((2, 3), (2, 3)),
                            ((3,), (3, 4)), ((0, 3), (3, 2))], MATRIX_DTYPES),
            ("Tensor.mm",)),
    OpEntry("a.mv(v)", lambda lib, a, v: a.mv(v),
            matmul_samples([((2, 3), (3,)), ((2, 3), (2,)), ((3,), (3,))],
                           MATRIX_DTYPES), ("Tensor.mv",)),
    OpEntry("a.bmm(b)", lambda lib, a, b: a.bmm(b),
            matmul_samples([((2, 2, 3), (2, 3, 4)), ((2, 2, 3), (3, 3, 4)),
                            ((2, 3), (3, 4))], MATRIX_DTYPES),
            ("Tensor.bmm",)),
    OpEntry("a.mm(b) at special points", lambda lib, a, b: a.mm(b),
            special_point_samples(matrix=True), ("Tensor.mm",)),

    # Elementwise functions.
    OpEntry("Tensor.exp()", lambda lib, x: x.exp(),
            with_special_points(unary_samples()),
            ("Tensor.exp",)),
    OpEntry("Tensor.log()", lambda lib, x: x.log(),
            with_special_points(unary_samples(low=0.1, high=3.0)),
            ("Tensor.log",)),
    OpEntry("Tensor.log() of negatives and 0", lambda lib, x: x.log(),
            unary_samples(("float32", "int64"), low=-2, high=0),
            ("Tensor.log",)),
    OpEntry("Tensor.tanh()", lambda lib, x: x.tanh(),
            with_special_points(unary_samples()),
            ("Tensor.tanh",)),
    OpEntry("Tensor.sigmoid()", lambda lib, x: x.sigmoid(),
            with_special_points(unary_samples(low=-30, high=30)),
            ("Tensor.sigmoid",)),
    OpEntry("Tensor.relu()", lambda lib, x: x.relu(),
            with_special_points(unary_samples()),
            ("Tensor.relu",)),
    OpEntry("Tensor.reciprocal()", lambda lib, x: x.reciprocal(),
            with_special_points(unary_samples(nonzero=True)),
            ("Tensor.reciprocal",)),

    # Reductions.
    OpEntry("Tensor.sum()", lambda lib, x: x.sum(), unary_samples(),
            ("Tensor.sum",)),
    OpEntry("Tensor.sum(dim)", lambda lib, x, dim: x.sum(dim),
            dim_samples(_REDUCTION_DIMS), ("Tensor.sum",)),
    OpEntry("Tensor.sum(dim, keepdim=True)",
            lambda lib, x, dim: x.sum(dim, keepdim=True),
            dim_samples(_REDUCTION_DIMS + (None,)), ("Tensor.sum",)),
    OpEntry("Tensor.mean()", lambda lib, x: x.mean(), unary_samples(),
            ("Tensor.mean",)),
    OpEntry("Tensor.mean(dim)", lambda lib, x, dim: x.mean(dim),
            dim_samples(_REDUCTION_DIMS), ("Tensor.mean",)),
    OpEntry("Tensor.mean(dim, keepdim=True)",
            lambda lib, x, dim: x.mean(dim, keepdim=True),
            dim_samples(_REDUCTION_DIMS + (None,)), ("Tensor.mean",)),
    OpEntry("Tensor.max()", lambda lib, x: x.max(), unary_samples(),
            ("Tensor.max",)),
    OpEntry("Tensor.max() with ties", lambda lib, x: x.max(),
            fixed(("f64 [1, 3, 3]", lambda rng: Leaf(np.array([1.0, 3, 3]),
                                                    True)),
                  ("f64 2x2 all equal", lambda rng: Leaf(np.ones((2, 2)),
                                                         True))),
            ("Tensor.max",)),
    OpEntry("Tensor.max(dim)", _max_dim, dim_samples((0, 1, -1, 2)),
            ("Tensor.max",)),
    OpEntry("Tensor.max(dim, keepdim=True)",
            lambda lib, x, dim: _max_dim(lib, x, dim, keepdim=True),
            dim_samples((0, 1, -1, 2)), ("Tensor.max",)),
    OpEntry("Tensor.max(dim) with ties", _max_dim,
            fixed(("f64 2x3, dim=1", lambda rng: (
                Leaf(np.array([[1.0, 3, 3], [2, 2, 0]]), True), 1))),
            ("Tensor.max",)),
    OpEntry("Tensor.sum() at special points", lambda lib, x: x.sum(),
            special_point_samples(), ("Tensor.sum",)),
    OpEntry("Tensor.sum(dim) at special points",
            lambda lib, x, dim: x.sum(dim),
            special_point_samples((1,), (0,)), ("Tensor.sum",)),
    OpEntry("Tensor.mean() at special points", lambda lib, x: x.mean(),
            special_point_samples(), ("Tensor.mean",)),
    OpEntry("Tensor.mean(dim) at special points",
            lambda lib, x, dim: x.mean(dim),
            special_point_samples((1,), (0,)), ("Tensor.mean",)),
    OpEntry("Tensor.max() at special points", lambda lib, x: x.max(),
            special_point_samples(), ("Tensor.max",)),
    OpEntry("Tensor.max(dim) at special points", _max_dim,
            special_point_samples((1,), (0,)), ("Tensor.max",)),

    # Shapes and views.
    OpEntry("Tensor.reshape(*shape)", lambda lib, x, *s: x.reshape(*s),
            fixed(("f64 2x3, -1", lambda rng: (leaf(rng, (2, 3)), -1)),
                  ("f64 2x3, 3, 2", lambda rng: (leaf(rng, (2, 3)), 3, 2)),
                  ("f64 2x3, (3, -1)", lambda rng: (leaf(rng, (2, 3)),
                                                     (3, -1))),
                  ("f64 6, 1, 2, 3", lambda rng: (leaf(rng, (6,)), 1, 2, 3)),
                  ("f64 0-dim, ()", lambda rng: (leaf(rng, ()), ())),
                  ("f64 2x3, 4", lambda rng: (leaf(rng, (2, 3)), 4)),
                  ("f64 2x3, -1, -1", lambda rng: (leaf(rng, (2, 3)), -1,
                                                   -1)),
                  ("i64 2x3, 6", lambda rng: (leaf(rng, (2, 3), "int64"), 6)),
                  ("f64 3x2 of x.t(), -1", lambda rng: (leaf(rng, (3, 2)),
                                                        -1), "of x.t()"),
                  ("f64 3x2 of x.t(), 3, 2", lambda rng: (leaf(rng, (3, 2)),
                                                          3, 2), "of x.t()")),
            ("Tensor.reshape",)),
    OpEntry("Tensor.view(*shape)", lambda lib, x, *s: x.view(*s),
            fixed(("f64 2x3, -1", lambda rng: (leaf(rng, (2, 3)), -1)),
                  ("f64 2x3, 3, 2", lambda rng: (leaf(rng, (2, 3)), 3, 2)),
                  ("f64 2x3, (1, 6)", lambda rng: (leaf(rng, (2, 3)),
                                                    (1, 6))),
                  ("f64 2x3, 5", lambda rng: (leaf(rng, (2, 3)), 5)),
                  ("f64 3x2 of x.t(), -1", lambda rng: (leaf(rng, (3, 2)),
                                                        -1), "of x.t()"),
                  ("bool 2x3, 6", lambda rng: (leaf(rng, (2, 3), "bool"),
                                               6))),
            ("Tensor.view",)),
    OpEntry("Tensor.permute(*dims)", lambda lib, x, *d: x.permute(*d),
            fixed(("f64 2x3x4, 2, 0, 1", lambda rng: (leaf(rng, (2, 3, 4)),
                                                      2, 0, 1)),
                  ("f64 2x3x4, (1, 0, 2)", lambda rng: (
                      leaf(rng, (2, 3, 4)), (1, 0, 2))),
                  ("f64 2x3, -1, 0", lambda rng: (leaf(rng, (2, 3)), -1, 0)),
                  ("f64 2x3, 0, 1, 2", lambda rng: (leaf(rng, (2, 3)), 0, 1,
                                                    2)),
                  ("f64 2x3, 0, 0", lambda rng: (leaf(rng, (2, 3)), 0, 0)),
                  ("f64 0-dim, ()", lambda rng: (leaf(rng, ()), ()))),
            ("Tensor.permute",)),
    OpEntry("Tensor.transpose(dim0, dim1)",
            lambda lib, x, d0, d1: x.transpose(d0, d1),
            fixed(("f64 2x3, 0, 1", lambda rng: (leaf(rng, (2, 3)), 0, 1)),
                  ("f64 2x3x4, -1, 0", lambda rng: (leaf(rng, (2, 3, 4)), -1,
                                                    0)),
                  ("f64 2x3, 1, 1", lambda rng: (leaf(rng, (2, 3)), 1, 1)),
                  ("f64 2x3, 0, 2", lambda rng: (leaf(rng, (2, 3)), 0, 2)),
                  ("f64 0-dim, 0, -1", lambda rng: (leaf(rng, ()), 0, -1)),
                  ("i64 2x3, 0, 1", lambda rng: (leaf(rng, (2, 3), "int64"),
                                                 0, 1))),
            ("Tensor.transpose",)),
    OpEntry("Tensor.t()", lambda lib, x: x.t(),
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.ones((2, 3)), True), Leaf(np.ones(3), True),
                Leaf(np.ones(()), True), Leaf(np.ones((2, 2, 2)), True))]),
            ("Tensor.t",)),
    OpEntry("Tensor.T", lambda lib, x: x.T,
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.ones((2, 3)), True), Leaf(np.ones(3), True),
                Leaf(np.ones(()), True), Leaf(np.ones((2, 3, 4)), True))]),
            ("Tensor.T",)),
    OpEntry("Tensor.unsqueeze(dim)", lambda lib, x, d: x.unsqueeze(d),
            dim_samples((0, 1, 2, -1, -3, 3, -4), dtypes=("int64",)),
            ("Tensor.unsqueeze",)),
    OpEntry("Tensor.squeeze(dim)", lambda lib, x, d: x.squeeze(d),
            fixed(("f64 2x1x3, 1", lambda rng: (leaf(rng, (2, 1, 3)), 1)),
                  ("f64 2x1x3, -2", lambda rng: (leaf(rng, (2, 1, 3)), -2)),
                  ("f64 2x1x3, 0", lambda rng: (leaf(rng, (2, 1, 3)), 0)),
                  ("f64 2x1x3, 3", lambda rng: (leaf(rng, (2, 1, 3)), 3)),
                  ("f64 0-dim, 0", lambda rng: (leaf(rng, ()), 0)),
                  ("f64 1, -1", lambda rng: (leaf(rng, (1,)), -1)),
                  ("f64 1x1, (0, 1)", lambda rng: (leaf(rng, (1, 1)),
                                                    (0, 1)))),
            ("Tensor.squeeze",)),
    OpEntry("Tensor.squeeze()", lambda lib, x: x.squeeze(),
            fixed(("f64 2x1x3", lambda rng: leaf(rng, (2, 1, 3))),
                  ("f64 1x1", lambda rng: leaf(rng, (1, 1)))),
            ("Tensor.squeeze",)),
    OpEntry("Tensor.expand(*sizes)", lambda lib, x, *s: x.expand(*s),
            fixed(("f64 3, 2, 3", lambda rng: (leaf(rng, (3,)), 2, 3)),
                  ("f64 1x3, (4, 3)", lambda rng: (leaf(rng, (1, 3)),
                                                    (4, 3))),
                  ("f64 1x3, 4, -1", lambda rng: (leaf(rng, (1, 3)), 4, -1)),
                  ("f64 0-dim, 2", lambda rng: (leaf(rng, ()), 2)),
                  ("f64 2x3, 3", lambda rng: (leaf(rng, (2, 3)), 3)),
                  ("f64 2x3, 4, 3", lambda rng: (leaf(rng, (2, 3)), 4, 3))),
            ("Tensor.expand",)),
    OpEntry("Tensor.sum_to_size(*size)", lambda lib, x, *s: x.sum_to_size(*s),
            fixed(("f64 2x3, 3", lambda rng: (leaf(rng, (2, 3)), 3)),
                  ("f64 2x3, 1, 3", lambda rng: (leaf(rng, (2, 3)), 1, 3)),
                  ("f64 2x3, (2, 1)", lambda rng: (leaf(rng, (2, 3)),
                                                    (2, 1))),
                  ("f64 2x3, 2, 3", lambda rng: (leaf(rng, (2, 3)), 2, 3)),
                  ("f64 2x3, 4", lambda rng: (leaf(rng, (2, 3)), 4))),
            ("Tensor.sum_to_size",)),
    OpEntry("Tensor.clone()", lambda lib, x: x.clone(), unary_samples(),
            ("Tensor.clone",)),
    OpEntry("Tensor.detach()", lambda lib, x: (x.detach(), x.detach() is x),
            unary_samples(), ("Tensor.detach",)),
    OpEntry("Tensor.detach() shares memory", _detach_shares_memory,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.detach",), IN_PLACE_CHECKS),

    # Indexing and iteration.
    OpEntry("x[index]", lambda lib, x, index: x[index], index_samples,
            ("Tensor.__getitem__",)),
    OpEntry("x[tensor]", lambda lib, x, index: x[lib.tensor(index)],
            fixed(*[(f"f64 3x4, [{text}]", lambda rng, index=index: (
                leaf(rng, (3, 4)), index)) for text, index in (
                    ("bool mask 3", np.array([True, False, True])),
                    ("i64 [0, 2]", np.array([0, 2])),
                    ("0-dim i64", np.array(1)))]),
            ("Tensor.__getitem__",)),
    OpEntry("Tensor.unbind(dim)", lambda lib, x, dim: x.unbind(dim),
            dim_samples((0, 1, -1, 2), dtypes=("int64",)), ("Tensor.unbind",)),
    OpEntry("x[0] * x[1:].sum(0), x[:, 1]", _two_selections,
            fixed(("f64 3x4", lambda rng: leaf(rng, (3, 4)))),
            ("Tensor.__getitem__",)),
    OpEntry("tuple(x) (iteration)", lambda lib, x: tuple(x),
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.arange(6.0).reshape(2, 3), True),
                Leaf(np.arange(3.0), True), Leaf(np.ones(()), True),
                Leaf(np.ones((0, 3)), True))]),
            ("Tensor.__iter__",)),
    OpEntry("len(x)", lambda lib, x: len(x),
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3))),
                  ("f64 0-dim", lambda rng: leaf(rng, ()))),
            ("Tensor.__len__",), checks="value, error"),

    # Conversions and attributes.
    OpEntry("Tensor.item()", lambda lib, x: x.item(),
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.array(2.5), True), Leaf(np.array([1.5], np.float32)),
                Leaf(np.array(3)), Leaf(np.array(True)),
                Leaf(np.ones((2, 3))), Leaf(np.ones((0,))))]),
            ("Tensor.item",), checks="value, error"),
    OpEntry("Tensor.tolist()", lambda lib, x: x.tolist(),
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.arange(6.0).reshape(2, 3), True),
                Leaf(np.array(2.5)), Leaf(np.array([1, 2])),
                Leaf(np.array([True, False])))]),
            ("Tensor.tolist",), checks="value, error"),
    OpEntry("Tensor.numpy()", lambda lib, x: x.numpy(), unary_samples(),
            ("Tensor.numpy",), checks="value, dtype, error"),
    OpEntry("Tensor.numpy() shares memory", _numpy_shares_memory,
            fixed(("f64 2x3 (no grad)", lambda rng: leaf(rng, (2, 3),
                                                         grad=False))),
            ("Tensor.numpy",), checks="value, dtype, error"),
    OpEntry("np.asarray(x)", lambda lib, x: np.asarray(x),
            fixed(("f64 2x3 (no grad)", lambda rng: leaf(rng, (2, 3),
                                                         grad=False)),
                  ("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.__array__",), checks="value, dtype, error"),
    OpEntry("bool(x)", lambda lib, x: bool(x),
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.array(0.0)), Leaf(np.array([2])),
                Leaf(np.ones((2, 3))), Leaf(np.ones((0,))))]),
            ("Tensor.__bool__",), checks="value, error"),
    OpEntry("repr(x)", lambda lib, x: repr(x),
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.array([1.5, 2.0])), Leaf(np.array([1.5, 2.0]), True),
                Leaf(np.array([1.5, 2.0], np.float32)),
                Leaf(np.array([1, 2])))]),
            ("Tensor.__repr__",), checks="value"),
    OpEntry("x.shape, x.ndim, x.dim(), x.numel(), x.size(), len(x.size())",
            lambda lib, x: (x.shape, x.ndim, x.dim(), x.numel(), x.size(),
                            len(x.size())),
            unary_samples(), ("Tensor.shape", "Tensor.ndim", "Tensor.dim",
                              "Tensor.numel", "Tensor.size"),
            checks="value"),
    OpEntry("x.size(dim)", lambda lib, x, dim: x.size(dim),
            dim_samples((0, 1, -1, -2, 2), dtypes=()), ("Tensor.size",),
            checks="value, error"),
    OpEntry("x.is_leaf, x.requires_grad, x.grad, x.grad_fn",
            _leaf_flags, unary_samples(), ("Tensor.is_leaf",
                                           "Tensor.requires_grad",
                                           "Tensor.grad", "Tensor.grad_fn"),
            checks="value"),
    OpEntry("x.dtype, x.output_nr, x._version",
            lambda lib, x: (x.dtype, x.output_nr, x._version),
            unary_samples(), ("Tensor.dtype", "Tensor.output_nr"),
            checks="value, dtype"),
    OpEntry("Tensor.requires_grad_()", lambda lib, x: x.requires_grad_(),
            unary_samples(), ("Tensor.requires_grad_",)),
    OpEntry("(x * 2).requires_grad_(False)", _requires_grad_of_non_leaf,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.requires_grad_",)),

    # Hooks and inference tensors (chapter 10).
    OpEntry("x.register_hook(h); y.retain_grad(); backward", _hooked_backward,
            unary_samples(dtypes=("int64",)),
            ("Tensor.register_hook", "Tensor.retain_grad",
             "Tensor.retains_grad"), checks="value, error"),
    OpEntry("x.register_post_accumulate_grad_hook(h); backward",
            _post_accumulate_backward, unary_samples(dtypes=()),
            ("Tensor.register_post_accumulate_grad_hook",),
            checks="value, error"),
    OpEntry("x made in inference mode: is_inference(), x * w",
            _inference_tensor, unary_samples(dtypes=()),
            ("Tensor.is_inference", "inference_mode",
             "is_inference_mode_enabled"), checks="value, error"),

    # backward and its arguments.
    OpEntry("Tensor.backward()", _backward,
            fixed(*[(describe(x), lambda rng, x=x: x) for x in (
                Leaf(np.array(2.0), True), Leaf(np.array([2.0]), True),
                Leaf(np.ones((2, 3)), True), Leaf(np.ones(3)),
                Leaf(np.ones(3, np.float32), True))]),
            ("Tensor.backward",)),
    OpEntry("Tensor.backward(gradient)",
            lambda lib, x, g: _backward(lib, x, lib.tensor(g)),
            fixed(("f64 2x3, f64 2x3", lambda rng: (leaf(rng, (2, 3)),
                                                    array(rng, (2, 3)))),
                  ("f64 2x3, f32 2x3", lambda rng: (
                      leaf(rng, (2, 3)), array(rng, (2, 3), "float32"))),
                  ("f64 2x3, f64 3", lambda rng: (leaf(rng, (2, 3)),
                                                  array(rng, (3,)))),
                  ("f64 2x3, f64 1x3", lambda rng: (leaf(rng, (2, 3)),
                                                    array(rng, (1, 3)))),
                  ("f64 0-dim, f64 0-dim", lambda rng: (leaf(rng, ()),
                                                        array(rng, ())))),
            ("Tensor.backward",)),
    OpEntry("Tensor.backward(gradient=a float)",
            lambda lib, x: _backward(lib, x, 2.0),
            fixed(("f64 0-dim", lambda rng: leaf(rng, ()))),
            ("Tensor.backward",)),
    OpEntry("Tensor.backward(retain_graph), twice", _backward_twice,
            fixed(("f64 3, retain_graph=True", lambda rng: (leaf(rng, (3,)),
                                                            True)),
                  ("f64 3, retain_graph=False", lambda rng: (leaf(rng, (3,)),
                                                             False))),
            ("Tensor.backward",)),
    OpEntry("Tensor.backward() twice, nothing saved",
            _backward_without_saved_tensors_twice,
            fixed(("f64 3", lambda rng: leaf(rng, (3,)))),
            ("Tensor.backward",)),
    OpEntry("Tensor.backward(create_graph=True)", _double_backward,
            fixed(("f64 3", lambda rng: leaf(rng, (3,))),
                  ("f64 0-dim", lambda rng: leaf(rng, ()))),
            ("Tensor.backward",)),
    OpEntry("Tensor.backward() that fails midway: x.grad", _backward_that_fails,
            fixed(("f64 3", lambda rng: leaf(rng, (3,)))),
            ("Tensor.backward",)),
    OpEntry("Tensor.backward() through a reused result",
            _backward_of_two_uses,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.backward",)),

    OpEntry("autograd.grad(outputs, inputs)", _autograd_grad,
            fixed(("f64 2x3, f64 3", lambda rng: (leaf(rng, (2, 3)),
                                                  leaf(rng, (3,))))),
            ("autograd.grad",)),
    OpEntry("autograd.grad(..., create_graph=True), then grad again",
            _second_derivative,
            fixed(("f64 2x3, f64 3", lambda rng: (leaf(rng, (2, 3)),
                                                  leaf(rng, (3,))))),
            ("autograd.grad",)),
    OpEntry("autograd.backward(tensors, inputs=[w])",
            _autograd_backward_inputs,
            fixed(("f64 3, f64 3", lambda rng: (leaf(rng, (3,)),
                                                leaf(rng, (3,))))),
            ("autograd.backward",)),
    OpEntry("autograd.gradgradcheck(f, inputs, grad_outputs)", _gradgradcheck,
            fixed(*[(f"f64 3, {f}", lambda rng, f=f: (
                leaf(rng, (3,)), leaf(rng, (3,)), f))
                for f in ("tanh(x ** 3)", "Cube", "OnceSquare")]),
            ("autograd.gradgradcheck",), checks="value, error"),

    # toygrad's functions.
    OpEntry("toygrad.tensor(data)", lambda lib, data: lib.tensor(data),
            _tensor_data_samples, ("tensor",)),
    OpEntry("toygrad.tensor(data, dtype, requires_grad)",
            lambda lib, data, **options: lib.tensor(data, **options),
            _tensor_option_samples, ("tensor", "Tensor", "float32",
                                     "float64", "int64")),
    OpEntry("toygrad.zeros(*shape)",
            lambda lib, *shape, **options: lib.zeros(*shape, **options),
            _filled_samples, ("zeros",)),
    OpEntry("toygrad.ones(*shape)",
            lambda lib, *shape, **options: lib.ones(*shape, **options),
            _filled_samples, ("ones",)),
    OpEntry("toygrad.randn(*shape)", _randn, _filled_samples, ("randn",),
            checks="dtype, shape, grads, graph, error"),  # random numbers
    OpEntry("toygrad.from_numpy(array)", lambda lib, a: lib.from_numpy(a),
            fixed(*[(text, lambda rng, a=a: a) for text, a in (
                ("f64 2x3", np.arange(6.0).reshape(2, 3)),
                ("f32 0-dim", np.array(1.5, np.float32)),
                ("i64 3", np.arange(3)),
                ("bool 2", np.array([True, False])))]),
            ("from_numpy",)),
    OpEntry("toygrad.from_numpy(array) shares memory",
            _from_numpy_shares_memory,
            fixed(("f64 2x3", lambda rng: array(rng, (2, 3)))),
            ("from_numpy",)),
    OpEntry("no_grad, enable_grad, set_grad_enabled, is_grad_enabled",
            _grad_mode_functions,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3))),
                  ("f64 2x3 (no grad)", lambda rng: leaf(rng, (2, 3),
                                                         grad=False))),
            ("no_grad", "enable_grad", "set_grad_enabled",
             "is_grad_enabled")),
    OpEntry("autograd.detect_anomaly(): a NaN in backward",
            _anomaly_finds_nan,
            fixed(("f64 3", lambda rng: leaf(rng, (3,)))),
            ("autograd.detect_anomaly",)),
    OpEntry("autograd.detect_anomaly(): a NaN from CopySlices",
            _anomaly_finds_nan_in_copy_slices,
            fixed(("f64 3", lambda rng: leaf(rng, (3,)))),
            ("autograd.detect_anomaly",)),
    OpEntry("autograd.set_detect_anomaly(True, check_nan=False)",
            _anomaly_without_nan_check,
            fixed(("f64 3", lambda rng: leaf(rng, (3,)))),
            ("autograd.set_detect_anomaly",)),
    OpEntry("set_grad_enabled(False) as a call",
            _set_grad_enabled_as_a_call,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("set_grad_enabled",)),

    # toygrad.nn.functional.
    OpEntry("F.relu(x)", lambda lib, x: lib.F.relu(x), unary_samples(),
            ("nn.functional.relu",)),
    OpEntry("F.linear(x, weight)", lambda lib, x, w: lib.F.linear(x, w),
            fixed(*[(f"x {shape_id(s)}, weight 2x3", lambda rng, s=s: (
                leaf(rng, s), leaf(rng, (2, 3)))) for s in ((3,), (4, 3),
                                                             (2, 4, 3))],
                  ("x f32 4x3, weight f32 2x3", lambda rng: (
                      leaf(rng, (4, 3), "float32"),
                      leaf(rng, (2, 3), "float32"))),
                  ("x 4x3, weight 2x2", lambda rng: (leaf(rng, (4, 3)),
                                                     leaf(rng, (2, 2)))),
                  *[(f"x {shape_id(s)}, weight 2x2", lambda rng, s=s: (
                      leaf(rng, s), leaf(rng, (2, 2)))) for s in ((3,),
                                                                 (2, 4, 3))],
                  ("x i64 4x3, weight 2x3", lambda rng: (
                      leaf(rng, (4, 3), "int64"), leaf(rng, (2, 3)))),
                  ("x i64 4x3, weight i64 2x3", lambda rng: (
                      leaf(rng, (4, 3), "int64"),
                      leaf(rng, (2, 3), "int64")))),
            ("nn.functional.linear",)),
    OpEntry("F.linear(x, weight, bias)",
            lambda lib, x, w, b: lib.F.linear(x, w, b),
            fixed(*[(f"x {shape_id(s)}, weight 2x3, bias 2",
                     lambda rng, s=s: (leaf(rng, s), leaf(rng, (2, 3)),
                                       leaf(rng, (2,))))
                    for s in ((3,), (4, 3), (2, 4, 3))],
                  ("x 4x3 (no grad), weight 2x3, bias 2", lambda rng: (
                      leaf(rng, (4, 3), grad=False), leaf(rng, (2, 3)),
                      leaf(rng, (2,)))),
                  ("x f32 4x3, weight f32 2x3, bias f32 2", lambda rng: (
                      leaf(rng, (4, 3), "float32"),
                      leaf(rng, (2, 3), "float32"),
                      leaf(rng, (2,), "float32"))),
                  *[(f"x {_spec(x)}, weight {_spec(w)}, bias {_spec(b)}",
                     lambda rng, x=x, w=w, b=b: (
                         leaf(rng, *x), leaf(rng, *w), leaf(rng, *b)))
                    for x, w, b in (
                        (((4, 2),), ((2, 3),), ((2,),)),
                        (((3,),), ((2, 2),), ((2,),)),
                        (((2, 4, 2),), ((2, 3),), ((2,),)),
                        (((4, 3), "int64"), ((2, 3),), ((2,),)),
                        (((4, 3), "float32"), ((2, 3),), ((2,),)),
                        (((4, 3),), ((2, 3),), ((2,), "float32")),
                        (((4, 3),), ((2, 3),), ((3,),)),
                        (((2, 4, 3),), ((2, 3),), ((3,),)),
                        (((4, 3),), ((2, 3),), ((4, 2),)),
                        (((4, 3),), ((2, 3),), ((5, 2),)),
                        (((4, 3),), ((3,),), ((),)))]),
            ("nn.functional.linear",)),
    OpEntry("F.log_softmax(x, dim)", lambda lib, x, d: lib.F.log_softmax(x, d),
            dim_samples((1, -1, 0, 2), dtypes=("float32", "int64")),
            ("nn.functional.log_softmax",)),
    OpEntry("F.nll_loss(log_probs, target)",
            lambda lib, x, t: lib.F.nll_loss(x, t), _nll_samples,
            ("nn.functional.nll_loss",)),
    OpEntry("F.cross_entropy(logits, target)",
            lambda lib, x, t: lib.F.cross_entropy(x, t), _nll_samples,
            ("nn.functional.cross_entropy",)),
    OpEntry("F.log_softmax(x, dim) at special points",
            lambda lib, x, d: lib.F.log_softmax(x, d),
            special_point_samples((1,), (0,)),
            ("nn.functional.log_softmax",)),
    OpEntry("F.nll_loss(log_probs, target) at special points",
            lambda lib, x, t: lib.F.nll_loss(x, t), _special_nll_samples,
            ("nn.functional.nll_loss",)),
    OpEntry("F.cross_entropy(logits, target) at special points",
            lambda lib, x, t: lib.F.cross_entropy(x, t),
            _special_nll_samples, ("nn.functional.cross_entropy",)),
    OpEntry("F.nll_loss(log_probs, target, ignore_index, reduction)",
            lambda lib, x, t, i, r: lib.F.nll_loss(x, t, ignore_index=i,
                                                   reduction=r),
            _ignore_samples, ("nn.functional.nll_loss",)),
    OpEntry("F.cross_entropy(logits, target, ignore_index, reduction)",
            lambda lib, x, t, i, r: lib.F.cross_entropy(
                x, t, ignore_index=i, reduction=r),
            _ignore_samples, ("nn.functional.cross_entropy",)),
    OpEntry("nn.CrossEntropyLoss(ignore_index, reduction)",
            lambda lib, x, t, i, r: lib.nn.CrossEntropyLoss(
                ignore_index=i, reduction=r)(x, t),
            _ignore_samples, ("nn.CrossEntropyLoss",)),

    # Modules and the optimizer.
    OpEntry("nn.Linear(in, out) parameters", _fresh_linear,
            fixed(("3, 2", lambda rng: (3, 2, True)),
                  ("3, 2, bias=False", lambda rng: (3, 2, False))),
            ("nn.Linear", "nn.Module.named_parameters"), checks="value"),
    OpEntry("nn.Linear(in, out)(x)", _linear_module,
            fixed(*[(f"x {shape_id(s)}, bias={b}", lambda rng, s=s, b=b: (
                leaf(rng, s), leaf(rng, (2, 3), grad=False))
                + ((leaf(rng, (2,), grad=False),) if b else ()))
                for s in ((3,), (4, 3), (2, 4, 3)) for b in (True, False)]),
            ("nn.Linear", "nn.Parameter")),
    OpEntry("nn.ReLU()(x)", lambda lib, x: lib.nn.ReLU()(x), unary_samples(),
            ("nn.ReLU",)),
    OpEntry("nn.Sequential(Linear, ReLU, Linear)(x)", _mlp,
            fixed(("x 5x3", lambda rng: (leaf(rng, (5, 3)),) + tuple(
                leaf(rng, s, grad=False) for s in ((4, 3), (4,), (2, 4),
                                                   (2,))))),
            ("nn.Sequential", "nn.Module", "nn.Module.__call__",
             "nn.Module.__setattr__", "nn.Module.parameters",
             "nn.Module.named_parameters")),
    OpEntry("nn.Sequential as a list: append, extend, insert, pop, [i] =, "
            "del, +, +=, *, *=", _sequential_as_a_list,
            fixed(("x 5x3", lambda rng: (leaf(rng, (5, 3)),) + tuple(
                leaf(rng, s, grad=False) for s in ((3, 3), (3,), (3, 3),
                                                   (3,))))),
            ("nn.Sequential.append", "nn.Sequential.extend",
             "nn.Sequential.insert", "nn.Sequential.pop",
             "nn.Sequential.__setitem__", "nn.Sequential.__delitem__",
             "nn.Sequential.__add__", "nn.Sequential.__iadd__",
             "nn.Sequential.__mul__", "nn.Sequential.__imul__",
             "nn.Sequential.__iter__")),
    OpEntry("nn.Module.zero_grad()", _zero_grad,
            fixed(("x 4x3", lambda rng: (leaf(rng, (4, 3)),
                                         leaf(rng, (2, 3), grad=False)))),
            ("nn.Module.zero_grad",), checks="value"),
    OpEntry("optim.SGD(params, lr).step(), .zero_grad()", _sgd_step,
            fixed(*[(f"x {shape_id(s)}, lr={lr}", lambda rng, s=s, lr=lr: (
                leaf(rng, s, grad=False), leaf(rng, (2, 3), grad=False),
                leaf(rng, (2,), grad=False), lr))
                for s, lr in (((4, 3), 0.1), ((3,), 0.5))]),
            ("optim.SGD", "optim.SGD.step", "optim.SGD.zero_grad")),
    OpEntry("nn.Conv2d(in, out, k)(x)", _conv_module,
            fixed(*[(f"x {shape_id(s)}, weight {shape_id(w)}, bias={b}",
                     lambda rng, s=s, w=w, b=b: (
                         leaf(rng, s), leaf(rng, w, grad=False))
                     + ((leaf(rng, w[:1], grad=False),) if b else ()))
                    for s, w in (((2, 1, 5, 5), (2, 1, 3, 3)),
                                 ((1, 2, 4, 5), (3, 2, 2, 2)))
                    for b in (True, False)],
                  ("x f32 2x1x4x4, weight f32 2x1x3x3, bias f32 2",
                   lambda rng: (leaf(rng, (2, 1, 4, 4), "float32"),
                                leaf(rng, (2, 1, 3, 3), "float32", False),
                                leaf(rng, (2,), "float32", False)))),
            ("nn.Conv2d",)),
    OpEntry("nn.MaxPool2d(2)(x)", lambda lib, x: lib.nn.MaxPool2d(2)(x),
            fixed(*[(f"x {shape_id(s)}", lambda rng, s=s: leaf(rng, s))
                    for s in ((1, 1, 4, 4), (2, 3, 5, 7))]),
            ("nn.MaxPool2d",)),
    OpEntry("nn.Conv2d(in, out, k, stride, padding)(x)", _conv_options,
            fixed(*[(f"x 2x2x7x6, {text}", lambda rng, options=options: (
                leaf(rng, (2, 2, 7, 6)), leaf(rng, (3, 2) + (
                    (options["kernel_size"],) * 2
                    if isinstance(options["kernel_size"], int)
                    else options["kernel_size"]), grad=False),
                leaf(rng, (3,), grad=False), options))
                for text, options in _CONV_OPTIONS]),
            ("nn.Conv2d",)),
    OpEntry("nn.MaxPool2d(k, stride, padding)(x)",
            lambda lib, x, options: lib.nn.MaxPool2d(**options)(x),
            fixed(*[(f"x {special}2x2x6x7, {options}",
                     lambda rng, options=options, special=special: (
                         _pool_input(rng, special), options))
                    for options in (dict(kernel_size=3, stride=1),
                                    dict(kernel_size=3, stride=2, padding=1),
                                    dict(kernel_size=(2, 3), stride=(1, 2),
                                         padding=(1, 1)))
                    for special in ("", "with NaN ")]),
            ("nn.MaxPool2d",)),
    OpEntry("nn.Flatten()(x)", lambda lib, x: lib.nn.Flatten()(x * 1),
            fixed(*[(f"x {shape_id(s)}", lambda rng, s=s: leaf(rng, s))
                    for s in ((2, 3, 4), (3, 2), (2, 2, 2, 2))]),
            ("nn.Flatten",)),
    OpEntry("Conv2d, ReLU, MaxPool2d, Flatten, CrossEntropyLoss", _cnn,
            fixed(("x 3x1x6x6, target 3", lambda rng: (
                leaf(rng, (3, 1, 6, 6)), leaf(rng, (2, 1, 3, 3), grad=False),
                leaf(rng, (2,), grad=False), Leaf(np.array([0, 3, 7]))))),
            ("nn.CrossEntropyLoss", "nn.Conv2d", "nn.MaxPool2d",
             "nn.Flatten")),
    OpEntry("nn.Module.state_dict(), .load_state_dict(state, strict)",
            _state_dict_round_trip,
            fixed(*[(f"strict={strict}", lambda rng, strict=strict: (
                leaf(rng, (2, 3), grad=False), leaf(rng, (2,), grad=False),
                strict)) for strict in (True, False)]),
            ("nn.Module.state_dict", "nn.Module.load_state_dict"),
            checks="value, error"),
    OpEntry("nn.Module bookkeeping", _module_bookkeeping,
            fixed(*[(action, lambda rng, action=action: (
                leaf(rng, (2, 3), "float32", grad=False), action))
                for action in ("tied", "None and del",
                               "a tensor for a parameter", "buffers",
                               "register_parameter", "modes",
                               "zero_grad(set_to_none=False)", "repr")]),
            ("nn.Module.add_module", "nn.Module.register_module",
             "nn.Module.register_parameter", "nn.Module.register_buffer",
             "nn.Module.buffers", "nn.Module.named_buffers",
             "nn.Module.children", "nn.Module.named_children",
             "nn.Module.modules", "nn.Module.named_modules",
             "nn.Module.apply", "nn.Module.train", "nn.Module.eval",
             "nn.Module.requires_grad_", "nn.Module.extra_repr",
             "nn.Module.__repr__", "nn.Module.__getattr__",
             "nn.Module.__delattr__", "nn.Module.__dir__"),
            checks="value, error"),
    OpEntry("nn.Module.<method>() toygrad lacks", _refused_module_method,
            fixed(*[(name, lambda rng, name=name: (
                leaf(rng, (2, 3), "float32", grad=False), name))
                for name in _REFUSED_MODULE_METHODS]),
            tuple(f"nn.Module.{name}" for name in _REFUSED_MODULE_METHODS),
            checks="value, error"),
    OpEntry("nn.Module full backward hooks", _module_backward_hooks,
            fixed(*[(action, lambda rng, action=action: (
                leaf(rng, (4, 3)), leaf(rng, (2, 3), grad=False), action))
                for action in ("hooks only", "pre-hook", "prepend",
                               "removed", "no input grad")]),
            ("nn.Module.register_full_backward_hook",
             "nn.Module.register_full_backward_pre_hook"),
            checks="value, grads, graph, error"),
    OpEntry("optim.SGD / optim.Adam, three steps", _optimizer_steps,
            fixed(*[(f"{name}{kwargs}", lambda rng, name=name, kwargs=kwargs: (
                leaf(rng, (2, 3), grad=False), name, kwargs))
                for name, kwargs in (
                    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1)),
                    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True,
                                 weight_decay=0.1)),
                    ("Adam", dict(lr=0.1)),
                    ("Adam", dict(lr=0.1, amsgrad=True, weight_decay=0.1,
                                  maximize=True)))]),
            ("optim.Adam", "optim.Adam.step")),

    # The Function API.
    OpEntry("autograd.Function (a custom x ** 3)",
            lambda lib, x: custom_functions(lib).Cube.apply(x),
            unary_samples(dtypes=("float32",)),
            ("autograd.Function", "autograd.Function.apply",
             "autograd.Function.forward", "autograd.Function.backward",
             "ctx.save_for_backward", "ctx.saved_tensors")),
    OpEntry("autograd.Function with a non-differentiable output",
            lambda lib, x, y: custom_functions(lib).ScaleAndCount.apply(
                x, y, 1.5),
            binary_samples(dtype_pairs=[("float32", "float32")]),
            ("ctx.mark_non_differentiable", "ctx.set_materialize_grads",
             "ctx.needs_input_grad")),
    OpEntry("autograd.Function that changes its input (mark_dirty)",
            lambda lib, x: custom_functions(lib).DoubleInPlace.apply(x),
            fixed(*[(f"{context}, f64 2x3", lambda rng: leaf(rng, (2, 3)),
                     context) for context in (
                         "on a leaf", "on a non-leaf", "on a view of a non-leaf",
                         "on an input saved for backward")]),
            ("ctx.mark_dirty",), IN_PLACE_CHECKS),
    OpEntry("autograd.Function that returns its input",
            lambda lib, x: custom_functions(lib).Same.apply(x),
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3))),
                  *[(f"{context}, f64 2x3", lambda rng: leaf(rng, (2, 3)),
                     context) for context in (
                         "on a non-leaf", "on a view of a non-leaf",
                         "under no_grad")]),
            ("autograd.Function.apply",)),
    OpEntry("autograd.Function that returns its input, then out.mul_(2)",
            _same_then_changed,
            fixed(*[(f"{kind}, f64 2x3", lambda rng, grad=grad: leaf(
                rng, (2, 3), grad=grad)) for kind, grad in (
                    ("requires grad", True), ("requires no grad", False))]),
            ("autograd.Function.apply",)),
    OpEntry("forward_ad: the tangent of (x * x.exp()).sum(0)", _tangent_of,
            fixed(*[(f"f64 {shape_id(shape)}", lambda rng, shape=shape: (
                leaf(rng, shape, grad=False), leaf(rng, shape, grad=False)))
                for shape in ((3,), (2, 3))]),
            ("autograd.forward_ad",)),
    OpEntry("autograd.Function with a jvp (save_for_forward)",
            _custom_jvp,
            fixed(("f64 2x3", lambda rng: (leaf(rng, (2, 3), grad=False),
                                           leaf(rng, (2, 3), grad=False)))),
            ("ctx.save_for_forward",)),
    OpEntry("@once_differentiable backward, then backward(create_graph)",
            _once_differentiable,
            fixed(*[(f"f64 3, {upstream}", lambda rng, u=upstream: (
                leaf(rng, (3,)), u)) for upstream in ("plain", "y * y")]),
            ("autograd.function.once_differentiable",)),
    OpEntry("backward(create_graph=True) through an in-place change of a view",
            _create_graph_through_copy_slices,
            fixed(("f64 3", lambda rng: leaf(rng, (3,)))),
            ("Tensor.backward",)),
    OpEntry("x[:, 1:] = x[:, :-1] (strided views of the same memory)",
            _shift_within_rows,
            fixed(("f64 3x3", lambda rng: leaf(rng, (3, 3)))),
            ("Tensor.__setitem__",)),
    OpEntry("autograd.gradcheck(f, inputs)", _gradcheck,
            fixed(("f64 3, right backward", lambda rng: (leaf(rng, (3,)),
                                                         "Cube")),
                  ("f64 3, wrong backward", lambda rng: (leaf(rng, (3,)),
                                                         "WrongCube"))),
            ("autograd.gradcheck", "autograd.GradcheckError"),
            checks="value, error"),

    # toygrad.scalar.Value, compared with a 0-dim float64 tensor.
    OpEntry("Value: v + w", lambda lib, v, w: v + w, _value_pairs,
            ("Value.__add__",)),
    OpEntry("Value: v - w", lambda lib, v, w: v - w, _value_pairs,
            ("Value.__sub__",)),
    OpEntry("Value: v * w", lambda lib, v, w: v * w, _value_pairs,
            ("Value.__mul__",)),
    OpEntry("Value: v / w", lambda lib, v, w: v / w, _value_pairs,
            ("Value.__truediv__",)),
    OpEntry("Value: v ** w", lambda lib, v, w: v ** w, _value_pairs,
            ("Value.__pow__",)),
    OpEntry("Value: v + number", lambda lib, v, n: v + n, _value_and_number,
            ("Value.__add__",)),
    OpEntry("Value: number + v", lambda lib, v, n: n + v, _value_and_number,
            ("Value.__radd__",)),
    OpEntry("Value: v - number", lambda lib, v, n: v - n, _value_and_number,
            ("Value.__sub__",)),
    OpEntry("Value: number - v", lambda lib, v, n: n - v, _value_and_number,
            ("Value.__rsub__",)),
    OpEntry("Value: v * number", lambda lib, v, n: v * n, _value_and_number,
            ("Value.__mul__",)),
    OpEntry("Value: number * v", lambda lib, v, n: n * v, _value_and_number,
            ("Value.__rmul__",)),
    OpEntry("Value: v / number", lambda lib, v, n: v / n, _value_and_number,
            ("Value.__truediv__",)),
    OpEntry("Value: number / v", lambda lib, v, n: n / v, _value_and_number,
            ("Value.__rtruediv__",)),
    OpEntry("Value: v ** number", lambda lib, v, n: v ** n, _value_and_number,
            ("Value.__pow__",)),
    OpEntry("Value: number ** v", lambda lib, v, n: n ** v,
            _value_and_base, ("Value.__rpow__",)),
    OpEntry("Value: -v", lambda lib, v: -v, _values(1.5, -2.0, 0.0),
            ("Value.__neg__",)),
    OpEntry("Value: v.exp()", lambda lib, v: v.exp(), _values(1.5, -2.0, 0.0),
            ("Value.exp",)),
    OpEntry("Value: v.log()", lambda lib, v: v.log(),
            _values(1.5, 0.25, 0.0, -1.0), ("Value.log",)),
    OpEntry("Value: v.tanh()", lambda lib, v: v.tanh(),
            _values(1.5, -2.0, 0.0), ("Value.tanh",)),
    OpEntry("Value: v.relu()", lambda lib, v: v.relu(),
            _values(1.5, -2.0, 0.0), ("Value.relu",)),
    OpEntry("Value: v.reciprocal()", lambda lib, v: v.reciprocal(),
            _values(1.5, -2.0, 0.0), ("Value.reciprocal",)),
    OpEntry("Value: v.sigmoid()", lambda lib, v: v.sigmoid(),
            _values(1.5, -2.0, 0.0, -800.0, 800.0), ("Value.sigmoid",)),
    OpEntry("Value: v.backward(gradient), v.grad", _value_backward,
            fixed(("v=0.5, w=-1.5", lambda rng: (Scalar(0.5, True),
                                                 Scalar(-1.5, True))),
                  ("v=0.5, w=-1.5, gradient=2.5", lambda rng: (
                      Scalar(0.5, True), Scalar(-1.5, True), 2.5))),
            ("Value.backward", "Value.grad", "Value.grad_fn",
             "Value.requires_grad", "Value.is_leaf")),
    OpEntry("Value: v.backward(retain_graph), twice", _value_backward_twice,
            fixed(("v=0.5, retain_graph=True", lambda rng: (
                Scalar(0.5, True), True)),
                  ("v=0.5, retain_graph=False", lambda rng: (
                      Scalar(0.5, True), False))),
            ("Value.backward",)),
    OpEntry("Value: v.backward() without grad",
            lambda lib, v: v.backward(),
            fixed(("v=0.5 (no grad)", lambda rng: Scalar(0.5, False))),
            ("Value.backward",)),
    OpEntry("Value: v.detach(), v.item()", _value_detach_item,
            _values(1.5, -2.0), ("Value.detach", "Value.item")),

    # What torch offers beside the operations above: comparisons, options.
    OpEntry("a == b", lambda lib, a, b: a == b,
            fixed(("f64 2x3, f64 2x3", lambda rng: (leaf(rng, (2, 3)),
                                                    leaf(rng, (2, 3))))),
            ("Tensor.__eq__",)),
    OpEntry("a < 0", lambda lib, a: a < 0,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.__lt__",)),
    OpEntry("a <= 0", lambda lib, a: a <= 0,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.__le__",)),
    OpEntry("a > 0", lambda lib, a: a > 0,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.__gt__",)),
    OpEntry("a >= 0", lambda lib, a: a >= 0,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.__ge__",)),
    OpEntry("a != b", lambda lib, a, b: a != b,
            fixed(("f64 2x3, f64 2x3", lambda rng: (leaf(rng, (2, 3)),
                                                    leaf(rng, (2, 3))))),
            ("Tensor.__ne__",)),
    OpEntry("int(x)", lambda lib, x: int(x),
            fixed(("f64 0-dim", lambda rng: leaf(rng, ())),
                  ("f64 1 (no grad)", lambda rng: leaf(rng, (1,), grad=False)),
                  ("f64 2 (no grad)", lambda rng: leaf(rng, (2,), grad=False))),
            ("Tensor.__int__",)),
    OpEntry("operator.index(x)", lambda lib, x: operator.index(x),
            fixed(("i64 0-dim", lambda rng: leaf(rng, (), "int64")),
                  ("i64 1", lambda rng: leaf(rng, (1,), "int64")),
                  ("bool 0-dim", lambda rng: leaf(rng, (), "bool")),
                  ("i64 2", lambda rng: leaf(rng, (2,), "int64")),
                  ("f64 0-dim (no grad)", lambda rng: leaf(rng, (), grad=False))),
            ("Tensor.__index__",), checks="value, error"),
    OpEntry("NumPy number * x", lambda lib, x: np.float64(2.5) * x,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3))),
                  ("f32 2x3", lambda rng: leaf(rng, (2, 3), "float32"))),
            ("Tensor.__array_priority__",)),
    OpEntry("1.0 in x", _membership,
            fixed(("f64 2x3", lambda rng: leaf(rng, (2, 3)))),
            ("Tensor.__contains__",)),
    OpEntry("float(x)", _float,
            fixed(("f64 0-dim", lambda rng: leaf(rng, ())),
                  ("f64 1 (no grad)", lambda rng: leaf(rng, (1,), grad=False))),
            ("Tensor.__float__",)),
    OpEntry("Tensor.sum(dtype=...)", lambda lib, x: x.sum(dtype=lib.float64),
            fixed(("f32 2x3", lambda rng: leaf(rng, (2, 3), "float32"))),
            ("Tensor.sum",)),
    OpEntry("Tensor.backward(inputs=[x])", _backward_inputs,
            fixed(("f64 3, f64 3", lambda rng: (leaf(rng, (3,)),
                                                leaf(rng, (3,))))),
            ("Tensor.backward",)),
    OpEntry("F.nll_loss(..., weight=w)",
            lambda lib, x, t, w: lib.F.nll_loss(x, t, weight=w),
            fixed(("4x3, target 4, weight 3", lambda rng: (
                leaf(rng, (4, 3), high=0.0), Leaf(np.array([0, 2, 1, 2])),
                leaf(rng, (3,), grad=False, low=0.5)))),
            ("nn.functional.nll_loss",)),
    OpEntry("F.cross_entropy(..., label_smoothing=0.1)",
            lambda lib, x, t: lib.F.cross_entropy(x, t, label_smoothing=0.1),
            fixed(("4x3, target 4", lambda rng: (
                leaf(rng, (4, 3)), Leaf(np.array([0, 2, 1, 2]))))),
            ("nn.functional.cross_entropy",)),
    OpEntry("optim.SGD(params, lr, momentum=0.9)", _sgd_momentum,
            fixed(("weight 2x3", lambda rng: leaf(rng, (2, 3), grad=False))),
            ("optim.SGD",)),
]


# The table's parts, for the appendix page: the first entry of each, and its
# title.
SECTIONS = {
    "a + b": "Arithmetic",
    "Tensor.add_(other)": "In place",
    "a @ b": "Matrix products",
    "Tensor.exp()": "Elementwise functions",
    "Tensor.sum()": "Reductions",
    "Tensor.reshape(*shape)": "Shapes and views",
    "x[index]": "Indexing and iteration",
    "Tensor.item()": "Conversions and attributes",
    "Tensor.backward()": "backward",
    "toygrad.tensor(data)": "toygrad's functions",
    "F.relu(x)": "toygrad.nn.functional",
    "nn.Linear(in, out) parameters": "Modules and the optimizer",
    "autograd.Function (a custom x ** 3)": "The Function API",
    "Value: v + w": "The scalar Value",
    "a == b": "Beyond toygrad: comparisons and options",
}


def sections():
    """``(title, entries)`` for each part of the table, in order."""
    parts, titles = [], {entry.name for entry in ENTRIES}
    assert set(SECTIONS) <= titles, set(SECTIONS) - titles
    for entry in ENTRIES:
        if entry.name in SECTIONS:
            parts.append((SECTIONS[entry.name], []))
        parts[-1][1].append(entry)
    return parts


# Attributes that differ from PyTorch's by design, and are not compared.
BY_DESIGN = {
    "Tensor.data": "a NumPy array (design.md), where torch's .data is a "
                   "tensor; the harness reads the numbers through it",
    "Value.data": "a Python float, where a torch tensor's .data is a tensor",
    "Value.__repr__": "Value(1.5, requires_grad=True): a scalar Value says "
                      "what it is, not tensor(...)",
    # Refused by name (NotImplementedError, tests/test_module_api.py), where
    # torch's cannot run here or raises itself without more setup.
    "nn.Module.cuda": "refused: toygrad runs on the CPU only",
    "nn.Module.to_empty": "refused: toygrad has no devices",
    "nn.Module.compile": "refused: toygrad has no compiler",
    "nn.Module.get_extra_state": "refused: toygrad modules have no extra "
                                 "state (torch's raises too)",
    "nn.Module.set_extra_state": "refused: toygrad modules have no extra "
                                 "state (torch's raises too)",
}


# What toygrad deliberately does not support: for these cases it must raise
# this error, with a message naming what is unsupported (matched ignoring
# case), instead of answering. PyTorch supports every one of them.
UNSUPPORTED = {
    "x[index]: f64 3x4, [True]": (NotImplementedError, "indexing with a bool"),
    "x[index]: f64 3x4, [[0, 2]]": (NotImplementedError, "indexing with a list"),
    "x[tensor]: f64 3x4, [bool mask 3]": (NotImplementedError, "a Tensor"),
    "x[tensor]: f64 3x4, [i64 [0, 2]]": (NotImplementedError, "a Tensor"),
    "x[tensor]: f64 3x4, [0-dim i64]": (NotImplementedError, "a Tensor"),
    "Tensor.squeeze(dim): f64 1x1, (0, 1)": (NotImplementedError, "tuple of dims"),
    "number ** a: i64 2x3, 2": (NotImplementedError, "number ** tensor"),
    "toygrad.tensor(data): [1 + 2j]": (NotImplementedError, "complex"),
    "toygrad.tensor(data): i32 array": (NotImplementedError, "int32"),
    "toygrad.tensor(data): [np.float64(2.5)]": (NotImplementedError, "NumPy scalars"),
    "F.nll_loss(log_probs, target): 3, target 0-dim": (NotImplementedError, "(N, C)"),
    "F.cross_entropy(logits, target): 3, target 0-dim": (NotImplementedError, "(N, C)"),
    "a == b: f64 2x3, f64 2x3": (NotImplementedError, "comparison"),
    "a < 0: f64 2x3": (NotImplementedError, "comparison"),
    "a <= 0: f64 2x3": (NotImplementedError, "comparison"),
    "a > 0: f64 2x3": (NotImplementedError, "comparison"),
    "a >= 0: f64 2x3": (NotImplementedError, "comparison"),
    "a != b: f64 2x3, f64 2x3": (NotImplementedError, "comparison"),
    "1.0 in x: f64 2x3": (NotImplementedError, "comparison"),
    "Tensor.sum(dtype=...): f32 2x3": (NotImplementedError, "dtype"),
    "F.nll_loss(..., weight=w): 4x3, target 4, weight 3": (NotImplementedError, "weight"),
    "F.cross_entropy(..., label_smoothing=0.1): 4x3, target 4":
        (NotImplementedError, "label_smoothing"),
    "backward(create_graph=True) through an in-place change of a view: f64 3":
        (NotImplementedError, "create_graph through"),
    "x[:, 1:] = x[:, :-1] (strided views of the same memory): f64 3x3":
        (NotImplementedError, "TOO_HARD"),
    "autograd.Function that changes its input (mark_dirty): on a view of a "
    "non-leaf, f64 2x3": (NotImplementedError, "mark_dirty on a view"),
    **{f"nn.Module.<method>() toygrad lacks: {name}":
       (NotImplementedError, f"{name}()") for name in _REFUSED_MODULE_METHODS},
}


# Running a case on both libraries.

def rng_for(text):
    """A generator seeded by ``text``: the same numbers on every run."""
    return np.random.default_rng(zlib.crc32(text.encode()))


def _cases():
    cases = []
    for entry in ENTRIES:
        for sample in entry.samples(rng_for(entry.name)):
            cases.append(Case(entry, sample))
    ids = [case.id for case in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"case ids must be unique: {sorted(duplicates)}"
    return cases


CASES = _cases()
CASE_COUNT = len(CASES)  # the (operation, sample) pairs
CASES_BY_ID = {case.id: case for case in CASES}


def _resolve(lib, arg, leaves):
    """A sample's argument as ``lib``'s object; collects the leaves made."""
    if isinstance(arg, Leaf):
        made = lib.tensor(arg.array.copy(), requires_grad=arg.requires_grad)
    elif isinstance(arg, Scalar):
        made = lib.Value(arg.data, requires_grad=arg.requires_grad)
    elif isinstance(arg, Dtype):
        return getattr(lib, arg.name)
    else:
        return copy.deepcopy(arg)  # from_numpy must not share across runs
    leaves.append(made)
    return made


def _is_tensor(obj):
    return isinstance(obj, (torch.Tensor, toygrad.Tensor, Value))


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]  # torch.float32 / float32


SKIP = object()  # a fact that is not compared (Value has no version)


def _attempt(read):
    try:
        return read()
    except Exception as error:  # a broken attribute is a difference too
        return f"<{type(error).__name__}: {error}>"


def tensor_facts(t):
    """What the harness compares about one tensor, as plain data."""
    if isinstance(t, Value):
        return dict(values=np.array(t.data, np.float64), dtype="float64",
                    shape=(), requires_grad=t.requires_grad,
                    is_leaf=t.is_leaf, graph=_attempt(
                        lambda: graph_structure(t)), version=SKIP,
                    output_nr=SKIP)
    if isinstance(t, torch.Tensor):
        values = _attempt(lambda: t.detach().numpy().copy())
    else:
        values = _attempt(lambda: np.array(t.data, copy=True))
    return dict(values=values, dtype=_attempt(lambda: _dtype_name(t.dtype)),
                shape=_attempt(lambda: tuple(t.shape)),
                requires_grad=_attempt(lambda: t.requires_grad),
                is_leaf=_attempt(lambda: t.is_leaf),
                graph=_attempt(lambda: graph_structure(t)),
                version=_attempt(lambda: t._version),
                output_nr=_attempt(lambda: t.output_nr))


def facts(obj):
    """A result as plain data: tensors as ``tensor_facts``, nested alike."""
    if _is_tensor(obj):
        return ("tensor", tensor_facts(obj))
    if isinstance(obj, (list, tuple)):  # torch.Size, MaxResult: tuples
        kind = "list" if isinstance(obj, list) else "tuple"
        return (kind, [facts(item) for item in obj])
    if isinstance(obj, np.ndarray):
        return ("ndarray", dict(values=obj.copy(), dtype=str(obj.dtype),
                                shape=obj.shape))
    if isinstance(obj, (torch.dtype, np.dtype)) or (
            isinstance(obj, type) and issubclass(obj, np.generic)):
        return ("dtype", _dtype_name(np.dtype(obj) if isinstance(obj, type)
                                     else obj))
    return (type(obj).__name__, obj)


def _tensors_in(obj):
    """The tensors a result holds, in order, each once."""
    found = []

    def visit(item):
        if _is_tensor(item):
            if not any(item is seen for seen in found):
                found.append(item)
        elif isinstance(item, (list, tuple)):
            for part in item:
                visit(part)
    visit(obj)
    return found


def _upstream(lib, output, rng):
    """A random gradient for ``output``, of its shape and dtype."""
    if isinstance(output, Value):
        return Value(rng.standard_normal())
    numbers = rng.standard_normal(tuple(output.shape))
    return lib.tensor(numbers.astype(_dtype_name(output.dtype)))


def grad_facts(x):
    """The facts of ``x.grad``."""
    grad = x.grad
    if isinstance(x, Value) and isinstance(grad, float):
        return facts(Value(grad))  # a Value's gradient is a float
    kind, data = facts(grad)
    if kind == "tensor":
        # Its version too: each in-place write PyTorch's formulas, its
        # gradient buffers and AccumulateGrad make into it shows there.
        data.update(output_nr=SKIP)
    return kind, data


def _error(error):
    return None if error is None else (type(error).__name__, str(error))


@dataclass
class Run:
    """What one library did with one case."""
    error: tuple = None  # (type name, message) if the function raised
    result: object = None  # facts of the result
    backward_error: tuple = None
    grads: list = None  # facts of every leaf's .grad after backward
    grad_mode_left_off: bool = False
    leaves: list = None  # the objects themselves (the leaves made, then
    tensors: list = None  # the result's tensors), for the checks that
    # need them (tests/test_differential_special.py)


def _call(lib, case):
    leaves = []
    args = [_resolve(lib, arg, leaves) for arg in case.sample.args]
    kwargs = {k: _resolve(lib, v, leaves)
              for k, v in case.sample.kwargs.items()}

    def op(*positional):
        return case.entry.fn(lib, *positional, **kwargs)
    if case.sample.context:
        return CONTEXTS[case.sample.context](lib, op, *args), leaves
    return op(*args), leaves


def run(lib, case, upstream=None):
    """Run ``case`` on ``lib``: the result, then backward from it.

    ``upstream(lib, output, rng)`` makes each output's gradient (random
    numbers unless given).
    """
    upstream = upstream or _upstream
    lib.watched = []
    outcome = Run()
    try:
        result, leaves = _call(lib, case)
    except Exception as error:
        outcome.error = _error(error)
        return outcome
    finally:
        outcome.grad_mode_left_off = not lib.is_grad_enabled()
        lib.set_grad_enabled(True)
    outcome.result = facts(result)
    outcome.leaves, outcome.tensors = leaves, _tensors_in(result)
    outputs = [t for t in outcome.tensors if t.requires_grad]
    rng = rng_for(case.id)
    try:
        for i, output in enumerate(outputs):
            output.backward(upstream(lib, output, rng),
                            retain_graph=i < len(outputs) - 1)
    except Exception as error:
        outcome.backward_error = _error(error)
    outcome.grads = [grad_facts(x) for x in leaves + lib.watched]
    return outcome


@contextlib.contextmanager
def quiet():
    """No warnings from either library (log(-1), x.T on 3-D ...)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def run_case(case):
    """Every way toygrad differs from PyTorch on ``case``; [] if none.

    For a case in UNSUPPORTED, every way toygrad fails to refuse it.
    """
    with quiet():
        theirs = run(TORCH, case)
        try:
            ours = run(TOYGRAD, case)
        except Exception as error:  # even reading a result failed
            return [f"the harness failed on toygrad: {_error(error)}"]
    if case.id in UNSUPPORTED:
        return _refusal_problems(ours, theirs, *UNSUPPORTED[case.id])
    checked = case.entry.checked
    precision = case.precision
    if _holds_float32(theirs.result):  # torch computed in float32
        precision = "float32"
    return compare_runs(ours, theirs, How("value" in checked,
                                          "version" in checked, precision))


def _refusal_problems(ours, theirs, error_type, fragment):
    problems = []
    if theirs.error:
        problems.append(f"not unsupported: torch raises "
                        f"{_say_error(theirs.error)} too")
    if ours.error is None:
        problems.append(f"toygrad answers; it must raise "
                        f"{error_type.__name__} naming {fragment!r}")
    elif (ours.error[0] != error_type.__name__
          or fragment.lower() not in ours.error[1].lower()):
        problems.append(f"toygrad raises {_say_error(ours.error)}, not "
                        f"{error_type.__name__} naming {fragment!r}")
    return problems


def _holds_float32(facts_):
    if facts_ is None:
        return False
    kind, data = facts_
    if kind in ("tensor", "ndarray"):
        return data["dtype"] == "float32"
    if kind in ("list", "tuple"):
        return any(_holds_float32(item) for item in data)
    return False


# Comparing two runs.

def graph_text(structure):
    """A graph_structure in one line: ``MulBackward0[1,-] > ...``.

    Each node lists, in brackets, the positions of its next functions
    (``-`` for none; ``:n`` when the edge leads to output n); an
    AccumulateGrad shows its leaf's shape.
    """
    nodes = []
    for name, edges, leaf in structure:
        links = ",".join("-" if i is None else f"{i}" + (f":{nr}" if nr
                                                        else "")
                         for i, nr in edges)
        if leaf is not None:
            nodes.append(f"{name}({shape_id(leaf)})")
        else:
            nodes.append(f"{name}[{links}]")
    return " > ".join(nodes) or "no graph"


def _short(value):
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=4, threshold=8,
                               separator=", ").replace("\n", "")
    text = repr(value)
    return text if len(text) < 200 else text[:197] + "..."


def _say(facts):
    kind, data = facts
    if kind in ("tensor", "ndarray"):
        return (f"a {kind} of {data['dtype']} {shape_id(data['shape'])} "
                f"{_short(data['values'])}")
    return f"{kind} {_short(data)}"


def _say_error(error):
    return f"{error[0]}({error[1]!r})" if error else "no error"


def same_numbers(ours, theirs, dtype):
    """Exact for integers and bools, else within the dtype's precision."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return False
    if dtype in ("float32", "float64") or theirs.dtype.kind == "f":
        tolerance = (dict(rtol=1e-5, atol=1e-6) if dtype == "float32"
                     else dict(rtol=1e-10, atol=1e-12))
        try:
            return np.allclose(ours.astype(np.float64),
                               theirs.astype(np.float64), equal_nan=True,
                               **tolerance)
        except (TypeError, ValueError):  # ours is not numeric
            return False
    return np.array_equal(ours, theirs)


@dataclass
class How:
    """What to compare, and how closely."""
    values: bool = True
    version: bool = False
    precision: str = "float64"  # the least precise float among the inputs

    def close(self, ours, theirs, dtype):
        if dtype == "float64" and self.precision == "float32":
            dtype = "float32"
        return same_numbers(ours, theirs, dtype)


TENSOR_FACTS = ("dtype", "shape", "requires_grad", "is_leaf", "version",
                "output_nr", "graph")


def _compare_tensor(where, ours, theirs, how):
    differences = []
    for key in TENSOR_FACTS:
        if SKIP in (theirs[key], ours.get(key)) or (
                key == "version" and not how.version):
            continue
        if ours.get(key) != theirs[key]:
            show = (graph_text if key == "graph" and isinstance(
                ours.get(key), list) else _short)
            differences.append(f"{where}.{key}: toygrad {show(ours.get(key))}"
                               f", torch {show(theirs[key])}")
    if how.values and ours["shape"] == theirs["shape"] and not how.close(
            ours["values"], theirs["values"], theirs["dtype"]):
        differences.append(f"{where}: toygrad {_short(ours['values'])}, "
                           f"torch {_short(theirs['values'])}")
    return differences


def compare_facts(where, ours, theirs, how=How()):
    """The differences between two results' facts, each located by ``where``."""
    (our_kind, our_data), (their_kind, their_data) = ours, theirs
    if our_kind != their_kind:
        return [f"{where}: toygrad gives {_say(ours)}, torch {_say(theirs)}"]
    if our_kind == "tensor":
        return _compare_tensor(where, our_data, their_data, how)
    if our_kind in ("list", "tuple"):
        if len(our_data) != len(their_data):
            return [f"{where}: toygrad gives {len(our_data)} items, torch "
                    f"{len(their_data)}"]
        return [difference for i, (a, b) in enumerate(zip(our_data,
                                                          their_data))
                for difference in compare_facts(f"{where}[{i}]", a, b, how)]
    if our_kind == "ndarray":
        if our_data["dtype"] != their_data["dtype"] or (
                our_data["shape"] != their_data["shape"]):
            return [f"{where}: toygrad an array of {our_data['dtype']} "
                    f"{our_data['shape']}, torch of {their_data['dtype']} "
                    f"{their_data['shape']}"]
        if how.values and not how.close(our_data["values"],
                                        their_data["values"],
                                        their_data["dtype"]):
            return [f"{where}: toygrad {_short(our_data['values'])}, torch "
                    f"{_short(their_data['values'])}"]
        return []
    if not how.values:
        return []
    if our_kind == "float":
        equal = how.close(our_data, their_data, "float64")
    else:
        equal = our_data == their_data
    return [] if equal else [f"{where}: toygrad {_short(our_data)}, torch "
                             f"{_short(their_data)}"]


def compare_runs(ours, theirs, how=How()):
    """Every difference between toygrad's run and torch's."""
    if ours.grad_mode_left_off != theirs.grad_mode_left_off:
        return ["grad mode is left off by toygrad"]
    if theirs.error or ours.error:
        if ours.error != theirs.error:
            return [f"error: toygrad {_say_error(ours.error)}, torch "
                    f"{_say_error(theirs.error)}"]
        return []
    differences = compare_facts("result", ours.result, theirs.result, how)
    if ours.backward_error != theirs.backward_error:
        differences.append(f"backward error: toygrad "
                           f"{_say_error(ours.backward_error)}, torch "
                           f"{_say_error(theirs.backward_error)}")
    if len(ours.grads) != len(theirs.grads):
        differences.append(f"leaves: toygrad {len(ours.grads)}, torch "
                           f"{len(theirs.grads)}")
    for i, (a, b) in enumerate(zip(ours.grads, theirs.grads)):
        differences += compare_facts(f"leaf {i} .grad", a, b, how)
    return differences


# The cases that differ today, and why: "<class>: <what differs>". Remove an
# entry when its case is fixed (the strict xfail then fails, as a reminder).

CLASSES = ("views/in-place", "augmented assignment", "dims", "dtypes",
           "0-dim", "saved buffers", "engine order", "graphs", "messages",
           "scalar Value", "unsupported", "deliberate")

# Differences that are deliberate and taught: the book shows each, and the
# strict xfail pins it (if toygrad ever agrees, the entry must go).

_VALUE_SUB = (
    "deliberate: toygrad's Value builds v - w from its primitives (AddBackward0 over "
    'NegBackward0, chapter 3); PyTorch records one SubBackward0. Values and '
    'gradients agree')
_VALUE_RSUB = (
    "deliberate: toygrad's Value builds number - v as -v + number (AddBackward0 over "
    'NegBackward0, chapter 3); PyTorch records one RsubBackward1. Values and '
    'gradients agree')
_VALUE_RPOW = (
    "deliberate: toygrad's Value turns the number of number ** v into a Value "
    '(PowBackward1 with a (None, 0) edge, chapter 3); PyTorch records PowBackward2 '
    'with one edge. Values and gradients agree')
_REPR = (
    "deliberate: toygrad prints the numbers as NumPy formats them, and NumPy's dtype "
    'names')
_GRADCHECK = (
    "deliberate: toygrad's GradcheckError prints the Jacobians as NumPy arrays, "
    "PyTorch's as tensors; the first line is the same")

DELIBERATE = {
    'repr(x): f64 2 (no grad)': _REPR,
    'repr(x): f64 2': _REPR,
    'repr(x): f32 2 (no grad)': _REPR,
    'autograd.gradcheck(f, inputs): f64 3, wrong backward': _GRADCHECK,
    'autograd.gradgradcheck(f, inputs, grad_outputs): f64 3, OnceSquare':
        _GRADCHECK,
    'Value: v - w: v=1.5, w=-0.5': _VALUE_SUB,
    'Value: v - w: v=1.5, w=-0.5, w needs no grad': _VALUE_SUB,
    'Value: v - w: v=1.5, w=-0.5, v needs no grad': _VALUE_SUB,
    'Value: v - w: v=2.0, w=3.0': _VALUE_SUB,
    'Value: v - w: v=2.0, w=3.0, w needs no grad': _VALUE_SUB,
    'Value: v - w: v=2.0, w=3.0, v needs no grad': _VALUE_SUB,
    'Value: v - w: v=-1.0, w=2.0': _VALUE_SUB,
    'Value: v - w: v=-1.0, w=2.0, w needs no grad': _VALUE_SUB,
    'Value: v - w: v=-1.0, w=2.0, v needs no grad': _VALUE_SUB,
    'Value: v - w: v=0.0, w=2.0': _VALUE_SUB,
    'Value: v - w: v=0.0, w=2.0, w needs no grad': _VALUE_SUB,
    'Value: v - w: v=0.0, w=2.0, v needs no grad': _VALUE_SUB,
    'Value: v - number: v=1.5, 2': _VALUE_SUB,
    'Value: v - number: v=1.5, 0.5': _VALUE_SUB,
    'Value: v - number: v=1.5, -1': _VALUE_SUB,
    'Value: v - number: v=-2.0, 2': _VALUE_SUB,
    'Value: v - number: v=-2.0, 0.5': _VALUE_SUB,
    'Value: v - number: v=-2.0, -1': _VALUE_SUB,
    'Value: v - number: v=0.0, 2': _VALUE_SUB,
    'Value: v - number: v=0.0, 0.5': _VALUE_SUB,
    'Value: v - number: v=0.0, -1': _VALUE_SUB,
    'Value: number - v: v=1.5, 2': _VALUE_RSUB,
    'Value: number - v: v=1.5, 0.5': _VALUE_RSUB,
    'Value: number - v: v=1.5, -1': _VALUE_RSUB,
    'Value: number - v: v=-2.0, 2': _VALUE_RSUB,
    'Value: number - v: v=-2.0, 0.5': _VALUE_RSUB,
    'Value: number - v: v=-2.0, -1': _VALUE_RSUB,
    'Value: number - v: v=0.0, 2': _VALUE_RSUB,
    'Value: number - v: v=0.0, 0.5': _VALUE_RSUB,
    'Value: number - v: v=0.0, -1': _VALUE_RSUB,
    'Value: number ** v: v=1.5, 2': _VALUE_RPOW,
    'Value: number ** v: v=1.5, 0.5': _VALUE_RPOW,
    'Value: number ** v: v=1.5, 1': _VALUE_RPOW,
    'Value: number ** v: v=-2.0, 2': _VALUE_RPOW,
    'Value: number ** v: v=-2.0, 0.5': _VALUE_RPOW,
    'Value: number ** v: v=-2.0, 1': _VALUE_RPOW,
    'Value: number ** v: v=0.0, 2': _VALUE_RPOW,
    'Value: number ** v: v=0.0, 0.5': _VALUE_RPOW,
    'Value: number ** v: v=0.0, 1': _VALUE_RPOW,
}

# The cases that differ today and are not deliberate: the to-do list of
# toygrad's core. Remove an entry when its case is fixed.
KNOWN_DIVERGENCES = {
}


# What each case's nodes save, seen through saved-tensor hooks (chapter 11):
# the same tensors (shape, dtype, numbers) as PyTorch's, except for these.

# Cases whose gradgradcheck verdict differs from PyTorch's, and why
# (tests/test_differential.py, chapter 12).
GRADGRAD_DIFFERENCES = {}

# What toygrad cannot differentiate twice: there its gradgradcheck must
# raise NotImplementedError naming it (the fragment), where PyTorch's
# answers. Keyed by entry name, by context, or by "entry: context".
GRADGRAD_UNSUPPORTED = {
    "on a view of a non-leaf": "create_graph through",
    "on the base of a view": "create_graph through",
    "on an element of a non-leaf": "create_graph through",
    "on a view of a view of a non-leaf": "create_graph through",
    "x[index] = value: on a view of a non-leaf": "create_graph through",
    "x[index] = value: on a view of a view of a non-leaf":
        "create_graph through",
    "x[index] = value: on a non-leaf": "create_graph through",
    "nn.Conv2d(in, out, k)(x)": "conv2d again",
    "nn.MaxPool2d(2)(x)": "max_pool2d again",
    "nn.Conv2d(in, out, k, stride, padding)(x)": "conv2d again",
    "nn.MaxPool2d(k, stride, padding)(x)": "max_pool2d again",
    "Conv2d, ReLU, MaxPool2d, Flatten, CrossEntropyLoss": "again",
}


def gradgrad_unsupported(case):
    """The fragment toygrad's refusal must name for ``case``, or None."""
    for key in (case.entry.name, case.sample.context,
                f"{case.entry.name}: {case.sample.context}"):
        if key in GRADGRAD_UNSUPPORTED:
            return GRADGRAD_UNSUPPORTED[key]
    return None


def saved_by(lib, case):
    """The tensors ``case`` saves for backward on ``lib``, sorted, as
    (shape, dtype, sum of the numbers); None if the case raises."""
    hooks = (torch.autograd.graph.saved_tensors_hooks if lib is TORCH
             else toygrad.autograd.graph.saved_tensors_hooks)
    log = []

    def pack(tensor):
        numbers = np.asarray(tensor.detach().numpy() if lib is TORCH
                             else tensor.data, dtype=np.float64)
        log.append((tuple(tensor.shape), SHORT[str(tensor.dtype).replace(
            "torch.", "")], float(np.nan_to_num(numbers).sum())))
        return tensor

    with quiet(), hooks(pack, lambda tensor: tensor):
        outcome = run(lib, case)
    return None if outcome.error else sorted(log)


_GRADCHECK_SAVES = (
    "saved buffers: PyTorch's gradcheck runs more passes than the Jacobian "
    "check toygrad's runs (reentrancy, undefined gradients)")
SAVED_DIFFERENCES = {  # by entry: every sample of it differs
    "autograd.gradgradcheck(f, inputs, grad_outputs)": _GRADCHECK_SAVES,
}


def main():
    """Print the table's state: new divergences, and fixed ones to remove."""
    started = time.perf_counter()
    failing = {case.id: run_case(case) for case in CASES}
    failing = {case_id: d for case_id, d in failing.items() if d}
    seconds = time.perf_counter() - started
    listed = {**KNOWN_DIVERGENCES, **DELIBERATE}
    new = {k: v for k, v in failing.items() if k not in listed}
    fixed = [k for k in listed if k not in failing and k in CASES_BY_ID]
    print(f"{len(ENTRIES)} entries, {CASE_COUNT} (operation, sample) pairs "
          f"({len(UNSUPPORTED)} of them declared unsupported), run in "
          f"{seconds:.1f} s; {len(failing)} differ from PyTorch.")
    for case_id, differences in new.items():
        print(f"\nNEW {case_id}\n    " + "\n    ".join(differences))
    for case_id in fixed:
        print(f"\nAGREES NOW (remove its entry) {case_id}")


if __name__ == "__main__":
    main()


def offered(entry):
    """Whether this toygrad has the modules and optimizers ``entry`` uses: a
    package cut before chapter 15 has no Conv2d, MaxPool2d or Flatten."""
    for name in entry.api:
        if name.startswith(("nn.", "optim.")):
            owner = toygrad
            for part in name.split("."):
                owner = getattr(owner, part, None)
            if owner is None:
                return False
    return True
