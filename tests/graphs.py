"""A recorded graph as comparable data, for the tests of chapters 3 to 6.

Chapter 7 builds toygrad's own walker (``toygrad.viz``, depth first); the tests of the
chapters before it cannot use it (a package cut after chapter 6 has no ``viz``), and a
check written apart from the code it checks is a better check. This one walks breadth
first, so it is not the walker a student writes in chapter 7 either.
"""

import collections


def structure(output):
    """One ``(name, edges, leaf shape)`` per node, nodes numbered breadth first.

    ``edges`` holds ``(number of the next node or None, input_nr)`` for each entry of
    ``next_functions``; the leaf shape is that of an ``AccumulateGrad``'s ``variable``.
    Two graphs, toygrad's or PyTorch's, are the same exactly when their structures are
    equal.
    """
    if output.grad_fn is None:
        return []
    number = {output.grad_fn: 0}
    queue = collections.deque([output.grad_fn])
    while queue:
        for next_node, _ in queue.popleft().next_functions:
            if next_node is not None and next_node not in number:
                number[next_node] = len(number)
                queue.append(next_node)
    result = []
    for node in number:  # in the order they were numbered
        edges = tuple((None if n is None else number[n], nr) for n, nr in node.next_functions)
        variable = getattr(node, "variable", None)
        shape = None
        if variable is not None:
            raw = getattr(variable, "shape", None)
            if raw is None:  # a scalar Value
                raw = getattr(variable.data, "shape", ())
            shape = tuple(int(n) for n in raw)
        result.append((node.name().rsplit("::", 1)[-1], edges, shape))
    return result
