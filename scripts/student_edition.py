"""The student edition, made from the book's own sources: ``make student``.

    .venv/bin/python scripts/student_edition.py [OUT]      (default: _build/student)

What it writes into OUT, from the one source of truth:

- ``code/toygrad``: the package as the last chapter leaves it (its snapshot: no chapter
  markers, no earlier forms of code; tests/chapters.py), with the body of every task
  (``tests/tasks.py``) replaced by a stub that raises ``NotImplementedError`` naming the
  task and the chapter section that builds it. The docstring and the ``# Task N.K`` line
  above the ``def`` stay.
- ``tests``: the chapters' tests and the task tests (``pytest -m task4_1``), with the helpers
  they import; not the checks of the website, the PDFs, Binder or this edition.
- ``chapters``: the chapter pages without their solutions, each opening with a note of the
  tasks it builds; ``pyproject.toml``, ``requirements.txt`` and a README for students.

``leaks(OUT)`` lists every line of a solution (a task's body, or an exercise's solution) that
is found in the edition; tests/test_student_edition.py requires it to be empty.
"""

import ast
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from chapters import LAST, source_after  # noqa: E402
from tasks import TASKS  # noqa: E402

DEFAULT_OUT = ROOT / "_build" / "student"
SOLUTION = re.compile(r"^````\{solution-start\}.*?^````\{solution-end\}\n````\n", re.M | re.S)
CHAPTER_MARK = re.compile(r"^pytestmark = (\[.*?\]|.*?)$", re.M | re.S)
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".ipynb", ".cfg", ".yml", ".yaml", ".js"}

README = """# Who calls backward? Student edition

This folder is the book's code with its {count} tasks left for you to build. Each task is one
function or method of `toygrad`, marked in the code by a line `# Task N.K: ...` above it;
until you write it, calling it raises `NotImplementedError` naming the task and the section
of the book that builds it.

Set up once (Python 3.11; Graphviz's `dot` for the pictures):

```bash
python3.11 -m venv .venv
.venv/bin/pip install -r requirements.txt
.venv/bin/pip install --no-deps -e .
```

Check one task, or a whole chapter:

```bash
.venv/bin/pytest -m task4_1        # the engine's loop
.venv/bin/pytest -m ch04           # everything chapter 4 builds
```

The chapters are in `chapters/` (open them in JupyterLab as notebooks: jupytext is installed);
cells that call a task you have not done yet raise its `NotImplementedError`.

| Task | What you build | Where | Points | Needs |
|---|---|---|---|---|
{rows}
"""


def function_node(tree, qualname):
    node = tree
    for part in qualname.split("."):
        node = next(child for child in ast.iter_child_nodes(node)
                    if isinstance(child, (ast.FunctionDef, ast.ClassDef)) and child.name == part)
    return node


def body_lines(source, qualname):
    """The (first, last) line numbers, 1-based, of a function's body after its docstring."""
    function = function_node(ast.parse(source), qualname)
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None),
                                                    ast.Constant) and isinstance(
            body[0].value.value, str):
        docstring_end = body[0].end_lineno
        body = body[1:]
    else:
        docstring_end = None
    if not body:
        raise ValueError(f"{qualname} has no body to replace")
    return (docstring_end + 1 if docstring_end else body[0].lineno), function.end_lineno


def section_title(task):
    """The heading of the section a task's label marks: ``toygrad's engine``."""
    chapter = next((ROOT / "chapters").glob(f"ch{task.chapter:02d}_*.md"))
    text = chapter.read_text()
    after = text[text.index(f"({task.section})=\n"):]
    return re.search(r"^#+ (.+)$", after, re.M)[1]


def stub_message(task):
    return (f"Task {task.id} ({task.title}) is not done yet: chapter {task.chapter}, "
            f'section "{section_title(task)}"')


def stubbed(source, tasks):
    """``source`` with the body of each task in it replaced by its stub."""
    lines = source.splitlines(keepends=True)
    spans = sorted(((body_lines(source, task.qualname), task) for task in tasks), reverse=True,
                   key=lambda item: item[0])
    for (first, last), task in spans:  # from the bottom up, so line numbers stay right
        indent = re.match(r"\s*", lines[first - 1]).group(0)
        lines[first - 1:last] = [f"{indent}raise NotImplementedError({stub_message(task)!r})\n"]
    return "".join(lines)


def test_files():
    """The tests a student gets: helper modules, and every test module of chapters 2-8."""
    chosen = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.name == "optable.py":
            continue  # the differential harness's table: for the instructor's checks
        if path.name.startswith("test_"):
            mark = CHAPTER_MARK.search(path.read_text())
            chapters = [int(n) for n in re.findall(r"\bch(\d\d)\b", mark[1])] if mark else []
            if not chapters or max(chapters) > 8:
                continue
        chosen.append(path)
    return chosen


def without_solutions(text, chapter_tasks):
    text = SOLUTION.sub("", text)
    if chapter_tasks:
        # The chapter names its tasks already; a student also needs to know what the stubs do.
        note = (":::{note}\nIn this edition the functions of this chapter's tasks are stubs: "
                "until you write them, cells that call them raise `NotImplementedError`, "
                "naming the task.\n:::\n")
        title = re.search(r"^# .+\n", text, re.M)  # after the page's title
        text = text[:title.end()] + "\n" + note + text[title.end():]
    return text


def final_source(path):
    """A file of the package as the last chapter leaves it (markers and earlier forms
    gone)."""
    return source_after(path.read_text(), LAST, str(path))


def build(out=DEFAULT_OUT):
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    package = ROOT / "code" / "toygrad"
    for path in sorted(package.rglob("*.py")):
        target = out / "code" / "toygrad" / path.relative_to(package)
        target.parent.mkdir(parents=True, exist_ok=True)
        relative = str(path.relative_to(ROOT / "code"))
        tasks = [task for task in TASKS if task.path == relative]
        source = final_source(path)
        target.write_text(stubbed(source, tasks) if tasks else source)
    (out / "tests").mkdir(parents=True)
    for path in test_files():
        shutil.copy(path, out / "tests" / path.name)
    (out / "chapters").mkdir()
    for path in sorted((ROOT / "chapters").glob("ch*.md")):
        number = int(path.name[2:4])
        chapter_tasks = [task for task in TASKS if task.chapter == number]
        (out / "chapters" / path.name).write_text(
            without_solutions(path.read_text(), chapter_tasks))
    for name in ("pyproject.toml", "requirements.txt"):
        shutil.copy(ROOT / name, out / name)
    rows = "\n".join(
        f"| {task.id} | {task.title} | `{task.qualname}` in `code/{task.path}` | "
        f"{task.points} | {', '.join(task.depends) or '-'} |" for task in TASKS)
    (out / "README.md").write_text(README.format(count=len(TASKS), rows=rows))
    return out


def _meaningful(line):
    line = line.strip()
    return len(line) >= 16 and not line.startswith(("#", '"""', "'''"))


def solution_lines():
    """Lines that only a solution holds: of a task's body, or of an exercise's solution,
    and found nowhere else in the reference (so, not shared with code a student sees)."""
    bodies, rest = [], []
    package = ROOT / "code" / "toygrad"
    for path in sorted(package.rglob("*.py")):
        source = final_source(path)
        relative = str(path.relative_to(ROOT / "code"))
        tasks = [task for task in TASKS if task.path == relative]
        lines = source.splitlines()
        inside = set()
        for task in tasks:
            first, last = body_lines(source, task.qualname)
            inside.update(range(first - 1, last))
            bodies += lines[first - 1:last]
        rest += [line for number, line in enumerate(lines) if number not in inside]
    solutions = []
    for path in sorted((ROOT / "chapters").glob("*.md")):
        text = path.read_text()
        for block in SOLUTION.findall(text):
            solutions += block.splitlines()[2:-2]  # without the directive's own lines
        rest += SOLUTION.sub("", text).splitlines()
    for path in test_files():
        rest += path.read_text().splitlines()
    shared = {line.strip() for line in rest}
    return sorted({line.strip() for line in bodies + solutions
                   if _meaningful(line) and line.strip() not in shared})


def leaks(out=DEFAULT_OUT):
    """[(file, line)] for every solution line found in the edition at ``out``."""
    found = []
    lines = set(solution_lines())
    for path in sorted(Path(out).rglob("*")):
        if path.suffix not in TEXT_SUFFIXES or not path.is_file():
            continue
        # Line by line, each stripped: how a copied solution line shows up (in a notebook,
        # a line sits inside a JSON string, so quotes and "\n" are taken off too).
        for line in path.read_text(errors="replace").splitlines():
            line = line.strip()
            if path.suffix == ".ipynb":
                line = line.strip('",').removesuffix("\\n").strip()
            if line in lines:
                found.append((str(path.relative_to(out)), line))
    return found


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    out = build(out.resolve())
    leaked = leaks(out)
    if leaked:
        raise SystemExit(f"solution lines leaked into the student edition: {leaked[:5]}")
    print(f"The student edition is in {out}: {len(TASKS)} tasks left as stubs, "
          f"{len(list((out / 'chapters').glob('*.md')))} chapters without solutions, "
          f"{len(list((out / 'tests').glob('test_*.py')))} test modules.")


if __name__ == "__main__":
    main()
