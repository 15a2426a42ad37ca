"""Every entry of the table (optable.py) three more ways (issue 24).

1. Special upstream gradients: backward from gradients that hold 0, -0.0,
   inf, -inf, NaN and extreme magnitudes (1e300, 1e-300, float32's max, the
   smallest subnormal). Every leaf's gradient must be PyTorch's: NaN where
   it has NaN, the same infinities, the sign of every zero, and the finite
   numbers equal to a relative error of the dtype's precision (no absolute
   tolerance: 1e-300 * 3 is not 0).
2. The graph of the gradient: ``autograd.grad(outputs, inputs,
   grad_outputs=u, create_graph=True)`` with a random upstream ``u`` that
   requires grad. The gradients' values, graphs (node names and edges) and
   flags must be PyTorch's, and so must the gradients of a random weighted
   sum of them (second order) with respect to the inputs and to ``u``.
3. What nodes save, in order: the sequence of tensors a saved-tensor pack
   hook sees (which tensor it is: a leaf, an output or another one; its
   shape, dtype and numbers), for each requires-grad pattern of the inputs
   (all of them, then each alone).
4. What the gradient's own graph saves: the same pack hook around a
   ``create_graph=True`` pass and a second-order pass over its result, with
   an upstream gradient that does not require grad (``autograd.grad``'s
   default) and with one that does, for each requires-grad pattern of the
   inputs. A formula whose result no input needs
   is not computed, as PyTorch's ``should_compute_output``, so it records
   and saves nothing.

Cases that differ are strict xfails listed, with why, in
``special_known.py``: a fix makes its xfail fail, and its entry goes.
"""

import itertools
import math

import numpy as np
import pytest

import optable
import special_known
import toygrad
from toygrad.scalar import Value

pytestmark = [pytest.mark.differential, pytest.mark.ch12]


def _params(cases, known):
    out = []
    for case in cases:
        reason = known.get(case.id)
        # A case whose outcome depends on the CPU's BLAS kernels (which
        # one MKL picks) agrees on some machines: not strict there.
        strict = case.id not in special_known.MACHINE_DEPENDENT
        marks = [pytest.mark.xfail(strict=strict, reason=reason)] if reason \
            else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def _differentiable(case):
    """Cases that record a graph in both libraries (no refusal, no
    deliberate difference) and have an input that requires grad."""
    return (optable.offered(case.entry) and case.id not in optable.UNSUPPORTED
            and case.id not in optable.DELIBERATE
            and any(getattr(arg, "requires_grad", False)
                    for arg in case.sample.args))


def _tensor_cases():
    """As _differentiable, less the scalar Value's (no autograd.grad, no
    saved tensors: it saves Python numbers)."""
    return [case for case in optable.CASES if _differentiable(case)
            and not case.id.startswith("Value")]


# 1. Special upstream gradients.

SPECIAL = {
    "float64": (0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, -1e-300,
                3.4028234663852886e38, 5e-324, -1.5),
    "float32": (0.0, -0.0, math.inf, -math.inf, math.nan, 3.4028235e38,
                -1e-45, 1e-38, -1e30, 1.5),
}


def special_upstream(run_number):
    """``upstream`` for optable.run: the special numbers, in turn.

    Element i of run k holds SPECIAL[(k * size + i) % len], so that the runs
    together give each output every special number at least once.
    """
    def upstream(lib, output, rng):
        if isinstance(output, Value):
            return Value(_special_numbers("float64", 1, run_number)[0])
        dtype = optable._dtype_name(output.dtype)
        shape = tuple(output.shape)
        numbers = _special_numbers(dtype, int(np.prod(shape)), run_number)
        return lib.tensor(numbers.reshape(shape))
    return upstream


def _special_numbers(dtype, size, run_number):
    special = SPECIAL.get(dtype, SPECIAL["float64"])
    first = run_number * max(size, 1)
    return np.array([special[(first + i) % len(special)]
                     for i in range(size)], dtype)


def _runs_needed(outcome):
    """How many runs give the smallest output every special number."""
    sizes = [int(np.prod(data["shape"])) for data in
             _tensor_facts_in(outcome.result)
             if data["requires_grad"] is True]
    size = max(min(sizes, default=1), 1)
    return -(-len(SPECIAL["float64"]) // size)


def _tensor_facts_in(facts_):
    if facts_ is None:
        return []
    kind, data = facts_
    if kind == "tensor":
        return [data]
    if kind in ("list", "tuple"):
        return [d for item in data for d in _tensor_facts_in(item)]
    return []


def same_specials(ours, theirs, precision):
    """Exactly the same NaNs, infinities and signed zeros; the other
    numbers equal to the relative precision of ``precision``."""
    ours = np.asarray(ours, np.float64)
    theirs = np.asarray(theirs, np.float64)
    if ours.shape != theirs.shape:
        return False
    rtol = 1e-5 if precision == "float32" else 1e-10
    both_finite = np.isfinite(ours) & np.isfinite(theirs)
    same = np.where(both_finite,
                    np.isclose(ours, theirs, rtol=rtol, atol=0.0),
                    (ours == theirs) | (np.isnan(ours) & np.isnan(theirs)))
    zeros = (ours == 0) & (theirs == 0)
    same &= ~zeros | (np.signbit(ours) == np.signbit(theirs))
    return bool(same.all())


def compare_special(where, ours, theirs, precision):
    """Differences between two gradients' facts, under same_specials."""
    (our_kind, our_data), (their_kind, their_data) = ours, theirs
    if our_kind != their_kind:
        return [f"{where}: toygrad {optable._say(ours)}, torch "
                f"{optable._say(theirs)}"]
    if our_kind != "tensor":
        return [] if our_data == their_data else [
            f"{where}: toygrad {our_data!r}, torch {their_data!r}"]
    differences = [f"{where}.{key}: toygrad {our_data[key]}, torch "
                   f"{their_data[key]}" for key in ("dtype", "shape")
                   if our_data[key] != their_data[key]]
    if not differences and not same_specials(
            our_data["values"], their_data["values"],
            "float32" if "float32" in (precision, their_data["dtype"])
            else "float64"):
        differences.append(
            f"{where}: toygrad {_show(our_data['values'])}, torch "
            f"{_show(their_data['values'])}")
    return differences


def _show(values):
    return np.array2string(np.asarray(values), threshold=12,
                           separator=", ").replace("\n", "")


def special_differences(case):
    """Every way toygrad's gradients differ from torch's, over the runs."""
    differences = []
    with optable.quiet():
        first = optable.run(optable.TORCH, case, special_upstream(0))
        if first.error:
            return []  # the table's own test compares the error
        for k in range(_runs_needed(first)):
            theirs = (first if k == 0 else optable.run(
                optable.TORCH, case, special_upstream(k)))
            ours = optable.run(optable.TOYGRAD, case, special_upstream(k))
            if ours.error:
                return [f"run {k}: toygrad raises "
                        f"{optable._say_error(ours.error)}"]
            if ours.backward_error != theirs.backward_error:
                differences.append(
                    f"run {k}: backward error: toygrad "
                    f"{optable._say_error(ours.backward_error)}, torch "
                    f"{optable._say_error(theirs.backward_error)}")
                continue
            if len(ours.grads) != len(theirs.grads):
                differences.append(f"run {k}: leaves: toygrad "
                                   f"{len(ours.grads)}, torch "
                                   f"{len(theirs.grads)}")
                continue
            for i, (a, b) in enumerate(zip(ours.grads, theirs.grads)):
                differences += compare_special(
                    f"run {k}: leaf {i} .grad", a, b, case.precision)
    return differences


@pytest.mark.parametrize("case", _params(
    [case for case in optable.CASES if _differentiable(case)],
    special_known.SPECIAL_UPSTREAM))
def test_special_upstream_gradients_agree_with_pytorch(case):
    differences = special_differences(case)
    assert not differences, "\n".join(differences)


# 2. The graph of the gradient, under create_graph=True.

def gradient_graph(lib, case):
    """The gradients' facts under create_graph, then the second-order
    gradients' (of the inputs and of the upstream gradients); or the error
    (at which stage, its type and message)."""
    rng = optable.rng_for("create_graph: " + case.id)
    lib.watched = []
    try:
        result, leaves = optable._call(lib, case)
    except Exception as error:
        return ("call", optable._error(error))
    finally:
        lib.set_grad_enabled(True)
    outputs = [t for t in optable._tensors_in(result) if t.requires_grad]
    inputs = [t for t in leaves + lib.watched if t.requires_grad]
    if not outputs or not inputs:
        return ("nothing to differentiate", len(outputs), len(inputs))
    upstream = [lib.tensor(rng.standard_normal(tuple(out.shape)).astype(
        optable._dtype_name(out.dtype)), requires_grad=True)
        for out in outputs]
    try:
        grads = lib.autograd.grad(outputs, inputs, grad_outputs=upstream,
                                  create_graph=True, allow_unused=True)
    except Exception as error:
        return ("autograd.grad", optable._error(error))
    first = optable.facts(list(grads))
    loss = None
    for g in grads:
        if g is not None and g.requires_grad:
            weight = lib.tensor(rng.uniform(0.5, 1.5, tuple(g.shape)).astype(
                optable._dtype_name(g.dtype)))
            term = (g * weight).sum()
            loss = term if loss is None else loss + term
    if loss is None:
        return ("gradients", first, None)
    try:
        loss.backward()
    except Exception as error:
        return ("gradients", first, ("backward", optable._error(error)))
    return ("gradients", first,
            [optable.grad_facts(t) for t in inputs + upstream])


def gradient_graph_differences(case):
    with optable.quiet():
        theirs = gradient_graph(optable.TORCH, case)
        ours = gradient_graph(optable.TOYGRAD, case)
    if theirs[0] != "gradients" or ours[0] != "gradients":
        refusal = optable.gradgrad_unsupported(case)
        if (refusal and theirs[0] == "gradients" and ours[0] != "call"
                and isinstance(ours[-1], tuple)
                and ours[-1][0] == "NotImplementedError"
                and refusal in ours[-1][1]):
            return []  # refused by name
        return [] if ours == theirs else [
            f"toygrad {ours!r}, torch {theirs!r}"]
    how = optable.How(precision=case.precision)
    differences = optable.compare_facts("grad", ours[1], theirs[1], how)
    if isinstance(theirs[2], list) and isinstance(ours[2], list):
        for i, (a, b) in enumerate(zip(ours[2], theirs[2])):
            differences += optable.compare_facts(f"second order: {i}.grad",
                                                 a, b, how)
    elif ours[2] != theirs[2]:
        refusal = optable.gradgrad_unsupported(case)
        error = ours[2][1] if isinstance(ours[2], tuple) else None
        if not (refusal and error and error[0] == "NotImplementedError"
                and refusal in error[1]):
            differences.append(f"second order: toygrad {ours[2]!r}, torch "
                               f"{theirs[2]!r}")
    return differences


@pytest.mark.parametrize("case", _params(_tensor_cases(),
                                         special_known.GRADIENT_GRAPH))
def test_graph_of_the_gradient_agrees_with_pytorch(case):
    differences = gradient_graph_differences(case)
    assert not differences, "\n".join(differences)


# 3. What nodes save, in order, for each requires-grad pattern.

def grad_patterns(case):
    """``case``, then, if two or more inputs require grad, ``case`` with
    each of them alone requiring grad: (pattern name, case) pairs."""
    needing = [i for i, arg in enumerate(case.sample.args)
               if isinstance(arg, optable.Leaf) and arg.requires_grad]
    out = [("as given", case)]
    if len(needing) < 2:
        return out
    for keep in needing:
        args = tuple(optable.Leaf(arg.array, i == keep)
                     if i in needing else arg
                     for i, arg in enumerate(case.sample.args))
        sample = optable.Sample(case.sample.id, args, case.sample.kwargs,
                                case.sample.context)
        out.append((f"only input {keep} requires grad",
                    optable.Case(case.entry, sample)))
    return out


def saved_sequence(lib, case):
    """What a pack hook sees, in order: (which tensor, shape, dtype,
    numbers) each; or the error."""
    hooks = lib.autograd.graph.saved_tensors_hooks
    log = []

    def pack(tensor):
        numbers = (tensor.detach().numpy() if lib is optable.TORCH
                   else np.asarray(tensor.data))
        log.append((tensor, tuple(tensor.shape),
                    optable._dtype_name(tensor.dtype), numbers.copy()))
        return tensor

    with optable.quiet(), hooks(pack, lambda tensor: tensor):
        outcome = optable.run(lib, case)
    if outcome.error:
        return outcome.error

    def which(tensor):
        for kind, tensors in (("leaf", outcome.leaves),
                              ("output", outcome.tensors)):
            for i, known in enumerate(tensors):
                if known is tensor:
                    return f"{kind} {i}"
        return "another tensor"
    return [(which(t), shape, dtype, numbers)
            for t, shape, dtype, numbers in log]


def saved_sequence_differences(case):
    differences = []
    for pattern, variant in grad_patterns(case):
        theirs = saved_sequence(optable.TORCH, variant)
        ours = saved_sequence(optable.TOYGRAD, variant)
        if isinstance(theirs, tuple) or isinstance(ours, tuple):
            if ours != theirs:  # the table's own test compares errors
                differences.append(f"{pattern}: toygrad {ours!r}, torch "
                                   f"{theirs!r}")
            continue
        ours_ids = [kept[:3] for kept in ours]
        theirs_ids = [kept[:3] for kept in theirs]
        if ours_ids != theirs_ids:
            differences.append(f"{pattern}: toygrad saves {ours_ids}, "
                               f"torch {theirs_ids}")
            continue
        for n, (a, b) in enumerate(zip(ours, theirs)):
            if not optable.same_numbers(a[3], b[3], variant.precision
                                        if b[2] == "float64" else b[2]):
                differences.append(f"{pattern}: saved {n} ({b[0]}): toygrad "
                                   f"{_show(a[3])}, torch {_show(b[3])}")
    return differences


@pytest.mark.parametrize("case", _params(_tensor_cases(),
                                         special_known.SAVED_SEQUENCE))
def test_saved_sequence_agrees_with_pytorch(case):
    differences = saved_sequence_differences(case)
    assert not differences, "\n".join(differences)


# 4. What the gradient's graph saves, in its own backward pass too.

def saved_by_the_gradient(lib, case, upstream_requires_grad):
    """What a pack hook sees while ``autograd.grad(..., create_graph=True)``
    records the gradient's graph, then while a second-order pass runs over
    it: (which tensor, shape, dtype, numbers) each, the two passes parted by
    "|"; or the error (at which stage, its type and message)."""
    rng = optable.rng_for("saved by the gradient: " + case.id)
    lib.watched = []
    try:
        result, leaves = optable._call(lib, case)
    except Exception as error:
        return ("call", optable._error(error))
    finally:
        lib.set_grad_enabled(True)
    outputs = [t for t in optable._tensors_in(result) if t.requires_grad]
    inputs = [t for t in leaves + lib.watched if t.requires_grad]
    if not outputs or not inputs:
        return ("nothing to differentiate",)
    upstream = [lib.tensor(rng.standard_normal(tuple(out.shape)).astype(
        optable._dtype_name(out.dtype)), requires_grad=upstream_requires_grad)
        for out in outputs]
    log = []

    def pack(tensor):
        numbers = (tensor.detach().numpy() if lib is optable.TORCH
                   else np.asarray(tensor.data))
        log.append((tensor, tuple(tensor.shape),
                    optable._dtype_name(tensor.dtype), numbers.copy()))
        return tensor

    grads = []
    stage = "autograd.grad"
    try:
        with optable.quiet(), lib.autograd.graph.saved_tensors_hooks(
                pack, lambda tensor: tensor):
            grads = list(lib.autograd.grad(
                outputs, inputs, grad_outputs=upstream, create_graph=True,
                allow_unused=True))
            log.append("|")
            stage = "second order"
            loss = None
            for g in grads:
                if g is not None and g.requires_grad:
                    weight = rng.uniform(0.5, 1.5, tuple(g.shape))
                    term = (g * lib.tensor(weight.astype(
                        optable._dtype_name(g.dtype)))).sum()
                    loss = term if loss is None else loss + term
            if loss is not None:
                wrt = inputs + [u for u in upstream if u.requires_grad]
                lib.autograd.grad(loss, wrt, create_graph=True,
                                  allow_unused=True)
    except Exception as error:
        return (stage, optable._error(error))

    def which(tensor):
        for kind, tensors in (("leaf", leaves + lib.watched),
                              ("output", outputs), ("upstream", upstream),
                              ("gradient", grads)):
            for i, known in enumerate(tensors):
                if known is tensor:
                    return f"{kind} {i}"
        return "another tensor"
    return [kept if kept == "|" else (which(kept[0]), *kept[1:])
            for kept in log]


def saved_by_the_gradient_differences(case):
    differences = []
    for (inputs, variant), requires_grad in itertools.product(
            grad_patterns(case), (False, True)):
        pattern = f"{inputs}, upstream requires_grad={requires_grad}"
        with optable.quiet():
            theirs = saved_by_the_gradient(optable.TORCH, variant,
                                           requires_grad)
            ours = saved_by_the_gradient(optable.TOYGRAD, variant,
                                         requires_grad)
        if isinstance(theirs, tuple) or isinstance(ours, tuple):
            refusal = optable.gradgrad_unsupported(variant)
            if refusal is None and inputs != "as given" and "leaf" in (
                    variant.sample.context or ""):
                # The leaf written in place needs no grad now, the value
                # written does: a view of a tensor changed in place with
                # a grad, through which toygrad refuses create_graph (as
                # for a non-leaf's view).
                refusal = "create_graph through"
            error = ours[1] if isinstance(ours, tuple) and len(ours) > 1 else None
            if refusal and error and error[0] == "NotImplementedError" and (
                    refusal in error[1]):
                continue  # refused by name
            if ours != theirs:
                differences.append(f"{pattern}: toygrad {ours!r}, torch "
                                   f"{theirs!r}")
            continue
        ours_ids = [kept if kept == "|" else kept[:3] for kept in ours]
        theirs_ids = [kept if kept == "|" else kept[:3] for kept in theirs]
        if ours_ids != theirs_ids:
            differences.append(f"{pattern}: toygrad saves {ours_ids}, "
                               f"torch {theirs_ids}")
            continue
        for n, (a, b) in enumerate(zip(ours, theirs)):
            if b != "|" and not optable.same_numbers(
                    a[3], b[3],
                    variant.precision if b[2] == "float64" else b[2]):
                differences.append(f"{pattern}: saved {n} ({b[0]}): toygrad "
                                   f"{_show(a[3])}, torch {_show(b[3])}")
    return differences


@pytest.mark.parametrize("case", _params(_tensor_cases(),
                                         special_known.SAVED_BY_THE_GRADIENT))
def test_what_the_gradient_s_graph_saves_agrees_with_pytorch(case):
    differences = saved_by_the_gradient_differences(case)
    assert not differences, "\n".join(differences)


def test_every_known_special_difference_names_a_case():
    for known in (special_known.SPECIAL_UPSTREAM,
                  special_known.GRADIENT_GRAPH,
                  special_known.SAVED_SEQUENCE,
                  special_known.SAVED_BY_THE_GRADIENT):
        for case_id, reason in known.items():
            assert case_id in optable.CASES_BY_ID, case_id
            assert reason.split(":")[0] in special_known.CLASSES, reason
    # A machine-dependent case is a known difference too (not a way out).
    assert special_known.MACHINE_DEPENDENT <= set(special_known.SPECIAL_UPSTREAM)
