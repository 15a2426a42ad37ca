"""Chapter 16's data-parallel runs: what each process does, in PyTorch (DDP
over gloo) and in toygrad (``toygrad.nn.parallel``). They live in a module,
not in the chapter, because the processes are started with 'spawn' and
import the function they run.

Each run trains chapter 15's MLP for a few SGD steps on the process's share
of every batch (rows ``rank::world_size``) and returns what it saw as NumPy
arrays and plain lists: the gradients after each backward, and the events
that happened during it, in order.
"""

import numpy as np

# PyTorch's DDP models of this process, kept alive until it ends: deleting one
# destroys its gloo process group, which joins its threads while holding the
# GIL, and a thread that ran the Python comm hook may wait for the GIL then.
_kept = []


def mlp(lib, **init):
    """Chapter 15's MLP for the digits, in ``lib`` (toygrad or torch)."""
    return lib.nn.Sequential(lib.nn.Linear(64, 64, **init), lib.nn.ReLU(),
                             lib.nn.Linear(64, 10, **init))


def _train(lib, model, wrapped, batches, lr, events):
    """SGD steps on this process's shards; the gradients after each
    backward, and an event when backward has returned."""
    optimizer = lib.optim.SGD(model.parameters(), lr=lr)
    grads = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(
            wrapped(lib.tensor(x)), lib.tensor(y))
        loss.backward()
        events.append(("backward returned",))
        grads.append({name: np.array(p.grad.tolist())
                      for name, p in model.named_parameters()})
        optimizer.step()
    return grads


def _record_accumulation(model, events):
    """A post-accumulate-grad hook on each parameter that notes its name."""
    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(
            lambda p, name=name: events.append(("accumulated", name)))


def _shards(rank, world_size, batches):
    return [(x[rank::world_size], y[rank::world_size]) for x, y in batches]


def torch_ddp(rank, world_size, init_method, state, batches, lr=0.1,
              bucket_cap_mb=None):
    """One process of PyTorch's DDP on the gloo backend, with a comm hook
    that notes each bucket's parameters when the Reducer hands it over,
    then averages it: divided by the world size, where DDP's default
    multiplies by its inverse (the same bits for a world of two)."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=init_method, rank=rank,
                            world_size=world_size)
    try:
        model = mlp(torch).double()
        model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
        events = []
        _record_accumulation(model, events)
        ddp = DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
        names = {id(p): name for name, p in model.named_parameters()}

        def note_and_average(process_group, bucket):
            events.append(("bucket", bucket.index(),
                           [names[id(p)] for p in bucket.parameters()]))
            averaged = bucket.buffer().div_(world_size)
            future = dist.all_reduce(averaged, async_op=True).get_future()
            return future.then(lambda done: done.value()[0])

        ddp.register_comm_hook(None, note_and_average)
        _kept.append(ddp)
        grads = _train(torch, model, ddp, _shards(rank, world_size, batches),
                       lr, events)
        return dict(grads=grads, events=events)
    finally:
        dist.destroy_process_group()


def toygrad_ddp(rank, world_size, state, batches, lr=0.1):
    """One process of toygrad's DistributedDataParallel, its averaging
    hook noted after each parameter's accumulation."""
    import toygrad
    from toygrad import distributed as dist
    from toygrad.nn.parallel import DistributedDataParallel

    dist.init_process_group("pipe", rank=rank, world_size=world_size)
    try:
        model = mlp(toygrad, dtype=np.float64)
        model.load_state_dict({k: toygrad.tensor(v) for k, v in state.items()})
        events = []
        _record_accumulation(model, events)
        ddp = DistributedDataParallel(model)
        for name, p in model.named_parameters():  # after DDP's own hook
            p.register_post_accumulate_grad_hook(
                lambda p, name=name: events.append(("averaged", name)))
        grads = _train(toygrad, model, ddp,
                       _shards(rank, world_size, batches), lr, events)
        return dict(grads=grads, events=events)
    finally:
        dist.destroy_process_group()


def fail_on(rank, failing_rank):
    """A worker function that raises in one process, after the other has
    started waiting for it in an all-reduce."""
    import toygrad
    from toygrad import distributed as dist

    dist.init_process_group("pipe")
    if rank == failing_rank:
        raise ValueError(f"rank {rank} fails on purpose")
    dist.all_reduce(toygrad.tensor(np.ones(3)))  # waits forever
    return rank
