"""toygrad as each chapter leaves it: the chapter markers, the snapshots, the listings.

The markers and the snapshot writer are in tests/chapters.py. That every snapshot imports
and passes its chapter's tests is the instructor check's job
(test_student_edition.py::test_a_chapter_s_snapshot_imports_and_passes_that_chapter_s_tests);
here, what can be read without running it.
"""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

import chapters
from chapters import LAST, MarkerError, regions, source_after

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import binder_notebooks  # noqa: E402  (scripts/binder_notebooks.py: Sphinx's reader)

FIRST = min(chapters.CHAPTER_FILES)
FILES = sorted(path for paths in chapters.CHAPTER_FILES.values() for path in paths)

EXAMPLE = """\
a = 1
#> ch05 chapter 5's lines
b = 2
    #> ch12
c = 3
    #< ch12
#< ch05
#> ch04 until ch05
#| d = 4
#|
#|     e = 5
#< ch04 until ch05
"""


def test_a_snapshot_keeps_what_its_chapter_has_and_uncomments_earlier_forms():
    assert source_after(EXAMPLE, 4) == "a = 1\nd = 4\n\n    e = 5\n"
    assert source_after(EXAMPLE, 5) == "a = 1\nb = 2\n"
    assert source_after(EXAMPLE, 12) == "a = 1\nb = 2\nc = 3\n"


@pytest.mark.parametrize("text, says", [
    ("#> ch05\na = 1\n", "not closed"),
    ("#> ch05\na = 1\n#< ch06\n", "closes no region"),
    ("a = 1\n#< ch05\n", "closes no region"),
    ("#> ch05 until ch05\n#| a = 1\n#< ch05 until ch05\n", "is not after"),
    ("#> ch04 until ch05\na = 1\n#< ch04 until ch05\n", "must start with '#|'"),
    ("#> ch12\n#> ch05\na = 1\n#< ch05\n#< ch12\n", "same or a later chapter"),
    ("#> ch04 until ch05\n#> ch04\n#< ch04\n#< ch04 until ch05\n", "not inside an earlier"),
])
def test_a_marker_that_does_not_open_close_or_nest_is_refused(text, says):
    with pytest.raises(MarkerError, match=says):
        regions(text)


@pytest.mark.parametrize("path", FILES)
def test_every_file_s_markers_are_for_chapters_after_the_file_s_own(path):
    own = chapters.chapter_of_file(path)
    text = (chapters.PACKAGE / path).read_text()
    for line, marks in regions(text, path):
        for start, until in marks:
            assert own <= start <= LAST and (until is None or until <= LAST), (path, line)
            assert until is not None or start > own, (
                f"{path}: a region of chapter {start} in a file chapter {own} adds")
    last = source_after(text, LAST, path)
    assert not re.search(r"^\s*#[<>|]", last, re.M), path  # no marker left
    for chapter in range(own, LAST + 1):  # every snapshot of the file is Python
        compile(source_after(text, chapter, path), f"ch{chapter:02d}/{path}", "exec")


def test_no_find_spec_in_the_package_a_snapshot_has_only_its_chapters_code():
    # Chapter markers, not checks for later chapters' modules at import time.
    for path in FILES:
        assert "find_spec" not in (chapters.PACKAGE / path).read_text(), path


def test_the_writer_touches_only_what_changed_and_removes_what_left(tmp_path):
    folder = chapters.write_snapshot(4, tmp_path)
    engine = folder / "toygrad" / "autograd" / "engine.py"
    stale = folder / "toygrad" / "tensor.py"
    stale.write_text("# chapter 5's file: not in chapter 4's snapshot\n")
    before = engine.stat().st_mtime_ns
    chapters.write_snapshot(4, tmp_path)
    assert engine.stat().st_mtime_ns == before and not stale.exists()
    assert sorted(p.relative_to(folder / "toygrad").as_posix()
                  for p in (folder / "toygrad").rglob("*.py")) == sorted(
        chapters.files_up_to(4))


# The book's listings.

INCLUDE = re.compile(r"^(`{3,})\{literalinclude\}\s+(\S+)\n(.*?)^\1$", re.M | re.S)
PAGES = sorted((ROOT / "chapters").glob("*.md"))


def page_chapter(page):
    number = re.match(r"ch(\d\d)_", page.name)
    return int(number[1]) if number else LAST  # an appendix: the whole package


def listings(page):
    """(target, options, path in the package or None) for each literalinclude."""
    for _, target, body in INCLUDE.findall(page.read_text()):
        options = binder_notebooks.parse_options(body.splitlines())
        package = re.match(r"\.\./_build/snapshots/ch\d\d/toygrad/(.*)$", target)
        yield target, options, package and package[1]


@pytest.fixture(scope="module")
def snapshots():
    return chapters.write_all_snapshots(ROOT)


def test_every_listing_of_toygrad_is_read_from_its_chapter_s_snapshot():
    found = 0
    for page in PAGES:
        for target, _, path in listings(page):
            assert "code/toygrad" not in target, (
                f"{page.name}: {target}: read it from the chapter's snapshot, "
                f"../_build/snapshots/ch{page_chapter(page):02d}/toygrad/...")
            if path is not None:
                found += 1
                assert target.startswith(
                    f"../_build/snapshots/ch{page_chapter(page):02d}/"), (page.name, target)
    assert found >= 70


def test_no_listing_shows_a_line_that_a_later_chapter_adds(snapshots):
    checked = 0
    for page in PAGES:
        chapter = page_chapter(page)
        for target, options, path in listings(page):
            if path is None:
                continue
            shown = binder_notebooks.read_include(page.parent, target, options)
            text = (chapters.PACKAGE / path).read_text()

            def lines(after):
                return {line.strip() for line in source_after(text, after).splitlines()}

            now = lines(chapter)
            later = set().union(*[lines(after) for after in range(chapter + 1, LAST + 1)])
            later -= now
            added = [line for line in shown.splitlines()
                     if len(line.strip()) > 12 and line.strip() in later]
            assert not added, (page.name, target, added)
            checked += 1
    assert checked >= 70


def test_chapter_4_shows_chapter_4_s_engine(snapshots):
    page = ROOT / "chapters" / "ch04_backward.md"
    shown = [binder_notebooks.read_include(page.parent, target, options)
             for target, options, path in listings(page)
             if options.get("pyobject") == "execute"]
    assert len(shown) == 1
    for later in ("needed", "captures", "slots", "num_outputs", "_call_function",
                  "input_nr", "anomaly", "hooks"):
        assert later not in shown[0], later
    body = shown[0].split('"""')[2]  # after the docstring
    code = [line for line in body.splitlines()
            if line.strip() and not line.strip().startswith("#")]
    assert 15 <= len(code) <= 30, len(code)  # the core loop, about 20 lines of code


def test_every_method_listing_is_dedented():
    # A method shown at its class's indentation wastes the page's width (issue 28, point 2).
    undented = [(page.name, options["pyobject"]) for page in PAGES
                for _, options, _ in listings(page)
                if "." in (options.get("pyobject") or "") and "dedent" not in options]
    assert undented == []


def _extension():
    spec = importlib.util.spec_from_file_location("snapshots_ext", ROOT / "_ext" / "snapshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_diff_of_two_listings_names_the_lines_added():
    added_lines = _extension().added_lines
    assert added_lines(["a", "b"], ["a", "x", "b", ""]) == [2]
    assert added_lines(["a", "b"], ["a", "c"]) == [2]
    assert added_lines(["a"], ["a"]) == []


def test_a_listing_highlights_what_its_chapter_adds_and_nothing_else(snapshots):
    """For each listing of chapter N that chapter N-1's snapshot also has, the lines the
    build highlights are lines chapter N adds (by the markers), and every line of some
    length that chapter N adds is highlighted."""
    added_lines = _extension().added_lines
    highlighted = 0
    for page in PAGES:
        chapter = page_chapter(page)
        if not page.name.startswith("ch") or chapter <= FIRST:
            continue
        for target, options, path in listings(page):
            if path is None:
                continue
            earlier = target.replace(f"/ch{chapter:02d}/", f"/ch{chapter - 1:02d}/")
            given = options.get("emphasize-lines")
            if given:  # by hand: held to the same rule if the object is an earlier one's
                whole = {key: value for key, value in options.items()
                         if key in ("pyobject", "dedent")}
                try:
                    before = binder_notebooks.read_include(page.parent, earlier, whole)
                except (OSError, ValueError):
                    continue  # new in this chapter as a whole: emphasis of another kind
                shown = binder_notebooks.read_include(page.parent, target,
                                                      options).splitlines()
                marked = {number for part in given.split(",")
                          for first, _, last in [part.strip().partition("-")]
                          for number in range(int(first), int(last or first) + 1)}
            else:
                try:
                    before = binder_notebooks.read_include(page.parent, earlier, options)
                except (OSError, ValueError):
                    continue  # new in this chapter as a whole
                shown = binder_notebooks.read_include(page.parent, target,
                                                      options).splitlines()
                marked = added_lines(before.splitlines(), shown)
            if len(marked) == sum(1 for line in shown if line.strip()):
                continue  # shown plain: all of it is new
            text = (chapters.PACKAGE / path).read_text()
            now = {line.strip() for line in source_after(text, chapter).splitlines()}
            then = {line.strip() for line in source_after(text, chapter - 1).splitlines()}
            for number, line in enumerate(shown, 1):
                if number in marked:  # added, or an earlier line indented anew
                    assert (line.strip() in now - then or len(line.strip()) <= 12
                            or line not in before.splitlines()), (page.name, target, line)
                elif len(line.strip()) > 12:
                    assert line.strip() not in now - then, (page.name, target, line)
            highlighted += bool(marked)
    assert highlighted >= 3


def test_no_listing_shows_a_task_s_solution_before_the_task_s_chapter(snapshots):
    # Chapter 3 shows AccumulateGrad up to Task 4.2's method, not its body.
    sys.path.insert(0, str(ROOT / "scripts"))
    import student_edition
    from tasks import TASKS

    checked = 0
    for task in TASKS:
        text = source_after((chapters.PACKAGE.parent / task.path).read_text(), task.chapter)
        first, last = student_edition.body_lines(text, task.qualname)
        body = {line.strip() for line in text.splitlines()[first - 1:last]
                if len(line.strip()) > 24 and not line.strip().startswith("#")}
        for page in PAGES:
            if not page.name.startswith("ch") or page_chapter(page) >= task.chapter:
                continue
            for target, options, path in listings(page):
                if path is None:
                    continue
                shown = binder_notebooks.read_include(page.parent, target, options)
                leaked = {line.strip() for line in shown.splitlines()} & body
                assert len(leaked) < 3, (page.name, task.id, leaked)  # (a line may recur)
                checked += 1
    assert checked > 100


def test_a_task_s_stub_is_its_function_with_a_body_that_raises_naming_the_task():
    # A page may show the stub where it sets a task (../_build/stubs/chNN), and toygrad's
    # code in a collapsed solution; the stub is what the student edition starts from.
    import ast

    sys.path.insert(0, str(ROOT / "scripts"))
    import student_edition
    from tasks import TASKS

    chapters.write_task_stubs(ROOT)
    for task in TASKS:
        path = task.path.removeprefix("toygrad/")
        stub = (chapters.stub_folder(task.chapter, ROOT) / "toygrad" / path).read_text()
        own = chapters.snapshot(task.chapter)[path]
        function = student_edition.function_node(ast.parse(stub), task.qualname)
        body = [node for node in function.body
                if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        assert len(body) == 1 and isinstance(body[0], ast.Raise), task.id
        raised = body[0].exc
        assert raised.func.id == "NotImplementedError", task.id
        assert raised.args[0].value.startswith(f"Task {task.id} "), task.id
        assert max(map(len, stub.splitlines())) <= 79, task.id
        head, _ = student_edition.head_lines(own, task.qualname)
        assert "".join(head) in stub, task.id  # the def and docstring, as the chapter has them
    for page in PAGES:  # a page shows the stubs of its own chapter's tasks only
        for target, options, _ in listings(page):
            found = re.match(r"\.\./_build/stubs/ch(\d\d)/toygrad/(.*)$", target)
            if found:
                assert int(found[1]) == page_chapter(page), (page.name, target)
                assert any(task.chapter == page_chapter(page) and task.qualname
                           == options.get("pyobject") for task in TASKS), (page.name, target)


def test_a_task_s_sketch_on_a_page_is_its_chapter_s_code_with_gaps():
    # A page may sketch a task's function in a plain ```python block, with "..." where the
    # student's work goes (ch05's Mm.backward, ch12's grad). Every other line of the sketch
    # is a line of that task's function as the chapter leaves it, so the sketch cannot
    # drift from code/toygrad.
    sys.path.insert(0, str(ROOT / "scripts"))
    import student_edition
    from tasks import TASKS

    sketches = 0
    for page in PAGES:
        if not page.name.startswith("ch"):
            continue
        chapter = page_chapter(page)
        tasks = [task for task in TASKS if task.chapter == chapter]
        texts = chapters.snapshot(chapter)
        sources = []
        for task in tasks:
            text = texts[task.path.removeprefix("toygrad/")]
            _, first = student_edition.head_lines(text, task.qualname)
            _, last = student_edition.body_lines(text, task.qualname)
            sources.append({line.split("#")[0].strip()
                            for line in text.splitlines()[first - 1:last]})
        for block in re.findall(r"^```python\n(.*?)^```", page.read_text(), re.M | re.S):
            sketches += 1
            lines = [line.split("#")[0].strip() for line in block.splitlines()
                     if "..." not in line and line.split("#")[0].strip()]
            assert any(set(lines) <= source for source in sources), (page.name, lines)
    assert sketches >= 2


def test_no_marker_stands_inside_a_string():
    # A marker in a docstring would show in help() of the final package.
    import tokenize

    found = []
    for path in sorted(chapters.PACKAGE.rglob("*.py")):
        with open(path) as source:
            for token in tokenize.generate_tokens(source.readline):
                if token.type == tokenize.STRING and re.search(
                        r"^[ \t]*#[<>|]", token.string, re.MULTILINE):
                    found.append((path.name, token.start[0]))
    assert found == []


def test_the_pages_name_the_chapters_that_add_to_execute():
    # Chapter 4, the instructors' page and the student README say which chapters add lines
    # to Task 4.1's execute, and which chapters' tasks need them.
    sys.path.insert(0, str(ROOT / "scripts"))
    import student_edition
    from tasks import TASKS

    text = (chapters.PACKAGE / "autograd" / "engine.py").read_text()
    function = student_edition.function_node(
        __import__("ast").parse(text), "execute")
    lines = text.splitlines()[function.lineno - 1:function.end_lineno]
    adding = sorted({int(m[2]) for line in lines for m in [chapters.MARKER.match(line)]
                     if m and m[1] == ">" and int(m[2]) > 4})
    needed = sorted({c for task in TASKS for t, c in task.needs_lines if t == "4.1"})
    assert adding == [5, 9, 10, 12] and needed == [10, 12]
    for text in [(ROOT / "chapters" / "ch04_backward.md").read_text(),
                 (ROOT / "chapters" / "appendix_instructors.md").read_text(),
                 student_edition.README]:
        assert "chapters 5, 9, 10 and 12" in " ".join(text.lower().split())
