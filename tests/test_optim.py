"""Chapter 15: toygrad's optimizers follow PyTorch's, step for step."""

import numpy as np
import pytest
import torch

import toygrad
from toygrad import nn, optim

pytestmark = pytest.mark.ch15

TORCH_DTYPE = {np.float64: torch.float64, np.float32: torch.float32}
# (rtol, atol). float64: the same operations in the same order. float32: each library
# rounds its own sums (toygrad's row sums are BLAS products), and the differences grow with
# the weights over 50 steps (maximize=True drives them past 20), so a relative tolerance,
# about 80 float32 ulps, as well as an absolute one near zero.
TOLERANCE = {np.float64: (0, 1e-12), np.float32: (1e-5, 1e-5)}

SGD_CASES = [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3),
    dict(lr=0.05, momentum=0.9, nesterov=True),
    dict(lr=0.1, weight_decay=0.01),
    dict(lr=0.05, momentum=0.8, weight_decay=0.02, nesterov=True),
    dict(lr=0.1, momentum=0.5, maximize=True),
]
ADAM_CASES = [
    dict(),
    dict(lr=0.01),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.01, betas=(0.3, 0.9)),  # lerp's other branch (weight >= 0.5)
    dict(lr=0.005, maximize=True, weight_decay=0.01),
]


def trajectories(name, kwargs, dtype, steps=50, seed=0):
    """A small MLP trained ``steps`` steps in each library from the same
    weights on the same batches: the parameters after every step."""
    rng = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(4, 5, generator=rng, dtype=dtype),
                          nn.ReLU(), nn.Linear(5, 3, generator=rng, dtype=dtype))
    reference = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(),
                                    torch.nn.Linear(5, 3)).to(TORCH_DTYPE[dtype])
    reference.load_state_dict({key: torch.from_numpy(value.data.copy())
                               for key, value in model.state_dict().items()})
    ours = getattr(optim, name)(model.parameters(), **kwargs)
    theirs = getattr(torch.optim, name)(reference.parameters(), foreach=False,
                                        **kwargs)
    history = []
    for _ in range(steps):
        x = rng.standard_normal((8, 4)).astype(dtype)
        y = rng.integers(0, 3, 8)
        for net, lib, opt in ((model, toygrad, ours), (reference, torch, theirs)):
            opt.zero_grad()
            lib_y = toygrad.tensor(y) if lib is toygrad else torch.tensor(y)
            loss = nn.functional.cross_entropy if lib is toygrad else (
                torch.nn.functional.cross_entropy)
            loss(net(lib.tensor(x)), lib_y).backward()
            opt.step()
        history.append((
            [p.data.copy() for p in model.parameters()],
            [p.detach().numpy().copy() for p in reference.parameters()]))
    return history


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kwargs", SGD_CASES, ids=str)
def test_sgd_trajectory_equals_pytorch_s(kwargs, dtype):
    for ours, theirs in trajectories("SGD", kwargs, dtype):
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, *TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kwargs", ADAM_CASES, ids=str)
def test_adam_trajectory_equals_pytorch_s(kwargs, dtype):
    for ours, theirs in trajectories("Adam", kwargs, dtype):
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, *TOLERANCE[dtype])


def test_the_trajectories_move():
    """The comparison above is not between two parameter sets that stay put."""
    history = trajectories("Adam", dict(lr=0.01), np.float64)
    first, last = history[0][0], history[-1][0]
    assert max(np.abs(a - b).max() for a, b in zip(first, last)) > 0.05


def test_plain_sgd_step_bumps_the_version_and_skips_params_without_grad():
    w = nn.Parameter(np.ones(3))
    unused = nn.Parameter(np.ones(3))
    optimizer = optim.SGD([w, unused], lr=0.5)
    (w * 2).sum().backward()
    before = w._version
    optimizer.step()
    assert w._version == before + 1
    np.testing.assert_array_equal(w.data, np.zeros(3))
    np.testing.assert_array_equal(unused.data, np.ones(3))


def errors(make):
    """(type, message) of what ``make(lib)`` raises, for both libraries."""
    found = []
    for lib in (torch, toygrad):
        params = [lib.tensor([1.0], requires_grad=True)]
        with pytest.raises(Exception) as error:
            make(lib, params)
        found.append((type(error.value), str(error.value)))
    return found


@pytest.mark.parametrize("make", [
    lambda lib, p: lib.optim.SGD(p, lr=-1.0),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=-0.5),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, weight_decay=-1.0),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, nesterov=True),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1,
                                 nesterov=True),
    lambda lib, p: lib.optim.SGD([], lr=0.1),
    lambda lib, p: lib.optim.Adam(p, lr=-0.1),
    lambda lib, p: lib.optim.Adam(p, eps=-1.0),
    lambda lib, p: lib.optim.Adam(p, betas=(1.0, 0.999)),
    lambda lib, p: lib.optim.Adam(p, betas=(0.9, -0.1)),
    lambda lib, p: lib.optim.Adam(p, weight_decay=-0.1),
], ids=["sgd lr", "momentum", "sgd weight_decay", "nesterov no momentum",
        "nesterov dampening", "empty", "adam lr", "eps", "beta1", "beta2",
        "adam weight_decay"])
def test_argument_checks_raise_pytorch_s_errors(make):
    theirs, ours = errors(make)
    assert ours == theirs


@pytest.mark.parametrize("make, names", [
    (lambda p: optim.SGD(p, lr=0.1, foreach=True), "foreach"),
    (lambda p: optim.Adam(p, fused=True), "fused"),
    (lambda p: optim.Adam(p, decoupled_weight_decay=True),
     "decoupled_weight_decay"),
    (lambda p: optim.SGD([{"params": p}], lr=0.1), "parameter groups"),
])
def test_unsupported_options_are_refused_by_name(make, names):
    with pytest.raises(NotImplementedError, match=names):
        make([toygrad.tensor([1.0], requires_grad=True)])


def test_param_groups_hold_the_params_and_the_hyperparameters():
    ps = [toygrad.tensor([1.0], requires_grad=True)]
    tp = [torch.tensor([1.0], requires_grad=True)]
    for make in (lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9),
                 lambda lib, p: lib.optim.Adam(p, lr=0.01)):
        ours, theirs = make(toygrad, ps).param_groups, make(torch, tp).param_groups
        assert len(ours) == len(theirs) == 1
        assert ours[0]["params"] == ps
        for key, value in ours[0].items():
            if key != "params":
                assert theirs[0][key] == value, key


# What the optimizers accept: PyTorch's checks and messages.

def _construct(lib, make, **kwargs):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            optimizer = lib.optim.SGD(make(lib), lr=0.1, **kwargs)
            result = ("ok", len(optimizer.param_groups[0]["params"]))
        except Exception as error:  # noqa: BLE001 - compared below
            result = (type(error).__name__, str(error))
    return result, [str(w.message) for w in caught
                    if issubclass(w.category, UserWarning)]


def _leaf(lib):
    return lib.nn.Parameter(lib.tensor(np.ones(2, np.float32)))


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor(np.ones(2, np.float32)),
    lambda lib: lib.nn.Parameter(lib.tensor(np.ones(2))),
    lambda lib: [],
    lambda lib: [_leaf(lib) * 2],
    lambda lib: [3],
    lambda lib: [(_leaf(lib))] * 2,
    lambda lib: {_leaf(lib)},
    lambda lib: lib.nn.Linear(2, 2).named_parameters(),
], ids=["tensor", "parameter", "empty", "non-leaf", "int", "duplicate",
        "set", "named"])
def test_optimizer_checks_its_params_as_pytorch(make):
    assert _construct(toygrad, make) == _construct(torch, make)


def test_a_non_leaf_that_retains_grad_can_be_optimized():
    def make(lib):
        x = _leaf(lib) * 2
        x.retain_grad()
        return [x]
    assert _construct(toygrad, make) == _construct(torch, make) == (
        ("ok", 1), [])


def test_duplicates_with_momentum_are_refused_by_name():
    p = _leaf(toygrad)
    with pytest.raises(NotImplementedError, match="duplicate"):
        optim.SGD([p, p], lr=0.1, momentum=0.9)
    with pytest.raises(NotImplementedError, match="duplicate"):
        optim.Adam([p, p])


def test_duplicates_step_twice_as_in_pytorch():
    steps = []
    for lib in (torch, toygrad):
        p = _leaf(lib)
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optimizer = lib.optim.SGD([p, p], lr=0.1)
        (p * p).sum().backward()
        optimizer.step()
        steps.append(p.detach().tolist())
    assert steps[0] == steps[1]
