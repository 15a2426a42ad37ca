"""A stateful differential test: one sequence of calls on toygrad and torch.

The harness of ``tests/optable.py`` compares operations one at a time; the
breaks that issue 24 lists are in *state*: a tensor written element by
element, a module whose attributes change, a grad mode nested in another, a
hook registered on a view whose base then changes. Here a Hypothesis
``RuleBasedStateMachine`` drives a random program, one API call per step, on
both libraries at once. Every object it makes is a ``Pair`` (torch's object,
toygrad's object); each rule is written once, as a function of ``lib`` (torch
or toygrad), and runs on both. After every step ``observe`` compares all that
a reader could see, for every tensor, module and optimizer made so far:
values (and the sign of zeros), dtype, shape, ``_version``, ``requires_grad``,
``is_leaf``, ``retains_grad``, ``.grad`` (and the warning reading it gives),
the graph (names and edges, ``tests/graphs.py``), which tensor is a view of
which, the grad modes; a module's parameters, buffers, submodules and
``state_dict`` by name and identity, its ``training`` flag. Each step also
compares what the call itself showed: its result, the error it raised (type
and message), its warnings, and the log of every hook it ran (tensor hooks,
node hooks, post-accumulate hooks, saved-tensor pack hooks) in order, with
the gradients and tensors they saw.

A matrix product whose numbers depend on the order of its additions (large
opposite terms that cancel, see ``rounding_sensitive``) is not made: two BLAS
libraries round it differently, as torch does on two CPUs.

A call that raises the same error in both libraries leaves both states as
they are, and the program goes on. A call that toygrad refuses by name
(``NotImplementedError``) is not run on torch, so the two states stay the
same; the refusal is the documented answer.

The run in ``make unit`` is fixed (``derandomize=True``, no example database)
and short. A longer search, e.g. before a release::

    TOYGRAD_STATEFUL_EXAMPLES=2000 TOYGRAD_STATEFUL_STEPS=40 \\
        PYTHONPATH=code .venv/bin/python -m pytest tests/test_stateful.py -q

``TOYGRAD_STATEFUL_RANDOM=1`` also draws new programs on each run instead of
the fixed ones.

``KNOWN_DIVERGENCES`` names every difference the machine finds on today's
code that other work is fixing. Each name gates exactly the operations or the
observable that hit it (grep for the name); when its fix lands, remove the
name and the machine checks it again.
"""

import contextlib
import os
import re
import warnings

import numpy as np
import pytest
import torch
import torch.autograd.graph
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle, RuleBasedStateMachine, invariant, multiple, precondition, rule)

import toygrad
import toygrad.autograd.graph
import toygrad.nn.functional
from graphs import structure

pytestmark = pytest.mark.ch15

# Every difference found on today's code, by name, with why; each gates the
# operations or the observable that hits it. Remove a name when its fix
# lands (issue 24's classes in brackets).
KNOWN_DIVERGENCES = {
}


def known(name):
    """Whether the divergence ``name`` is still excluded (and named)."""
    assert name in ALL_DIVERGENCE_NAMES, name
    return name in KNOWN_DIVERGENCES


ALL_DIVERGENCE_NAMES = set()


def gate(name):
    ALL_DIVERGENCE_NAMES.add(name)
    return name


class Lib:
    """What a program needs of a library: torch, or toygrad named as torch."""

    def __init__(self, name, module, graph):
        self.name, self.module, self.graph = name, module, graph
        self.F = module.nn.functional

    def __getattr__(self, name):
        return getattr(self.module, name)

    def __repr__(self):
        return self.name


TOY = Lib("toygrad", toygrad, toygrad.autograd.graph)
TORCH = Lib("torch", torch, torch.autograd.graph)
WORLDS = (TOY, TORCH)


class Pair:
    """One object of the program: toygrad's and torch's."""

    __slots__ = ("toy", "torch", "number", "kind", "unchecked", "single")

    def __init__(self, toy, theirs, number, kind):
        self.toy, self.torch = toy, theirs
        self.number, self.kind = number, kind
        self.unchecked = set()  # observables a known divergence excludes
        # Whether float32 numbers went into it: then even a float64 result
        # carries float32's rounding (NumPy's and PyTorch's float32 exp
        # differ in the last bit), and is compared with float32's tolerance.
        self.single = getattr(theirs, "dtype", None) == torch.float32

    def touched_by(self, others):
        """Mark this Pair as holding float32 numbers if one of ``others``
        (the arguments of the step that made or changed it) does."""
        self.single = self.single or any(
            isinstance(other, Pair) and other.single for other in others)

    def of(self, lib):
        return self.toy if lib is TOY else self.torch

    def __repr__(self):
        return f"{self.kind}{self.number}"


class Refused(Exception):
    """toygrad refused the call by name: torch is not asked."""


# The numbers of the program.

PLAIN = [0.0, -0.0, 0.5, -1.0, 1.5, 2.0, -3.0, 0.25]
SPECIAL = [np.inf, -np.inf, np.nan, 1e30, -1e-30]
SHAPES = [(), (3,), (2, 3), (3, 3), (1, 3)]
DTYPES = ["float64", "float64", "float32"]


def numbers(shape, special):
    pool = PLAIN * 3 + (SPECIAL if special else [])
    size = int(np.prod(shape, dtype=int))
    return st.lists(st.sampled_from(pool), min_size=size,
                    max_size=size).map(lambda xs: np.array(xs).reshape(shape))


@st.composite
def arrays(draw, shapes=SHAPES, special=None):
    shape = draw(st.sampled_from(shapes))
    if special is None:
        special = draw(st.booleans()) and not known(SPECIAL_VALUES)
    return draw(numbers(shape, special))


def rounding_sensitive(a, b):
    """Whether some number of ``a @ b`` (NumPy arrays, torch's matmul rules)
    depends on the order of its additions beyond the tolerance of
    ``compare``: a sum of large opposite products (``1e30 * 0.5 - 1e30 *
    0.5 + ...``) that BLAS libraries, or one library on two CPUs (with or
    without fused multiply-adds), round differently. Such a product says
    nothing about toygrad, so the program does not make it. Non-finite
    terms give the same answer in any order (inf, or nan), and are kept."""
    if a.dtype.kind != "f" or b.dtype.kind != "f" or not a.ndim or not b.ndim:
        return False
    dtype = np.result_type(a, b)
    try:
        with np.errstate(all="ignore"):
            magnitude = np.matmul(np.abs(a).astype(np.float64),
                                  np.abs(b).astype(np.float64))
            result = np.abs(np.matmul(a.astype(np.float64),
                                      b.astype(np.float64)))
    except ValueError:  # shapes that do not multiply: the call raises
        return False
    single = dtype == np.float32
    rtol, atol = (1e-5, 1e-6) if single else (1e-10, 1e-12)
    terms = a.shape[-1]
    finite = np.isfinite(magnitude)
    error = 2 * terms * np.finfo(dtype).eps * magnitude[finite]
    return bool((error > atol + rtol * result[finite]).any()
                or (magnitude[finite] > np.finfo(dtype).max / 2).any())


def module_rounding_sensitive(module, x):
    """Whether one of the products that torch's module of the Pair
    ``module`` computes on ``x`` is ``rounding_sensitive``."""
    if not isinstance(x.torch, torch.Tensor):  # a module set as an attribute
        return False  # (the call raises in both, and is compared)
    h = x.torch.detach()
    try:
        with torch.no_grad():
            for layer in module.torch.modules():
                if isinstance(layer, torch.nn.Linear):
                    if rounding_sensitive(h.numpy(),
                                          layer.weight.detach().numpy().T):
                        return True
                    h = layer(h)
                elif isinstance(layer, torch.nn.ReLU):
                    h = layer(h)
    except (RuntimeError, TypeError, AttributeError):
        return False  # a call that raises: no product is made
    return False


def negative_zero(x):
    """Whether torch's tensor of the Pair ``x`` holds a -0.0."""
    values = array_of(TORCH, x.torch)
    return values.dtype.kind == "f" and bool(
        (np.signbit(values) & (values == 0)).any())


def message(error):
    """An error's text; CPython's RecursionError words its text after where
    the limit was hit (a C call or Python's), which is not the library's."""
    if isinstance(error, RecursionError):
        return "maximum recursion depth exceeded"
    # A class is named by where it lives: torch.nn.modules.container.
    # Sequential is toygrad.nn.Sequential, torch.Tensor toygrad.Tensor.
    text = re.sub(r"torch\.nn\.modules\.\w+\.", "toygrad.nn.", str(error))
    return text.replace("<class 'torch.Tensor'>", "<class 'toygrad.Tensor'>")


def tied_zeros(x):
    """Whether the largest value of torch's tensor of ``x`` is a zero that
    appears both as 0.0 and as -0.0."""
    values = array_of(TORCH, x.torch)
    if values.dtype.kind != "f" or values.size == 0:
        return False
    zeros = values == 0
    return bool(np.nanmax(values, initial=-np.inf) == 0 if not np.isnan(
        values).any() else False) and bool(
        (np.signbit(values) & zeros).any() and (~np.signbit(values)
                                                & zeros).any())


def array_of(lib, t):
    """A tensor's numbers as a NumPy array (a copy), in either library."""
    return np.array(t.detach().numpy())


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


# The gated divergences (their reasons are in KNOWN_DIVERGENCES).
ELEMENT_WRITE = gate("element_write")
SPECIAL_VALUES = gate("special_values")
SIGNED_ZERO = gate("signed_zero")
MODULE_SETATTR = gate("module_setattr")
MODULE_DELATTR = gate("module_delattr")
TIED_PARAMETERS = gate("tied_parameters")
MODULE_API = gate("module_api")
BUFFERS = gate("buffers")
INFERENCE_NESTED = gate("grad_mode_in_inference_mode")
CREATE_GRAPH_GRAPHS = gate("create_graph_graphs")
SAVED_TENSORS = gate("saved_tensors")
SETITEM_WHOLE = gate("setitem_whole_tensor")
GRADIENT_DTYPE = gate("backward_gradient_dtype")
OPTIMIZER_TENSOR = gate("optimizer_bare_tensor")
LINEAR_CHECKS = gate("linear_checks")
AUTOGRAD_GRAD_CHECKS = gate("autograd_grad_checks")
MATMUL_VECTOR_VERSION = gate("matmul_vector_version")
RELU_SIGNED_ZERO = gate("relu_signed_zero")
PARAMETER_INIT_VERSION = gate("parameter_init_version")
OPTIMIZER_CHECKS = gate("optimizer_checks")
ZERO_BASE_POW = gate("zero_base_pow")
REQUIRES_GRAD_OFF = gate("requires_grad_off_after_use")
GRAD_VERSION = gate("grad_version")
ZERO_DIM_INDEX = gate("zero_dim_negative_index")
GRAD_BROADCAST = gate("autograd_grad_broadcast")
PARAMETER_INFERENCE = gate("parameter_in_inference_mode")
BACKWARD_INFERENCE = gate("backward_in_inference_mode")
INFERENCE_VIEW_BASE = gate("inference_view_base")
SETITEM_LEADING_ONES = gate("setitem_leading_ones")
GRAD_VIEW = gate("autograd_grad_view")
MAX_SIGNED_ZEROS = gate("max_of_signed_zeros")


# Operations, each written once for both libraries: name -> (function,
# the divergences that gate it).

def _elem(x):
    return (0,) * x.ndim if x.ndim else ()


UNARY = {
    "exp": lambda lib, x: x.exp(),
    "log": lambda lib, x: x.log(),
    "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: x.sigmoid(),
    "relu": lambda lib, x: x.relu(),
    "F.relu": lambda lib, x: lib.F.relu(x),
    "neg": lambda lib, x: -x,
    "reciprocal": lambda lib, x: x.reciprocal(),
    "x * 2": lambda lib, x: x * 2,
    "2 / x": lambda lib, x: 2 / x,
    "x ** 2": lambda lib, x: x ** 2,
    "x ** 0": lambda lib, x: x ** 0,
    "sum": lambda lib, x: x.sum(),
    "sum(0)": lambda lib, x: x.sum(0),
    "mean": lambda lib, x: x.mean(),
    "max": lambda lib, x: x.max(),
    "clone": lambda lib, x: x.clone(),
    "log_softmax(-1)": lambda lib, x: lib.F.log_softmax(x, -1),
    # views
    "detach": lambda lib, x: x.detach(),
    "t": lambda lib, x: x.t(),
    "view(-1)": lambda lib, x: x.view(-1),
    "unsqueeze(0)": lambda lib, x: x.unsqueeze(0),
    "x[0]": lambda lib, x: x[0],
    "x[-1]": lambda lib, x: x[-1],
    "x[1:]": lambda lib, x: x[1:],
    "x[...]": lambda lib, x: x[...],
    "expand(2, ...)": lambda lib, x: x.expand(2, *x.shape),
    "element x[0, ..., 0]": lambda lib, x: x[_elem(x)],
}

BINARY = {
    "x + y": lambda lib, x, y: x + y,
    "x - y": lambda lib, x, y: x - y,
    "x * y": lambda lib, x, y: x * y,
    "x / y": lambda lib, x, y: x / y,
    "x ** y": lambda lib, x, y: x ** y,
    "x @ y": lambda lib, x, y: x @ y,
    "F.linear(x, y)": lambda lib, x, y: lib.F.linear(x, y),
}


if not known(ZERO_BASE_POW):
    UNARY["0.0 ** x"] = lambda lib, x: 0.0 ** x

# The operations whose saved tensors differ (SAVED_TENSORS): not run while
# a pack hook watches.
SAVES_DIFFERENTLY = {"0.0 ** x", "module(x)", "F.linear(x, y)", "x ** y",
                     "x ** 2", "x / y", "2 / x", "x.div_(y)", "x.mul_(y)",
                     "element x[0, ..., 0] *= y", "x[0].mul_(y)",
                     "reciprocal"}


def _setitem(key, value):
    def write(lib, x, y=None):
        x[key(x)] = value(lib, y)
    return write


def _write_through(key, change):
    def write(lib, x, y=None):
        change(x[key(x)], y)
    return write


def _iadd(lib, x, y):
    x += y


def _imul_element(lib, x, y):
    x[_elem(x)] *= y


# In-place changes: name -> (function(lib, x, y), whether it takes y, gates)
INPLACE = {
    "x.add_(y)": (lambda lib, x, y: x.add_(y), True, ()),
    "x.sub_(y, alpha=2)": (lambda lib, x, y: x.sub_(y, alpha=2), True, ()),
    "x.mul_(y)": (lambda lib, x, y: x.mul_(y), True, ()),
    "x.div_(y)": (lambda lib, x, y: x.div_(y), True, ()),
    "x.copy_(y)": (lambda lib, x, y: x.copy_(y), True, ()),
    "x.zero_()": (lambda lib, x, y: x.zero_(), False, ()),
    "x.mul_(2.0)": (lambda lib, x, y: x.mul_(2.0), False, ()),
    "x += y": (_iadd, True, ()),
    "x[0] = y": (_setitem(lambda x: 0, lambda lib, y: y), True, ()),
    "x[1:] = 0.0": (_setitem(lambda x: slice(1, None),
                             lambda lib, y: 0.0), False, ()),
    "x[0].mul_(y)": (_write_through(lambda x: 0, lambda v, y: v.mul_(y)),
                     True, ()),
    "x[1:].mul_(2)": (_write_through(lambda x: slice(1, None),
                                     lambda v, y: v.mul_(2)), False, ()),
    "x.t().add_(y)": (_write_through(lambda x: ..., lambda v, y: v.t().add_(
        y)), True, ()),
    "x[...] = y": (_setitem(lambda x: ..., lambda lib, y: y), True,
                   (SETITEM_WHOLE,)),
    "x[...] = 0.0": (_setitem(lambda x: ..., lambda lib, y: 0.0), False,
                     (SETITEM_WHOLE,)),
    "element x[0, ..., 0] = 5.0": (_setitem(_elem, lambda lib, y: 5.0),
                                   False, (ELEMENT_WRITE,)),
    "element x[0, ..., 0] *= y": (_imul_element, True, (ELEMENT_WRITE,)),
    "element x[0, ..., 0].mul_(10)": (_write_through(
        _elem, lambda v, y: v.mul_(10)), False, (ELEMENT_WRITE,)),
    "element x[0, ..., 0] = y": (_setitem(_elem, lambda lib, y: y), True,
                                 (ELEMENT_WRITE,)),
}


def _sgd_by_hand(lib, x, y=None):
    # the textbook loop: with no_grad(): w -= lr * w.grad, element by element
    with lib.no_grad():
        grad = x.grad
        if x.ndim == 0:
            x -= 0.5 * grad
        else:
            for i in range(x.shape[0]):
                x[i] -= 0.5 * grad[i]


INPLACE["SGD by hand"] = (_sgd_by_hand, False, (ELEMENT_WRITE,))


def ungated(table, gates_of):
    return sorted(name for name, entry in table.items()
                  if not any(known(g) for g in gates_of(entry)))


MODES = {
    "no_grad()": lambda lib: lib.no_grad(),
    "enable_grad()": lambda lib: lib.enable_grad(),
    "set_grad_enabled(False)": lambda lib: lib.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda lib: lib.set_grad_enabled(True),
    "inference_mode()": lambda lib: lib.inference_mode(),
    "inference_mode(False)": lambda lib: lib.inference_mode(False),
}


class Toygrad(RuleBasedStateMachine):
    """One program, run on both libraries step by step."""

    tensors = Bundle("tensors")
    modules = Bundle("modules")
    optimizers = Bundle("optimizers")
    handles = Bundle("handles")

    def __init__(self):
        super().__init__()
        self.pairs = []  # every object made so far, in order
        self.by_id = ({}, {})  # per world: id(object) -> its Pair
        self.log = {TOY: [], TORCH: []}  # what the hooks saw, in order
        self.contexts = []  # entered (toygrad's, torch's) context managers
        self.refusals = []
        self.hook_number = 0

    # Running one call in both worlds.

    def both(self, what, function, *args, **kwargs):
        """``function(lib, *args)`` in toygrad, then in torch (Pairs given
        as each library's object); the two results, or Refused."""
        outcomes = []
        for lib in WORLDS:
            values = [a.of(lib) if isinstance(a, Pair) else a for a in args]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                # NumPy's arithmetic warnings inside toygrad are hidden on
                # purpose (toygrad/__init__.py); torch gives none.
                warnings.filterwarnings(
                    "ignore", r"(invalid value|divide by zero|overflow|"
                    r"underflow) encountered", RuntimeWarning)
                try:
                    result = ("ok", function(lib, *values, **kwargs))
                except Exception as error:  # the error is what one sees
                    result = ("error", type(error).__name__, message(error))
            seen = warnings_seen(caught)
            outcomes.append((result, seen, self.log[lib]))
            self.log[lib] = []
            if lib is TOY and result[0] == "error" \
                    and result[1] == "NotImplementedError":
                self.refusals.append((what, result[2]))
                raise Refused(result[2])
        (ours, our_warnings, our_log), (theirs, their_warnings, their_log) \
            = outcomes
        where = f"{what}: toygrad vs torch"
        if ours[0] == "error" or theirs[0] == "error":
            assert ours == theirs, where
        assert our_warnings == their_warnings, where
        compare(our_log, their_log, where + ", the hooks' log")
        if ours[0] == "ok":
            return ours[1], theirs[1]
        return None

    def step(self, what, function, *args, kind="t", unchecked=(), **kwargs):
        """``both``, the results kept as Pairs (for a Bundle's rule); on a
        new Pair, the observables in ``unchecked`` are not compared."""
        try:
            results = self.both(what, function, *args, **kwargs)
        except Refused:
            return multiple()
        if results is None:
            return multiple()
        ours, theirs = results
        if ours is None or theirs is None:
            assert ours is None and theirs is None, what
            return multiple()
        if isinstance(theirs, (tuple, list)):
            assert len(ours) == len(theirs), what
            assert [o is None for o in ours] == [t is None for t in theirs]
            made = [self.pair(o, t, kind) for o, t in zip(ours, theirs)
                    if t is not None]
        else:
            made = [self.pair(ours, theirs, kind)]
        for pair in made:
            if pair.number == len(self.pairs) - 1:  # new
                pair.unchecked.update(unchecked)
                pair.touched_by(list(args) + list(kwargs.values()))
        return multiple(*made) if len(made) != 1 else made[0]

    def pair(self, ours, theirs, kind="t"):
        """The Pair holding these two objects: the one made before if the
        call returned an object seen before (in both, or it is a bug)."""
        known_toy = self.by_id[0].get(id(ours))
        known_torch = self.by_id[1].get(id(theirs))
        assert known_toy is known_torch, (
            f"toygrad returned {known_toy}, torch {known_torch}")
        if known_torch is not None:
            return known_torch
        assert type(theirs).__name__ == type(ours).__name__ or (
            isinstance(theirs, torch.Tensor) and isinstance(
                ours, toygrad.Tensor)), (type(ours), type(theirs))
        new = Pair(ours, theirs, len(self.pairs), kind)
        self.pairs.append(new)
        self.by_id[0][id(ours)] = new
        self.by_id[1][id(theirs)] = new
        return new

    def name_of(self, lib, obj):
        """Which Pair an object is, as data both worlds can compare."""
        if obj is None:
            return None
        found = self.by_id[WORLDS.index(lib)].get(id(obj))
        return repr(found) if found is not None else "unseen"

    # Tensors.

    @rule(target=tensors, data=arrays(), dtype=st.sampled_from(DTYPES),
          requires_grad=st.booleans())
    def leaf(self, data, dtype, requires_grad):
        return self.step("tensor", lambda lib: lib.tensor(
            data, dtype=getattr(lib, dtype), requires_grad=requires_grad))

    @rule(target=tensors, x=tensors,
          name=st.sampled_from(sorted(UNARY)))
    def unary(self, x, name):
        unchecked = ()
        if known(INFERENCE_VIEW_BASE) and torch.is_inference_mode_enabled():
            unchecked = ("view of",)
        if known(RELU_SIGNED_ZERO) and "relu" in name and negative_zero(x):
            return multiple()
        if known(ELEMENT_WRITE) and x.torch.ndim == 1 and name in (
                "x[0]", "x[-1]", "element x[0, ..., 0]"):
            return multiple()  # an element: not a view in toygrad
        if known(ZERO_DIM_INDEX) and x.torch.ndim == 0 and name in (
                "x[-1]", "x[1:]"):
            return multiple()
        if name in SAVES_DIFFERENTLY and self.packing():
            return multiple()
        if known(MAX_SIGNED_ZEROS) and name == "max" and tied_zeros(x):
            return multiple()
        return self.step(name, UNARY[name], x, unchecked=unchecked)

    @rule(target=tensors, x=tensors, y=tensors,
          name=st.sampled_from(sorted(BINARY)))
    def binary(self, x, y, name):
        if known(ZERO_BASE_POW) and name == "x ** y" and (
                array_of(TORCH, x.torch) == 0).any():
            return multiple()
        if known(LINEAR_CHECKS) and name == "F.linear(x, y)" and (
                x.torch.ndim == 0 or y.torch.ndim == 0
                or x.torch.shape[-1] != y.torch.shape[-1]
                or x.torch.dtype != y.torch.dtype):
            return multiple()
        if name in SAVES_DIFFERENTLY and self.packing():
            return multiple()
        if name in ("x @ y", "F.linear(x, y)") and all(
                isinstance(t.torch, torch.Tensor) for t in (x, y)):
            right = array_of(TORCH, y.torch)
            if name == "F.linear(x, y)":  # x @ y.t()
                right = right.T
            if rounding_sensitive(array_of(TORCH, x.torch), right):
                return multiple()
        return self.step(name, BINARY[name], x, y,
                         unchecked=self.vector_matmul(name, x))

    def vector_matmul(self, name, x):
        """The observables a 1-D input's matmul excludes (see
        MATMUL_VECTOR_VERSION)."""
        if (known(MATMUL_VECTOR_VERSION) and x.torch.ndim == 1
                and name in ("x @ y", "F.linear(x, y)", "module(x)")):
            return ("version",)
        return ()

    @rule(x=tensors, y=tensors, name=st.sampled_from(
        ungated(INPLACE, lambda entry: entry[2])))
    def inplace(self, x, y, name):
        if "written" in x.unchecked:  # GRAD_BROADCAST
            return
        if known(ZERO_DIM_INDEX) and x.torch.ndim == 0 and "x[1:]" in name:
            return
        if (known(SETITEM_LEADING_ONES) and name.endswith("= y")
                and y.torch.ndim and y.torch.shape[0] == 1
                and y.torch.ndim > x.torch.ndim - (name != "x[...] = y")):
            return
        if known(ELEMENT_WRITE) and x.torch.ndim == 1 and "x[0]" in name:
            return  # an element: not a view in toygrad
        if name in SAVES_DIFFERENTLY and self.packing():
            return
        function, takes_y, _ = INPLACE[name]
        self.step(name, function, x, y if takes_y else None)
        if takes_y and (y.single or x.single):
            # The write's float32 rounding is in every tensor on x's memory.
            memory = x.torch.untyped_storage().data_ptr()
            for pair in self.pairs:
                if isinstance(pair.torch, torch.Tensor) and (
                        pair.torch.untyped_storage().data_ptr() == memory):
                    pair.single = True

    @rule(target=tensors, x=tensors)
    def grad_of(self, x):
        """``x.grad`` as a tensor of the program (a create_graph gradient
        has a graph)."""
        return self.step("x.grad", lambda lib, x: x.grad, x, unchecked=(
            ("version",) if known(GRAD_VERSION) else ()))

    @rule(x=tensors, requires_grad=st.booleans())
    def set_requires_grad(self, x, requires_grad):
        if (known(REQUIRES_GRAD_OFF) and not requires_grad
                and x.torch.requires_grad):
            return
        self.step("requires_grad_", lambda lib, x: x.requires_grad_(
            requires_grad) and None, x)

    @rule(x=tensors)
    def forget_grad(self, x):
        def forget(lib, x):
            x.grad = None
        self.step("x.grad = None", forget, x)

    # Backward.

    @rule(x=tensors, gradient=st.sampled_from(
        ["implicit", "ones", "numbers", "float32", "float64"]),
        numbers=arrays(shapes=[()]), create_graph=st.booleans(),
        retain_graph=st.sampled_from([None, True, False]))
    def backward(self, x, gradient, numbers, create_graph, retain_graph):
        if create_graph and self.packing():  # the backward pass saves
            return
        if known(BACKWARD_INFERENCE) and torch.is_inference_mode_enabled():
            return
        if gradient in ("float32", "float64") and known(GRADIENT_DTYPE):
            gradient = "ones"

        def run(lib, x):
            if gradient == "implicit":
                given = None
            elif gradient in ("float32", "float64"):
                given = lib.ones(tuple(x.shape), dtype=getattr(lib, gradient))
            else:
                value = 1.0 if gradient == "ones" else float(numbers)
                given = lib.tensor(np.full(x.shape, value), dtype=x.dtype)
            x.backward(given, retain_graph=retain_graph,
                       create_graph=create_graph)
        self.step(f"backward(create_graph={create_graph})", run, x)

    @rule(target=tensors, x=tensors, y=tensors, create_graph=st.booleans(),
          allow_unused=st.booleans())
    def autograd_grad(self, x, y, create_graph, allow_unused):
        if known(AUTOGRAD_GRAD_CHECKS) and not (
                x.torch.requires_grad and torch.is_grad_enabled()):
            return multiple()
        if create_graph and self.packing():  # the backward pass saves
            return multiple()
        if known(BACKWARD_INFERENCE) and torch.is_inference_mode_enabled():
            return multiple()
        def run(lib, x, y):
            return lib.autograd.grad(
                x.sum(), [y], create_graph=create_graph,
                allow_unused=allow_unused)
        unchecked = ("written",) if known(GRAD_BROADCAST) else ()
        if known(GRAD_VERSION):
            unchecked += ("version",)
        if known(GRAD_VIEW):
            unchecked += ("view of",)
        return self.step("autograd.grad(x.sum(), [y])", run, x, y,
                         unchecked=unchecked)

    # Grad modes, entered and left as a program does.

    @precondition(lambda self: len(self.contexts) < 3)
    @rule(mode=st.sampled_from(sorted(MODES)))
    def enter_mode(self, mode):
        if known(INFERENCE_NESTED) and mode in (
                "enable_grad()", "set_grad_enabled(True)",
                "inference_mode(False)") and torch.is_inference_mode_enabled():
            return
        self.enter(mode, MODES[mode])

    @rule(mode=st.booleans())
    def call_set_grad_enabled(self, mode):
        if (known(INFERENCE_NESTED) and mode
                and torch.is_inference_mode_enabled()):
            return
        self.step(f"set_grad_enabled({mode}) (a call)",
                  lambda lib: lib.set_grad_enabled(mode) and None)

    def enter(self, what, make):
        def run(lib):
            manager = make(lib)
            manager.__enter__()
            return manager
        try:
            entered = self.both(f"with {what}", run)
        except Refused:
            return
        if entered is not None:
            self.contexts.append(entered)

    @precondition(lambda self: self.contexts)
    @rule()
    def leave(self):
        ours, theirs = self.contexts.pop()

        def run(lib):
            (ours if lib is TOY else theirs).__exit__(None, None, None)
        self.both("leave the innermost with", run)

    @precondition(lambda self: len(self.contexts) < 3)
    @rule()
    def save_with_pack_hooks(self):
        """``with saved_tensors_hooks(pack, unpack)``: pack logs what each
        node saves (which tensor, its dtype, shape, numbers, grad_fn)."""
        def make(lib):
            log = self.log

            def pack(t):
                log[lib].append(("pack", self.name_of(lib, t),
                                 dtype_name(t.dtype), tuple(t.shape),
                                 None if t.grad_fn is None
                                 else t.grad_fn.name(), array_of(lib, t)))
                return t

            def unpack(t):
                log[lib].append(("unpack", self.name_of(lib, t)))
                return t
            return lib.graph.saved_tensors_hooks(pack, unpack)
        self.enter("saved_tensors_hooks(pack, unpack)", make)

    def packing(self):
        """Whether a pack hook is on (and SAVED_TENSORS is known)."""
        return known(SAVED_TENSORS) and any(
            isinstance(c[1], torch.autograd.graph.saved_tensors_hooks)
            for c in self.contexts)

    # Hooks.

    def logger(self, lib, kind, number, double):
        log = self.log

        def hook(*grads):
            log[lib].append((kind, number, [
                None if g is None else (
                    array_of(lib, g) if not isinstance(g, tuple) else
                    [None if h is None else array_of(lib, h) for h in g])
                for g in grads]))
            if double and kind == "tensor":
                return grads[0] * 2
            return None
        return hook

    @rule(target=handles, x=tensors, double=st.booleans())
    def register_hook(self, x, double):
        self.hook_number += 1
        number = self.hook_number
        return self.step("register_hook", lambda lib, x: x.register_hook(
            self.logger(lib, "tensor", number, double)), x, kind="h")

    @rule(target=handles, x=tensors)
    def register_post_accumulate_grad_hook(self, x):
        self.hook_number += 1
        number = self.hook_number

        def make(lib, x):
            log = self.log

            def hook(t):
                log[lib].append(("post-accumulate", number,
                                 array_of(lib, t.grad)))
            return x.register_post_accumulate_grad_hook(hook)
        return self.step("register_post_accumulate_grad_hook", make, x,
                         kind="h")

    @rule(target=handles, x=tensors, pre=st.booleans())
    def register_node_hook(self, x, pre):
        self.hook_number += 1
        number = self.hook_number

        def make(lib, x):
            if x.grad_fn is None:
                return None
            hook = self.logger(lib, "pre" if pre else "post", number, False)
            return (x.grad_fn.register_prehook(hook) if pre
                    else x.grad_fn.register_hook(hook))
        return self.step("grad_fn.register_(pre)hook", make, x, kind="h")

    @rule(handle=handles)
    def remove_hook(self, handle):
        self.step("handle.remove()", lambda lib, h: h.remove(), handle)

    @rule(x=tensors)
    def retain_grad(self, x):
        self.step("retain_grad", lambda lib, x: x.retain_grad(), x)

    # Modules.

    @rule(target=modules, sizes=st.sampled_from([(3, 2), (2, 3), (3, 3)]),
          bias=st.booleans(), dtype=st.sampled_from(DTYPES))
    def linear(self, sizes, bias, dtype):
        if known(PARAMETER_INFERENCE) and torch.is_inference_mode_enabled():
            return multiple()
        n_in, n_out = sizes
        # numbers whose sums are exact, whatever the order of the additions
        weight = (np.arange(n_in * n_out).reshape(n_out, n_in) - 2) / 4
        values = (1 - np.arange(n_out)) / 2

        def make(lib):
            layer = lib.nn.Linear(n_in, n_out, bias=bias,
                                  dtype=getattr(lib, dtype))
            with lib.no_grad():  # the same numbers in both
                layer.weight.copy_(lib.tensor(weight))
                if bias:
                    layer.bias.copy_(lib.tensor(values))
            return layer
        made = self.step("nn.Linear", make, kind="m")
        if known(PARAMETER_INIT_VERSION) and isinstance(made, Pair):
            # toygrad's versions brought to torch's (and compared after)
            for ours, theirs in zip(made.toy.parameters(),
                                    made.torch.parameters()):
                with contextlib.suppress(RuntimeError):  # inference tensors
                    for _ in range(theirs._version - ours._version):
                        ours._bump_version()
        return made

    @rule(target=modules, first=modules, second=modules)
    def sequential(self, first, second):
        if known(TIED_PARAMETERS) and (
                {id(p) for p in first.torch.parameters()}
                & {id(p) for p in second.torch.parameters()}):
            return multiple()
        return self.step("nn.Sequential(first, ReLU(), second)", lambda lib,
                         a, b: lib.nn.Sequential(a, lib.nn.ReLU(), b),
                         first, second, kind="m")

    @rule(target=tensors, module=modules, x=tensors)
    def call_module(self, module, x):
        first = next(layer for layer in module.torch.modules()
                     if isinstance(layer, torch.nn.Linear))
        weight = getattr(first, "weight", None)  # it may be deleted
        mismatched = isinstance(weight, torch.Tensor) and (
            not isinstance(x.torch, torch.Tensor)  # a module set as weight
            or x.torch.ndim == 0 or x.torch.shape[-1] != first.in_features
            or x.torch.dtype != weight.dtype)
        if known(LINEAR_CHECKS) and mismatched:
            return multiple()
        if self.packing():  # "module(x)" in SAVES_DIFFERENTLY
            return multiple()
        if not mismatched and module_rounding_sensitive(module, x):
            return multiple()
        return self.step("module(x)", lambda lib, m, x: m(x), module, x,
                         unchecked=self.vector_matmul("module(x)", x))

    @rule(target=tensors, module=modules,
          name=st.sampled_from(["weight", "bias"]))
    def get_parameter(self, module, name):
        return self.step(f"module.{name}", lambda lib, m: getattr(m, name),
                         module)

    @rule(target=modules, module=modules, name=st.sampled_from(["0", "2"]))
    def get_submodule(self, module, name):
        def take(lib, m):
            sub = getattr(m, name)
            if not isinstance(sub, lib.nn.Module):  # set to a Parameter
                raise TypeError(f"module.{name} is not a module")
            return sub
        return self.step(f"module.{name}", take, module, kind="m")

    @precondition(lambda self: not known(MODULE_SETATTR))
    @rule(module=modules, name=st.sampled_from(
        ["weight", "bias", "extra", "0"]), value=st.sampled_from(
            ["None", "Parameter", "tensor", "a module's"]),
        other=modules, data=arrays(shapes=[(3,), (3, 3)], special=False))
    def set_attribute(self, module, name, value, other, data):
        if known(MODULE_SETATTR):
            return
        if value == "a module's" and known(TIED_PARAMETERS):
            return

        def run(lib, m, other):
            if value == "None":
                new = None
            elif value == "Parameter":
                new = lib.nn.Parameter(lib.tensor(data))
            elif value == "tensor":
                new = lib.tensor(data)
            else:  # tie: another module's parameter, or the module
                new = getattr(other, "weight", other)
            setattr(m, name, new)
        self.step(f"module.{name} = {value}", run, module, other)

    @precondition(lambda self: not known(MODULE_DELATTR))
    @rule(module=modules, name=st.sampled_from(["weight", "bias", "0"]))
    def del_attribute(self, module, name):
        if not known(MODULE_DELATTR):
            self.step(f"del module.{name}",
                      lambda lib, m: delattr(m, name), module)

    @precondition(lambda self: not known(MODULE_API))
    @rule(module=modules, mode=st.sampled_from(["train", "eval"]))
    def train_eval(self, module, mode):
        if not known(MODULE_API):
            self.step(f"module.{mode}()",
                      lambda lib, m: getattr(m, mode)() and None, module)

    @precondition(lambda self: not known(MODULE_API))
    @rule(module=modules, set_to_none=st.booleans())
    def module_zero_grad(self, module, set_to_none):
        if not known(MODULE_API):
            self.step("module.zero_grad", lambda lib, m: m.zero_grad(
                set_to_none=set_to_none), module)

    @precondition(lambda self: not known(MODULE_API))
    @rule(module=modules, requires_grad=st.booleans())
    def module_requires_grad(self, module, requires_grad):
        if not known(MODULE_API):
            self.step("module.requires_grad_", lambda lib, m: m.requires_grad_(
                requires_grad) and None, module)

    @precondition(lambda self: not known(BUFFERS))
    @rule(module=modules, x=tensors)
    def register_buffer(self, module, x):
        if not known(BUFFERS):
            self.step("module.register_buffer", lambda lib, m, x:
                      m.register_buffer("running", x), module, x)

    # Optimizers.

    @rule(target=optimizers, module=modules, which=st.sampled_from(
        ["SGD", "SGD(momentum=0.9, weight_decay=0.1)", "Adam"]))
    def optimizer(self, module, which):
        def make(lib, m):
            params = m.parameters()
            if which == "SGD":
                return lib.optim.SGD(params, lr=0.1)
            if which == "Adam":
                return lib.optim.Adam(params, lr=0.1)
            return lib.optim.SGD(params, lr=0.1, momentum=0.9,
                                 weight_decay=0.1)
        return self.step(which, make, module, kind="o")

    @precondition(lambda self: not known(OPTIMIZER_TENSOR))
    @rule(target=optimizers, x=tensors)
    def optimizer_of_a_tensor(self, x):
        if not known(OPTIMIZER_TENSOR):
            return self.step("SGD(a bare tensor)", lambda lib, x:
                             lib.optim.SGD(x, lr=0.1), x, kind="o")
        return multiple()

    @rule(target=optimizers, x=tensors)
    def optimizer_of_leaves(self, x):
        if known(OPTIMIZER_CHECKS) and not x.torch.is_leaf:
            return multiple()
        return self.step("SGD([x])", lambda lib, x: lib.optim.SGD(
            [x], lr=0.1), x, kind="o")

    @rule(optimizer=optimizers)
    def optimizer_step(self, optimizer):
        self.step("optimizer.step()", lambda lib, o: o.step() and None,
                  optimizer)

    @rule(optimizer=optimizers, set_to_none=st.booleans())
    def optimizer_zero_grad(self, optimizer, set_to_none):
        self.step("optimizer.zero_grad", lambda lib, o: o.zero_grad(
            set_to_none=set_to_none), optimizer)

    # What a reader sees, after every step.

    @invariant()
    def observe(self):
        for lib in WORLDS:
            assert not self.log[lib], "a hook ran outside a step"
        state = [self.grad_modes(lib) for lib in WORLDS]
        compare(state[0], state[1], "grad modes")
        # A gradient carries the rounding of every float32 step the backward
        # pass went through: float32's tolerance once the program has one.
        any_single = any(pair.single for pair in self.pairs)
        for pair in self.pairs:
            seen = [self.look(lib, pair.of(lib), pair.kind) for lib in WORLDS]
            for unchecked in pair.unchecked:
                for one in seen:
                    one.pop(unchecked, None)
            grads = [one.pop("grad", "absent") for one in seen]
            compare(seen[0], seen[1], f"{pair}", pair.single)
            compare(grads[0], grads[1], f"{pair}.grad", any_single)

    def grad_modes(self, lib):
        return (lib.is_grad_enabled(), lib.is_inference_mode_enabled())

    def look(self, lib, obj, kind):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if kind == "t":
                seen = self.look_tensor(lib, obj)
            elif kind == "m":
                seen = self.look_module(lib, obj)
            elif kind == "o":
                seen = self.look_optimizer(lib, obj)
            else:
                seen = {}
        seen["warnings"] = warnings_seen(caught)
        return seen

    def look_tensor(self, lib, t):
        seen = {
            "shape": tuple(t.shape), "dtype": dtype_name(t.dtype),
            "values": attempt(lambda: array_of(lib, t)),
            "version": attempt(lambda: t._version),
            "requires_grad": attempt(lambda: t.requires_grad),
            "is_leaf": attempt(lambda: t.is_leaf),
            "retains_grad": attempt(lambda: t.retains_grad),
            "is_inference": t.is_inference(),
            "graph": attempt(lambda: structure(t)),
            "view of": self.name_of(lib, t._base),
        }
        grad = attempt(lambda: t.grad)
        if grad is not None and not isinstance(grad, tuple):
            values = array_of(lib, grad)
            if known(SIGNED_ZERO) and values.dtype.kind == "f":
                values = values + 0.0  # -0.0 becomes 0.0
            grad = {"name": self.name_of(lib, grad),
                    "values": values,
                    "dtype": dtype_name(grad.dtype),
                    "requires_grad": grad.requires_grad,
                    "graph": attempt(lambda: structure(grad))}
            if known(CREATE_GRAPH_GRAPHS):
                del grad["graph"]
        seen["grad"] = grad
        return seen

    def look_module(self, lib, m):
        def names(pairs):
            return [(name, self.name_of(lib, value)) for name, value in pairs]
        seen = {
            "named_parameters": attempt(lambda: names(m.named_parameters())),
            "parameters": attempt(lambda: [self.name_of(lib, p)
                                           for p in m.parameters()]),
            "state_dict": attempt(lambda: [
                (name, array_of(lib, value), dtype_name(value.dtype))
                for name, value in m.state_dict().items()]),
        }
        if not known(MODULE_API):
            seen.update({
                "training": attempt(lambda: m.training),
                "named_modules": attempt(lambda: names(m.named_modules())),
                "children": attempt(lambda: [self.name_of(lib, c)
                                             for c in m.children()]),
            })
        if not known(BUFFERS):
            seen["buffers"] = attempt(lambda: names(m.named_buffers()))
        return seen

    def look_optimizer(self, lib, o):
        return {"params": [[self.name_of(lib, p) for p in group["params"]]
                           for group in o.param_groups]}

    def teardown(self):
        # Leave every mode entered, innermost first, and the modes as they
        # were (a set_grad_enabled call changes the mode without a with).
        while self.contexts:
            ours, theirs = self.contexts.pop()
            for manager in (ours, theirs):
                with contextlib.suppress(Exception):
                    manager.__exit__(None, None, None)
        torch.set_grad_enabled(True)
        toygrad.set_grad_enabled(True)
        assert not torch.is_inference_mode_enabled()
        assert not toygrad.is_inference_mode_enabled()
        toygrad.autograd.graph.saved_tensors_hooks_state.stack.clear()


# torch gives these warnings once per process (C++ TORCH_WARN_ONCE), toygrad
# each time: after the first, torch's silence says nothing, so they are left
# out of the comparison, in both.
WARNED_ONCE_BY_TORCH = ("Using backward() with create_graph=True will create "
                        "a reference cycle",)


def warnings_seen(caught):
    """What the warnings said: category and message, torch's C++ location
    ("(Triggered internally at ...)") left out."""
    seen = []
    for w in caught:
        message = str(w.message).split(" (Triggered internally at ")[0]
        if not message.startswith(WARNED_ONCE_BY_TORCH):
            seen.append((w.category.__name__, message))
    return seen


def attempt(get):
    """``get()``, or the error it raised, as data."""
    try:
        return get()
    except Exception as error:
        return ("error", type(error).__name__, message(error))


def compare(ours, theirs, where, single=False):
    """Equal, with numbers compared as numbers (NaN equal to NaN, the sign
    of a zero compared where both are zero); with float32's tolerance where
    one is float32 or ``single`` says float32 numbers went into them."""
    if isinstance(theirs, np.ndarray) or isinstance(ours, np.ndarray):
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        assert ours.shape == theirs.shape, f"{where}: shapes"
        if theirs.dtype.kind == "f" and ours.dtype.kind == "f":
            single = single or np.float32 in (ours.dtype, theirs.dtype)
            rtol, atol = (1e-5, 1e-6) if single else (1e-10, 1e-12)
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=where)
            # The sign of a zero, where both are exactly zero: a reduction
            # may round a sum of opposite terms to a tiny number in one
            # library and to a zero in the other (its summation order),
            # which the tolerance above accepts.
            zero = (theirs == 0) & (ours == 0)
            assert (np.signbit(ours[zero]) == np.signbit(
                theirs[zero])).all(), f"{where}: the sign of a zero"
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif isinstance(theirs, dict) and isinstance(ours, dict):
        assert ours.keys() == theirs.keys(), where
        for key in theirs:
            compare(ours[key], theirs[key], f"{where}.{key}", single)
    elif isinstance(theirs, (list, tuple)) and isinstance(ours, (list,
                                                                 tuple)):
        assert len(ours) == len(theirs), f"{where}: {ours} != {theirs}"
        for index, (mine, expected) in enumerate(zip(ours, theirs)):
            compare(mine, expected, f"{where}[{index}]", single)
    else:
        assert ours == theirs, f"{where}: toygrad {ours!r}, torch {theirs!r}"


def test_every_known_divergence_gates_something():
    """A name in KNOWN_DIVERGENCES that no rule or observable reads would
    exclude nothing: a typo, or a switch left after its fix."""
    assert set(KNOWN_DIVERGENCES) <= ALL_DIVERGENCE_NAMES
    source = open(__file__).read()
    for constant, value in globals().items():
        if isinstance(value, str) and value in ALL_DIVERGENCE_NAMES:
            # its definition, and at least one known(...) or gate tuple
            # that reads it
            assert re.search(rf"known\({constant}\)|\({constant},", source), \
                constant


EXAMPLES = int(os.environ.get("TOYGRAD_STATEFUL_EXAMPLES", "60"))
STEPS = int(os.environ.get("TOYGRAD_STATEFUL_STEPS", "25"))

Toygrad.TestCase.settings = settings(
    max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None,
    derandomize=not os.environ.get("TOYGRAD_STATEFUL_RANDOM"),
    database=None, suppress_health_check=list(HealthCheck),
    print_blob=False)
TestToygradBesidePyTorch = Toygrad.TestCase
