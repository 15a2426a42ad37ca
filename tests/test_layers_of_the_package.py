"""The package's layers (issue 26): the library never depends on its examples, and its
modules do not import each other in circles.

``toygrad.examples`` holds the book's worked examples (chapter 8's ScipyConv2d, for
toygrad and for PyTorch); the library may be read, cut and used without them. Every
import is read, at module level and inside functions, from the source itself.
"""

import ast
import re
import sys
from pathlib import Path


PACKAGE = Path(__file__).resolve().parents[1] / "code" / "toygrad"


def imported_modules(path):
    """Every module an ``import`` or ``from ... import`` in ``path`` names, wherever it
    stands (relative imports resolved against the module's own package)."""
    package = ".".join(("toygrad",) + path.relative_to(PACKAGE).parent.parts)
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names += [base] + [f"{base}.{alias.name}" for alias in node.names]
    return names


def test_the_reader_of_imports_sees_every_form(tmp_path):
    module = PACKAGE / "nn" / "layers.py"
    assert "toygrad.nn.conv" in imported_modules(module)
    example = PACKAGE / "examples" / "scipy_conv_torch.py"
    assert "toygrad.examples.scipy_conv" in imported_modules(example)


def test_no_module_of_the_library_imports_the_examples():
    library = [path for path in sorted(PACKAGE.rglob("*.py"))
               if "examples" not in path.relative_to(PACKAGE).parts]
    assert len(library) > 20
    found = [(str(path.relative_to(PACKAGE)), name) for path in library
             for name in imported_modules(path)
             if name == "toygrad.examples" or name.startswith("toygrad.examples.")]
    assert found == []


# --- Import circles ---------------------------------------------------------------------------
# A module depends on what it imports: ``from toygrad.nn import functional`` on the module
# toygrad.nn.functional, ``from toygrad.nn import Module`` on toygrad.nn (the package's
# __init__). That Python runs a package's __init__ before any of its modules is the order of
# loading, not a dependency of the module on the package's front.

def module_names():
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("toygrad",) + path.relative_to(PACKAGE).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def dependencies(path, modules):
    """The package's modules that the module at ``path`` imports (anywhere in it)."""
    package = ".".join(("toygrad",) + path.relative_to(PACKAGE).parent.parts)

    def known(name):
        parts = name.split(".")
        return next((".".join(parts[:k]) for k in range(len(parts), 0, -1)
                     if ".".join(parts[:k]) in modules), None)

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(known(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else known(base))
    return found - {None}


def circles():
    """The sets of modules that import each other in a circle (Tarjan's strongly connected
    components of more than one module, or a module importing itself)."""
    modules = module_names()
    graph = {name: dependencies(path, modules) - {name} for name, path in modules.items()}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_reader_of_circles_finds_one(tmp_path, monkeypatch):
    package = tmp_path / "toygrad"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from toygrad import a\n")
    (package / "a.py").write_text("def f():\n    from toygrad.sub import b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("from toygrad.a import f\nfrom . import c\n")
    (package / "sub" / "c.py").write_text("import toygrad.sub\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    assert circles() == [["toygrad.a", "toygrad.sub.b"]]


def test_the_neural_network_modules_import_no_circle():
    assert [circle for circle in circles() if any(".nn" in name for name in circle)] == []


def test_the_graph_and_the_engine_import_no_later_module():
    # Chapter 10's hooks plug into them (graph.extensions) instead.
    caught = [circle for circle in circles()
              if {"toygrad.autograd.graph", "toygrad.autograd.engine"} & set(circle)]
    assert caught == []


def test_the_hooks_differentiate_and_forward_ad_are_in_no_circle():
    # The views move a tensor's hooks through graph.extensions.move_hooks (chapter 10 sets
    # it), as the graph and the engine call them; Tensor.backward(inputs=...) calls chapter
    # 12's backward through graph.extensions.backward; Function.apply and the views call
    # forward AD through function.dual, which chapter 13's forward_ad fills.
    later = {"toygrad.autograd.hooks", "toygrad.autograd.differentiate",
             "toygrad.autograd.forward_ad"}
    assert [circle for circle in circles() if later & set(circle)] == []


def test_the_tensor_does_not_import_the_hooks_which_bind_its_hook_methods():
    # Chapter 10's hooks bind Tensor.register_hook, register_post_accumulate_grad_hook and
    # retain_grad; the tensor module (chapter 5) knows nothing of them.
    modules = module_names()
    assert "toygrad.autograd.hooks" not in dependencies(modules["toygrad.tensor"], modules)
    import toygrad
    from toygrad.autograd import hooks
    assert toygrad.Tensor.register_hook is hooks.register_hook
    assert toygrad.Tensor.register_post_accumulate_grad_hook is (
        hooks.register_post_accumulate_grad_hook)
    assert toygrad.Tensor.retain_grad is hooks.retain_grad


def test_no_module_of_the_package_imports_itself_through_others():
    assert circles() == []


def test_the_operations_are_layered_in_the_order_their_package_gives():
    """Each module of toygrad.ops imports only the ones before it in the list of
    ``toygrad/ops/__init__.py``'s docstring; the tensor imports none of them, nor the
    Function API, the views or the methods that call them."""
    modules = module_names()
    listed = re.findall(r"^- ``(\w+)``:", (PACKAGE / "ops" / "__init__.py").read_text(),
                        re.MULTILINE)
    found = sorted(name.rsplit(".", 1)[-1] for name in modules
                   if name.startswith("toygrad.ops."))
    assert sorted(listed) == found and len(found) >= 6
    for k, name in enumerate(listed):
        later = {f"toygrad.ops.{other}" for other in listed[k + 1:]} | {"toygrad.ops"}
        imported = dependencies(modules[f"toygrad.ops.{name}"], modules)
        assert imported & later == set(), name
    above = {"toygrad.ops", "toygrad.views", "toygrad.methods",
             "toygrad.autograd.function"} | {f"toygrad.ops.{name}" for name in listed}
    assert dependencies(modules["toygrad.tensor"], modules) & above == set()
