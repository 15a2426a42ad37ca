"""One SGD step of a digits MLP in toygrad, in PyTorch and in hand-written NumPy.

The network: 64 inputs (scikit-learn's bundled 8x8 digits), 128 ReLU units,
10 outputs; cross-entropy loss; plain SGD; batches of 256; float32. All three
run on one thread (PyTorch's intra-op threads and NumPy's BLAS alike), start
from the same weights, and see the same batches; their steps alternate, and
the ratios of median times are reported. The hand-written NumPy step is the
same computation written plainly, with no graph: the floor for an engine that
makes the same NumPy calls. (toygrad takes three reductions a faster way:
log_softmax's row maxima and sums over short rows, and the bias's gradient
summed over the batch; see ``_row_max`` and ``_row_sum`` in
toygrad/ops/nn_functions.py, ``_sum_down`` in toygrad/ops/common.py.)

    .venv/bin/python bench/digits_mlp.py [--steps N] [--batch B ...] [--json]

With several batch sizes (``--batch 1 16 256 2048``) it measures each in turn
and prints one line per size.
"""

import argparse
import json
import statistics
import time

import numpy as np
import torch
from sklearn.datasets import load_digits
from threadpoolctl import threadpool_limits

import toygrad
import toygrad.nn.functional as F
from toygrad import nn, optim

BATCH, HIDDEN, LR = 256, 128, 0.1


def batches(seed=0, batch=None):
    """Endless batches of (inputs in [0, 1], labels), float32 and int64, of
    ``batch`` images (BATCH by default); larger than the data set, with
    repeats."""
    batch = BATCH if batch is None else batch
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    rng = np.random.default_rng(seed)
    while True:
        rows = rng.choice(len(X), batch, replace=batch > len(X))
        yield X[rows], y[rows]


def initial_weights(seed=0):
    rng = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(64, HIDDEN, generator=rng), nn.ReLU(),
                          nn.Linear(HIDDEN, 10, generator=rng))
    return [p.data.copy() for p in model.parameters()]


class ToygradStep:
    def __init__(self, weights):
        self.model = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU(),
                                   nn.Linear(HIDDEN, 10))
        for p, w in zip(self.model.parameters(), weights):
            p.data = w.copy()
        self.optimizer = optim.SGD(self.model.parameters(), lr=LR)

    def __call__(self, x, y):
        loss = F.cross_entropy(self.model(toygrad.from_numpy(x)),
                               toygrad.from_numpy(y))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


class TorchStep:
    def __init__(self, weights):
        self.model = torch.nn.Sequential(
            torch.nn.Linear(64, HIDDEN), torch.nn.ReLU(),
            torch.nn.Linear(HIDDEN, 10))
        with torch.no_grad():
            for p, w in zip(self.model.parameters(), weights):
                p.copy_(torch.from_numpy(w))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=LR)

    def __call__(self, x, y):
        loss = torch.nn.functional.cross_entropy(
            self.model(torch.from_numpy(x)), torch.from_numpy(y))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


class NumpyStep:
    """Forward and backward by hand: what any NumPy engine must compute."""

    def __init__(self, weights):
        self.W1, self.b1, self.W2, self.b2 = [w.copy() for w in weights]

    def __call__(self, x, y):
        W1, b1, W2, b2 = self.W1, self.b1, self.W2, self.b2
        rows = np.arange(len(y))
        h = x @ W1.T
        h += b1
        a = np.maximum(h, 0)
        z = a @ W2.T
        z += b2
        shifted = z - z.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -log_probs[rows, y].mean()
        # d loss / d z = softmax(z) - one_hot(y), over the batch size
        grad_z = np.exp(log_probs)
        grad_z[rows, y] -= 1
        grad_z /= len(y)
        grad_a = grad_z @ W2
        grad_h = grad_a * (h > 0)
        W2 -= LR * (grad_z.T @ a)
        b2 -= LR * grad_z.sum(axis=0)
        W1 -= LR * (grad_h.T @ x)
        b1 -= LR * grad_h.sum(axis=0)
        return float(loss)


def measure(steps=200, warmup=20, batch=None):
    """Median seconds per step for each engine, their ratios, and whether the
    three trained to the same loss; batches of ``batch`` (BATCH by default)."""
    torch.set_num_threads(1)
    weights = initial_weights()
    engines = {"toygrad": ToygradStep(weights), "pytorch": TorchStep(weights),
               "numpy": NumpyStep(weights)}
    times = {name: [] for name in engines}
    losses = {}
    data = batches(batch=batch)
    with threadpool_limits(limits=1):
        for step in range(warmup + steps):
            x, y = next(data)
            for name, engine in engines.items():
                start = time.perf_counter()
                losses[name] = engine(x, y)
                if step >= warmup:
                    times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) for name, t in times.items()}
    return {
        "seconds": median,
        "toygrad/pytorch": median["toygrad"] / median["pytorch"],
        "toygrad/numpy": median["toygrad"] / median["numpy"],
        "final_losses": losses,
        "same_loss": max(losses.values()) - min(losses.values()) < 1e-4,
    }


def sweep(sizes, steps, as_json):
    """Print, for each batch size, the engines' times and the ratios."""
    results = {size: measure(steps, warmup=max(2, steps // 10), batch=size)
               for size in sizes}
    if as_json:
        print(json.dumps(results))
        return
    for size, result in results.items():
        micros = "  ".join(f"{name} {seconds * 1e6:8.0f} us"
                           for name, seconds in result["seconds"].items())
        print(f"batch {size:5}: {micros}   toygrad / pytorch "
              f"{result['toygrad/pytorch']:.2f}   toygrad / numpy "
              f"{result['toygrad/numpy']:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, nargs="+", default=[BATCH],
                        help="batch sizes, each measured in turn")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if len(args.batch) > 1:
        sweep(args.batch, args.steps, args.json)
        return
    result = measure(args.steps, batch=args.batch[0])
    if args.json:
        print(json.dumps(result))
        return
    for name, seconds in result["seconds"].items():
        print(f"{name:8} {seconds * 1e6:8.0f} us per step")
    print(f"toygrad / pytorch = {result['toygrad/pytorch']:.2f}")
    print(f"toygrad / numpy   = {result['toygrad/numpy']:.2f}")
    print(f"final losses: {result['final_losses']}")


if __name__ == "__main__":
    main()
