"""A recorded graph as comparable data, for the tests of chapters 3 to 6.

Chapter 7 builds toygrad's own walker (``toygrad.viz.graph_structure``); the tests of the
chapters before it cannot use it (a package cut after chapter 6 has no ``viz``), and a
check written apart from the code it checks is a better check. ``structure`` gives the
same data as ``graph_structure``, which tests/test_viz.py confirms.
"""


def structure(output):
    """One ``(name, edges, leaf shape)`` per node, nodes numbered depth first.

    ``edges`` holds ``(number of the next node or None, input_nr)`` for each entry of
    ``next_functions``; the leaf shape is that of an ``AccumulateGrad``'s ``variable``.
    Works on toygrad and on PyTorch alike.
    """
    root = output.grad_fn
    if root is None:
        return []
    order, number, stack = [], {root: 0}, [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for next_node, _ in reversed(node.next_functions):
            if next_node is not None and next_node not in number:
                number[next_node] = len(number)
                stack.append(next_node)
    index = {node: i for i, node in enumerate(order)}
    result = []
    for node in order:
        edges = tuple((None if n is None else index[n], nr) for n, nr in node.next_functions)
        variable = getattr(node, "variable", None)
        shape = None
        if variable is not None:
            raw = getattr(variable, "shape", None)
            if raw is None:  # a scalar Value
                raw = getattr(variable.data, "shape", ())
            shape = tuple(int(n) for n in raw)
        result.append((node.name().rsplit("::", 1)[-1], edges, shape))
    return result
