"""Seeing recorded graphs: their structure, their pictures, a backward pass.

Everything here reads a graph only through the API that toygrad and PyTorch
share (``grad_fn``, ``next_functions``, ``variable``), so the same walker
works, unchanged, on both engines. ``make_dot`` draws a toygrad graph in
torchviz's visual language: backward nodes grey, leaves that will receive a
gradient light blue, saved tensors orange, the output light green.
"""

import base64
import contextlib
import html
import itertools
import json
import re

import graphviz
import numpy as np

NODE_ATTR = dict(style="filled", shape="box", align="left", fontsize="10",
                 ranksep="0.1", height="0.2", fontname="monospace")
# A picture may shrink to fit a narrow screen, but not below this fraction of
# its natural size: 10 pt labels stay above 9 px. A wider graph scrolls
# sideways in its own box instead.
MIN_SCALE = 0.7
_stepper_ids = itertools.count()


def short_name(node):
    """A node's name, without the ``torch::autograd::`` of AccumulateGrad
    (torchviz shows the class name, which has none)."""
    return node.name().rsplit("::", 1)[-1]


# Task 7.1: one walker for both engines
def walk(output):
    """Every node reachable from ``output.grad_fn``, once each, depth first.

    Iterative, so a deep graph does not exhaust Python's recursion limit.
    """
    if output.grad_fn is None:
        return []
    order, seen, stack = [], {output.grad_fn}, [output.grad_fn]
    while stack:
        node = stack.pop()
        order.append(node)
        for next_node, _ in reversed(node.next_functions):
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return order


def _shape(var):
    shape = getattr(var, "shape", None)
    if shape is None:  # a scalar Value
        shape = getattr(var.data, "shape", ())
    return tuple(int(n) for n in shape)


# Task 7.2: a graph as comparable data
def graph_structure(output):
    """The graph behind ``output`` (toygrad or PyTorch) as comparable data.

    One entry per node, in the order ``walk`` meets them:
    ``(name, edges, leaf_shape)``. ``edges`` holds ``(index, input_nr)`` per
    entry of ``next_functions``, ``index`` being the position of the next node
    in this list (``None`` for no node); ``leaf_shape`` is the shape of an
    AccumulateGrad node's ``variable``, else ``None``. Two graphs are the same
    graph exactly when their structures are equal.
    """
    nodes = walk(output)
    index = {node: i for i, node in enumerate(nodes)}
    structure = []
    for node in nodes:
        edges = tuple((None if n is None else index[n], nr)
                      for n, nr in node.next_functions)
        variable = getattr(node, "variable", None)
        leaf = None if variable is None else _shape(variable)
        structure.append((short_name(node), edges, leaf))
    return structure


def _size(var):
    return "(" + ", ".join(str(n) for n in _shape(var)) + ")"


def _saved(node):
    """The tensors (or numbers) a toygrad node keeps for backward, if shown."""
    saved = getattr(node, "_saved", None)
    if isinstance(saved, tuple):  # a Function's SavedTensors
        return [s.tensor for s in saved if s is not None]
    numbers = getattr(node, "saved", None)
    if isinstance(numbers, tuple):  # a scalar node's floats
        return list(numbers)
    return []


def _is_custom(node):
    """Whether ``node`` is a Function's that is not one of toygrad.ops."""
    from toygrad import ops  # chapter 7's module, above the operations
    forward_cls = getattr(type(node), "_forward_cls", None)
    return (forward_cls is not None
            and vars(ops).get(forward_cls.__name__) is not forward_cls)


def make_dot(output, params=None, show_saved=False, highlight=(),
             labels=None, running=None, fills=None, edge_labels=None):
    """The graph behind a toygrad ``output`` as a ``graphviz.Digraph``.

    Args:
        output: a toygrad Value or tensor.
        params: optional ``{name: leaf}``, to label leaves by name.
        show_saved: also draw what built-in nodes saved (a custom
            Function's saved tensors are always drawn, as in torchviz).
        highlight: nodes to outline in red (differences, say).
        labels: optional ``{node: text}`` replacing a node's label.
        running: a node to fill in yellow (the one a backward step ran).
        fills: optional ``{node: colour}`` for backward nodes.
        edge_labels: optional ``{(node, i): text}`` for the edge from the
            node's ``i``-th entry of ``next_functions`` to the node, drawn
            in red (a gradient travelling against the arrow).
    """
    names = {id(leaf): name for name, leaf in (params or {}).items()}
    labels, fills = labels or {}, fills or {}
    edge_labels = edge_labels or {}
    highlight = set(highlight)

    def label(var, name=None):
        return f"{name or names.get(id(var), '')}\n {_size(var)}"

    dot = graphviz.Digraph(node_attr=NODE_ATTR, graph_attr=dict(size="12,12"))
    dot.node(str(id(output)), label(output), fillcolor="darkolivegreen1")
    nodes = walk(output)
    if nodes:
        dot.edge(str(id(nodes[0])), str(id(output)))
    for fn in nodes:
        attrs = {"fillcolor": fills[fn]} if fn in fills else {}
        if fn in highlight:
            attrs.update(color="red", penwidth="3", fillcolor="lightgrey")
        if fn is running:
            attrs.update(fillcolor="gold")
        dot.node(str(id(fn)), labels.get(fn, short_name(fn)), **attrs)
        variable = getattr(fn, "variable", None)
        if variable is not None:
            dot.node(str(id(variable)), label(variable), fillcolor="lightblue")
            dot.edge(str(id(variable)), str(id(fn)))
        if show_saved or _is_custom(fn):
            for i, saved in enumerate(_saved(fn)):
                key = f"{id(fn)}-saved-{i}"
                text = (f"saved\n {saved:.4g}" if isinstance(saved, float)
                        else label(saved, "saved"))
                dot.node(key, text, fillcolor="orange")
                dot.edge(key, str(id(fn)), dir="none")
        for i, (next_fn, _) in enumerate(fn.next_functions):
            if next_fn is None:
                continue
            carried = edge_labels.get((fn, i))
            if carried is None:
                dot.edge(str(id(next_fn)), str(id(fn)))
            else:
                dot.edge(str(id(next_fn)), str(id(fn)),
                         label=f" \u2190 {carried}", fontcolor="red",
                         color="red", fontsize="10", fontname="monospace")
    # As torchviz does: let large graphs grow, about 0.3 inch per node.
    size = max(12, 0.3 * len(nodes))
    dot.graph_attr.update(size=f"{size},{size}")
    return dot


def svg_data_uri(dot):
    """A graph as an SVG image in a ``data:`` URI, for an ``<img>`` tag."""
    return _data_uri(dot.pipe(format="svg"))


def _data_uri(svg):
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode()


def _natural_size(svg):
    """Graphviz's SVG size in CSS pixels (it writes points: 1 pt = 4/3 px)."""
    width, height = (float(re.search(rb'%s="([0-9.]+)pt"' % key, svg)[1])
                     for key in (b"width", b"height"))
    return round(width * 4 / 3), round(height * 4 / 3)


def _img(svg, alt):
    """An ``<img>`` of an SVG that shrinks to fit, but never unreadably."""
    width, height = _natural_size(svg)
    return (f'<img src="{_data_uri(svg)}" alt="{html.escape(alt)}" '
            f'width="{width}" height="{height}" style="max-width:100%;'
            f'height:auto;min-width:{round(MIN_SCALE * width)}px">')


def figure_html(svg, caption, alt, attributes=""):
    """One graph (SVG bytes) with its caption, as HTML for any screen.

    The styles are inline, so the figure looks the same in Jupyter as on
    the website: the caption takes the colour of the text around it (legible
    on the dark theme's light panels), and a long one wraps.
    """
    return (f'<figure {attributes} style="margin:0;max-width:100%;'
            'overflow-x:auto;text-align:center">'
            f"{_img(svg, alt)}"
            '<figcaption style="color:inherit;overflow-wrap:anywhere">'
            f"{html.escape(caption)}</figcaption></figure>")


def figures_html(figures):
    """Figures in a row that wraps: side by side when there is room, one
    above the other on a phone."""
    cells = "".join(
        f'<div style="flex:1 1 300px;min-width:0;max-width:100%">{figure}'
        "</div>" for figure in figures)
    return ('<div class="toygrad-figures" style="display:flex;'
            'flex-wrap:wrap;gap:1em;justify-content:center;'
            f'align-items:flex-end">{cells}</div>')


def _differences(ours, theirs):
    """Indices (in walk order) of the nodes whose entries differ."""
    a, b = graph_structure(ours), graph_structure(theirs)
    return {i for i in range(max(len(a), len(b)))
            if i >= len(a) or i >= len(b) or a[i] != b[i]}


class SideBySide:
    """toygrad's picture beside torchviz's, for one expression in both."""

    def __init__(self, ours, theirs, params=None, torch_params=None, title=""):
        from torchviz import make_dot as torchviz_make_dot  # torch is optional

        self.title = title
        self.equal = graph_structure(ours) == graph_structure(theirs)
        different = _differences(ours, theirs)
        our_nodes, their_nodes = walk(ours), walk(theirs)
        self.ours = make_dot(ours, params, highlight={
            n for i, n in enumerate(our_nodes) if i in different})
        self.theirs = torchviz_make_dot(theirs, params=torch_params)
        for i, node in enumerate(their_nodes):  # outline theirs in place
            if i in different:
                self.theirs.node(str(id(node)), color="red", penwidth="3",
                                 fillcolor="lightgrey")

    def _repr_html_(self):
        verdict = ("same nodes, names and edges" if self.equal else
                   "different graphs: differing nodes outlined in red")
        figures = [
            figure_html(dot.pipe(format="svg"), who,
                        f"{who} graph of {self.title}")
            for dot, who in ((self.ours, "toygrad (toygrad.viz.make_dot)"),
                             (self.theirs, "PyTorch (torchviz.make_dot)"))]
        return ('<div class="toygrad-side-by-side">'
                f"<p><strong>{html.escape(self.title)}</strong>: {verdict}</p>"
                f"{figures_html(figures)}</div>")


def side_by_side(ours, theirs, params=None, torch_params=None, title=""):
    """toygrad's and PyTorch's graphs of one expression, side by side."""
    return SideBySide(ours, theirs, params, torch_params, title)


def _sum_text(grads):
    """The gradients a node received: ``4``, or ``1 + 4 + 4 = 9``."""
    if len(grads) == 1:
        return _format(grads[0])
    total = grads[0]
    for grad in grads[1:]:
        total = total + grad
    return " + ".join(_format(g) for g in grads) + f" = {_format(total)}"


def _no_grad(output):
    """Grad mode off for a tensor's pass (scalars have no grad mode)."""
    if isinstance(output.data, float):
        return contextlib.nullcontext()
    from toygrad.autograd.grad_mode import no_grad
    return no_grad()


def _format(value):
    data = getattr(value, "data", value)
    if np.ndim(data) == 0:
        return f"{float(data):.4g}"
    return np.array2string(np.asarray(data), precision=3, separator=", ")


# What a node is doing at a step of the stepper: its colour, and what the
# legend calls it.
STATES = {"ran": "#ffd700", "ready": "#98fb98", "waiting": "#ffffff",
          "done": "#d9d9d9"}  # gold, pale green, white, light grey
LEGEND = {"waiting": "waiting for gradients",
          "ready": "ready: all its gradients are in",
          "ran": "just ran", "done": "done"}


def _json(dot):
    """A graph laid out by ``dot``, as Graphviz's JSON."""
    return json.loads(dot.pipe(format="json0"))


def _attributes(item):
    """The DOT attributes of a graph, node or edge in Graphviz's JSON."""
    return {key: value for key, value in item.items()
            if not key.startswith("_") and key not in (
                "name", "tail", "head", "objects", "edges", "directed",
                "strict", "xdotversion")}


def draw_in_place(dots):
    """SVGs of graphs that differ only in their labels and colours, all
    drawn at one layout, so that nothing moves from one to the next.

    Every node gets, in every picture, the largest size it has in any of
    them; ``dot`` lays out the last graph (the one with every edge label)
    at those sizes, and ``neato -n2`` draws each graph at its positions.
    """
    graphs = [_json(dot) for dot in dots]
    sizes = {}
    for graph in graphs:
        for node in graph["objects"]:
            width, height = sizes.get(node["name"], (0.0, 0.0))
            sizes[node["name"]] = (max(width, float(node["width"])),
                                   max(height, float(node["height"])))
    layout = dots[-1].copy()
    for name, (width, height) in sizes.items():
        layout.node(name, width=str(width), height=str(height),
                    fixedsize="true")
    laid_out = _json(layout)
    at = {node["_gvid"]: node for node in laid_out["objects"]}
    svgs = []
    for graph in graphs:
        pinned = graphviz.Digraph(graph_attr={**_attributes(graph),
                                              "bb": laid_out["bb"]})
        for node in graph["objects"]:
            place = at[node["_gvid"]]
            if place["name"] != node["name"]:
                raise ValueError("the graphs differ in more than labels")
            pinned.node(node["name"], **{
                **_attributes(node), "fixedsize": "true",
                **{key: place[key] for key in ("pos", "width", "height")}})
        for edge, route in zip(graph.get("edges", []),
                               laid_out.get("edges", [])):
            if (edge["tail"], edge["head"]) != (route["tail"], route["head"]):
                raise ValueError("the graphs differ in more than labels")
            attributes = {**_attributes(edge), "pos": route["pos"]}
            attributes.pop("lp", None)
            if edge.get("label"):  # the label where the layout made room
                attributes["lp"] = route["lp"]
            pinned.edge(at[edge["tail"]]["name"], at[edge["head"]]["name"],
                        **attributes)
        svgs.append(pinned.pipe(format="svg", engine="neato",
                                neato_no_op=2))
    return svgs


class Stepper:
    """A toygrad backward pass, one picture per node it runs.

    Each frame shows every node in one of four states (see ``STATES``),
    under each node the gradients it has received so far (added up where a
    value was used more than once), and on each edge the gradient it
    carried; leaves show their ``.grad``. Every frame is drawn at one
    layout (``draw_in_place``), so only what changed changes. In a web page
    the frames are stepped with buttons or a slider, in plain HTML and
    JavaScript, with no kernel.
    """

    def __init__(self, output, params=None):
        from toygrad.autograd.engine import execute

        nodes = walk(output)
        leaves = [n.variable for n in nodes if hasattr(n, "variable")]
        kept = [leaf.grad for leaf in leaves]  # restored afterwards
        for leaf in leaves:
            leaf.grad = None
        # How many gradients each node waits for: one per edge into it.
        self.expected = dict.fromkeys(nodes, 0)
        self.expected[nodes[0]] = 1  # the output's own gradient
        for node in nodes:
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    self.expected[next_node] += 1
        data = output.data  # the output's own gradient: ones of its shape
        seed = 1.0 if isinstance(data, float) else type(output)(
            np.ones_like(data))
        received = {nodes[0]: [seed]}  # the gradients each node has received
        carried, done = {}, []
        self.steps = []
        pictures = [self._picture(nodes, received, carried, done)]
        captions = ["Start: the gradient of the output itself is 1."]
        with _no_grad(output):  # as in backward: the pass is not recorded
            for node, grads_in, grads_out in execute(nodes[0], seed,
                                                     retain_graph=True):
                for i, ((next_node, _), grad) in enumerate(
                        zip(node.next_functions, grads_out)):
                    if next_node is not None and grad is not None:
                        received.setdefault(next_node, []).append(grad)
                        carried[node, i] = _format(grad)
                done.append(node)
                self.steps.append((short_name(node), grads_in, grads_out))
                sent = ", ".join(_format(g) for g in grads_out
                                 if g is not None)
                total = _sum_text(received[node])
                captions.append(
                    f"Step {len(self.steps)}: {short_name(node)} ran "
                    f"with gradient {total}"
                    + (f" and sent {sent}." if sent else "."))
                pictures.append(self._picture(nodes, received, carried, done))
        for leaf, grad in zip(leaves, kept):
            leaf.grad = grad
        # A node keeps, in every frame, as many label lines as it ever
        # needs (blank ones to spare), so its name stays where it is.
        lines = {node: max(labels[node].count("\n")
                           for labels, _, _ in pictures) for node in nodes}
        dots = [make_dot(output, params, fills=fills, edge_labels=edges,
                         labels={node: text + "\n " * (lines[node]
                                                        - text.count("\n"))
                                 for node, text in labels.items()})
                for labels, fills, edges in pictures]
        self.frames = list(zip(draw_in_place(dots), captions))

    def _picture(self, nodes, received, carried, done):
        """Each node's label and colour, and each edge's label, as they
        stand: what ``make_dot`` draws a frame from."""
        labels, fills = {}, {}
        for node in nodes:
            got = received.get(node, [])
            if done and node is done[-1]:
                state = "ran"
            elif node in done:
                state = "done"
            elif len(got) == self.expected[node]:
                state = "ready"
            else:
                state = "waiting"
            fills[node] = STATES[state]
            text = short_name(node)
            if got:
                text += f"\ngrad {_sum_text(got)}"
            if state == "waiting":
                text += f"\n({len(got)} of {self.expected[node]} gradients)"
            variable = getattr(node, "variable", None)
            if variable is not None and variable.grad is not None:
                text += f"\n.grad = {_format(variable.grad)}"
            labels[node] = text
        return labels, fills, dict(carried)

    def _repr_html_(self):
        uid = f"toygrad-stepper-{next(_stepper_ids)}"
        last = len(self.frames) - 1
        frames = "".join(
            figure_html(svg, caption, caption,
                        f'class="stepper-frame" data-index="{i}"'
                        + ("" if i == 0 else " hidden"))
            for i, (svg, caption) in enumerate(self.frames))
        captions = json.dumps([caption for _, caption in self.frames]).replace(
            "<", "\\u003c")  # no "</script>" can end the script early
        swatch = ("display:inline-block;width:1.6em;height:1em;"
                  "vertical-align:-0.15em;margin-right:0.35em;"
                  "border:1px solid #000;background:")
        legend = "".join(
            f'<li><span style="{swatch}{STATES[state]}"></span>{words}</li>'
            for state, words in LEGEND.items())
        # The controls: buttons that are disabled at either end, a slider
        # whose value a screen reader reads as the step's caption, and a
        # position that is announced when it changes. The book's stylesheet
        # (_static/book.css) gives them the theme's colours and a 44 px
        # touch target; the inline styles are what Jupyter shows.
        return f"""<div class="toygrad-stepper" id="{uid}">
<div class="stepper-controls" style="margin-bottom:0.5em;display:flex;
 flex-wrap:wrap;align-items:center;gap:0.5em">
<button type="button" class="stepper-previous" disabled>&#9664; previous
</button>
<input type="range" class="stepper-slider" min="0" max="{last}" value="0"
 aria-label="backward step" aria-valuetext="{html.escape(self.frames[0][1])}"
 style="min-height:24px;flex:1 1 8em;max-width:16em">
<button type="button" class="stepper-next">next &#9654;</button>
<span class="stepper-position" aria-live="polite">step 0 of {last}</span>
</div>
<ul class="stepper-legend" aria-label="colours of the nodes" style="
 list-style:none;padding:0;margin:0 0 0.5em;display:flex;flex-wrap:wrap;
 gap:0.25em 1.2em;font-size:0.9em">{legend}<li><span style="
 display:inline-block;width:1.6em;vertical-align:0.3em;margin-right:0.35em;
 border-top:2px solid red"></span>an edge's label: the gradient it carried,
 against the arrow</li></ul>
{frames}</div>
<script>
(function () {{
  const root = document.getElementById("{uid}");
  const frames = root.querySelectorAll(".stepper-frame");
  const slider = root.querySelector(".stepper-slider");
  const position = root.querySelector(".stepper-position");
  const previous = root.querySelector(".stepper-previous");
  const next = root.querySelector(".stepper-next");
  const captions = {captions};
  function show(index) {{
    index = Math.max(0, Math.min({last}, index));
    frames.forEach(function (frame, i) {{ frame.hidden = i !== index; }});
    slider.value = index;
    slider.setAttribute("aria-valuetext", captions[index]);
    previous.disabled = index === 0;
    next.disabled = index === {last};
    position.textContent = "step " + index + " of {last}";
  }}
  previous.addEventListener("click",
    function () {{ show(Number(slider.value) - 1); }});
  next.addEventListener("click",
    function () {{ show(Number(slider.value) + 1); }});
  slider.addEventListener("input",
    function () {{ show(Number(slider.value)); }});
}})();
</script>"""


def stepper(output, params=None):
    """Step through toygrad's backward pass from ``output``, node by node."""
    return Stepper(output, params)
