"""``toygrad.tensor(array)`` of an array whose elements do not tile its
memory (broadcast, overlapping or with gaps) gets PyTorch's strides (issue
24): torch.tensor copies it with empty_like's preserved layout, that is
``infer_dense_strides`` (aten/src/ATen/ExpandUtils.cpp), contiguous for a
broadcast array, where toygrad kept NumPy's copy in memory order."""

import numpy as np
import pytest
import torch

import toygrad


def strides(tensor):
    return tuple(s // tensor.data.itemsize for s in tensor.data.strides)


def _arrays():
    rng = np.random.default_rng(24)
    base = np.arange(400.0)
    cases = [np.broadcast_to(np.arange(3.0), (2, 3)),
             np.broadcast_to(np.arange(2.0)[:, None], (2, 3)),
             np.arange(12.0).reshape(3, 4)[:, ::2],
             np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)[::2],
             np.zeros((0, 3)).copy(), np.zeros((3, 0, 2)).copy(),
             np.lib.stride_tricks.as_strided(base, (2, 0, 3), (0, 8, 0))]
    while len(cases) < 300:
        shape = tuple(int(n) for n in rng.integers(1, 4, rng.integers(1, 5)))
        steps = tuple(int(n) for n in rng.integers(0, 6, len(shape)))
        cases.append(np.lib.stride_tricks.as_strided(
            base, shape, [n * base.itemsize for n in steps]))
    return cases


ARRAYS = _arrays()


@pytest.mark.parametrize("index", range(len(ARRAYS)))
def test_copied_array_strides_are_pytorchs(index):
    array = ARRAYS[index]
    ours, theirs = toygrad.tensor(array), torch.tensor(array)
    assert strides(ours) == theirs.stride()
    np.testing.assert_array_equal(ours.data, theirs.numpy())
