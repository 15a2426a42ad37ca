"""Chapter 16: toygrad's data-parallel training beside PyTorch's DDP, and processes that
always end.

The differential part runs PyTorch's DistributedDataParallel (gloo, two processes on the
CPU) and toygrad's (pipes, two processes) from the same weights on the same batches, and
compares every rank's gradients after each backward, and the order of the hooks: with one
parameter per bucket, PyTorch's Reducer hands the buckets over in the order toygrad's hooks
average the parameters. The rest checks toygrad's refusals against PyTorch's messages, and
that a failing worker leaves no process and no open pipe or socket behind.
"""

import multiprocessing.resource_tracker
import os
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.distributed

import toygrad
from toygrad import distributed
from toygrad.distributed import Workers
from toygrad.examples import data_parallel
from toygrad.nn.parallel import DistributedDataParallel

pytestmark = pytest.mark.ch16


def inputs(seed, rows=24):
    rng = np.random.default_rng(seed)
    model = data_parallel.mlp(toygrad, generator=rng, dtype=np.float64)
    state = {name: value.data.copy() for name, value in model.state_dict().items()}
    batches = [(rng.standard_normal((rows, 64)), rng.integers(0, 10, rows))
               for _ in range(3)]
    return state, batches


def whole_batches(state, batches):
    """PyTorch in one process on the whole batches: the gradients before each step."""
    model = data_parallel.mlp(torch).double()
    model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    grads = []
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(torch.tensor(x)),
                                          torch.tensor(y)).backward()
        grads.append({n: p.grad.numpy().copy() for n, p in model.named_parameters()})
        optimizer.step()
    return grads


@pytest.fixture(scope="module")
def runs():
    """Both libraries' runs, in the same two processes, for two draws of inputs."""
    results = {}
    with tempfile.TemporaryDirectory() as place, Workers(2) as workers:
        for seed in (0, 1):
            state, batches = inputs(seed)
            results[seed] = dict(
                state=state, batches=batches,
                torch=workers.run(data_parallel.torch_ddp, 2,
                                  f"file://{place}/store{seed}", state, batches,
                                  0.1, 1e-6),  # one byte: a bucket per parameter
                toygrad=workers.run(data_parallel.toygrad_ddp, 2, state, batches))
    return results


def steps_of(events):
    cuts, current = [], []
    for event in events:
        current.append(event)
        if event == ("backward returned",):
            cuts.append(current)
            current = []
    assert current == []
    return cuts


@pytest.mark.differential  # toygrad beside PyTorch
@pytest.mark.parametrize("seed", [0, 1])
def test_every_rank_has_pytorch_ddp_s_gradients_and_the_whole_batch_s(runs, seed):
    run = runs[seed]
    reference = whole_batches(run["state"], run["batches"])
    for lib in ("torch", "toygrad"):
        ranks = run[lib]
        assert len(ranks) == 2 and len(ranks[0]["grads"]) == len(run["batches"])
        for step, expected in enumerate(reference):
            for name, value in expected.items():
                assert np.array_equal(ranks[0]["grads"][step][name],
                                      ranks[1]["grads"][step][name])
                np.testing.assert_allclose(ranks[0]["grads"][step][name], value,
                                           rtol=0, atol=1e-15)
                np.testing.assert_allclose(run["toygrad"][0]["grads"][step][name],
                                           run["torch"][0]["grads"][step][name],
                                           rtol=0, atol=1e-15)
    assert np.abs(reference[0]["2.weight"]).max() > 1e-3


@pytest.mark.differential  # toygrad beside PyTorch
@pytest.mark.parametrize("seed", [0, 1])
def test_toygrad_averages_in_the_order_pytorch_s_reducer_hands_buckets_over(runs, seed):
    theirs = steps_of(runs[seed]["torch"][0]["events"])
    ours = steps_of(runs[seed]["toygrad"][0]["events"])
    assert len(theirs) == len(ours) == 3
    for step, (their_step, our_step) in enumerate(zip(theirs, ours)):
        accumulated = [e[1] for e in their_step if e[0] == "accumulated"]
        assert accumulated == [e[1] for e in our_step if e[0] == "accumulated"]
        assert sorted(accumulated) == sorted(runs[seed]["state"])
        # toygrad: each parameter averaged right after its accumulation
        assert our_step == [*(e for name in accumulated for e in (
            ("accumulated", name), ("averaged", name))), ("backward returned",)]
        if step:  # PyTorch: buckets rebuilt after the first step, one per parameter
            assert their_step == [*(e for i, name in enumerate(accumulated) for e in (
                ("accumulated", name), ("bucket", i, [name]))), ("backward returned",)]
        else:  # the first step: one bucket, once every gradient is in
            assert [e[0] for e in their_step] == ["accumulated"] * 4 + [
                "bucket", "backward returned"]


def messages(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 (the error is what is compared)
        return type(error), str(error)
    raise AssertionError("no error")


@pytest.mark.differential  # toygrad beside PyTorch
def test_without_a_group_both_refuse_with_pytorch_s_error():
    assert not torch.distributed.is_initialized() and not distributed.is_initialized()
    for theirs, ours in [
            (lambda: torch.distributed.get_rank(), distributed.get_rank),
            (lambda: torch.distributed.all_reduce(torch.ones(2)),
             lambda: distributed.all_reduce(toygrad.tensor(np.ones(2)))),
            (lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2)),
             lambda: DistributedDataParallel(toygrad.nn.Linear(2, 2)))]:
        assert messages(ours) == messages(theirs)


def refusals(rank):
    """What toygrad refuses by name, inside a worker with a group."""
    found = {"outside": None}
    found["gloo"] = messages(lambda: distributed.init_process_group("gloo"))[1]
    found["wrong rank"] = messages(
        lambda: distributed.init_process_group("pipe", rank=1 - rank))[1]
    distributed.init_process_group("pipe", rank=rank, world_size=2)
    found["twice"] = messages(lambda: distributed.init_process_group("pipe"))[1]
    x = toygrad.tensor(np.ones(2))
    found["max"] = messages(lambda: distributed.all_reduce(x, op="max"))[1]
    found["async"] = messages(lambda: distributed.all_reduce(x, async_op=True))[1]
    found["bucket"] = messages(lambda: DistributedDataParallel(
        toygrad.nn.Linear(2, 2), bucket_cap_mb=1))[1]
    frozen = toygrad.nn.Linear(2, 2)
    for p in frozen.parameters():
        p.requires_grad_(False)
    found["frozen"] = messages(lambda: DistributedDataParallel(frozen))[1]
    distributed.all_reduce(x)
    found["sum"] = x.tolist()
    return found


@pytest.mark.differential  # toygrad beside PyTorch
def test_what_toygrad_refuses_it_names():
    found = messages(lambda: distributed.init_process_group("pipe"))[1]
    assert "only in the processes that toygrad.distributed.Workers runs" in found
    with Workers(2) as workers:
        first, second = workers.run(refusals)
    assert first["sum"] == second["sum"] == [2.0, 2.0]
    assert "not 'gloo'" in first["gloo"]
    assert "not rank 1 of None" in first["wrong rank"]
    # PyTorch's words where PyTorch has the same error
    torch_twice = "trying to initialize the default process group twice!"
    assert first["twice"] == torch_twice
    assert "ReduceOp.SUM only" in first["max"] and "async_op=True" in first["async"]
    assert first["bucket"].endswith("does not support bucket_cap_mb")
    assert first["frozen"].startswith("DistributedDataParallel is not needed")


def socket_and_pipe_count():
    """This process's open pipes and sockets (their file descriptors)."""
    kinds = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
             if os.path.exists(f"/proc/self/fd/{fd}")]
    return sum(kind.startswith(("socket:", "pipe:")) for kind in kinds)


def torch_fails_on(rank, failing_rank, init_method):
    """A gloo group in which one process raises while the other waits for it."""
    torch.distributed.init_process_group("gloo", init_method=init_method, rank=rank,
                                         world_size=2)
    if rank == failing_rank:
        raise ValueError(f"rank {rank} fails on purpose")
    torch.distributed.all_reduce(torch.ones(3))  # waits for the other
    return rank


def exits(rank):
    os._exit(3)


@pytest.mark.parametrize("case", ["toygrad", "torch", "death"])
def test_a_failing_worker_leaves_no_process_and_no_socket(case, tmp_path):
    multiprocessing.resource_tracker.ensure_running()  # one per parent, kept
    before_fds, before_threads = socket_and_pipe_count(), threading.active_count()
    with pytest.raises(RuntimeError) as raised:
        with Workers(2, timeout=60) as workers:
            pids = workers.pids
            if case == "toygrad":
                workers.run(data_parallel.fail_on, 1)
            elif case == "torch":
                workers.run(torch_fails_on, 0, f"file://{tmp_path}/store")
            else:
                workers.run(exits)
    expected = {"toygrad": "rank 1 fails on purpose", "torch": "rank 0 fails on purpose",
                "death": "died (exit code 3)"}[case]
    assert expected in str(raised.value).splitlines()[0]  # what a grader reads
    for pid in pids:  # ended and reaped: no process, so none of its ports
        assert not Path(f"/proc/{pid}").exists()
    assert socket_and_pipe_count() == before_fds
    assert threading.active_count() == before_threads
    assert workers.pids == []
