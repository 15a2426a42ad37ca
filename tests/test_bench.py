"""The benchmarks behind the performance appendix run, at tiny sizes, and
return what the appendix reads. No timing is asserted: the machine is shared."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import backward_scaling  # noqa: E402
import digits_mlp  # noqa: E402
import node_memory  # noqa: E402
import op_overhead  # noqa: E402


def positive(value):
    return isinstance(value, float) and math.isfinite(value) and value > 0


def test_op_overhead_measures_every_case():
    result = op_overhead.measure(rounds=2, calls=3)
    engines = {key.split("|")[0] for key in result["microseconds"]}
    assert engines == {"toygrad", "pytorch", "toygrad Value", "micrograd",
                       "numpy"}
    assert len(result["microseconds"]) == len(op_overhead.cases())
    assert all(positive(us) for us in result["microseconds"].values())
    ratios = [name for name in result if "/" in name]
    assert len(ratios) == 8 and all(positive(result[name]) for name in ratios)


@pytest.mark.parametrize("batch", [1, 5, 2000])
def test_digits_mlp_measures_any_batch(batch):
    x, y = next(digits_mlp.batches(batch=batch))
    assert x.shape == (batch, 64) and y.shape == (batch,)
    result = digits_mlp.measure(steps=2, warmup=1, batch=batch)
    assert set(result["seconds"]) == {"toygrad", "pytorch", "numpy"}
    assert all(positive(s) for s in result["seconds"].values())
    assert result["same_loss"], result["final_losses"]


def test_digits_mlp_default_batch_is_still_read_at_call_time(monkeypatch):
    monkeypatch.setattr(digits_mlp, "BATCH", 3)  # chapter 5's sweep sets it
    x, _ = next(digits_mlp.batches())
    assert x.shape == (3, 64)


def test_backward_scaling_fits_a_line():
    result = backward_scaling.measure(sizes=(2, 5, 300, 600), repeats=1)
    assert result["sizes"] == [2, 5, 300, 600]
    for name in ("toygrad", "pytorch"):
        assert len(result["backward_s"][name]) == 4
        assert len(result["backward/forward"][name]) == 4
        assert set(result["backward_fit"][name]) == {
            "slope_us", "intercept_us", "r2", "exponent"}
    assert math.isfinite(result["toygrad/pytorch backward slope"])


def test_fit_recovers_a_line():
    sizes = [10, 100, 1000]
    line = backward_scaling.fit(sizes, [(3 + 2 * n) * 1e-6 for n in sizes])
    assert line["slope_us"] == pytest.approx(2)
    assert line["intercept_us"] == pytest.approx(3)
    assert line["r2"] == pytest.approx(1)


def test_exponent_of_a_power_law():
    sizes = [300, 1000, 3000, 10000]
    assert backward_scaling.exponent(sizes, [n ** 1.5 for n in sizes]) == (
        pytest.approx(1.5))
    assert backward_scaling.exponent([10, *sizes], [1, *sizes]) == (
        pytest.approx(1))  # n = 10 is below the sizes it reads


def test_chains_give_pytorchs_gradient():
    import torch

    import toygrad
    grads = []
    for lib in (toygrad, torch):
        x = lib.tensor(np.linspace(0.5, 2.0, 4), requires_grad=True)
        y = x
        for _ in range(50):
            y = y * lib.tensor(np.full(4, 1.0001))
        y.backward(lib.ones(4, dtype=x.dtype))
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
    np.testing.assert_allclose(grads[0], np.full(4, 1.0001 ** 50))


def test_node_memory_counts_both_ways():
    result = node_memory.measure(nodes=2000)
    counts = result["bytes_per_node"]
    assert set(counts) == {"toygrad", "pytorch"}
    for engine in counts:
        assert set(counts[engine]) == {"neg", "tanh"}
        for operation in counts[engine].values():
            assert set(operation) == {"rss", "tracemalloc"}
    # toygrad's nodes are Python objects: Python's allocator sees them.
    assert all(counts["toygrad"][op]["tracemalloc"] > 0 for op in ("neg", "tanh"))
