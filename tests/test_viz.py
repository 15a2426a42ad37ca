"""Chapter 7: one walker for both engines; toygrad's graphs equal PyTorch's."""

import numpy as np
import pytest
import torch

import toygrad
import toygrad.nn.functional as F
from toygrad import viz
from toygrad.scalar import Value

pytestmark = pytest.mark.ch07

# Scalar expressions made of Value's primitive operations, on 0-dim float64 tensors.
SCALAR = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "constants": lambda a, b: (a + 2) * 3 + 1,
    "reflected": lambda a, b: 2 + 3 * a,
    "power number": lambda a, b: a ** 3,
    "power value": lambda a, b: a ** b,
    "negation": lambda a, b: -a * b,
    "exp log": lambda a, b: a.exp().log(),
    "tanh relu sigmoid": lambda a, b: a.tanh() + a.relu() + b.sigmoid(),
    "reuse leaf": lambda a, b: a * a * a,
    "reuse result": lambda a, b: (lambda u: u * u + u.exp())(a * b),
    "diamond": lambda a, b: (lambda u: u.tanh() * u.sigmoid())(a + b),
    "deep": lambda a, b: ((a * b + a) * b + a) * b,
}

# Tensor expressions over every operation, with broadcasting and reuse.
TENSOR = {
    "broadcast add": lambda a, b, v: (a + b).sum(),
    "broadcast sub mul div": lambda a, b, v: ((a - b) * b / (b * b + 1)).sum(),
    "scalar operands": lambda a, b, v: ((a + 2) * 3 - 1).mean(),
    "reflected": lambda a, b, v: (1 - a + 2 / (a * a + 1) + 2 ** a).sum(),
    "pow": lambda a, b, v: (a ** 2 + (a * a + 1) ** (b * b)).sum(),
    "elementwise": lambda a, b, v: (a.exp() + a.tanh() + a.sigmoid() + a.relu()).sum(),
    "log": lambda a, b, v: (a * a + 1).log().sum(),
    "sum dims": lambda a, b, v: a.sum(1).sum() + a.sum(0, keepdim=True).sum(),
    "mean dims": lambda a, b, v: a.mean() + a.mean(1).sum(),
    "max": lambda a, b, v: a.max() + a.max(1)[0].sum(),
    "reshape": lambda a, b, v: a.reshape(6).sum() + a.T.reshape(6).sum(),
    "transpose": lambda a, b, v: (a.transpose(0, 1) * 2).sum() + a.t().sum(),
    "select slice": lambda a, b, v: a[0].sum() + a[1:].sum() + a[:, ::2].sum(),
    "mixed indexing": lambda a, b, v: a[0, 1:].sum() + a[-1, 0],
    "mm": lambda a, b, v: (a.t() @ a).sum(),
    "mv": lambda a, b, v: (a @ v).sum(),
    "dot": lambda a, b, v: v @ v,
    "vector @ matrix": lambda a, b, v: (a[0] @ a.t()).sum(),
    "batch @ matrix": lambda a, b, v: (a.reshape(1, 2, 3).expand(4, 2, 3) @ a.t()).sum(),
    "batch @ batch": lambda a, b, v: (a.reshape(1, 2, 3) @ a.t().reshape(1, 3, 2)).sum(),
    "reuse": lambda a, b, v: (lambda u: (u * u + u).sum())(a * b),
}


def functional(lib):
    return F if lib is toygrad else torch.nn.functional


NEURAL = {
    "log_softmax": lambda lib, a, b, v: functional(lib).log_softmax(a, 1).sum(),
    "cross_entropy": lambda lib, a, b, v: functional(lib).cross_entropy(a, lib.tensor([0, 2])),
    "linear": lambda lib, a, b, v: functional(lib).linear(a, a, v[:2]).sum(),
    "mlp": lambda lib, a, b, v: functional(lib).cross_entropy(
        functional(lib).linear(functional(lib).relu(functional(lib).linear(a, a, v[:2])),
                               a[:, :2], v[:2]), lib.tensor([1, 0])),
}


def test_there_are_at_least_thirty_expressions():
    assert len(SCALAR) + len(TENSOR) + len(NEURAL) >= 30


@pytest.mark.parametrize("name", SCALAR)
def test_scalar_graphs_equal_pytorch(name):
    a, b = Value(0.7, requires_grad=True), Value(1.3, requires_grad=True)
    ta = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(1.3, dtype=torch.float64, requires_grad=True)
    assert viz.graph_structure(SCALAR[name](a, b)) == viz.graph_structure(SCALAR[name](ta, tb))


@pytest.mark.parametrize("name", list(TENSOR) + list(NEURAL))
def test_tensor_graphs_equal_pytorch(name):
    rng = np.random.default_rng(0)
    arrays = rng.standard_normal((2, 3)), rng.standard_normal((1, 3)), rng.standard_normal(3)
    ours = [toygrad.tensor(x, requires_grad=True) for x in arrays]
    theirs = [torch.tensor(x, requires_grad=True) for x in arrays]
    if name in NEURAL:
        out_ours, out_theirs = NEURAL[name](toygrad, *ours), NEURAL[name](torch, *theirs)
    else:
        out_ours, out_theirs = TENSOR[name](*ours), TENSOR[name](*theirs)
    assert viz.graph_structure(out_ours) == viz.graph_structure(out_theirs)


def test_structure_records_edges_and_leaves():
    x = torch.ones(2, 3, requires_grad=True)
    structure = viz.graph_structure((x * 2).sum())
    assert structure == [("SumBackward0", ((1, 0),), None),
                         ("MulBackward0", ((2, 0), (None, 0)), None),
                         ("AccumulateGrad", (), (2, 3))]


def test_differences_are_reported():
    x, y = Value(1.0, requires_grad=True), Value(2.0, requires_grad=True)
    tx = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    assert not viz.side_by_side(x - y, tx - ty).equal
    assert viz.side_by_side(x * y, tx * ty).equal


def test_make_dot_uses_torchviz_colours():
    w = toygrad.tensor(np.ones(3), requires_grad=True)

    class Double(toygrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    out = Double.apply(w).exp().sum()
    source = viz.make_dot(out, {"w": w}).source
    assert "fillcolor=darkolivegreen1" in source        # the output
    assert 'label="w\n (3)" fillcolor=lightblue' in source  # the leaf
    assert source.count("fillcolor=orange") == 1         # a custom Function's saved input
    assert viz.make_dot(out, show_saved=True).source.count("fillcolor=orange") == 2


def test_stepper_follows_the_engine_and_leaves_no_trace():
    x = Value(2.0, requires_grad=True)
    u = x * x
    steps = viz.stepper(u * u + u, {"x": x})
    assert [name for name, _, _ in steps.steps] == [
        "AddBackward0", "MulBackward0", "MulBackward0", "AccumulateGrad"]
    assert steps.steps[-1][1] == (36.0,)
    assert len(steps.frames) == 5 and all(b"<svg" in svg for svg, _ in steps.frames)
    assert x.grad is None
    html = steps._repr_html_()
    assert html.count('class="stepper-frame"') == 5 and "addEventListener" in html


def test_stepper_on_tensors():
    a = toygrad.tensor(np.ones((2, 2)), requires_grad=True)
    steps = viz.stepper((a * a).sum())
    assert [name for name, _, _ in steps.steps] == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    np.testing.assert_allclose(steps.steps[-1][1][0].data, 2 * np.ones((2, 2)))



def test_stepper_shows_waiting_ready_and_done_nodes_and_the_gradients_edges_carried():
    x = Value(2.0, requires_grad=True)
    u = x * x
    steps = viz.stepper(u * u + u, {"x": x})
    captions = [caption for _, caption in steps.frames]
    # u's node runs once, with the sum of the three gradients it received
    assert captions[3] == "Step 3: MulBackward0 ran with gradient 1 + 4 + 4 = 9 and sent 18, 18."
    after_add, after_square = (svg.decode() for svg, _ in steps.frames[1:3])
    assert "(1 of 3 gradients)" in after_add  # u's node still waits
    assert f'fill="{viz.STATES["ready"]}"' in after_square and "(1 of 3" not in after_square
    assert "\u2190 4" in after_square  # the gradient each edge carried, in red
    final = steps.frames[-1][0].decode()
    assert final.count(f'fill="{viz.STATES["done"]}"') == 3
    assert final.count(f'fill="{viz.STATES["ran"]}"') == 1
    assert ".grad = 36" in final and x.grad is None


def node_boxes(svg):
    """Each node of a Graphviz SVG, by its title: its outline's points."""
    import xml.etree.ElementTree as ET

    ns = {"svg": "http://www.w3.org/2000/svg"}
    boxes = {}
    for group in ET.fromstring(svg).iterfind(".//svg:g[@class='node']", ns):
        title = group.find("svg:title", ns).text
        boxes[title] = group.find("svg:polygon", ns).get("points")
    return boxes


@pytest.mark.parametrize("case", ["reuse", "tensor"])
def test_every_frame_of_the_stepper_draws_each_node_at_one_place_and_size(case):
    # Labels grow as gradients arrive ("(0 of 3 gradients)", then "grad 1 + 4 + 4 = 9")
    # and edges gain labels; the boxes must not move or change size meanwhile.
    x = Value(2.0, requires_grad=True)
    u = x * x
    out = u * u + u
    if case == "tensor":
        w = toygrad.tensor(np.array([0.5, -1.0]), requires_grad=True)
        out = ((w * w).sum().tanh() - 0.25) ** 2
    steps = viz.stepper(out)
    frames = [node_boxes(svg) for svg, _ in steps.frames]
    assert len(frames) >= 4 and len(frames[0]) >= 5
    changed = {title for frame in frames[1:] for title, box in frame.items()
               if box != frames[0][title]}
    assert set(frames[0]) == set(frames[-1]) and changed == set()
    # What did change is what the frames say: no two pictures are the same.
    assert len({svg for svg, _ in steps.frames}) == len(frames)
