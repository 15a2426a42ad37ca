"""Chapter 13: ``jacrev``/``jacfwd`` on constant, empty and unusual
functions give torch.func's (torch 2.13) Jacobians or its errors, and what
toygrad's minimal versions lack is refused by name."""

import numpy as np
import pytest
import torch
import torch.func

import toygrad
import toygrad.func

pytestmark = pytest.mark.ch13

LIBS = (torch, toygrad)


def func(lib):
    return torch.func if lib is torch else toygrad.func


def outcome(action):
    try:
        result = action()
    except Exception as error:  # noqa: BLE001  (compared with torch's)
        return type(error).__name__, str(error)
    return (tuple(result.shape), str(result.dtype).replace("torch.", ""),
            result.tolist(), result.requires_grad)


CASES = {
    "constant": (lambda lib: lib.tensor([1.0, 2.0, 3.0]),
                 lambda lib: lambda v: lib.ones(2)),
    "constant 0-dim": (lambda lib: lib.tensor([1.0, 2.0, 3.0]),
                       lambda lib: lambda v: lib.tensor(5.0)),
    "constant float64": (lambda lib: lib.tensor([1.0, 2.0, 3.0]),
                         lambda lib: lambda v: lib.ones(2, dtype=lib.float64)),
    "detached": (lambda lib: lib.tensor([1.0, 2.0, 3.0]),
                 lambda lib: lambda v: v.detach() * 2),
    "empty output": (lambda lib: lib.tensor([1.0, 2.0, 3.0]),
                     lambda lib: lambda v: v[:0]),
    "empty input, empty output": (lambda lib: lib.ones(0),
                                  lambda lib: lambda v: v * 2),
    "empty input, 0-dim output": (lambda lib: lib.ones(0),
                                  lambda lib: lambda v: v.sum()),
    "empty input (0, 2)": (lambda lib: lib.ones(0, 2),
                           lambda lib: lambda v: v.sum(0)),
    "empty input (2, 0)": (lambda lib: lib.ones(2, 0),
                           lambda lib: lambda v: v.sum(1)),
    "0-dim input": (lambda lib: lib.tensor(3.0),
                    lambda lib: lambda v: v * 2),
    "int input": (lambda lib: lib.tensor([1, 2]),
                  lambda lib: lambda v: v * 2),
    "int output": (lambda lib: lib.ones(2),
                   lambda lib: lambda v: lib.ones(2, dtype=lib.int64)),
    "number output": (lambda lib: lib.ones(2), lambda lib: lambda v: 3.0),
    "number input": (lambda lib: 3.0, lambda lib: lambda v: v * 2),
    "ordinary": (lambda lib: lib.tensor([1.0, 2.0]),
                 lambda lib: lambda v: (v * v).exp()),
}


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("case", CASES)
def test_jacobians_as_torch_func(case, transform):
    make_input, make_f = CASES[case]
    seen = {lib: outcome(lambda: getattr(func(lib), transform)(
        make_f(lib))(make_input(lib))) for lib in LIBS}
    if seen[toygrad][0] in ("ValueError", "RuntimeError", "AttributeError"):
        assert seen[toygrad][0] == seen[torch][0]
        assert seen[toygrad][1] == seen[torch][1].replace("torch.", "") or (
            seen[toygrad][1] == seen[torch][1])
    else:
        assert seen[toygrad][:2] == seen[torch][:2]
        assert np.allclose(seen[toygrad][2], seen[torch][2], rtol=1e-6)
        assert seen[toygrad][3] == seen[torch][3]


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_jacobians_inside_no_grad_and_inference_mode(transform, mode):
    seen = {}
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0])
        with getattr(lib, mode)():
            seen[lib] = outcome(lambda: getattr(func(lib), transform)(
                lambda v: v * v)(x))[:3]
    assert seen[toygrad] == seen[torch]


def test_jacrev_leaves_other_gradients_alone_or_refuses():
    # torch.func's result would be differentiable with respect to w;
    # toygrad refuses, and touches no .grad on the way.
    w = toygrad.tensor([3.0, 4.0], requires_grad=True)
    for transform in (toygrad.func.jacrev, toygrad.func.jacfwd):
        with pytest.raises(NotImplementedError):
            transform(lambda v: v * w)(toygrad.tensor([1.0, 2.0]))
    assert w.grad is None


def test_several_outputs_are_refused_by_name():
    for transform in (toygrad.func.jacrev, toygrad.func.jacfwd):
        with pytest.raises(NotImplementedError, match="tuple"):
            transform(lambda v: (v * 2, v))(toygrad.ones(2))


def test_options_are_refused_by_name():
    with pytest.raises(NotImplementedError, match="argnums"):
        toygrad.func.jacrev(lambda v: v, argnums=1)
    with pytest.raises(NotImplementedError, match="has_aux"):
        toygrad.func.jacfwd(lambda v: v, has_aux=True)
    with pytest.raises(NotImplementedError, match="one tensor"):
        toygrad.func.jacrev(lambda a, b: a * b)(toygrad.ones(2),
                                                 toygrad.ones(2))
