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

    def zero_grad(self, set_to_none=True):
        """Forget the gradients: None (the default, as in PyTorch), or with
        ``set_to_none=False`` zeros written into each ``.grad`` in place."""
        for p in self.params:
            grad = p.grad
            if grad is None:
                continue
            if set_to_none:
                p.grad = None
            elif grad.grad_fn is not None:  # PyTorch would detach_ it
                raise NotImplementedError(
                    "toygrad's zero_grad(set_to_none=False) does not support "
                    "a .grad that has a grad_fn (from create_graph=True)")
            else:
                grad.requires_grad_(False)
                grad.zero_()
