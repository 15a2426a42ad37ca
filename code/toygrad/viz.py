"""Pictures of recorded graphs, in torchviz's visual language.

``make_dot`` draws a toygrad graph the way ``torchviz.make_dot`` draws
PyTorch's: backward nodes grey, leaves that will receive a gradient light blue,
the output light green, every box labelled as torchviz labels it. So a reader
sees one visual grammar for both engines.
"""

import graphviz

NODE_ATTR = dict(style="filled", shape="box", align="left", fontsize="10",
                 ranksep="0.1", height="0.2", fontname="monospace")


def _size(var):
    shape = getattr(getattr(var, "data", None), "shape", ())
    return "(" + ", ".join(str(n) for n in shape) + ")"


def make_dot(output, params=None):
    """The graph behind ``output`` as a ``graphviz.Digraph``.

    Args:
        output: a toygrad Value or tensor, the result whose ``grad_fn`` the
            picture starts from.
        params: optional ``{name: leaf}``, to label leaves by name.
    """
    names = {id(leaf): name for name, leaf in (params or {}).items()}

    def label(var):
        return f"{names.get(id(var), '')}\n {_size(var)}"

    dot = graphviz.Digraph(node_attr=NODE_ATTR, graph_attr=dict(size="12,12"))
    dot.node(str(id(output)), label(output), fillcolor="darkolivegreen1")
    if output.grad_fn is None:
        return dot
    dot.edge(str(id(output.grad_fn)), str(id(output)))
    seen, stack = {output.grad_fn}, [output.grad_fn]
    while stack:  # iterative, so that deep graphs can be drawn too
        fn = stack.pop()
        dot.node(str(id(fn)), fn.name())
        if hasattr(fn, "variable"):
            dot.node(str(id(fn.variable)), label(fn.variable),
                     fillcolor="lightblue")
            dot.edge(str(id(fn.variable)), str(id(fn)))
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                dot.edge(str(id(next_fn)), str(id(fn)))
                if next_fn not in seen:
                    seen.add(next_fn)
                    stack.append(next_fn)
    # As torchviz does: let large graphs grow, about 0.3 inch per node.
    size = max(12, 0.3 * len(seen))
    dot.graph_attr.update(size=f"{size},{size}")
    return dot
