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


SQUEEZES = {
    "x.squeeze()": lambda x: x.squeeze(),
    "x.squeeze(1)": lambda x: x.squeeze(1),
    "x.squeeze(0)": lambda x: x.squeeze(0),
    "x.squeeze(-1)": lambda x: x.squeeze(-1),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("shape", [(2, 1, 3), (1, 2, 1, 3, 1), (2, 3), (1, 1),
                                   (1,)])
@pytest.mark.parametrize("name", SQUEEZES)
def test_squeeze_backward_is_unsqueeze_to(name, shape, transposed,
                                          create_graph):
    """PyTorch's SqueezeBackward0/1 is ``unsqueeze_to``: one unsqueeze per
    squeezed dim, so the gradient is a view of the upstream one with
    unsqueeze's strides, and under create_graph one UnsqueezeBackward0 per
    dim (toygrad reshaped: other strides, a ReshapeAliasBackward0)."""
    from graphs import structure
    if name == "x.squeeze(1)" and len(shape) < 2:
        pytest.skip("no dim 1 (both raise the same IndexError)")
    results = []
    for m in (torch, toygrad):
        x = m.ones(shape, requires_grad=True)
        y = SQUEEZES[name](x)
        g = m.ones(tuple(reversed(y.shape))).permute(
            *reversed(range(y.ndim))) if transposed and y.ndim else m.ones(
            y.shape)
        g.requires_grad_(create_graph)
        (gx,) = m.autograd.grad(y, x, g, create_graph=create_graph)
        results.append((tuple(gx.shape), gx.stride() if m is torch
                        else strides(gx), gx._base is not None,
                        structure(gx)))
    assert results[1] == results[0]


def _leaf(m, shape, layout):
    if layout == "expanded":  # a leaf whose elements share memory
        return m.ones(shape[-1:]).expand(shape).requires_grad_()
    if layout == "transposed":
        return m.ones(tuple(reversed(shape))).permute(
            *reversed(range(len(shape)))).requires_grad_()
    return m.ones(shape, requires_grad=True)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
@pytest.mark.parametrize("shape", [(2, 1, 3), (1, 2, 1, 3, 1), (2, 3), (1, 3)])
def test_a_leaf_s_first_gradient_has_pytorch_s_layout(shape, layout,
                                                      create_graph):
    """AccumulateGrad's clone_obey_contract: with create_graph (or when the
    gradient cannot be stolen) the leaf's gradient is an empty tensor with
    the leaf's own strides, the gradient copied in (CopyBackwards), or for
    a leaf that is not dense a contiguous clone (CloneBackward0). toygrad
    copied into the gradient's layout instead."""
    import warnings
    from graphs import structure
    if layout == "transposed" and not create_graph:
        pytest.skip("stolen: the layout is that of x * 1, and an elementwise "
                    "result's strides for dims of size 1 are TensorIterator's "
                    "in PyTorch, NumPy's in toygrad (not compared here)")
    results = []
    for m in (torch, toygrad):
        x = _leaf(m, shape, layout)
        upstream = m.ones(tuple(reversed(shape))).permute(
            *reversed(range(len(shape))))  # in another layout
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_graph's ref cycle
            (x * 1).squeeze().backward(upstream.squeeze(),
                                       create_graph=create_graph)
        g = x.grad
        results.append((g.stride() if m is torch else strides(g),
                        structure(g)))
    assert results[1] == results[0]


def _arrays():
    z = np.arange(24, dtype=np.float32)
    return {
        "contiguous": z.reshape(2, 3, 4),
        "transposed": z.reshape(4, 6).T,
        "permuted": z.reshape(2, 3, 4).transpose(1, 0, 2),
        "strided": z.reshape(4, 6)[::2, ::3],
        "strided, transposed": z.reshape(4, 6)[::2, ::3].T,
        "size-1 dim with its own stride": np.lib.stride_tricks.as_strided(
            z, (2, 1, 3), (12, 40, 4)),
        "relaxed contiguous": np.ascontiguousarray(
            z.reshape(2, 1, 3, 4)[:, :, 0].transpose(0, 2, 1)),
        "float64, permuted size-1 dim": z.astype(np.float64).reshape(
            2, 1, 12).transpose(1, 0, 2),
        "negative stride": z.reshape(4, 6)[::-1],
        "negative stride, transposed": z.reshape(4, 6)[:, ::-1].T,
        "0-dim": np.array(2.0),
    }


@pytest.mark.parametrize("dtype", [None, "float64"])
@pytest.mark.parametrize("name", list(_arrays()))
def test_tensor_of_an_array_has_pytorch_s_strides(name, dtype):
    """torch.tensor(array) wraps the array (refusing negative strides) and
    copies it with empty_like's preserved layout: an array whose elements
    tile its memory keeps its strides exactly, even for dims of size 1,
    which NumPy's copy recomputes."""
    array = _arrays()[name]
    results = []
    for m in (torch, toygrad):
        try:
            t = (m.tensor(array) if dtype is None
                 else m.tensor(array, dtype=getattr(m, dtype)))
        except ValueError as error:
            results.append(str(error))
            continue
        results.append((t.stride() if m is torch else strides(t),
                        t.tolist()))
    assert results[1] == results[0]
