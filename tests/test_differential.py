"""toygrad never silently disagrees with PyTorch (issue 10).

Every (operation, sample) pair of the table in optable.py runs on both
libraries with the same numbers; the value, dtype, shape, graph, every leaf's
gradient and the error for misuse must be PyTorch's. Then random small
programs mixing views, in-place operations, reuse and no_grad blocks.

Cases that differ are strict xfails, listed with why: deliberately, in
``optable.DELIBERATE`` (taught differences the book shows: they are pinned,
and must differ in nothing but their graph or printout), or still to fix, in
``optable.KNOWN_DIVERGENCES``. When a case starts to agree its xfail fails,
and its entry is removed. ``python tests/optable.py`` prints the state.
"""

import contextlib
import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import optable
import toygrad
from toygrad.autograd.function import BackwardFunction
from toygrad.scalar import Value

pytestmark = pytest.mark.differential


def params(cases):
    """``cases`` as pytest params, the known divergences as strict xfails."""
    out = []
    for case in cases:
        reason = optable.KNOWN_DIVERGENCES.get(case.id) or \
            optable.DELIBERATE.get(case.id)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


@pytest.mark.parametrize("case", params(optable.CASES))
def test_toygrad_agrees_with_pytorch(case):
    differences = optable.run_case(case)
    assert not differences, "\n".join(differences)


def saved_cases():
    """Every case but the scalar Value's (it saves Python numbers, not
    tensors), the deliberate and unsupported ones, and those on which torch
    raises (the test above compares the errors)."""
    cases = [case for case in optable.CASES
             if not case.id.startswith("Value")
             and case.id not in optable.DELIBERATE
             and case.id not in optable.UNSUPPORTED]
    out = []
    for case in cases:
        theirs = optable.saved_by(optable.TORCH, case)
        if theirs is None:
            continue
        # A listed entry differs where torch saves something.
        reason = theirs and optable.SAVED_DIFFERENCES.get(case.entry.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


@pytest.mark.parametrize("case", saved_cases())
def test_toygrad_saves_what_pytorch_saves(case):
    theirs = optable.saved_by(optable.TORCH, case)
    ours = optable.saved_by(optable.TOYGRAD, case)
    assert ours is not None and theirs is not None
    assert [kept[:2] for kept in ours] == [kept[:2] for kept in theirs]
    assert np.allclose([kept[2] for kept in ours],
                       [kept[2] for kept in theirs], rtol=1e-5)


def test_every_saved_difference_names_an_entry_and_a_class():
    names = {entry.name for entry in optable.ENTRIES}
    for name, reason in optable.SAVED_DIFFERENCES.items():
        assert name in names, name
        assert reason.split(":")[0] in optable.CLASSES, reason


# The table itself.

def test_case_ids_are_unique_and_counted():
    ids = [case.id for case in optable.CASES]
    assert len(set(ids)) == len(ids) == optable.CASE_COUNT


def test_every_unsupported_case_is_in_the_table():
    assert set(optable.UNSUPPORTED) <= set(optable.CASES_BY_ID)


def test_every_known_divergence_names_a_case_and_a_class():
    known = set(optable.CASES_BY_ID) | {program_id(name) for name in FEATURES}
    listed = {**optable.KNOWN_DIVERGENCES, **optable.DELIBERATE}
    assert not set(optable.KNOWN_DIVERGENCES) & set(optable.DELIBERATE)
    for case_id, reason in listed.items():
        assert case_id in known, f"no such case: {case_id!r}"
        assert reason.split(":")[0] in optable.CLASSES, reason


@pytest.mark.parametrize("case_id", [
    case_id for case_id, reason in optable.DELIBERATE.items()
    if "Values and gradients agree" in reason])
def test_deliberate_graph_differences_differ_only_in_the_graph(case_id):
    differences = optable.run_case(optable.CASES_BY_ID[case_id])
    assert differences
    assert all(".graph" in difference or difference.startswith("graph")
               for difference in differences), differences


def public_api():
    """Every public name toygrad offers, as the table's ``api`` names it."""
    def members(prefix, obj, dunders=False):
        names = set()
        for cls in getattr(obj, "__mro__", (obj,)):
            if cls is object:
                continue
            for name in vars(cls):
                if name.startswith("__") and name.endswith("__"):
                    if dunders and name not in NOT_OPERATIONS:
                        names.add(f"{prefix}{name}")
                elif not name.startswith("_"):
                    names.add(f"{prefix}{name}")
        return names

    def functions(prefix, module):
        return {prefix + name for name, f in inspect.getmembers(module)
                if inspect.isfunction(f) and f.__module__ == module.__name__
                and not name.startswith("_")}

    api = set(toygrad.__all__)
    api |= members("Tensor.", toygrad.Tensor, dunders=True)
    api |= members("Value.", Value, dunders=True)
    api |= functions("nn.functional.", toygrad.nn.functional)
    api |= {f"nn.{name}" for name in ("Parameter", "Module", "Linear",
                                      "ReLU", "Sequential")}
    api |= members("nn.Module.", toygrad.nn.Module) - {"nn.Module.forward"}
    api |= {"optim.SGD"} | members("optim.SGD.", toygrad.optim.SGD)
    api |= {f"autograd.{name}" for name in toygrad.autograd.__all__}
    api |= {f"autograd.Function.{name}"
            for name in ("apply", "forward", "backward")}
    api |= {"autograd.function.once_differentiable"}
    # What a Function's ctx offers, less what only the engine calls.
    api |= {f"ctx.{name}" for name in vars(BackwardFunction)
            if not name.startswith("_")} - {
        "ctx.apply", "ctx.release_variables", "ctx.next_functions",
        "ctx.materialize_grads", "ctx.to_save", "ctx.name"}
    return api


# Dunders every Python object has, which are not operations of toygrad's.
NOT_OPERATIONS = {"__init__", "__slots__", "__module__", "__doc__",
                  "__weakref__", "__dict__", "__qualname__", "__firstlineno__",
                  "__static_attributes__", "__annotations__", "__new__",
                  "__init_subclass__", "__hash__", "__getstate__",
                  "__setstate__", "__reduce__", "__reduce_ex__"}


def test_the_table_covers_every_public_operation():
    covered = {name for entry in optable.ENTRIES for name in entry.api}
    missing = public_api() - covered - set(optable.BY_DESIGN)
    assert not missing, f"not in the table: {sorted(missing)}"


# Random programs: views, in-place operations, reuse and no_grad, mixed.

def _broadcast(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def _broadcasts_to(shape, target):
    return _broadcast(shape, target) == tuple(target)


# In-place steps make no new tensor: they return None.

def _mul_(x, y, c):
    x.mul_(c)


def _add_(x, y, c):
    x.add_(y)


def _iadd(x, y, c):
    x += c


def _imul(x, y, c):
    x *= y


# name: (feature, text, applies(x, y), run(x, y, c) -> new tensor or None)
STEPS = {
    "add": ("arithmetic", "{new} = {x} + {y}",
            lambda x, y: _broadcast(x.shape, y.shape) is not None,
            lambda x, y, c: x + y),
    "mul": ("arithmetic", "{new} = {x} * {y}",
            lambda x, y: _broadcasts_to(y.shape, x.shape),
            lambda x, y, c: x * y),
    "scale": ("arithmetic", "{new} = {x} * {c}", lambda x, y: True,
              lambda x, y, c: x * c),
    "tanh": ("arithmetic", "{new} = {x}.tanh()", lambda x, y: True,
             lambda x, y, c: x.tanh()),
    "sum": ("arithmetic", "{new} = {x}.sum(0)", lambda x, y: x.ndim >= 1,
            lambda x, y, c: x.sum(0)),
    "clone": ("arithmetic", "{new} = {x}.clone()", lambda x, y: True,
              lambda x, y, c: x.clone()),
    "detach": ("arithmetic", "{new} = {x}.detach()", lambda x, y: True,
               lambda x, y, c: x.detach()),
    "slice": ("views", "{new} = {x}[1:]",
              lambda x, y: x.ndim >= 1 and x.shape[0] >= 2,
              lambda x, y, c: x[1:]),
    "select": ("views", "{new} = {x}[0]", lambda x, y: x.ndim >= 1,
               lambda x, y, c: x[0]),
    "transpose": ("views", "{new} = {x}.transpose(0, 1)",
                  lambda x, y: x.ndim >= 2,
                  lambda x, y, c: x.transpose(0, 1)),
    "view": ("views", "{new} = {x}.view(-1)", lambda x, y: True,
             lambda x, y, c: x.view(-1)),
    "mul_": ("in-place", "{x}.mul_({c})", lambda x, y: True, _mul_),
    "add_": ("in-place", "{x}.add_({y})",
             lambda x, y: _broadcasts_to(y.shape, x.shape), _add_),
    "iadd": ("in-place", "{x} += {c}", lambda x, y: True, _iadd),
    "imul": ("in-place", "{x} *= {y}",
             lambda x, y: _broadcasts_to(y.shape, x.shape), _imul),
}

FEATURES = {
    "arithmetic and no_grad": {"arithmetic"},
    "in-place": {"arithmetic", "in-place"},
    "views": {"arithmetic", "views"},
    "views, in-place and no_grad": {"arithmetic", "views", "in-place"},
}


def program_id(name):
    return f"random programs: {name}"


def program_steps(features):
    names = sorted(name for name, step in STEPS.items()
                   if step[0] in features)
    return st.lists(st.tuples(st.sampled_from(names), st.integers(0, 9),
                              st.integers(0, 9),
                              st.sampled_from([2.0, -0.5, 3]),
                              st.booleans()),
                    min_size=1, max_size=7)


INPUTS = [((2, 3), True), ((3,), True), ((2, 3), False)]


def backward_from_all(pool):
    """Backward from a weighted sum of every tensor that requires grad."""
    loss = None
    for k, t in enumerate(pool):
        if t.requires_grad:
            term = (t * (k + 1.0)).sum()
            loss = term if loss is None else loss + term
    if loss is not None:
        loss.backward()


def run_program(lib, steps, seed, use_no_grad):
    """Run ``steps`` on ``lib``; return what is compared, and the text."""
    rng = np.random.default_rng(seed)
    pool = [lib.tensor(rng.uniform(-1, 1, shape), requires_grad=grad)
            for shape, grad in INPUTS]
    leaves, lines, outcomes = list(pool), [], []
    for name, i, j, c, quiet in steps:
        _, text, applies, step = STEPS[name]
        x, y = pool[i % len(pool)], pool[j % len(pool)]
        if not applies(x, y):
            continue
        quiet = quiet and use_no_grad
        names = dict(x=f"t{i % len(pool)}", y=f"t{j % len(pool)}", c=c,
                     new=f"t{len(pool)}")
        lines.append(("with no_grad(): " if quiet else "")
                     + text.format(**names))
        try:
            with lib.no_grad() if quiet else contextlib.nullcontext():
                new = step(x, y, c)
        except Exception as error:
            outcomes.append(optable._error(error))
            continue
        outcomes.append(None)
        if new is not None:
            pool.append(new)
    loss_error = None
    try:  # using a tensor can raise too (a view made under no_grad ...)
        backward_from_all(pool)
    except Exception as error:
        loss_error = optable._error(error)
    return dict(outcomes=outcomes, pool=optable.facts(pool),
                loss_error=loss_error,
                grads=[optable.grad_facts(leaf) for leaf in leaves]), lines


def compare_programs(ours, theirs):
    differences = []
    if ours["outcomes"] != theirs["outcomes"]:
        differences.append(f"step errors: toygrad {ours['outcomes']}, "
                           f"torch {theirs['outcomes']}")
    how = optable.How(version=True)
    differences += optable.compare_facts("tensors", ours["pool"],
                                         theirs["pool"], how)
    if ours["loss_error"] != theirs["loss_error"]:
        differences.append(f"backward error: toygrad {ours['loss_error']}, "
                           f"torch {theirs['loss_error']}")
    for i, (a, b) in enumerate(zip(ours["grads"], theirs["grads"])):
        differences += optable.compare_facts(f"t{i}.grad", a, b, how)
    return differences


def random_program_params():
    out = []
    for name in FEATURES:
        reason = optable.KNOWN_DIVERGENCES.get(program_id(name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, id=program_id(name), marks=marks))
    return out


# No shrinking: a failing program is at most 7 lines as generated, and the
# known-failing feature sets would otherwise shrink on every run.
PROGRAMS = settings(max_examples=60, deadline=None, derandomize=True,
                    database=None, phases=[Phase.generate],
                    report_multiple_bugs=False,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("features", random_program_params())
def test_random_programs_agree_with_pytorch(features):
    allowed = FEATURES[features]

    @PROGRAMS
    @given(steps=program_steps(allowed), seed=st.integers(0, 2 ** 16))
    def agree(steps, seed):
        use_no_grad = "no_grad" in features
        with optable.quiet():
            theirs, lines = run_program(optable.TORCH, steps, seed,
                                        use_no_grad)
            ours, _ = run_program(optable.TOYGRAD, steps, seed, use_no_grad)
        differences = compare_programs(ours, theirs)
        program = "\n".join(f"    {line}" for line in lines)
        assert not differences, (f"t0, t1 leaves 2x3 and 3 (grad), t2 2x3; "
                                 f"seed {seed}\n{program}\n"
                                 + "\n".join(differences))
    agree()


# Chapter 12: gradients of gradients. Every case whose inputs are float64
# runs through gradgradcheck in both libraries, with the same grad_outputs:
# toygrad's verdict must be PyTorch's (True, or the same error).

def _gradgrad_inputs(case):
    """The positions of the arguments gradgradcheck varies: the float64
    leaves that require grad; None if some input is float32 (too coarse for
    finite differences) or none requires grad."""
    leaves = [(i, arg) for i, arg in enumerate(case.sample.args)
              if isinstance(arg, optable.Leaf)]
    if any(arg.array.dtype == np.float32 for _, arg in leaves):
        return None
    positions = [i for i, arg in leaves
                 if arg.requires_grad and arg.array.dtype == np.float64
                 and arg.array.size]
    return positions or None


def gradgrad_cases():
    out = []
    for case in optable.CASES:
        if (case.id.startswith("Value") or case.id in optable.UNSUPPORTED
                or "gradcheck" in case.id or _gradgrad_inputs(case) is None):
            continue
        reason = optable.GRADGRAD_DIFFERENCES.get(case.id)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def gradgradcheck_verdict(lib, case):
    """``lib.autograd.gradgradcheck`` on ``case``'s operation: True, or
    the error (its type and first line); None if the case has no
    differentiable output in this library."""
    positions = _gradgrad_inputs(case)
    make = optable._resolve

    def func(*tensors):
        given = dict(zip(positions, tensors))
        args = [given[i] if i in given else make(lib, arg, [])
                for i, arg in enumerate(case.sample.args)]
        lib.watched = []

        def op(*positional):
            return case.entry.fn(lib, *positional)
        result = (optable.CONTEXTS[case.sample.context](lib, op, *args)
                  if case.sample.context else op(*args))
        return tuple(t for t in optable._tensors_in(result)
                     if not isinstance(t, Value) and t.requires_grad)

    inputs = tuple(make(lib, case.sample.args[i], []) for i in positions)
    rng = optable.rng_for(case.id)
    with optable.quiet():
        try:
            outputs = func(*inputs)
            if not outputs:
                return None
            grad_outputs = tuple(
                lib.tensor(rng.uniform(-1, 1, tuple(out.shape)),
                           requires_grad=True) for out in outputs)
            return lib.autograd.gradgradcheck(func, inputs, grad_outputs)
        except Exception as error:
            return type(error).__name__, str(error).split("\n")[0]
        finally:
            lib.set_grad_enabled(True)


@pytest.mark.ch12
@pytest.mark.parametrize("case", gradgrad_cases())
def test_gradgradcheck_agrees_with_pytorch(case):
    theirs = gradgradcheck_verdict(optable.TORCH, case)
    ours = gradgradcheck_verdict(optable.TOYGRAD, case)
    refusal = optable.gradgrad_unsupported(case)
    if refusal is None or ours == theirs:  # (both may refuse a bad dim)
        assert ours == theirs
    else:  # never a wrong number: an error naming what is unsupported
        assert ours[0] == "NotImplementedError" and refusal in ours[1], ours
        assert not (isinstance(theirs, tuple)
                    and theirs[0] == "NotImplementedError")
