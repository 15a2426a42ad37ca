"""``DistributedDataParallel``: one model in several processes, each on its
share of the batch, averaging gradients as backward writes them.

PyTorch's ``Reducer`` (``torch/csrc/distributed/c10d/reducer.cpp``) hangs
its all-reduce on each parameter's ``AccumulateGrad`` node, and reduces the
gradients in buckets of several parameters. toygrad's hangs it on the same
place, a post-accumulate-grad hook, and reduces each parameter's gradient
on its own: a bucket of one.
"""

from toygrad import distributed
from toygrad.nn.modules import Module
from toygrad.tensor import tensor


class DistributedDataParallel(Module):
    """Wrap ``module``: every process starts from rank 0's parameters, and
    each ``.grad`` that backward writes becomes the mean over the processes
    before backward returns."""

    def __init__(self, module, **options):
        if options:
            raise NotImplementedError(
                "toygrad's DistributedDataParallel does not support "
                + ", ".join(sorted(options)))
        super().__init__()
        trained = [p for p in module.parameters() if p.requires_grad]
        if not trained:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't "
                "have any parameter that requires a gradient.")
        self.module = module
        self.world_size = distributed.get_world_size()
        for parameter in module.parameters():  # rank 0's, everywhere
            distributed.broadcast(parameter, src=0)
        for parameter in trained:
            parameter.register_post_accumulate_grad_hook(
                self._average_gradient)

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

    # Task 16.1: the gradient-averaging hook
    def _average_gradient(self, parameter):
        """The post-accumulate-grad hook: replace ``parameter.grad`` by the
        mean of every process's gradient, as PyTorch's Reducer computes it:
        each process scales its own by ``1 / world_size``, then all-reduce
        sums them."""
        bucket = tensor(parameter.grad.data * (1 / self.world_size))
        distributed.all_reduce(bucket)
        parameter.grad = bucket
