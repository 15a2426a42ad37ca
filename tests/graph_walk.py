"""Test helper: the structure of a recorded graph, read through the API toygrad and PyTorch share."""


def structure(output):
    """The graph behind ``output`` as comparable data.

    Nodes are numbered in the order a depth-first walk from ``output.grad_fn`` meets them,
    so a node reached twice (reuse) gets the same number both times. Each node becomes
    ``(name, ((child number or None, input_nr), ...))``; ``name`` drops PyTorch's
    ``torch::autograd::`` prefix of AccumulateGrad.
    """
    numbers, nodes, stack = {}, [], [output.grad_fn]
    numbers[output.grad_fn] = 0
    order = [output.grad_fn]
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node not in numbers:
                numbers[next_node] = len(numbers)
                order.append(next_node)
                stack.append(next_node)
    for node in order:
        edges = tuple((None if n is None else numbers[n], nr) for n, nr in node.next_functions)
        nodes.append((node.name().split("::")[-1], edges))
    return nodes
