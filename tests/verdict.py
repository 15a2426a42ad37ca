"""Task checks whose verdict is decided outside the process that runs the student's code.

Each task test is split in two (issue 27). A *probe* (``tests/probes_chNN.py``) runs the
student's code on fixed inputs and returns what it observed as plain data: numbers,
strings, lists, dicts, what JSON holds. An *expectation* and a *comparison* (``Check``, in
``tests/test_tasks_chNN.py``) say what the probe must return, computed with PyTorch or from
a rule, and never in the student's process.

``pytest -m task4_1`` runs both in one process, as a student does. ``make grade`` runs only
the probes, in the sandbox, and compares what they returned with the expectations in its
own process (``scripts/grade.py``): nothing the submission does to pytest, to the tests or
to its own process changes a verdict, and the expected values are never where the
submission's code could read them. To earn a point, a submission must return the right
observations, which means computing them.
"""

import math
from dataclasses import dataclass, field

import numpy as np


def vary(seed, *numbers):
    """``numbers`` as they are for seed 0 (a student's run), and moved by up to 0.5 each
    for any other seed (the grader's, chosen per grading: observations it cannot know in
    advance); a zero stays zero, as it is often the case that matters."""
    if seed == 0:
        return numbers
    rng = np.random.default_rng(seed)
    return tuple(0.0 if n == 0 else round(float(n + rng.uniform(-0.5, 0.5)), 6)
                 for n in numbers)


def on_torch(probe):
    """The expectation of a probe written for either library (``probe(lib, *case,
    seed=...)``): the same probe run on PyTorch, in the grader's process."""
    def expect(*case, seed=0):
        import torch  # only where expectations are computed: never in the sandbox

        return probe(torch, *case, seed=seed)
    return expect


def plain(value):
    """``value`` as plain data, the same in every process: NumPy arrays and tensors as
    ``{"array": nested lists, "dtype": ..., "shape": ...}``, tuples as lists, NumPy numbers
    as Python's. Anything else is refused (a probe returns only what it observed)."""
    if isinstance(value, np.generic):  # before float: NumPy's float64 is one
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor
        value = value.detach().numpy()
    elif not isinstance(value, np.ndarray) and isinstance(getattr(value, "data", None),
                                                          np.ndarray):
        value = value.data  # a toygrad tensor
    if isinstance(value, np.ndarray):
        return {"array": value.tolist(), "dtype": str(value.dtype),
                "shape": list(value.shape)}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    raise TypeError(f"a probe returns plain data, not {type(value).__name__}")


def error_of(function, *args, **kwargs):
    """The error ``function(*args)`` raises, as plain data ``[type, message]``, or None.

    For a probe whose expectation is an error: which one, and its words. A
    NotImplementedError goes on (a task's stub says which task it is)."""
    try:
        function(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as error:  # noqa: BLE001 - observed
        return [type(error).__name__, str(error)]
    return None


def same(observed, expected):
    """Exactly equal (as plain data: -0.0 and 0.0 are equal, NaN is not itself)."""
    if observed == expected:
        return None
    return f"got {_short(observed)}, expected {_short(expected)}"


def close(rtol=0.0, atol=0.0):
    """Arrays (or nested lists of numbers) of the same shape and dtype, equal to within
    ``atol + rtol * |expected|``, element by element; anything else exactly equal."""
    def compare(observed, expected):
        return _close(observed, expected, rtol, atol)
    compare.__name__ = f"close(rtol={rtol}, atol={atol})"
    return compare


def holds(rule, what):
    """A check decided by a rule on the observation alone (its expectation is None):
    ``rule(observed)`` must be true; ``what`` says what it asks."""
    def compare(observed, expected):
        return None if rule(observed) else f"{what}: got {_short(observed)}"
    compare.__name__ = f"holds({what})"
    return compare


def _close(observed, expected, rtol, atol):
    if isinstance(expected, dict) and "array" in expected:
        if not (isinstance(observed, dict) and "array" in observed):
            return f"got {_short(observed)}, expected an array"
        for key in ("shape", "dtype"):
            if observed.get(key) != expected[key]:
                return f"{key} {observed.get(key)}, expected {expected[key]}"
        ours = np.asarray(observed["array"], dtype=np.float64)
        theirs = np.asarray(expected["array"], dtype=np.float64)
        if not np.allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True):
            worst = np.nanmax(np.abs(ours - theirs)) if ours.size else 0.0
            return (f"numbers differ by up to {worst:.3g} (allowed: {atol:g} + {rtol:g} "
                    f"times the expected): got {_short(observed['array'])}, expected "
                    f"{_short(expected['array'])}")
        return None
    if isinstance(expected, dict) and isinstance(observed, dict):
        if sorted(observed) != sorted(expected):
            return f"keys {sorted(observed)}, expected {sorted(expected)}"
        for key in expected:
            why = _close(observed[key], expected[key], rtol, atol)
            if why:
                return f"{key}: {why}"
        return None
    if isinstance(expected, list) and isinstance(observed, list):
        if len(observed) != len(expected):
            return f"{len(observed)} items, expected {len(expected)}"
        for index, (ours, theirs) in enumerate(zip(observed, expected)):
            why = _close(ours, theirs, rtol, atol)
            if why:
                return f"item {index}: {why}"
        return None
    if isinstance(expected, float) and isinstance(observed, (int, float)):
        if math.isclose(observed, expected, rel_tol=rtol, abs_tol=atol) or (
                math.isnan(observed) and math.isnan(expected)):
            return None
    return same(observed, expected)


def _short(value, limit=300):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass
class Check:
    """One task check: ``probe(*case, seed=seed)`` (the student's code, observed) for each
    case, its expectation ``expect(*case, seed=seed)`` (plain data; None for a check that
    ``compare`` decides by a rule alone) and ``compare(observed, expected)``: None if the
    task passes, else why. ``seed`` draws the inputs: 0 in a student's run, the grader's
    own in ``make grade``."""
    task: str  # the task's marker, task4_1
    name: str
    probe: object  # a function of a probes_chNN module
    expect: object = None
    compare: object = same
    cases: list = field(default_factory=lambda: [()])

    def expected(self, case, seed=0):
        return None if self.expect is None else plain(self.expect(*case, seed=seed))

    def judge(self, observed, case, seed=0):
        """None if ``observed`` (plain data) passes for ``case``, else why."""
        return self.compare(observed, self.expected(case, seed))


def case_id(case):
    return "-".join(str(part).replace(" ", "") for part in case) or "once"


def params(checks):
    """pytest's parameters for a module's checks: one test per check and case, marked
    with the check's task (``pytest -m task4_1``)."""
    import pytest

    return [pytest.param(check, case, id=f"{check.name}[{case_id(case)}]",
                         marks=getattr(pytest.mark, check.task))
            for check in checks for case in check.cases]


def run(check, case, seed=0):
    """What ``make grade`` decides, decided here: the probe, then the comparison."""
    observed = plain(check.probe(*case, seed=seed))
    why = check.judge(observed, case, seed)
    assert why is None, why
