"""One SGD step of the same scalar MLP in toygrad's ``Value`` and in micrograd.

The model is micrograd's demo network: 2 inputs, two hidden layers of 16 ReLU
units, one linear output, trained with a hinge loss on 100 points of two
moons (generated here). Both engines run the very same Python code
(``train_step`` below, given the engine's Value class), so they perform the
same operations in the same order. Steps of the two engines alternate, and
the ratio of their median times is reported.

    .venv/bin/python bench/scalar_mlp.py [--steps N] [--json]

Before each timed step the garbage collector runs once, untimed, so that
neither engine pays for garbage the other left behind.
"""

import argparse
import gc
import json
import math
import random
import statistics
import time

from micrograd.engine import Value as MicrogradValue
from toygrad.scalar import Value as ToygradValue

SIZES = (2, 16, 16, 1)


def make_mlp(value_class, seed=0):
    """Layers of (weights, bias) per neuron, initialised as micrograd does."""
    rng = random.Random(seed)
    layers = []
    for fan_in, fan_out in zip(SIZES, SIZES[1:]):
        layers.append([
            ([value_class(rng.uniform(-1, 1)) for _ in range(fan_in)],
             value_class(0.0))
            for _ in range(fan_out)
        ])
    return layers


def parameters(layers):
    return [p for layer in layers for weights, bias in layer
            for p in (*weights, bias)]


def forward(layers, x):
    for depth, layer in enumerate(layers):
        outputs = []
        for weights, bias in layer:
            activation = bias
            for w, xi in zip(weights, x):
                activation = activation + w * xi
            outputs.append(activation.relu() if depth < len(layers) - 1
                           else activation)
        x = outputs
    return x[0]


def train_step(layers, params, X, y, learning_rate=0.05):
    losses = [(1 + -yi * forward(layers, xi)).relu() for xi, yi in zip(X, y)]
    loss = sum(losses) * (1.0 / len(losses))
    for p in params:
        p.grad = None if isinstance(p, ToygradValue) else 0.0
    loss.backward()
    for p in params:
        p.data -= learning_rate * p.grad
    return loss.data


def data(n=100, noise=0.1, seed=1):
    """Two interleaving half circles ("moons") with labels -1 and 1."""
    rng = random.Random(seed)
    X, y = [], []
    for i in range(n):
        label = i % 2
        angle = math.pi * rng.random()
        if label == 0:
            x0, x1 = math.cos(angle), math.sin(angle)
        else:
            x0, x1 = 1 - math.cos(angle), 0.5 - math.sin(angle)
        X.append([x0 + rng.gauss(0, noise), x1 + rng.gauss(0, noise)])
        y.append(2 * label - 1)
    return X, y


def measure(steps=15):
    """Median seconds per training step for each engine, and their ratio.

    The ratio is toygrad's time / micrograd's.
    """
    X, y = data()
    models = {}
    engines = (("toygrad", ToygradValue), ("micrograd", MicrogradValue))
    for name, value_class in engines:
        layers = make_mlp(value_class)
        params = parameters(layers)
        if value_class is ToygradValue:
            for p in params:
                p.requires_grad = True
        models[name] = (layers, params, [])
    losses = {}
    for _ in range(steps):
        for name, (layers, params, times) in models.items():
            gc.collect()
            start = time.perf_counter()
            losses[name] = train_step(layers, params, X, y)
            times.append(time.perf_counter() - start)
    medians = {name: statistics.median(times)
               for name, (_, _, times) in models.items()}
    return {"toygrad_s": medians["toygrad"],
            "micrograd_s": medians["micrograd"],
            "ratio": medians["toygrad"] / medians["micrograd"],
            "same_loss": abs(losses["toygrad"] - losses["micrograd"]) < 1e-9}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15,
                        help="training steps per engine")
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON")
    args = parser.parse_args()
    result = measure(args.steps)
    if args.json:
        print(json.dumps(result))
        return
    per_step = f"ms per step (median of {args.steps})"
    print(f"toygrad   {result['toygrad_s'] * 1e3:8.1f} {per_step}")
    print(f"micrograd {result['micrograd_s'] * 1e3:8.1f} {per_step}")
    print(f"ratio toygrad / micrograd = {result['ratio']:.2f}  "
          f"(same losses: {result['same_loss']})")


if __name__ == "__main__":
    main()
