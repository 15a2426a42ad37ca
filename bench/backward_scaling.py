"""Backward time against graph size: a chain of n recorded multiplications.

``y = x * c`` n times over, where ``x`` is a leaf of four numbers that requires
grad and ``c`` a constant tensor of four numbers: n ``MulBackward0`` nodes in a
line, then one ``AccumulateGrad``. For each n, toygrad and PyTorch (one
thread) take turns: each builds its chain (the forward, timed too) and runs
``backward`` on it (timed). The medians over the repeats are fitted by least
squares (relative residuals) with a straight line, time = intercept + slope *
n; the slope is the cost of one node in backward, in microseconds.

    .venv/bin/python bench/backward_scaling.py [--repeats N] [--sizes N ...] [--json]

The clock is the process's CPU time (``time.process_time``), not the wall
clock: on a shared machine a long timing is more likely than a short one to
be interrupted by another program, and the wall clock would count those
interruptions, bending the line upward for the large graphs. On CPU both
engines run backward in the calling thread, and PyTorch is held to one
thread, so the CPU time is the engine's work.

Before each timing the garbage collector runs once, untimed, and during the
timing it is paused, as ``timeit`` does. Its pauses would otherwise land at
moments that depend on everything alive in the process, and each would scan
the whole chain of toygrad's nodes (Python objects), none of PyTorch's (C++
objects): a cost that grows with the graph, but not the engine's.
"""

import argparse
import gc
import json
import statistics
import time

import numpy as np
import torch

import toygrad

SIZES = (10, 30, 100, 300, 1000, 3000, 10000, 30000)
ENGINES = {"toygrad": toygrad, "pytorch": torch}


def chain_once(lib, n):
    """CPU seconds to record a chain of n multiplications, and to run
    backward."""
    x = lib.tensor(np.linspace(0.5, 2.0, 4), requires_grad=True)
    c = lib.tensor(np.full(4, 1.0001))
    seed = lib.ones(4, dtype=x.dtype)
    gc.collect()
    gc.disable()  # as timeit does: see the module's docstring
    try:
        start = time.process_time()
        y = x
        for _ in range(n):
            y = y * c
        middle = time.process_time()
        y.backward(seed)
        end = time.process_time()
    finally:
        gc.enable()
    assert x.grad is not None
    return middle - start, end - middle


def fit(sizes, seconds):
    """Least-squares line through (n, microseconds): slope, intercept, r^2.

    The sizes span decades, so each residual is taken relative to its
    measurement (weights 1 / time): a plain fit would be decided by the
    largest graphs alone. r^2 is measured the same way.
    """
    n = np.asarray(sizes, dtype=float)
    micros = np.asarray(seconds) * 1e6
    weight = 1 / micros
    slope, intercept = np.polyfit(n, micros, 1, w=weight)
    residual = weight * (micros - (intercept + slope * n))
    mean = np.sum(weight ** 2 * micros) / np.sum(weight ** 2)
    spread = weight * (micros - mean)
    r2 = 1 - residual @ residual / (spread @ spread)
    return {"slope_us": float(slope), "intercept_us": float(intercept),
            "r2": float(r2)}


def exponent(sizes, seconds, smallest=300):
    """k in time ~ n**k, from the sizes of at least ``smallest`` nodes, where
    the fixed part of the time no longer counts: 1 for linear growth."""
    n = np.asarray(sizes, dtype=float)
    large = n >= smallest
    k, _ = np.polyfit(np.log(n[large]), np.log(np.asarray(seconds)[large]), 1)
    return float(k)


def measure(sizes=SIZES, repeats=7):
    """Median forward and backward seconds per engine and size; the fitted
    lines; the ratio of the backward slopes (toygrad / PyTorch); backward
    over forward time for each size."""
    torch.set_num_threads(1)
    sizes = list(sizes)
    times = {(name, n): [] for name in ENGINES for n in sizes}
    for lib in ENGINES.values():
        chain_once(lib, 100)  # warm up (PyTorch starts its engine's thread)
    gc.collect()
    gc.freeze()  # what exists now is never garbage: collections skip it
    try:
        for _ in range(repeats):
            for n in sizes:
                for name, lib in ENGINES.items():
                    times[name, n].append(chain_once(lib, n))
    finally:
        gc.unfreeze()
    forward = {name: [statistics.median(f for f, _ in times[name, n])
                      for n in sizes] for name in ENGINES}
    backward = {name: [statistics.median(b for _, b in times[name, n])
                       for n in sizes] for name in ENGINES}
    fits = {name: fit(sizes, backward[name]) for name in ENGINES}
    for name in ENGINES:
        fits[name]["exponent"] = exponent(sizes, backward[name])
    return {
        "sizes": sizes,
        "forward_s": forward,
        "backward_s": backward,
        "backward_fit": fits,
        "toygrad/pytorch backward slope": (fits["toygrad"]["slope_us"]
                                           / fits["pytorch"]["slope_us"]),
        "backward/forward": {
            name: [b / f for b, f in zip(backward[name], forward[name])]
            for name in ENGINES},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.sizes, args.repeats)
    if args.json:
        print(json.dumps(result))
        return
    for name in ENGINES:
        line = result["backward_fit"][name]
        print(f"{name:8} backward: {line['slope_us']:6.2f} us per node "
              f"+ {line['intercept_us']:7.1f} us (r^2 {line['r2']:.4f}); "
              f"time ~ n^{line['exponent']:.2f} from n = 300")
    print(f"backward slope toygrad / pytorch = "
          f"{result['toygrad/pytorch backward slope']:.2f}")
    for name, ratios in result["backward/forward"].items():
        print(f"{name:8} backward / forward: "
              + "  ".join(f"n={n} {r:.2f}"
                          for n, r in zip(result["sizes"], ratios)))


if __name__ == "__main__":
    main()
