"""Chapter 15: toygrad's modules beside torch.nn's: values, gradients, graphs,
state_dict, errors."""

import numpy as np
import pytest
import torch

import toygrad
from toygrad import nn
from toygrad.autograd import gradcheck
from toygrad.viz import graph_structure

pytestmark = pytest.mark.ch15

TORCH_DTYPE = {np.float64: torch.float64, np.float32: torch.float32}


def twin(model, dtype=np.float64):
    """The same network in PyTorch, holding ``model``'s numbers."""
    layers = []
    for layer in model._modules.values():
        if isinstance(layer, nn.Conv2d):
            layers.append(torch.nn.Conv2d(layer.in_channels, layer.out_channels,
                                          layer.kernel_size,
                                          bias=layer.bias is not None))
        elif isinstance(layer, nn.Linear):
            out_features, in_features = layer.weight.shape
            layers.append(torch.nn.Linear(in_features, out_features,
                                          bias=layer.bias is not None))
        else:
            layers.append(getattr(torch.nn, type(layer).__name__)(
                *([layer.kernel_size] if isinstance(layer, nn.MaxPool2d)
                  else [])))
    reference = torch.nn.Sequential(*layers).to(TORCH_DTYPE[dtype])
    reference.load_state_dict({key: torch.from_numpy(value.data.copy())
                               for key, value in model.state_dict().items()})
    return reference


def cnn(rng, dtype=np.float64, bias=True, channels=3):
    return nn.Sequential(
        nn.Conv2d(1, channels, 3, bias=bias, generator=rng, dtype=dtype),
        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(channels * 9, 4, generator=rng, dtype=dtype))


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_small_cnn_equals_pytorch_s_values_gradients_and_graph(bias, dtype):
    rng = np.random.default_rng(1)
    model = cnn(rng, dtype, bias)
    reference = twin(model, dtype)
    x = rng.standard_normal((5, 1, 8, 8)).astype(dtype)
    target = rng.integers(0, 4, 5)
    ours = toygrad.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    loss = nn.CrossEntropyLoss()(model(ours), toygrad.tensor(target))
    reference_loss = torch.nn.CrossEntropyLoss()(reference(theirs),
                                                 torch.tensor(target))
    assert graph_structure(loss) == graph_structure(reference_loss)
    assert loss.dtype == np.dtype(dtype)
    loss.backward()
    reference_loss.backward()
    atol = 1e-10 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(loss.data, reference_loss.detach().numpy(),
                               rtol=0, atol=atol)
    np.testing.assert_allclose(ours.grad.data, theirs.grad.numpy(), rtol=0,
                               atol=atol)
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        assert p.grad.dtype == np.dtype(dtype), name
        np.testing.assert_allclose(p.grad.data, q.grad.numpy(), rtol=0,
                                   atol=atol, err_msg=name)


@pytest.mark.parametrize("shape, channels, kernel", [
    ((2, 1, 6, 6), (1, 2), 3), ((1, 2, 5, 7), (2, 3), 2), ((3, 3, 4, 4), (3, 1), 4)])
def test_conv2d_values_and_gradients_equal_pytorch_s(shape, channels, kernel):
    rng = np.random.default_rng(2)
    layer = nn.Conv2d(*channels, kernel, generator=rng, dtype=np.float64)
    reference = torch.nn.Conv2d(*channels, kernel).double()
    reference.load_state_dict({k: torch.from_numpy(v.data.copy())
                               for k, v in layer.state_dict().items()})
    x = rng.standard_normal(shape)
    grad = None
    results = []
    for lib, module in ((toygrad, layer), (torch, reference)):
        xs = lib.tensor(x, requires_grad=True)
        out = module(xs)
        grad = rng.standard_normal(out.shape) if grad is None else grad
        out.backward(lib.tensor(grad))
        results.append([np.asarray(t) for t in (
            (out.data, xs.grad.data, module.weight.grad.data,
             module.bias.grad.data) if lib is toygrad else
            (out.detach().numpy(), xs.grad.numpy(), module.weight.grad.numpy(),
             module.bias.grad.numpy()))])
    for a, b in zip(*results):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)


def test_conv2d_and_max_pool_pass_gradcheck():
    rng = np.random.default_rng(3)
    layer = nn.Conv2d(2, 2, 2, generator=rng, dtype=np.float64)
    x = toygrad.tensor(rng.standard_normal((2, 2, 5, 5)), requires_grad=True)
    assert gradcheck(lambda x, w, b: nn.MaxPool2d(2)(_conv(layer, x, w, b)),
                     (x, layer.weight, layer.bias))


def _conv(layer, x, weight, bias):
    layer.weight, layer.bias = weight, bias
    return layer(x)


def test_differentiating_the_backward_again_is_refused_by_name():
    rng = np.random.default_rng(4)
    layer = nn.Conv2d(1, 1, 2, generator=rng, dtype=np.float64)
    x = toygrad.tensor(rng.standard_normal((1, 1, 4, 4)), requires_grad=True)
    for forward, name in ((layer, "conv2d"),
                          (lambda x: nn.MaxPool2d(2)(x * 1), "max_pool2d")):
        (grad,) = toygrad.autograd.grad(forward(x).sum(), x, create_graph=True)
        with pytest.raises(NotImplementedError, match=f"{name} again"):
            grad.sum().backward()


def test_max_pool_takes_the_first_of_equal_largest_numbers_as_pytorch():
    x = np.array([[[[1.0, 1.0, 0.0], [1.0, 0.5, 2.0], [3.0, 3.0, 3.0]]]])
    grads = []
    for lib in (toygrad, torch):
        xs = lib.tensor(x, requires_grad=True)
        out = (nn.MaxPool2d(2) if lib is toygrad else torch.nn.MaxPool2d(2))(xs)
        out.sum().backward()
        grads.append(np.asarray(xs.grad.data if lib is toygrad
                                else xs.grad.numpy()))
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 5), (3, 2, 2, 2)])
@pytest.mark.parametrize("transposed", [False, True])
def test_flatten_records_what_pytorch_records(shape, transposed):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    outputs = []
    for lib, flatten in ((toygrad, nn.Flatten()), (torch, torch.nn.Flatten())):
        xs = lib.tensor(x, requires_grad=True) * 1
        if transposed:
            xs = xs.transpose(0, 1)
        outputs.append(flatten(xs))
    assert graph_structure(outputs[0]) == graph_structure(outputs[1])
    assert tuple(outputs[0].shape) == tuple(outputs[1].shape)


def errors(run):
    """(type, message) of what ``run(lib)`` raises, for toygrad and torch."""
    found = []
    for lib in (toygrad, torch):
        with pytest.raises(Exception) as error:
            run(lib)
        found.append((type(error.value), str(error.value)))
    return found


def _conv_of(lib, x, c_in=1, c_out=2, k=3, dtype="float32"):
    layer = (nn.Conv2d(c_in, c_out, k) if lib is toygrad
             else torch.nn.Conv2d(c_in, c_out, k))
    return layer(lib.tensor(np.zeros(x), dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("run", [
    lambda lib: _conv_of(lib, (2, 3, 5, 5)),
    lambda lib: _conv_of(lib, (2, 1, 2, 2)),
    lambda lib: _conv_of(lib, (2, 1, 5, 5), dtype="float64"),
    lambda lib: (nn.Conv2d(1, 2, 3, bias=False) if lib is toygrad else torch.nn.Conv2d(
        1, 2, 3, bias=False))(lib.zeros(1, 1, 5, 5, dtype=lib.float64)),
    lambda lib: lib.nn.MaxPool2d(3)(lib.zeros(1, 1, 2, 2)),
    lambda lib: lib.nn.Flatten()(lib.zeros(3)),
], ids=["channels", "too small", "dtypes", "dtypes, no bias", "pool too small", "flatten 1-d"])
def test_layer_errors_are_pytorch_s(run):
    ours, theirs = errors(run)
    assert ours == theirs


@pytest.mark.parametrize("make, name", [
    (lambda: nn.Conv2d(1, 2, 3, dilation=2), "dilation"),
    (lambda: nn.Conv2d(2, 2, 3, groups=2), "groups"),
    (lambda: nn.Conv2d(1, 2, 3, padding_mode="reflect"), "padding_mode"),
    (lambda: nn.Conv2d(1, 2, 2, padding="same"), "padding='same'"),
    (lambda: nn.Conv2d(1, 2, (3, 2, 1)), "kernel_size"),
    (lambda: nn.MaxPool2d(2, dilation=2), "dilation"),
    (lambda: nn.MaxPool2d(2, ceil_mode=True), "ceil_mode"),
    (lambda: nn.MaxPool2d(2, return_indices=True), "return_indices"),
    (lambda: nn.Flatten(0), "start_dim"),
    (lambda: nn.CrossEntropyLoss(label_smoothing=0.1), "label_smoothing"),
    (lambda: nn.Conv2d(1, 2, 3)(toygrad.zeros(1, 5, 5)), "(N, C, H, W)"),
])
def test_unsupported_arguments_are_refused_by_name(make, name):
    with pytest.raises(NotImplementedError, match=re_escape(name)):
        make()


def re_escape(text):
    import re
    return re.escape(text)


def test_conv2d_initialises_within_pytorch_s_bounds():
    layer = nn.Conv2d(2, 4, 3, generator=np.random.default_rng(0))
    reference = torch.nn.Conv2d(2, 4, 3)
    for name, p in layer.named_parameters():
        q = getattr(reference, name)
        assert p.shape == tuple(q.shape) and p.dtype == np.float32
        bound = 1 / np.sqrt(2 * 3 * 3)
        assert np.abs(p.data).max() <= bound
        assert float(q.detach().abs().max()) <= bound
        assert np.abs(p.data).max() > bound / 2  # spread, not all near 0


# state_dict and load_state_dict.

def pair(dtype=np.float64):
    rng = np.random.default_rng(6)
    model = cnn(rng, dtype)
    return model, twin(model, dtype)


def test_state_dict_names_and_shares_the_parameters():
    model, reference = pair()
    ours, theirs = model.state_dict(), reference.state_dict()
    assert list(ours) == list(theirs)
    for key in ours:
        assert tuple(ours[key].shape) == tuple(theirs[key].shape)
        assert not ours[key].requires_grad and ours[key].grad_fn is None
        assert not theirs[key].requires_grad
        np.testing.assert_array_equal(ours[key].data, theirs[key].numpy())
    # Detached, the same memory: a change to the parameter shows.
    with toygrad.no_grad():
        model.state_dict()["0.bias"].data[0] = 42.0
    assert model._modules["0"].bias.data[0] == 42.0


def test_load_state_dict_round_trip():
    model, reference = pair()
    other = cnn(np.random.default_rng(99))
    before = model._modules["0"].weight._version
    result = model.load_state_dict(other.state_dict())
    assert repr(result) == repr(reference.load_state_dict(
        twin(other).state_dict()))
    assert model._modules["0"].weight._version == before + 1
    for (key, a), b in zip(model.state_dict().items(),
                           other.state_dict().values()):
        np.testing.assert_array_equal(a.data, b.data, err_msg=key)
        assert a.data is not b.data


def _edited(state, drop=(), add=(), reshape=()):
    state = dict(state)
    for key in drop:
        del state[key]
    for key in add:
        state[key] = state["0.bias"]
    for key in reshape:
        state[key] = state[key][:1]
    return state


@pytest.mark.parametrize("edit", [
    dict(drop=["0.bias"]),
    dict(add=["extra", "0.extra", "4.weight.x"]),
    dict(drop=["4.weight", "0.weight"], add=["9.weight"]),
    dict(reshape=["4.bias"]),
    dict(reshape=["0.weight"], drop=["4.bias"], add=["zz"]),
], ids=["missing", "unexpected", "both", "size", "all three"])
@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_errors_and_results_are_pytorch_s(edit, strict):
    model, reference = pair()
    outcomes = []
    for net, state in ((model, model.state_dict()),
                       (reference, reference.state_dict())):
        try:
            outcomes.append(("returned", repr(net.load_state_dict(
                _edited(state, **edit), strict=strict))))
        except RuntimeError as error:
            outcomes.append(("raised", str(error)))
    assert outcomes[0] == outcomes[1]


# Stride, padding and tuple sizes: PyTorch's values, gradients and graph.

CONV_OPTIONS = [
    dict(kernel_size=3, stride=2),
    dict(kernel_size=3, padding=1),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0)),
    dict(kernel_size=(2, 3), stride=3, padding=(0, 2)),
    dict(kernel_size=3, padding="same"),
    dict(kernel_size=(3, 5), padding="same", bias=False),
    dict(kernel_size=2, padding="valid", stride=(1, 2)),
]


@pytest.mark.parametrize("options", CONV_OPTIONS, ids=str)
def test_conv2d_stride_and_padding_match_pytorch(options):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 2, 7, 6))
    ours = nn.Conv2d(2, 3, generator=rng, dtype=np.float64, **options)
    theirs = torch.nn.Conv2d(2, 3, **options).double()
    assert repr(ours) == repr(theirs)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.weight.data))
        if ours.bias is not None:
            theirs.bias.copy_(torch.from_numpy(ours.bias.data))
    tx = toygrad.tensor(x, requires_grad=True)
    rx = torch.tensor(x, requires_grad=True)
    out, reference = ours(tx), theirs(rx)
    assert graph_structure(out) == graph_structure(reference)
    np.testing.assert_allclose(out.data, reference.detach().numpy(),
                               rtol=0, atol=1e-10)
    upstream = rng.standard_normal(out.shape)
    out.backward(toygrad.tensor(upstream))
    reference.backward(torch.from_numpy(upstream))
    pairs = [(tx, rx), (ours.weight, theirs.weight)]
    if ours.bias is not None:
        pairs.append((ours.bias, theirs.bias))
    for mine, its in pairs:
        np.testing.assert_allclose(mine.grad.data, its.grad.numpy(), rtol=0,
                                   atol=1e-10)


def test_conv2d_stride_and_padding_pass_gradcheck():
    rng = np.random.default_rng(4)
    layer = nn.Conv2d(1, 2, (3, 2), stride=(2, 1), padding=(1, 2),
                      generator=rng, dtype=np.float64)
    x = toygrad.tensor(rng.standard_normal((1, 1, 5, 4)), requires_grad=True)
    assert gradcheck(lambda x, w, b: nn.layers.Convolution.apply(
        x, w, b, (2, 1), (1, 2)), (x, layer.weight, layer.bias))


@pytest.mark.parametrize("run", [
    lambda lib: lib.nn.Conv2d(1, 2, 3, stride=2, padding="same"),
    lambda lib: lib.nn.Conv2d(1, 2, 3, padding="full"),
    lambda lib: lib.nn.Conv2d(1, 2, 5, padding=1)(lib.zeros(1, 1, 2, 3)),
    lambda lib: lib.nn.MaxPool2d(3, padding=2)(lib.zeros(1, 1, 5, 5)),
    lambda lib: lib.nn.MaxPool2d(3, 2)(lib.zeros(1, 1, 2, 5)),
], ids=["same, strided", "bad string", "padded too small", "pool pad",
        "pool too small"])
def test_conv_and_pool_option_errors_are_pytorch_s(run):
    ours, theirs = errors(run)
    assert ours == theirs


POOL_OPTIONS = [
    dict(kernel_size=2), dict(kernel_size=3, stride=1),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1)),
]


@pytest.mark.parametrize("options", POOL_OPTIONS, ids=str)
@pytest.mark.parametrize("special", ["none", "nan", "ties", "-inf"])
def test_max_pool2d_options_and_special_values_match_pytorch(options,
                                                             special):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 2, 6, 7))
    if special == "nan":  # PyTorch takes the last NaN of a window
        x[rng.random(x.shape) < 0.3] = np.nan
    elif special == "ties":
        x = np.round(x)
    elif special == "-inf":
        x[rng.random(x.shape) < 0.5] = -np.inf
    ours, theirs = nn.MaxPool2d(**options), torch.nn.MaxPool2d(**options)
    assert repr(ours) == repr(theirs)
    tx = toygrad.tensor(x, requires_grad=True)
    rx = torch.tensor(x, requires_grad=True)
    out, reference = ours(tx), theirs(rx)
    assert graph_structure(out) == graph_structure(reference)
    np.testing.assert_array_equal(out.data, reference.detach().numpy())
    _, indices = torch.nn.functional.max_pool2d(rx, return_indices=True,
                                                **options)
    # The positions saved for backward: which number of a window is taken.
    np.testing.assert_array_equal(out.grad_fn.saved_tensors[1].data,
                                  indices.numpy())
    upstream = rng.standard_normal(out.shape)
    out.backward(toygrad.tensor(upstream))
    reference.backward(torch.from_numpy(upstream))
    np.testing.assert_allclose(tx.grad.data, rx.grad.numpy(), rtol=0,
                               atol=1e-12)


@pytest.mark.parametrize("size", [2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_of_an_expanded_vector_checks_as_matmul_does(size, dtype):
    # Not contiguous, so PyTorch's linear is matmul then add_, not addmm:
    # mm's shape error comes before its dtype error.
    def outcome(lib):
        x = lib.ones((), dtype=getattr(lib, dtype)).expand(size)
        weight = lib.ones((2, 3), dtype=lib.float64)
        bias = lib.ones(2, dtype=lib.float64)
        try:
            return lib.nn.functional.linear(x, weight, bias).tolist()
        except RuntimeError as error:
            return str(error)

    assert outcome(toygrad) == outcome(torch)


@pytest.mark.parametrize("which", ["input", "weight", "bias"])
def test_linear_refuses_what_is_not_a_tensor_as_pytorch(which):
    def outcome(lib):
        arguments = {"input": lib.ones(3), "weight": lib.ones((2, 3)),
                     "bias": lib.ones(2)}
        arguments[which] = None if which != "bias" else 1.0
        try:
            lib.nn.functional.linear(*arguments.values())
        except TypeError as error:
            return str(error)

    assert outcome(toygrad) == outcome(torch)


def test_a_linear_whose_weight_is_none_refuses_as_pytorch():
    def outcome(lib):
        layer = lib.nn.Linear(3, 2)
        layer.weight = None
        with pytest.raises(TypeError) as error:
            layer(lib.ones(3))
        return str(error.value)

    assert outcome(toygrad) == outcome(torch)
