"""Processes that train together, as ``torch.distributed`` names it.

``Workers`` starts a few processes once and runs functions in all of them,
``fn(rank, *args)``, as ``torch.multiprocessing.spawn`` does, and opens a
pipe between every two of them. In those processes, ``init_process_group``
makes the default group over those pipes, and ``all_reduce`` and
``broadcast`` send NumPy arrays through them (PyTorch's gloo sends bytes over
TCP). Only what data-parallel training needs is here: one group, the sum,
calls that return when they are done.
"""

import multiprocessing
import multiprocessing.connection
import os
import sys
import traceback

import numpy as np

_BACKEND = "pipe"
_NO_GROUP = ("Default process group has not been initialized, please make "
             "sure to call init_process_group.")


class ReduceOp:
    """How ``all_reduce`` combines the processes' tensors: by their sum."""
    SUM = "sum"


class _Group:
    """The default process group: this process's rank, and a pipe to each
    other rank."""

    def __init__(self, rank, size, peers):
        self.rank, self.size, self.peers = rank, size, peers


_launched = None  # (rank, world size, pipes): what Workers gave this process
_world = None  # the default group, once init_process_group made it


def init_process_group(backend=_BACKEND, *, rank=None, world_size=None,
                       **options):
    """Make this process's default group, over the pipes ``Workers`` opened.
    ``rank`` and ``world_size``, if given, must be the ones ``Workers``
    gave."""
    global _world
    if backend != _BACKEND:
        raise NotImplementedError(
            f"toygrad's process groups have one backend, {_BACKEND!r} (pipes "
            f"between the processes of toygrad.distributed.Workers), not "
            f"{backend!r}")
    if options:
        raise NotImplementedError(
            "toygrad's init_process_group does not support "
            + ", ".join(sorted(options)))
    if _world is not None:
        raise ValueError("trying to initialize the default process group "
                         "twice!")
    if _launched is None:
        raise RuntimeError("toygrad's process groups exist only in the "
                           "processes that toygrad.distributed.Workers runs")
    given_rank, given_size, peers = _launched
    if rank not in (None, given_rank) or world_size not in (None, given_size):
        raise ValueError(f"this process is rank {given_rank} of "
                         f"{given_size}, not rank {rank} of {world_size}")
    _world = _Group(given_rank, given_size, peers)


def destroy_process_group():
    """Forget the default group (the pipes stay, for the next one)."""
    global _world
    _group()
    _world = None


def is_initialized():
    return _world is not None


def _group():
    if _world is None:
        raise ValueError(_NO_GROUP)
    return _world


def get_rank():
    return _group().rank


def get_world_size():
    return _group().size


def all_reduce(tensor, op=ReduceOp.SUM, async_op=False):
    """Replace ``tensor``'s numbers, in every process, by their sum over the
    processes. Every process adds in rank order, so all get the same bits."""
    if op != ReduceOp.SUM:
        raise NotImplementedError(
            f"toygrad's all_reduce supports ReduceOp.SUM only, not {op}")
    if async_op:
        raise NotImplementedError("toygrad's all_reduce does not support "
                                  "async_op=True: it returns when done")
    group = _group()
    arrays = {group.rank: tensor.data}
    for peer, pipe in sorted(group.peers.items()):
        # The lower rank of a pair sends first: a large array fills the
        # pipe, and two senders would wait for each other forever.
        if group.rank < peer:
            pipe.send(tensor.data)
            arrays[peer] = pipe.recv()
        else:
            arrays[peer] = pipe.recv()
            pipe.send(tensor.data)
    total = arrays[0]
    for rank in range(1, group.size):
        total = total + arrays[rank]
    np.copyto(tensor.data, total)


def broadcast(tensor, src, async_op=False):
    """Replace ``tensor``'s numbers, in every process, by rank ``src``'s."""
    if async_op:
        raise NotImplementedError("toygrad's broadcast does not support "
                                  "async_op=True: it returns when done")
    group = _group()
    if group.rank == src:
        for pipe in group.peers.values():
            pipe.send(tensor.data)
    else:
        np.copyto(tensor.data, group.peers[src].recv())


def _serve(rank, world_size, peers, control):
    """A worker's loop: run each function it is sent, send back its result
    (or the traceback), until told to stop."""
    global _launched, _world
    _launched = (rank, world_size, peers)
    while True:
        try:
            job = control.recv()
        except EOFError:  # the parent has gone
            job = None
        if job is None:
            # Leave as a forked child does, running no destructor: one may
            # wait forever (PyTorch's gloo process group joins its threads
            # holding the GIL, which a thread may be waiting for).
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        function, args = job
        try:
            reply = (True, function(rank, *args))
        except BaseException:
            reply = (False, traceback.format_exc())
        finally:
            _world = None  # each run starts without a group
        control.send(reply)


class Workers:
    """``world_size`` processes, started once, that run functions together.

    ``run(fn, *args)`` calls ``fn(rank, *args)`` in each process (``fn``
    must be importable: the processes are started with 'spawn') and returns
    the results in rank order. A failure in any process, or its death,
    stops them all and raises; so does leaving the ``with`` block. No
    process outlives it, and it binds no port."""

    def __init__(self, world_size=2, timeout=120):
        context = multiprocessing.get_context("spawn")
        self.timeout = timeout
        self._processes, self._control = [], []
        ends = {rank: {} for rank in range(world_size)}
        for a in range(world_size):
            for b in range(a + 1, world_size):
                ends[a][b], ends[b][a] = context.Pipe()
        try:
            for rank in range(world_size):
                ours, theirs = context.Pipe()
                process = context.Process(
                    target=_serve, args=(rank, world_size, ends[rank], theirs),
                    name=f"toygrad-worker-{rank}", daemon=True)
                process.start()
                theirs.close()
                self._processes.append(process)
                self._control.append(ours)
        except BaseException:
            self.close()
            raise
        finally:  # the children have their copies
            for pipes in ends.values():
                for pipe in pipes.values():
                    pipe.close()

    @property
    def pids(self):
        return [process.pid for process in self._processes]

    def run(self, function, *args):
        if not self._processes:
            raise RuntimeError("these workers have been closed")
        try:
            for control in self._control:
                control.send((function, args))
            return self._collect()
        except BaseException:
            self.close(wait=0)  # a process may wait for one that failed
            raise

    def _collect(self):
        results, waiting = {}, dict(enumerate(self._control))
        while waiting:
            sentinels = [self._processes[rank].sentinel for rank in waiting]
            ready = multiprocessing.connection.wait(
                [*waiting.values(), *sentinels], self.timeout)
            if not ready:
                raise TimeoutError(f"workers {sorted(waiting)} did not "
                                   f"answer within {self.timeout} s")
            for rank, control in list(waiting.items()):
                process = self._processes[rank]
                if control in ready:
                    try:
                        done, value = control.recv()
                    except EOFError:  # it died: its end of the pipe closed
                        done, value = None, None
                elif process.sentinel in ready:
                    done, value = None, None
                else:
                    continue
                if done is None:
                    process.join(timeout=1)
                    raise RuntimeError(f"worker {rank} died (exit code "
                                       f"{process.exitcode})")
                if not done:  # its error's last line first, then the rest
                    error = value.strip().splitlines()[-1]
                    raise RuntimeError(f"worker {rank} failed: {error}\n"
                                       f"{value}")
                results[rank] = value
                del waiting[rank]
        return [results[rank] for rank in sorted(results)]

    def close(self, wait=5):
        """Stop every process: ask, wait up to ``wait`` seconds, then
        terminate, then kill."""
        for control in self._control:
            try:
                control.send(None)
            except OSError:
                pass
        for process in self._processes:
            process.join(timeout=wait)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
            process.close()  # its end of the sentinel pipe
        for control in self._control:
            control.close()
        self._processes, self._control = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()
