"""Chapter 16's probe: the gradient-averaging hook of data-parallel training (task 16.1).

Two worker processes (``toygrad.distributed.Workers``) train chapter 15's MLP with toygrad's
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


def averaged_gradients(seed=0):
    """[rank][step][parameter name]: each process's gradients after each backward."""
    state, batches = inputs(seed)
    with Workers(2) as workers:
        ranks = workers.run(data_parallel.toygrad_ddp, 2, state, batches)
    return [[{name: grads[name] for name in sorted(grads)} for grads in rank["grads"]]
            for rank in ranks]
