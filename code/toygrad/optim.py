"""Optimizers, as in ``torch.optim``."""

import numpy as np


class SGD:
    """Plain stochastic gradient descent: ``p -= lr * p.grad``."""

    def __init__(self, params, lr):
        self.params = list(params)
        self.lr = lr

    def step(self):
        # Outside the graph, in place, as PyTorch's optimizers update.
        for p in self.params:
            if p.grad is not None:
                np.subtract(p.data, self.lr * p.grad.data, out=p.data)
                p._bump_version()

    def zero_grad(self):
        for p in self.params:
            p.grad = None
