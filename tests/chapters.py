"""The package as each chapter leaves it: which files, and which lines, each chapter adds.

A file belongs to the first chapter whose code needs it (``CHAPTER_FILES``): the tensor
operations of chapter 5 are ``Function``s, so ``autograd/function.py`` comes with chapter
5, and chapter 6 explains it. Inside a file, a later chapter's lines are marked with
comments, as *Crafting Interpreters* marks its snippets (``//>`` and ``//<``):

    #> ch12 a pass that skips nodes
    ...lines that chapter 12 adds...
    #< ch12

and code that a later chapter rewrites keeps its earlier form, commented out with ``#|``,
in a region that says until when it stands:

    #> ch04 until ch05
    #| grads_in = (received.pop(node),)
    #< ch04 until ch05

A snapshot after chapter N (``write_snapshot``) holds the files of chapters 2 to N, each
without the lines of later chapters and with the earlier forms of code still to be
rewritten, and no marker. It imports, and every test of chapter N passes on it
(tests/test_student_edition.py proves it for every chapter); chapter N's listings are read
from it, so a page never shows code of a chapter still to come. Regions nest; a region
inside another is for the same or a later chapter. ``python scripts/snapshot.py N DEST``
writes one.
"""

import re
from pathlib import Path

CHAPTER_FILES = {
    2: ["__init__.py", "autograd/__init__.py", "autograd/gradcheck.py"],
    3: ["scalar.py", "autograd/graph.py"],
    4: ["autograd/engine.py"],
    5: ["tensor.py", "methods.py", "ops/__init__.py", "ops/common.py",
        "ops/shapes.py", "ops/pointwise.py", "ops/indexing.py",
        "ops/reductions.py", "ops/linalg.py", "ops/nn_functions.py",
        "ops/inplace.py", "dtypes.py", "views.py", "autograd/function.py",
        "autograd/grad_mode.py", "nn/__init__.py", "nn/modules.py", "nn/functional.py",
        "optim.py"],
    6: [],
    7: ["viz.py"],
    8: ["nn/conv.py", "examples/__init__.py", "examples/scipy_conv.py",
        "examples/scipy_conv_torch.py"],
    10: ["utils/__init__.py", "utils/hooks.py", "autograd/hooks.py"],
    11: ["autograd/anomaly_mode.py", "utils/checkpoint.py"],
    12: ["autograd/differentiate.py", "autograd/gradgradcheck.py"],
    13: ["autograd/forward_ad.py", "func.py"],
    14: ["examples/scipy_conv_op.py"],
    15: ["nn/layers.py"],
    16: ["distributed.py", "nn/parallel.py", "examples/data_parallel.py"],
}
LAST = max(CHAPTER_FILES)
PACKAGE = Path(__file__).resolve().parents[1] / "code" / "toygrad"

MARKER = re.compile(r"^[ \t]*#([<>]) ch(\d\d)(?: until ch(\d\d))?(?:[ \t].*)?$")
EARLIER = re.compile(r"^([ \t]*)#\|(?: (.*))?$")  # a line of code's earlier form


class MarkerError(ValueError):
    """A chapter marker that does not open, close or nest as it must."""


def files_up_to(chapter):
    """The package's files in a snapshot after ``chapter``."""
    return [path for number, paths in CHAPTER_FILES.items() if number <= chapter
            for path in paths]


def chapter_of_file(path):
    """The chapter that adds ``path`` (relative to the package)."""
    return next(number for number, paths in CHAPTER_FILES.items() if path in paths)


def regions(text, where="<text>"):
    """Each line's regions: ``[(line, [(chapter, until or None), ...])]``, marker lines
    left out; raises MarkerError for a marker that does not open, close or nest as it
    must."""
    lines, open_ = [], []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        match = MARKER.match(line.rstrip("\n"))
        if match is None:
            if open_ and open_[-1][0][1] is not None and line.strip() and (
                    not EARLIER.match(line.rstrip("\n"))):
                raise MarkerError(f"{where}:{number}: a line of an earlier form must "
                                  "start with '#|'")
            lines.append((line, [region for region, _ in open_]))
            continue
        kind, chapter, until = match[1], int(match[2]), match[3] and int(match[3])
        if until is not None and until <= chapter:
            raise MarkerError(f"{where}:{number}: ch{until:02d} is not after "
                              f"ch{chapter:02d}")
        if kind == ">":
            if open_ and (open_[-1][0][1] is not None or chapter < open_[-1][0][0]):
                raise MarkerError(f"{where}:{number}: a region inside another must be "
                                  "for the same or a later chapter, and not inside an "
                                  "earlier form")
            open_.append(((chapter, until), number))
        elif not open_ or open_[-1][0] != (chapter, until):
            raise MarkerError(f"{where}:{number}: {line.strip()!r} closes no region "
                              "opened with the same words")
        else:
            open_.pop()
    if open_:
        raise MarkerError(f"{where}:{open_[-1][1]}: region not closed")
    return lines


def present(chapter, marks):
    return all(start <= chapter and (until is None or chapter < until)
               for start, until in marks)


def source_after(text, chapter, where="<text>"):
    """``text`` as it stands after ``chapter``: later chapters' lines removed, earlier
    forms that still stand uncommented, no marker left."""
    kept = []
    for line, marks in regions(text, where):
        if not present(chapter, marks):
            continue
        if marks and marks[-1][1] is not None:  # an earlier form: uncomment it
            indent, code = EARLIER.match(line.rstrip("\n")).groups()
            line = (indent + code if code else "") + "\n"
        kept.append(line)
    return _tidy_blank_lines(kept)


def _tidy_blank_lines(lines):
    """The lines joined, with the blank lines that removed regions leave behind cut back:
    at most two in a row, and one before an indented line (inside a class or a def)."""
    out, blank = [], 0
    for line in lines:
        if not line.strip():
            blank += 1
            continue
        limit = 1 if line[0] in " \t" else 2
        out.extend(["\n"] * min(blank, limit) if out else [])
        out.append(line)
        blank = 0
    out.extend(["\n"] * min(blank, 1))
    return "".join(out)


def snapshot(chapter, package=PACKAGE):
    """{path relative to the package: text} after ``chapter``."""
    return {path: source_after((package / path).read_text(), chapter, path)
            for path in files_up_to(chapter)}


def write_snapshot(chapter, dest, package=PACKAGE):
    """Write the package as it stands after ``chapter`` to ``dest/toygrad``; a file whose
    text is unchanged is not touched (Sphinx rereads a page whose include changed), and
    files no longer in the snapshot are removed. Returns ``dest``."""
    dest = Path(dest)
    texts = snapshot(chapter, package)
    root = dest / "toygrad"
    for path, text in texts.items():
        target = root / path
        if not target.exists() or target.read_text() != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    if root.exists():
        for stale in root.rglob("*.py"):
            if stale.relative_to(root).as_posix() not in texts:
                stale.unlink()
    return dest


def snapshot_folder(chapter, root):
    """Where the book's build keeps the snapshot after ``chapter`` (chapter N's listings
    read from it): ``root/_build/snapshots/chNN``."""
    return Path(root) / "_build" / "snapshots" / f"ch{chapter:02d}"


def write_all_snapshots(root):
    """Every chapter's snapshot in the book's build folder (``snapshot_folder``)."""
    return [write_snapshot(chapter, snapshot_folder(chapter, root))
            for chapter in range(min(CHAPTER_FILES), LAST + 1)]


def stub_folder(chapter, root):
    """Where the book's build keeps chapter ``chapter``'s task stubs:
    ``root/_build/stubs/chNN`` (``write_task_stubs``)."""
    return Path(root) / "_build" / "stubs" / f"ch{chapter:02d}"


def write_task_stubs(root, package=PACKAGE):
    """Each chapter's task functions as the student edition gives them (the ``def`` and
    docstring, and a body that raises), in that chapter's file as it leaves it, written
    to ``stub_folder``: a page shows a task's stub where it sets the task, and toygrad's
    own code in a collapsed solution. Unchanged files are not touched."""
    import importlib.util
    import sys

    root = Path(root)
    spec = importlib.util.spec_from_file_location(
        "student_edition", root / "scripts" / "student_edition.py")
    edition = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(root / "tests"))
    try:
        spec.loader.exec_module(edition)
        from tasks import TASKS
    finally:
        sys.path.remove(str(root / "tests"))
    written = []
    for chapter in sorted({task.chapter for task in TASKS}):
        texts = snapshot(chapter, package)
        for path in sorted({task.path for task in TASKS if task.chapter == chapter}):
            relative = path.removeprefix("toygrad/")
            tasks = [task for task in TASKS
                     if task.chapter == chapter and task.path == path]
            text = _wrap_raises(edition.stubbed(texts[relative], tasks))
            target = stub_folder(chapter, root) / "toygrad" / relative
            if not target.exists() or target.read_text() != text:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
            written.append(target)
    return written


def _wrap_raises(text, width=79):
    """The stubs' one-line ``raise NotImplementedError('...')`` split over lines of at
    most ``width`` characters (the same string, by implicit concatenation), so that a
    listing of a stub needs no sideways scrolling."""
    import ast
    import textwrap

    out = []
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if len(line.rstrip("\n")) <= width or not stripped.startswith(
                "raise NotImplementedError("):
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip())]
        message = ast.literal_eval(stripped[len("raise NotImplementedError("):-1])
        pieces = textwrap.wrap(message, width - len(indent) - 8,
                               drop_whitespace=False)
        out.append(f"{indent}raise NotImplementedError(\n")
        out += [f"{indent}    {piece!r}\n" for piece in pieces[:-1]]
        out.append(f"{indent}    {pieces[-1]!r})\n")
    return "".join(out)
