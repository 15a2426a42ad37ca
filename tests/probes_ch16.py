"""Chapter 16's probes: the gradient-averaging hook of data-parallel training (task 16.1).

First the hook alone: in each of two worker processes a parameter is given a gradient drawn
from the seed, and the hook is called on it (no backward: only the hook's code runs, so an
unfinished hook is the first thing to fail, even while the engine's tasks are unfinished too).
Then two worker processes (``toygrad.distributed.Workers``) train chapter 15's MLP with toygrad's
``DistributedDataParallel`` for two SGD steps, each on its half of every batch; the probe
returns every rank's gradients after each backward. The weights and the batches are drawn
from the seed. tests/test_tasks_ch16.py says what they must be: PyTorch's gradients of one
process on the whole batches."""

import numpy as np

import toygrad
from toygrad.distributed import Workers
from toygrad.examples import data_parallel


def inputs(seed=0):
    """The MLP's starting weights (by name) and two batches of 16 rows."""
    rng = np.random.default_rng(seed)
    model = data_parallel.mlp(toygrad, generator=rng, dtype=np.float64)
    state = {name: value.data.copy() for name, value in model.state_dict().items()}
    batches = [(rng.random((16, 64)), rng.integers(0, 10, 16)) for _ in range(2)]
    return state, batches


def drawn_gradients(seed=0):
    """The two ranks' gradients for a 3 x 2 weight, drawn from the seed."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((3, 2)) for _ in range(2)]


def _hook_alone(rank, world_size, gradients):
    """In one worker: a Linear's weight given this rank's gradient, then the hook."""
    from toygrad import distributed as dist
    from toygrad.nn.parallel import DistributedDataParallel

    dist.init_process_group("pipe", rank=rank, world_size=world_size)
    try:
        layer = toygrad.nn.Linear(2, 3, dtype=toygrad.float64)
        ddp = DistributedDataParallel(layer)
        layer.weight.grad = toygrad.tensor(gradients[rank])
        ddp._average_gradient(layer.weight)
        return layer.weight.grad.data.tolist()
    finally:
        dist.destroy_process_group()


def hook_alone(seed=0):
    """[rank]: the weight's gradient after the hook, in each process."""
    with Workers(2) as workers:
        return workers.run(_hook_alone, 2, drawn_gradients(seed))


def averaged_gradients(seed=0):
    """[rank][step][parameter name]: each process's gradients after each backward."""
    state, batches = inputs(seed)
    with Workers(2) as workers:
        ranks = workers.run(data_parallel.toygrad_ddp, 2, state, batches)
    return [[{name: grads[name] for name in sorted(grads)} for grads in rank["grads"]]
            for rank in ranks]
