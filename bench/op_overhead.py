"""The fixed cost of one small operation: ``a * b`` on tensors of four numbers.

Measured for toygrad's Tensor and for PyTorch eager (one thread), recorded
(an input requires grad) and under ``no_grad``, forward alone and forward
followed by ``backward``; for scalars, toygrad's ``Value`` against micrograd;
and NumPy's own ``*`` on the same arrays, the floor under toygrad's Tensor.
Each case runs ``calls`` times in a row per timing; the cases take turns, and
the median over ``rounds`` turns is reported, in microseconds per call.

    .venv/bin/python bench/op_overhead.py [--rounds N] [--calls N] [--json]

Before each timing the garbage collector runs once, untimed. After each
backward the leaves' ``.grad`` is set back to None, as ``zero_grad`` does, so
every call does the same work.
"""

import argparse
import gc
import json
import statistics
import time

import numpy as np
import torch
from micrograd.engine import Value as MicrogradValue

import toygrad
from toygrad.scalar import Value as ToygradValue

SIZE = 4  # numbers per tensor: tiny, so the arithmetic costs next to nothing


def tensor_cases(lib, name):
    """(engine, mode, pass) -> a function making ``calls`` calls, for a
    Tensor library."""
    data = np.linspace(0.5, 2.0, SIZE)
    a = lib.tensor(data, requires_grad=True)
    b = lib.tensor(data[::-1].copy(), requires_grad=True)
    plain_a, plain_b = lib.tensor(data), lib.tensor(data[::-1].copy())
    seed = lib.ones(SIZE, dtype=a.dtype)

    def recorded(calls):
        for _ in range(calls):
            a * b

    def untracked(calls):
        with lib.no_grad():  # entered once: the op's cost, not the mode's
            for _ in range(calls):
                a * b

    def no_input_requires_grad(calls):
        for _ in range(calls):
            plain_a * plain_b

    def with_backward(calls):
        for _ in range(calls):
            (a * b).backward(seed)
            a.grad = b.grad = None

    return {(name, "recorded", "forward"): recorded,
            (name, "no_grad", "forward"): untracked,
            (name, "no input requires grad", "forward"):
                no_input_requires_grad,
            (name, "recorded", "forward+backward"): with_backward}


def scalar_cases(value_class, name):
    """The same for a scalar engine (micrograd records always)."""
    a, b = value_class(1.5), value_class(-0.5)
    if value_class is ToygradValue:
        a.requires_grad = b.requires_grad = True
    empty = None if value_class is ToygradValue else 0.0

    def recorded(calls):
        for _ in range(calls):
            a * b

    def with_backward(calls):
        for _ in range(calls):
            (a * b).backward()
            a.grad = b.grad = empty

    return {(name, "recorded", "forward"): recorded,
            (name, "recorded", "forward+backward"): with_backward}


def numpy_cases():
    a, b = np.linspace(0.5, 2.0, SIZE), np.linspace(2.0, 0.5, SIZE)

    def multiply(calls):
        for _ in range(calls):
            a * b

    return {("numpy", "array", "forward"): multiply}


def cases():
    found = {}
    found.update(tensor_cases(toygrad, "toygrad"))
    found.update(tensor_cases(torch, "pytorch"))
    found.update(scalar_cases(ToygradValue, "toygrad Value"))
    found.update(scalar_cases(MicrogradValue, "micrograd"))
    found.update(numpy_cases())
    return found


def measure(rounds=30, calls=200):
    """Median microseconds per call of every case, keyed "engine|mode|pass",
    and the ratios the appendix quotes."""
    torch.set_num_threads(1)
    chosen = cases()
    times = {key: [] for key in chosen}
    for run in chosen.values():  # warm up: first calls fill caches
        run(10)
    gc.collect()
    gc.freeze()  # what exists now is never garbage: collections skip it
    try:
        for _ in range(rounds):
            for key, run in chosen.items():
                gc.collect()
                start = time.perf_counter()
                run(calls)
                times[key].append((time.perf_counter() - start) / calls)
    finally:
        gc.unfreeze()
    micros = {"|".join(key): statistics.median(t) * 1e6
              for key, t in times.items()}

    def us(engine, mode="recorded", what="forward"):
        return micros[f"{engine}|{mode}|{what}"]

    return {
        "microseconds": micros,
        "rounds": rounds,
        "calls": calls,
        "toygrad/pytorch recorded": us("toygrad") / us("pytorch"),
        "toygrad/pytorch no_grad": (us("toygrad", "no_grad")
                                    / us("pytorch", "no_grad")),
        "toygrad recorded/no_grad": us("toygrad") / us("toygrad", "no_grad"),
        "pytorch recorded/no_grad": us("pytorch") / us("pytorch", "no_grad"),
        "toygrad/numpy": us("toygrad") / us("numpy", "array"),
        "toygrad/pytorch forward+backward": (
            us("toygrad", what="forward+backward")
            / us("pytorch", what="forward+backward")),
        "Value/micrograd": us("toygrad Value") / us("micrograd"),
        "Value/micrograd forward+backward": (
            us("toygrad Value", what="forward+backward")
            / us("micrograd", what="forward+backward")),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.rounds, args.calls)
    if args.json:
        print(json.dumps(result))
        return
    for key, micros in result["microseconds"].items():
        engine, mode, what = key.split("|")
        print(f"{engine:14} {mode:23} {what:17} {micros:8.2f} us per call")
    for name, ratio in result.items():
        if "/" in name:
            print(f"{name:34} = {ratio:.2f}")


if __name__ == "__main__":
    main()
