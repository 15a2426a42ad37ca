"""The package's layers (issue 26): the library never depends on its examples.

``toygrad.examples`` holds the book's worked examples (chapter 8's ScipyConv2d, for
toygrad and for PyTorch); the library may be read, cut and used without them. Every
import is read, at module level and inside functions, from the source itself.
"""

import ast
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
