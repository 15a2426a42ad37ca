"""The strides of toygrad's views are PyTorch's (issue 24).

toygrad has no ``stride()``, but its arrays' strides decide what it does
next as they decide PyTorch's: whether ``mm``'s backward takes the
column-major path (``mm_mat1_backward`` reads the strides, even of a dim of
size 1), whether a ``view`` is possible, and whether two tensors overlap.
So every view's strides, in elements, must be the ``stride()`` PyTorch gives
the same view of the same input.
"""

import itertools

import numpy as np
import pytest
import torch

import toygrad


def strides(tensor):
    return tuple(s // tensor.data.itemsize for s in tensor.data.strides)


def inputs(shape, order):
    """The same numbers in both libraries, laid out as ``order`` permutes:
    a contiguous tensor of the permuted shape, permuted back."""
    permuted = tuple(shape[i] for i in order)
    inverse = tuple(int(i) for i in np.argsort(order))
    n = int(np.prod(shape))
    ours = toygrad.tensor(np.arange(n, dtype=np.float32).reshape(permuted))
    theirs = torch.arange(n, dtype=torch.float32).reshape(permuted)
    if not shape:
        return ours, theirs
    return ours.permute(*inverse), theirs.permute(*inverse)


SHAPES = [(), (1,), (3,), (2, 3), (3, 1), (1, 3), (1, 1), (2, 1, 3), (2, 3, 4)]


def layouts():
    for shape in SHAPES:
        for order in itertools.permutations(range(len(shape))):
            yield shape, order


@pytest.mark.parametrize("shape,order", list(layouts()))
def test_unsqueeze_strides_are_pytorchs(shape, order):
    ours, theirs = inputs(shape, order)
    assert strides(ours) == theirs.stride()
    for dim in range(-len(shape) - 1, len(shape) + 1):
        assert strides(ours.unsqueeze(dim)) == theirs.unsqueeze(dim).stride(), dim


@pytest.mark.parametrize("shape,order", list(layouts()))
def test_expand_strides_are_pytorchs(shape, order):
    ours, theirs = inputs(shape, order)
    targets = set()
    for lead in [(), (1,), (2,), (1, 1), (2, 1), (1, 2)]:
        for sizes in itertools.product(*[(n,) if n != 1 else (1, 2)
                                         for n in shape]):
            targets.add(lead + sizes)
            targets.add(lead + tuple(-1 for _ in sizes))
    for target in sorted(targets):
        mine, yours = ours.expand(target), theirs.expand(target)
        assert mine.shape == tuple(yours.shape), target
        assert strides(mine) == yours.stride(), target
