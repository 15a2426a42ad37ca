"""Optimizers, as in ``torch.optim``."""

import numpy as np


class SGD:
    """Plain stochastic gradient descent: ``p -= lr * p.grad``."""

    def __init__(self, params, lr, **unsupported):
        if unsupported:  # momentum, weight_decay, ...: not in toygrad
            raise NotImplementedError(
                "toygrad's SGD does not support the argument(s) "
                f"{', '.join(sorted(unsupported))}")
        self.params = list(params)
        self.lr = lr

    def step(self):
        # Outside the graph, in place, as PyTorch's optimizers update.
        for p in self.params:
            grad = p.grad
            if grad is not None:
                np.subtract(p.data, self.lr * grad.data, out=p.data)
                p._bump_version()  # as any in-place change

    def zero_grad(self):
        for p in self.params:
            p.grad = None
