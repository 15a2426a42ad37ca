"""Collect only the tests whose chapters the toygrad under test has.

A student's copy, or a package cut after chapter N, lacks the files of later chapters;
a test module of such a chapter would fail to import and stop the whole collection, so it
is left out instead. A test module's chapter is the ``chNN`` marker in its ``pytestmark``;
a module without one needs every chapter. The toygrad under test is the one Python
imports: the repository's own, or a submission's (``PYTHONPATH=.../code``, which
``scripts/grade.py`` sets).
"""

import importlib.util
import os
import re
from pathlib import Path

import pytest

from chapters import LAST, files_up_to
from tasks import TASKS

_PYTESTMARK = re.compile(r"^pytestmark = (\[.*?\]|.*?)$", re.M | re.S)


def _package():
    spec = importlib.util.find_spec("toygrad")
    return Path(spec.origin).parent if spec and spec.origin else None


def _chapter(path):
    mark = _PYTESTMARK.search(path.read_text())
    chapters = re.findall(r"\bch(\d\d)\b", mark[1]) if mark else []
    return max(map(int, chapters)) if chapters else LAST


# `make test` runs the tests that do not name the book's pages apart (stage unit), and does not
# run them again when only pages change (scripts/passcache.py). In that run, a test that opens
# a page anyway fails here, naming it: its module belongs with the pages' tests. The pages are
# named by the run (UNIT_WITHOUT_PAGES: paths from the repository's root; passcache.PAGES).
if os.environ.get("UNIT_WITHOUT_PAGES", "").strip():
    import sys

    _ROOT = str(Path(__file__).resolve().parents[1])
    _PAGES = tuple(os.path.join(_ROOT, page)
                   for page in os.environ["UNIT_WITHOUT_PAGES"].split())

    def _no_pages(event, args):
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.abspath(os.fsdecode(args[0]))
            if path.startswith(_PAGES):
                raise PermissionError(
                    f"this test reads {path}, a page of the book, but its module does not "
                    f"name the pages: it would not run again when they change (make test's "
                    f"unit stage). Name the path in the module (scripts/passcache.py "
                    f"page_readers)")

    sys.addaudithook(_no_pages)


def selected_chapter(config):
    """The marker of ``pytest -m chNN`` (a chapter's tests, and nothing else), or None."""
    expression = (config.getoption("markexpr", default="") or "").strip()
    return expression if re.fullmatch(r"ch\d\d", expression) else None


def pytest_ignore_collect(collection_path, config):
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    # `pytest -m ch04` would import and collect all 15,000 tests to keep 40 (8 s, 26 s on
    # Binder's CPU, once per chapter in the instructor check): a module that never names the
    # marker cannot hold a test with it (chapter markers are written out, never computed:
    # tests/test_marker_selection.py), so it is not collected at all (issue 25).
    chapter = selected_chapter(config)
    if chapter and not re.search(rf"\b{chapter}\b", collection_path.read_text()):
        return True
    package = _package()
    if package is None:
        return None  # no toygrad at all: let the import error say so
    missing = [name for name in files_up_to(_chapter(collection_path))
               if not (package / name).exists()]
    return True if missing else None


def pytest_configure(config):
    # These tests test the toygrad beside them (this folder's code/), or one named on
    # PYTHONPATH on purpose; never, silently, another one that happens to be installed.
    beside = Path(__file__).resolve().parents[1] / "code" / "toygrad"
    package = _package()
    chosen = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if (package is not None and beside.exists() and package.resolve() != beside
            and str(package.parent) not in chosen):
        raise pytest.UsageError(
            f"these tests would test the toygrad in {package}, not the one beside them "
            f"in {beside}: install this folder (pip install -e .) or run with "
            f"PYTHONPATH={beside.parent}")
    # One marker per task (pytest -m task4_1), from the one table of tasks.
    for task in TASKS:
        config.addinivalue_line("markers", f"{task.marker}: task {task.id}, {task.title}")
