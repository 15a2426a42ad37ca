"""Chapter 8: the seed's ScipyConv2d, as given, and fixed (PyTorch and toygrad)."""

from pathlib import Path

import numpy as np
import pytest
import torch

import toygrad
from toygrad.autograd import gradcheck
from toygrad.examples import scipy_conv, scipy_conv_torch

pytestmark = pytest.mark.ch08

ROOT = Path(__file__).resolve().parents[1]
SHAPES = [((5, 5), (3, 3)), ((6, 7), (3, 2)), ((4, 9), (1, 4)), ((8, 3), (5, 2))]


def test_seed_file_is_the_seed_code_block_byte_for_byte():
    document = (ROOT / "seed" / "000_ae384d4ab0d9cbf1.txt").read_bytes()
    start = document.index(b"#!/usr/bin/env python")
    end = document.index(b"print(input.grad)\n") + len(b"print(input.grad)\n")
    assert (ROOT / "seed" / "answer2_scipy_conv2d.py").read_bytes() == document[start:end]


def test_seed_code_does_not_parse():
    source = (ROOT / "seed" / "answer2_scipy_conv2d.py").read_text()
    with pytest.raises(IndentationError) as error:
        compile(source, "answer2_scipy_conv2d.py", "exec")
    assert error.value.lineno == 41


def random_inputs(x_shape, w_shape, seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(w_shape)
    assert w.shape != w.T.shape or not np.allclose(w, w.T)  # not symmetric
    return rng.standard_normal(x_shape), w, rng.standard_normal(1)


@pytest.mark.parametrize("x_shape, w_shape", SHAPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fixed_2d_passes_gradcheck_and_matches_conv2d(x_shape, w_shape, seed):
    x, w, b = (torch.tensor(a, requires_grad=True) for a in random_inputs(x_shape, w_shape, seed))
    Fixed = scipy_conv_torch.ScipyConv2dFunction
    assert torch.autograd.gradcheck(Fixed.apply, (x, w, b))
    assert torch.autograd.gradcheck(lambda w: Fixed.apply(x.detach(), w, b.detach()), (w,))
    out = Fixed.apply(x, w, b)
    reference = torch.nn.functional.conv2d(x[None, None], w[None, None], b)[0, 0]
    torch.testing.assert_close(out, reference)
    upstream = torch.randn(out.shape, dtype=torch.float64)
    for ours, theirs in zip(torch.autograd.grad(out, (x, w, b), upstream),
                            torch.autograd.grad(reference, (x, w, b), upstream)):
        torch.testing.assert_close(ours, theirs)


@pytest.mark.parametrize("n, c_in, c_out, size, kernel", [(1, 1, 1, (5, 5), (3, 3)),
                                                         (2, 3, 4, (6, 5), (3, 2)),
                                                         (3, 2, 1, (4, 7), (2, 4))])
def test_fixed_batched_passes_gradcheck_and_matches_conv2d(n, c_in, c_out, size, kernel):
    rng = np.random.default_rng(n + c_in + c_out)
    x = torch.tensor(rng.standard_normal((n, c_in) + size), requires_grad=True)
    w = torch.tensor(rng.standard_normal((c_out, c_in) + kernel), requires_grad=True)
    b = torch.tensor(rng.standard_normal(c_out), requires_grad=True)
    Batched = scipy_conv_torch.ScipyConv2dBatchedFunction
    assert torch.autograd.gradcheck(Batched.apply, (x, w, b))
    out, reference = Batched.apply(x, w, b), torch.nn.functional.conv2d(x, w, b)
    torch.testing.assert_close(out, reference)
    upstream = torch.randn(out.shape, dtype=torch.float64)
    for ours, theirs in zip(torch.autograd.grad(out, (x, w, b), upstream),
                            torch.autograd.grad(reference, (x, w, b), upstream)):
        torch.testing.assert_close(ours, theirs)


@pytest.mark.parametrize("x_shape, w_shape", SHAPES)
def test_toygrad_version_matches_pytorch(x_shape, w_shape):
    arrays = random_inputs(x_shape, w_shape, 7)
    ours = [toygrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_ours = scipy_conv.ScipyConv2dFunction.apply(*ours)
    out_theirs = scipy_conv_torch.ScipyConv2dFunction.apply(*theirs)
    np.testing.assert_allclose(out_ours.data, out_theirs.detach().numpy(), rtol=1e-12)
    upstream = np.random.default_rng(8).standard_normal(out_ours.shape)
    out_ours.backward(toygrad.tensor(upstream))
    out_theirs.backward(torch.tensor(upstream))
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.data, t.grad.numpy(), rtol=1e-12)
    assert gradcheck(scipy_conv.ScipyConv2dFunction.apply, ours)


def test_toygrad_module_registers_its_parameters():
    layer = scipy_conv.ScipyConv2d(3, 2, generator=np.random.default_rng(0))
    assert [name for name, _ in layer.named_parameters()] == ["filter", "bias"]
    out = layer(toygrad.tensor(np.ones((4, 4))))
    assert out.shape == (2, 3) and out.grad_fn.name() == "ScipyConv2dFunctionBackward"
