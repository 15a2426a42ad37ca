"""Memory per recorded node: what a chain of n tiny operations keeps alive.

``y = op(y)`` n times over from a leaf of four float64 numbers that requires
grad, for two operations: ``-y``, whose ``NegBackward0`` node saves nothing,
and ``y.tanh()``, whose ``TanhBackward0`` saves its output (a tensor of four
numbers per node). Only the last output is referenced, so what the chain
holds is the nodes, their edges and what they saved.

Two ways of counting, each in a fresh process per (engine, operation):

- ``rss``: the process's resident memory (Linux ``/proc/self/statm``) after
  recording n nodes and again after n more; the difference over n. It counts
  every byte the process touches, from Python's allocator and from C++'s
  alike, rounded to pages, so n must be large. The same count for both.
- ``tracemalloc``: the bytes Python's allocator hands out and does not take
  back over those same n nodes. It sees toygrad's nodes, which are Python
  objects (and NumPy's buffers, which NumPy reports to it), but not the C++
  objects PyTorch's autograd allocates: for PyTorch it counts only what
  Python sees.

    .venv/bin/python bench/node_memory.py [--nodes N] [--json]
"""

import argparse
import gc
import json
import operator
import os
import subprocess
import sys
import tracemalloc

ENGINES = ("toygrad", "pytorch")
OPERATIONS = ("neg", "tanh")
NODES = 100_000


def resident_bytes():
    """The process's resident set size (Linux only)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(engine, operation, n):
    """In a fresh process: bytes per node by both counts, as JSON on stdout."""
    import numpy as np
    if engine == "pytorch":
        import torch as lib
        lib.set_num_threads(1)
    else:
        import toygrad as lib

    step = {"neg": operator.neg, "tanh": lambda y: y.tanh()}[operation]

    def record(y, count):
        for _ in range(count):
            y = step(y)
        return y

    leaf = lib.tensor(np.linspace(0.5, 2.0, 4), requires_grad=True)
    record(leaf, 1000)  # warm up: imports, caches, first allocations
    gc.collect()
    counts = {}
    y = record(leaf, n)
    gc.collect()
    before = resident_bytes()
    y = record(y, n)  # the second n: the first n brought the heap up to size
    gc.collect()
    counts["rss"] = (resident_bytes() - before) / n
    assert y.grad_fn.name() == {"neg": "NegBackward0",
                                "tanh": "TanhBackward0"}[operation]
    del y
    gc.collect()
    tracemalloc.start()
    y = record(leaf, n)
    gc.collect()
    traced_before, _ = tracemalloc.get_traced_memory()
    y = record(y, n)
    gc.collect()
    traced_after, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    counts["tracemalloc"] = (traced_after - traced_before) / n
    print(json.dumps(counts))


def measure(nodes=NODES):
    """Bytes per node, keyed engine -> operation -> count, and the ratios of
    the resident-memory counts (toygrad / PyTorch)."""
    if not os.path.exists("/proc/self/statm"):
        raise NotImplementedError("node_memory reads /proc/self/statm: Linux "
                                  "only")
    found = {engine: {} for engine in ENGINES}
    for engine in ENGINES:
        for operation in OPERATIONS:
            done = subprocess.run(
                [sys.executable, __file__, "--child", engine, operation,
                 "--nodes", str(nodes)],
                capture_output=True, text=True, check=True)
            found[engine][operation] = json.loads(done.stdout)
    return {
        "bytes_per_node": found,
        "nodes": nodes,
        "toygrad/pytorch rss": {
            operation: found["toygrad"][operation]["rss"]
            / found["pytorch"][operation]["rss"] for operation in OPERATIONS},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=NODES)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "OPERATION"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.nodes)
        return
    result = measure(args.nodes)
    if args.json:
        print(json.dumps(result))
        return
    for engine, operations in result["bytes_per_node"].items():
        for operation, counts in operations.items():
            print(f"{engine:8} {operation:5} "
                  + "  ".join(f"{count} {value:7.0f} bytes per node"
                              for count, value in counts.items()))
    for operation, ratio in result["toygrad/pytorch rss"].items():
        print(f"{operation:5} resident bytes per node, toygrad / pytorch = "
              f"{ratio:.2f}")


if __name__ == "__main__":
    main()
