"""``pytest -m chNN`` collects only the modules that name ``chNN`` (tests/conftest.py, issue 25).

That shortcut selects exactly the tests a full collection would if, and only if, every test
that carries a chapter's marker sits in a module whose text names that marker. These tests
hold the suite to it: chapter markers are written out, never computed, and every collected
test's chapter markers appear in its module.
"""

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tasks import TASKS

TESTS = Path(__file__).resolve().parent
CHAPTER = re.compile(r"ch\d\d")


def _is_pytest_mark(node):
    return (isinstance(node, ast.Attribute) and node.attr == "mark"
            and isinstance(node.value, ast.Name) and node.value.id == "pytest")


def test_no_module_computes_a_marker_that_could_be_a_chapter():
    computed = []
    for path in sorted(TESTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "getattr" and node.args and _is_pytest_mark(node.args[0])):
                computed.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr == "add_marker":
                computed.append(f"{path.name}:{node.lineno} add_marker")
    # The one computed marker is a task's (verdict.py: taskN_K, from tests/tasks.py).
    assert computed == [f"verdict.py:{_line_of_task_marks()}"], computed
    assert all(task.marker.startswith("task") and not CHAPTER.search(task.marker)
               for task in TASKS)


def _line_of_task_marks():
    source = (TESTS / "verdict.py").read_text().splitlines()
    return next(number for number, line in enumerate(source, 1)
                if "getattr(pytest.mark, check.task)" in line)


def test_every_collected_test_s_chapter_marker_is_named_in_its_module(request):
    items = request.session.items
    if not any(CHAPTER.fullmatch(mark.name) for item in items for mark in item.iter_markers()):
        pytest.skip("no chapter's test in this run: run with the suite (make unit), it "
                    "checks what was collected")
    text = {path: path.read_text() for path in {item.path for item in items}}
    unnamed = sorted({f"{item.nodeid}: {mark.name}" for item in items
                      for mark in item.iter_markers() if CHAPTER.fullmatch(mark.name)
                      and not re.search(rf"\b{mark.name}\b", text[item.path])})
    assert unnamed == []


def test_a_chapter_s_run_collects_only_the_modules_that_name_it(tmp_path):
    # A module that names ch07 is collected and its ch07 test runs; one that does not name it
    # is not even imported (it would fail if it were).
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""\
        import importlib.util, sys
        sys.path.insert(0, {str(TESTS)!r})
        spec = importlib.util.spec_from_file_location("book_conftest", {str(TESTS / "conftest.py")!r})
        book = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(book)
        pytest_ignore_collect = book.pytest_ignore_collect
        """))
    (tmp_path / "test_named.py").write_text(
        "import pytest\n\n@pytest.mark.ch07\ndef test_seen():\n    pass\n\n"
        "def test_other():\n    pass\n")
    (tmp_path / "test_unnamed.py").write_text("raise SystemExit('imported')\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    ch07: chapter 7\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-m", "ch07", "-rA"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASSED test_named.py::test_seen" in run.stdout
    assert "1 passed, 1 deselected" in run.stdout
    # Without a chapter's marker alone, every module is collected (and the broken one fails).
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-m", "ch07 or not ch07"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode != 0 and "imported" in run.stdout + run.stderr
