"""Chapter 5: toygrad.dtypes gives PyTorch's dtypes and dims, asked of torch.

Every expected value comes from torch at test time: the operands are built
twice, once for torch and once for toygrad.dtypes (which needs only an
object with a NumPy array in ``.data``).
"""

import itertools
import types

import numpy as np
import pytest
import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND
from torch._prims_common import elementwise_dtypes

import toygrad
from toygrad import dtypes

pytestmark = pytest.mark.ch05

DTYPES = ["bool", "int64", "float32", "float64"]
SCALARS = (True, 2, 2.5)  # a Python bool, int and float


def operand_kinds():
    """(name, torch operand, toygrad.dtypes operand) for every kind."""
    kinds = []
    for dtype in DTYPES:
        for shape, where in (((2,), "tensor"), ((), "0-dim")):
            array = np.ones(shape, dtype)
            kinds.append((f"{dtype} {where}", torch.from_numpy(array),
                          types.SimpleNamespace(data=array)))
    for scalar in SCALARS:
        kinds.append((f"{type(scalar).__name__} scalar", scalar, scalar))
    return kinds


KINDS = operand_kinds()
IDS = [name for name, _, _ in KINDS]


def numpy_dtype(torch_dtype):
    return torch.empty(0, dtype=torch_dtype).numpy().dtype


@pytest.mark.parametrize("a", KINDS, ids=IDS)
@pytest.mark.parametrize("b", KINDS, ids=IDS)
def test_pairs_promote_as_torch_result_type(a, b):
    (_, torch_a, ours_a), (_, torch_b, ours_b) = a, b
    expected = numpy_dtype(torch.result_type(torch_a, torch_b))
    assert dtypes.result_type(ours_a, ours_b) == expected


@pytest.mark.parametrize("a", KINDS, ids=IDS)
@pytest.mark.parametrize("b", KINDS, ids=IDS)
def test_pairs_divide_as_torch_true_divide(a, b):
    (_, torch_a, ours_a), (_, torch_b, ours_b) = a, b
    expected = numpy_dtype(torch.true_divide(torch_a, torch_b).dtype)
    assert dtypes.true_divide_type(ours_a, ours_b) == expected


def torch_triple_type(*operands):
    # torch.result_type takes two operands. For three, ask torch's own
    # reference of its promotion (torch._refs uses it), and check that
    # reference against eager addcmul below.
    _, dtype = elementwise_dtypes(
        *operands,
        type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)
    return numpy_dtype(dtype)


@pytest.mark.parametrize("a", KINDS, ids=IDS)
def test_triples_promote_as_torch(a):
    wrong = []
    for b, c in itertools.product(KINDS, KINDS):
        names, torch_ops, ours = zip(a, b, c)
        expected = torch_triple_type(*torch_ops)
        got = dtypes.result_type(*ours)
        if got != expected:
            wrong.append((names, str(got), str(expected)))
    assert wrong == []


def test_the_triple_oracle_agrees_with_eager_addcmul():
    tensors = [t for _, t, _ in KINDS if isinstance(t, torch.Tensor)]
    checked = 0
    for triple in itertools.product(tensors, repeat=3):
        if all(t.dtype == torch.bool for t in triple):
            continue  # addcmul has no bool kernel
        eager = numpy_dtype(torch.addcmul(*triple).dtype)
        assert torch_triple_type(*triple) == eager
        checked += 1
    assert checked == 8 ** 3 - 8


def test_numpy_alone_would_promote_differently():
    # Why toygrad needs this module: NumPy's answers for the same operands.
    ints = types.SimpleNamespace(data=np.ones(2, np.int64))
    floats = types.SimpleNamespace(data=np.ones(2, np.float32))
    assert (ints.data * 2.5).dtype == np.float64
    assert dtypes.result_type(ints, 2.5) == np.float32
    assert (floats.data * ints.data).dtype == np.float64
    assert dtypes.result_type(floats, ints) == np.float32
    assert (ints.data / ints.data).dtype == np.float64
    assert dtypes.true_divide_type(ints, ints) == np.float32


def test_toygrad_tensors_are_operands():
    ints, half = np.array([1, 2]), np.array(0.5, np.float32)
    expected = torch.result_type(torch.tensor(ints), torch.tensor(half))
    got = dtypes.result_type(toygrad.tensor(ints), toygrad.tensor(half))
    assert got == numpy_dtype(expected)


@pytest.mark.parametrize(
    "dtype", [np.int32, np.int8, np.uint8, np.float16, np.complex64,
              np.complex128, np.object_])
def test_other_dtypes_are_refused_by_name(dtype):
    name = np.dtype(dtype).name
    message = ("toygrad supports the dtypes bool, int64, float32 and "
               f"float64, not {name}")
    with pytest.raises(NotImplementedError) as error:
        dtypes.check_dtype(dtype)
    assert str(error.value) == message
    operand = types.SimpleNamespace(data=np.ones(2, dtype))
    with pytest.raises(NotImplementedError, match=name):
        dtypes.result_type(operand, 1.0)


@pytest.mark.parametrize("name", DTYPES)
def test_supported_dtypes_pass(name):
    assert dtypes.check_dtype(name) == np.dtype(name)


@pytest.mark.parametrize("scalar", [1j, np.int64(1), np.float32(1.0),
                                    np.bool_(True), "1", None])
def test_other_scalars_are_refused(scalar):
    # torch accepts some of these (a numpy.bool scalar even promotes an
    # int64 tensor to float32); toygrad says it does not.
    with pytest.raises(NotImplementedError):
        dtypes.result_type(types.SimpleNamespace(data=np.ones(2)), scalar)


# Dims: the messages are torch's, got from torch.sum and torch.unsqueeze.
SIZES = (2, 3, 4, 5)  # all > 1, so a dim of size 1 shows where a dim went


def torch_outcome(call):
    """(error type, message) if call raises, else the result's shape."""
    try:
        return tuple(call().shape)
    except Exception as error:
        return type(error), str(error)


def ours_outcome(call, shape_from_dims):
    try:
        return shape_from_dims(call())
    except Exception as error:
        return type(error), str(error)


def kept(shape, dims):
    """The shape of a keepdim reduction of ``shape`` over ``dims``."""
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


@pytest.mark.parametrize("ndim", range(4))
def test_dims_are_checked_as_torch_sum(ndim):
    shape = SIZES[:ndim]
    t = torch.ones(shape)
    for dim in range(-ndim - 2, ndim + 2):
        expected = torch_outcome(lambda: torch.sum(t, dim, keepdim=True))
        got = ours_outcome(lambda: dtypes.canonical_dim(dim, ndim),
                           lambda d: kept(shape, {d}))
        assert got == expected, dim


@pytest.mark.parametrize("ndim", range(4))
def test_new_dims_are_checked_as_torch_unsqueeze(ndim):
    shape = SIZES[:ndim]
    t = torch.ones(shape)
    for dim in range(-ndim - 2, ndim + 2):
        expected = torch_outcome(lambda: torch.unsqueeze(t, dim))
        got = ours_outcome(
            lambda: dtypes.canonical_dim(dim, ndim, new_dim=True),
            lambda d: shape[:d] + (1,) + shape[d:])
        assert got == expected, dim


@pytest.mark.parametrize("ndim", range(4))
def test_lists_of_dims_are_checked_as_torch_sum(ndim):
    shape = SIZES[:ndim]
    t = torch.ones(shape)
    dims = range(-ndim - 2, ndim + 2)
    cases = [None, (), [0] if ndim else []]
    cases += list(itertools.product(dims, repeat=2))
    cases += [(1, 0, 0, 1), (0, 1, 1, 0), (2, -1, 0, 0), (0, 0, 7)]
    for case in cases:
        expected = torch_outcome(lambda: torch.sum(t, case, keepdim=True))
        got = ours_outcome(lambda: dtypes.canonical_dims(case, ndim),
                           lambda d: kept(shape, set(d) or range(ndim)))
        assert got == expected, case


def test_dims_keep_their_order_and_an_int_is_one_dim():
    assert dtypes.canonical_dims((2, -3, 1), 3) == (2, 0, 1)
    assert dtypes.canonical_dims([-1], 2) == (1,)
    assert dtypes.canonical_dims(-1, 2) == (1,)
    assert dtypes.canonical_dims(None, 3) == (0, 1, 2)
    assert dtypes.canonical_dims((), 3) == ()
    assert dtypes.canonical_dim(np.int64(-1), 2) == 1  # as torch accepts


def without_prefix(message, name):
    # torch names the function: "unsqueeze(): argument 'dim' must be ..."
    assert message.startswith(f"{name}(): ")
    return message[len(name) + 4:]


@pytest.mark.parametrize("dim", [1.5, True, np.bool_(True), None, "0",
                                 np.float64(1.0)], ids=repr)
def test_a_dim_that_is_no_int_is_a_type_error(dim):
    t = torch.ones(2, 3)
    with pytest.raises(TypeError) as expected:
        torch.unsqueeze(t, dim=dim)
    with pytest.raises(TypeError) as got:
        dtypes.canonical_dim(dim, 2)
    assert str(got.value) == without_prefix(str(expected.value), "unsqueeze")
    if dim is not None:  # dim=None is every dim
        with pytest.raises(TypeError) as expected:
            torch.sum(t, dim=dim, keepdim=True)
        with pytest.raises(TypeError) as got:
            dtypes.canonical_dims(dim, 2)
        assert str(got.value) == without_prefix(str(expected.value), "sum")
    with pytest.raises(TypeError, match="tuple of ints"):
        dtypes.canonical_dims((dim,), 2)
