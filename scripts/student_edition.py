"""The student edition, made from the book's own sources: ``make student``.

    .venv/bin/python scripts/student_edition.py [OUT]      (default: _build/student)

What it writes into OUT, from the one source of truth:

- ``code/toygrad``: the package as the last chapter leaves it (its snapshot: no chapter
  markers, no earlier forms of code; tests/chapters.py), with the body of every task
  (``tests/tasks.py``) replaced by a stub that raises ``NotImplementedError`` naming the
  task and the chapter section that builds it. The stub's ``def`` and docstring are the
  function's as the task's own chapter has it (Task 4.1's ``execute`` is chapter 4's);
  the ``# Task N.K`` line above the ``def`` stays.
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

## Set up once

Python 3.11 (torchviz, which draws PyTorch's graphs, does not run on 3.12), and Graphviz's
`dot` program for the pictures (Debian or Ubuntu: `sudo apt-get install graphviz`; macOS:
`brew install graphviz`; Windows: the installer from graphviz.org, with `dot` on the PATH). Then, in this folder:

```bash
python3.11 -m venv .venv                        # Windows: py -3.11 -m venv .venv
.venv/bin/pip install -r requirements.txt       # Windows: .venv\\Scripts\\pip
.venv/bin/pip install --no-deps -e .            # toygrad, from code/, importable
```

`requirements.txt` takes PyTorch's CPU build (on Linux, PyPI's default is a CUDA build of
several GB). `.gitignore` keeps `.venv` out of a Git repository.

## Work

Read a chapter, then write its tasks in `code/toygrad`. The chapters are in `chapters/`:
open them in JupyterLab (`.venv/bin/jupyter lab`), where jupytext opens each `.md` page as a
notebook (right-click, *Open With*, *Jupytext Notebook*). Cells that call a task you have not
done yet raise its `NotImplementedError`. A stub is the function as its own chapter has it:
`execute` (Task 4.1) takes `root, grad, retain_graph`, as chapter 4's does. Chapters 5, 9, 10
and 12 add lines to it, highlighted in their listings: add them as you reach those chapters
(the tasks of chapters 10 and 12 need them, and the grader says so when they are missing).
`seed/` holds the document chapter 8 examines, and `bench/` the benchmarks of the
performance appendix.

## Test

```bash
.venv/bin/pytest -m task4_1        # one task: the engine's loop
.venv/bin/pytest -m ch04           # everything chapter 4 builds
.venv/bin/pytest                   # everything (slow; fails until every task is done)
```

A task earns its points when all its tests pass; the table below gives each task's tests
(`-m taskN_K`) and the tasks whose code they also run (*Needs*), which must work first.

## Submit

Hand in your `code` folder, zipped. The grader reads `code/toygrad` and nothing else, and
grades it with its own copy of the tests, so changing the tests here changes no grade. It
runs your code on numbers it draws anew for each grading (the tests here use one set of
them), and without PyTorch but for chapters {torch_chapters}, whose tasks work on PyTorch's
graphs: a task earns its points when your code computes the right answers itself.


```bash
.venv/bin/python -m zipfile -c YOUR-NAME.zip code
```

If your course uses GitHub Classroom, push instead: `.github/workflows/classroom.yml` runs
each task's tests on every push (`python -m pytest -m task4_1 tests/test_tasks_ch04.py`,
and so on) and reports each task's points to Classroom.

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


def head_lines(source, qualname):
    """A function's lines from its first decorator (or ``def``) to the end of its
    docstring: everything of it that a stub keeps."""
    function = function_node(ast.parse(source), qualname)
    first = min([function.lineno] + [d.lineno for d in function.decorator_list])
    lines = source.splitlines(keepends=True)
    return lines[first - 1:body_lines(source, qualname)[0] - 1], first


def section_title(task):
    """The heading of the section a task's label marks: ``toygrad's engine``."""
    chapter = next((ROOT / "chapters").glob(f"ch{task.chapter:02d}_*.md"))
    text = chapter.read_text()
    after = text[text.index(f"({task.section})=\n"):]
    return re.search(r"^#+ (.+)$", after, re.M)[1]


def stub_message(task):
    return (f"Task {task.id} ({task.title}) is not done yet: chapter {task.chapter}, "
            f'section "{section_title(task)}"')


def stubbed(source, tasks, at_chapter=None):
    """``source`` with each task's function replaced by its stub: the function's ``def``
    and docstring as the task's own chapter has them (``at_chapter(task)``, the file's
    text after that chapter; ``source`` itself if not given), and a body that raises. A
    later chapter's lines in the function (its parameters among them) are the student's
    to add when that chapter shows them."""
    lines = source.splitlines(keepends=True)
    spans = []
    for task in tasks:
        _, last = body_lines(source, task.qualname)
        _, first = head_lines(source, task.qualname)
        head, _ = head_lines(at_chapter(task) if at_chapter else source, task.qualname)
        spans.append((first, last, head, task))
    for first, last, head, task in sorted(spans, key=lambda span: span[0], reverse=True):
        # from the bottom up, so line numbers stay right
        definition = next(line for line in head if line.lstrip().startswith("def "))
        indent = re.match(r"\s*", definition).group(0) + "    "
        lines[first - 1:last] = head + [
            f"{indent}raise NotImplementedError({stub_message(task)!r})\n"]
    return "".join(lines)


def test_files():
    """The tests a student gets: helper modules, and every test module of a chapter (its
    tests marked with the chapter, ``pytest -m ch10``), the task tests among them."""
    chosen = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.name.startswith("test_"):
            mark = CHAPTER_MARK.search(path.read_text())
            if not (mark and re.search(r"\bch\d\d\b", mark[1])):
                continue  # the book's own checks: the website, the PDFs, Binder, this edition
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
        raw = path.read_text()
        target.write_text(stubbed(source, tasks, lambda task: source_after(
            raw, task.chapter, str(path))) if tasks else source)
    (out / "tests").mkdir(parents=True)
    for path in test_files():
        shutil.copy(path, out / "tests" / path.name)
    (out / "chapters").mkdir()
    for path in sorted((ROOT / "chapters").glob("ch*.md")):
        number = int(path.name[2:4])
        chapter_tasks = [task for task in TASKS if task.chapter == number]
        (out / "chapters" / path.name).write_text(
            without_solutions(path.read_text(), chapter_tasks))
    shutil.copy(ROOT / "intro.md", out / "intro.md")  # the book's first page
    shutil.copy(ROOT / "pyproject.toml", out / "pyproject.toml")
    (out / "requirements.txt").write_text(requirements())
    for name in ("LICENSE", "LICENSE-TEXT.md", ".gitignore"):
        shutil.copy(ROOT / name, out / name)
    for folder in ("seed", "bench"):  # the seed's document, which chapter 8 examines
        shutil.copytree(ROOT / folder, out / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    rows = "\n".join(
        f"| {task.id} | {task.title} | `{task.qualname}` in `code/{task.path}` | "
        f"{task.points} | {', '.join(task.depends) or '-'} |" for task in TASKS)
    import grade  # scripts/grade.py: which chapters' probes have PyTorch

    torch_chapters = " and ".join(map(str, grade.chapters_with_torch()))
    (out / "README.md").write_text(README.format(count=len(TASKS), rows=rows,
                                                 torch_chapters=torch_chapters))
    workflow = out / ".github" / "workflows" / "classroom.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(classroom_workflow())
    return out


def task_command(task):
    """The command that runs one task's tests, as a student types it and as the GitHub
    Classroom workflow runs it: its exit code says whether the task earns its points."""
    return (f"python -m pytest -q -p no:cacheprovider -m {task.marker} "
            f"tests/test_tasks_ch{task.chapter:02d}.py")


def step_id(task):
    return task.marker.replace("_", "-")  # task4-1


def classroom_workflow():
    """``.github/workflows/classroom.yml``: GitHub Classroom's autograding, one test per
    task (``classroom-resources/autograding-command-grader``) worth the task's points, and
    the reporter that sends the scores to Classroom. Written from tests/tasks.py."""
    import yaml

    install = ("python -m pip install -r requirements.txt && "
               "python -m pip install --no-deps -e .")
    steps = [
        {"name": "Check out the submission", "uses": "actions/checkout@v4"},
        {"name": "Python 3.11", "uses": "actions/setup-python@v5",
         "with": {"python-version": "3.11"}},
        {"name": "Install the packages and toygrad", "run": install},
    ]
    for task in TASKS:
        steps.append({
            "name": f"Task {task.id}", "id": step_id(task),
            "uses": "classroom-resources/autograding-command-grader@v1",
            "with": {"test-name": f"Task {task.id}: {task.title}",
                     "command": task_command(task), "timeout": 10,
                     "max-score": task.points}})
    steps.append({
        "name": "Autograding Reporter",
        "uses": "classroom-resources/autograding-grading-reporter@v1",
        "env": {f"{step_id(task).upper()}_RESULTS": f"${{{{steps.{step_id(task)}"
                f".outputs.result}}}}" for task in TASKS},
        "with": {"runners": ",".join(step_id(task) for task in TASKS)}})
    workflow = {
        "name": "Autograding Tests", "on": ["push", "repository_dispatch"],
        "permissions": {"checks": "write", "actions": "read", "contents": "read"},
        "jobs": {"autograding": {"runs-on": "ubuntu-latest",
                                 "if": "github.actor != 'github-classroom[bot]'",
                                 "steps": steps}}}
    header = ("# GitHub Classroom's autograding of the student edition, written by\n"
              "# scripts/student_edition.py from tests/tasks.py: one test per task, worth its\n"
              "# points. It runs the tests in the student's repository, which the student can\n"
              "# change: for grades that count, use make grade (the book's own tests, sandboxed).\n")
    return header + yaml.safe_dump(workflow, sort_keys=False, width=100)


# What a student installs: the packages the chapters, the tests and the bench import, at the
# versions of the book's lock (requirements.txt, which pins Linux's whole tree and so cannot
# serve macOS or Windows), and JupyterLab to open the chapters. pip resolves the rest for the
# student's own system.
STUDENT_PACKAGES = ("torch", "torchviz", "graphviz", "numpy", "scipy", "matplotlib",
                    "scikit-learn", "threadpoolctl", "hypothesis", "pytest", "jupytext",
                    "micrograd")
JUPYTERLAB = "jupyterlab==4.6.6"  # not in the book's lock: the book builds without it


def locked_versions():
    """{package: version} of the book's lock, requirements.txt (names lowercased)."""
    versions = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            versions[name.strip().lower().replace("_", "-")] = version.strip()
    return versions


def requirements():
    """The student edition's requirements.txt: for Linux, macOS and Windows alike."""
    locked = locked_versions()
    pins = []
    for name in STUDENT_PACKAGES:
        version = locked[name]
        if name == "torch":  # 2.13.0+cpu in the lock: the build of this machine's wheel
            version = version.split("+")[0]
        pins.append(f"{name}=={version}")
    return (
        "# The student edition's packages, at the versions the book is built and tested with.\n"
        "# PyTorch's CPU index: on Linux, pip then takes the CPU build of torch (PyPI's is a\n"
        "# CUDA build of several GB); on macOS and Windows, the same torch 2.13.0 as PyPI's.\n"
        "--extra-index-url https://download.pytorch.org/whl/cpu\n"
        + "\n".join(pins) + "\n" + JUPYTERLAB + "\n")


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
    for path in [*test_files(), *sorted((ROOT / "bench").glob("*.py")),
                 *sorted((ROOT / "seed").glob("*"))]:
        rest += path.read_text().splitlines()  # handed out as they are
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
