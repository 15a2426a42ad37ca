"""What an instructor relies on: chapters that stand alone, a student edition, a grader.

Slow (each check runs pytest on a copy of the code in a fresh process), so selected with
``-m instructor`` (``make instructor-check``, part of ``make test``).
"""

import ast
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chapters import LAST, files_up_to, source_after, write_snapshot
from conftest import _chapter

pytestmark = pytest.mark.instructor

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import passcache  # noqa: E402  (scripts/passcache.py)

# Issue 25: a check that passed is not run again while everything it reads is as it was: the
# package, the tests, the grader and the edition's script, the environment, and the pages it
# reads (named by each test). Its key is stored only when the test reaches its end.
_STORE = passcache.Store("instructor")
_CODE = ("code", "tests", "scripts/grade.py", "scripts/grade_runner.py",
         "scripts/private_tests_example", "scripts/student_edition.py", "pyproject.toml")


def _key(request, *pages):
    return passcache.digest(passcache.files(*_CODE), passcache.files(*pages),
                            *passcache.environment(), request.node.nodeid)


_ASKED = {"asked": 0, "reused": 0}


def passed_before(request, *pages):
    """Whether this test passed before on the same inputs (then it is not run again)."""
    request.node.stash[_KEY] = key = _key(request, *pages)
    reused = _STORE.get(request.node.nodeid, key) is not None
    _ASKED["asked"] += 1
    _ASKED["reused"] += reused
    return reused


@pytest.fixture(scope="module", autouse=True)
def _say_what_was_reused():
    yield
    if _ASKED["asked"]:  # for the stage table (one line per pytest-xdist worker)
        passcache.note(f"{_ASKED['reused']}/{_ASKED['asked']} checks passed before")


def passes(request):
    """Record that this test passed (call it last, after its assertions)."""
    _STORE.put(request.node.nodeid, request.node.stash[_KEY])
    _STORE.save()


_KEY = pytest.StashKey[str]()


def run(args, code, cwd=ROOT):
    """Run Python with ``code`` (a folder holding a ``toygrad``) first on its path."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True)


def cut(chapter, folder):
    """The package as ``chapter`` leaves it (its snapshot: the files of chapters 2 to
    ``chapter``, without the lines later chapters add; tests/chapters.py)."""
    return write_snapshot(chapter, folder / "code")


# The chapters from 2 on, as the table of contents lists them (a number can be missing
# while its chapter is written on another branch).
BOOK_CHAPTERS = sorted({int(number) for number in re.findall(
    r"chapters/ch(\d\d)_", (ROOT / "_toc.yml").read_text())} - {1})


names_pages = passcache.names_pages  # (scripts/passcache.py)


def pages_a_cut_reads(chapter):
    """The pages a cut's tests may read: all of them if a module its run collects (as the
    conftest collects them: those whose chapters' files the cut has) or a helper module of
    the tests names them; else none, so a change to a page runs only the cuts it can reach."""
    have = set(files_up_to(chapter))
    modules = [path for path in (ROOT / "tests").glob("*.py")
               if not path.name.startswith("test_")
               or set(files_up_to(_chapter(path))) <= have]
    if any(names_pages(path) for path in modules):
        return "chapters", "_toc.yml"
    return ()


def test_a_cut_is_keyed_on_the_pages_only_where_its_tests_can_read_them(tmp_path):
    reads = tmp_path / "test_reads.py"
    reads.write_text('"""Docstring: chapters/ch04_backward.md."""\n'
                     'PAGE = ROOT / "chapters" / f"{name}.md"\n')
    prose = tmp_path / "test_prose.py"
    prose.write_text('"""The tests of chapters 3 to 6 (chapters/ch03_recording.md)."""\n'
                     'WHY = "a NumPy array (design notes), as in the chapters"\n')
    assert names_pages(reads) and not names_pages(prose)
    assert names_pages(ROOT / "tests" / "test_claims.py")  # chapter 9's tests read pages
    assert pages_a_cut_reads(2) == ()
    assert pages_a_cut_reads(9) == ("chapters", "_toc.yml")


# The last chapter's snapshot is the solved edition's code, and the solved edition runs every
# test it hands out on it, the last chapter's among them (asserted there): not run twice.
@pytest.mark.parametrize("chapter", [n for n in BOOK_CHAPTERS if n != LAST])
def test_a_chapter_s_snapshot_imports_and_passes_that_chapter_s_tests(
        chapter, tmp_path, request):
    if passed_before(request, *pages_a_cut_reads(chapter)):
        return
    code = cut(chapter, tmp_path)
    where = run(["-c", "import toygrad; print(toygrad.__file__)"], code)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()) == code / "toygrad" / "__init__.py"
    result = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", f"ch{chapter:02d}",
                  "tests"], code)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1]
    passes(request)


# The student edition and the grader.

import grade  # noqa: E402
import student_edition  # noqa: E402
from tasks import BY_ID, TASKS  # noqa: E402


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    return student_edition.build(tmp_path_factory.mktemp("student") / "student")


def submission(folder, change=None):
    """A copy of the reference code as a submission; ``change(path, text)`` edits a file."""
    shutil.copytree(ROOT / "code" / "toygrad", folder / "code" / "toygrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if change:
        for path in (folder / "code" / "toygrad").rglob("*.py"):
            path.write_text(change(path, path.read_text()))
    return folder


def failing(rows):
    return {row["task"]: row["why"] for row in rows if row["points"] < row["max_points"]}


def test_the_reference_earns_every_point(tmp_path, request):
    if passed_before(request):
        return
    rows = grade.grade(submission(tmp_path / "reference"), out=tmp_path / "grades")
    assert failing(rows) == {}
    assert all(row["tests"] >= 1 for row in rows)
    saved = (tmp_path / "grades" / "reference.json").read_text()
    assert '"total": %d' % sum(task.points for task in TASKS) in saved
    passes(request)


# What the edition copies besides the code and the tests: a change to one of them can break it.
_HANDED_OUT = ("seed", "bench", "intro.md", "chapters", "LICENSE", "LICENSE-TEXT.md",
               ".gitignore", "requirements.txt")


def test_the_edition_solved_passes_every_test_it_hands_out(edition, tmp_path, request):
    # Issue 27, point 4: a complete hand-out. With the reference's code in place of the
    # stubs, every test the edition ships passes, run as a student runs them: from the
    # edition's folder, with plain pytest (the environment's toygrad is the book's, so the
    # edition's own code/ is named on PYTHONPATH, as pip install -e . would make it).
    if passed_before(request, *_HANDED_OUT):
        return
    solved = tmp_path / "solved"
    shutil.copytree(edition, solved, ignore=shutil.ignore_patterns("toygrad"))
    write_snapshot(LAST, solved / "code")
    shipped = sorted(path.name for path in (edition / "tests").glob("test_*.py"))
    chapters_tested = {int(n) for name in shipped
                       for n in re.findall(r"\bch(\d\d)\b", (edition / "tests" / name).read_text())}
    assert {task.chapter for task in TASKS} <= chapters_tested  # every task's chapter
    assert {f"test_tasks_ch{task.chapter:02d}.py" for task in TASKS} <= set(shipped)
    # The last chapter's snapshot has no cut of its own (above): every module with its tests
    # is handed out, as it is in the repository, and runs here on that snapshot.
    last = sorted(path.name for path in (ROOT / "tests").glob("test_*.py")
                  if re.search(rf"\bmark\.ch{LAST:02d}\b", path.read_text()))
    assert last and set(last) <= set(shipped)
    assert all((edition / "tests" / name).read_bytes() == (ROOT / "tests" / name).read_bytes()
               for name in last)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env["PYTHONPATH"] = str(solved / "code")
    # One process: the instructor check already runs its tests on both cores, and each
    # pytest-xdist worker would import and collect all the tests again.
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                            cwd=solved, env=env, capture_output=True, text=True)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert re.search(r"\d+ passed", summary), summary
    assert not re.search(r"\d+ (failed|errors?)\b", summary), summary
    passes(request)


def test_the_edition_holds_what_its_chapters_and_a_student_need(edition):
    # The seed's document (chapter 8), the benchmarks, the licences, a .gitignore that keeps
    # the environment out of a repository, and a README that says how to work, test, submit.
    assert (edition / "seed" / "answer2_scipy_conv2d.py").read_bytes() == (
        ROOT / "seed" / "answer2_scipy_conv2d.py").read_bytes()
    assert sorted(p.name for p in (edition / "bench").glob("*.py")) == sorted(
        p.name for p in (ROOT / "bench").glob("*.py"))
    assert (edition / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert (edition / "LICENSE-TEXT.md").exists()
    ignored = (edition / ".gitignore").read_text().split()
    assert ".venv/" in ignored and "__pycache__/" in ignored
    readme = (edition / "README.md").read_text()
    for heading in ("## Set up once", "## Work", "## Test", "## Submit"):
        assert heading in readme
    assert "-m zipfile -c" in readme and "jupyter lab" in readme


def test_the_edition_s_requirements_install_anywhere_and_cover_every_import(edition):
    # Not the book's Linux lock (a +cpu torch that only PyTorch's index has, and Linux-only
    # packages): the packages the edition imports, at the lock's versions, PyTorch's CPU
    # index for Linux, and JupyterLab.
    lines = [line for line in (edition / "requirements.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines
    pins = dict(line.split("==") for line in lines if "==" in line)
    locked = student_edition.locked_versions()
    assert pins.pop("torch") == locked["torch"].split("+")[0]
    assert pins.pop("jupyterlab")
    assert all(locked[name] == version for name, version in pins.items()), pins
    assert not any("+" in version for version in pins.values())
    # Every module the edition's code, tests and bench import is Python's own, the
    # edition's, or installed by a pinned package (or by what one of them needs).
    from importlib.metadata import packages_distributions, requires
    distributions = packages_distributions()
    wanted = {*pins, "torch"}
    needed = set(wanted)
    for name in wanted:  # what the pinned packages bring with them
        needed |= {re.match(r"[A-Za-z0-9_.-]+", req)[0].lower().replace("_", "-")
                   for req in requires(name) or () if "extra ==" not in req}
    imported = set()
    for path in [*(edition / "code").rglob("*.py"), *(edition / "tests").glob("*.py"),
                 *(edition / "bench").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    own = {"toygrad", *(p.stem for p in (edition / "tests").glob("*.py"))}
    missing = {}
    for module in sorted(imported - own - set(sys.stdlib_module_names)):
        names = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
        if not names & needed:
            missing[module] = sorted(names)
    assert missing == {}, f"imported, but no requirement installs them: {missing}"


def test_the_classroom_workflow_grades_every_task_with_its_points(edition, tmp_path, request):
    # Issue 27, point 5: GitHub Classroom's autograding, written from tests/tasks.py.
    import yaml

    text = (edition / ".github" / "workflows" / "classroom.yml").read_text()
    workflow = yaml.safe_load(text)
    assert workflow["on"] == ["push", "repository_dispatch"]  # quoted: YAML 1.1's 'on' is True
    steps = workflow["jobs"]["autograding"]["steps"]
    graders = [step for step in steps
               if step.get("uses") == "classroom-resources/autograding-command-grader@v1"]
    assert [(step["with"]["test-name"], step["with"]["max-score"]) for step in graders] == [
        (f"Task {task.id}: {task.title}", task.points) for task in TASKS]
    assert [step["with"]["command"] for step in graders] == [
        student_edition.task_command(task) for task in TASKS]
    reporter = steps[-1]
    assert reporter["uses"] == "classroom-resources/autograding-grading-reporter@v1"
    ids = [step["id"] for step in graders]
    assert reporter["with"]["runners"].split(",") == ids
    assert reporter["env"] == {f"{i.upper()}_RESULTS": f"${{{{steps.{i}.outputs.result}}}}"
                               for i in ids}
    if passed_before(request, "chapters", *_HANDED_OUT):
        return
    # Its commands run here as they run on GitHub: from the repository's top, with the
    # edition's toygrad importable. The form every command shares, run for one task (4.1):
    # it passes on the solved edition and fails, with the task's message, on the stubs.
    solved = tmp_path / "solved"
    shutil.copytree(edition, solved, ignore=shutil.ignore_patterns("toygrad"))
    write_snapshot(LAST, solved / "code")
    command = next(step for step in graders if step["id"] == "task4-1")["with"]["command"]
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    for folder, passes_ in ((solved, True), (edition, False)):
        program, *args = command.split()  # python: here, this environment's
        assert program == "python"
        result = subprocess.run([sys.executable, *args], cwd=folder, capture_output=True,
                                text=True,
                                env={**env, "PYTHONPATH": str(folder / "code")})
        assert (result.returncode == 0) == passes_, result.stdout[-2000:]
        if not passes_:
            assert "NotImplementedError: Task 4.1 " in result.stdout
    passes(request)


def test_the_student_edition_fails_every_task_with_that_task_s_message(edition, tmp_path):
    rows = grade.grade(edition, out=tmp_path)
    assert set(failing(rows)) == {task.id for task in TASKS}
    for row in rows:
        assert row["points"] == 0 and row["passed"] == 0
        assert f"NotImplementedError: Task {row['task']} " in row["why"]
    csv = (tmp_path / "student.csv").read_text()
    assert csv.count("\n") == len(TASKS) + 1


@pytest.mark.parametrize("task", TASKS, ids=[task.id for task in TASKS])
def test_a_stub_fails_its_task_and_the_tasks_that_depend_on_it_only(task, tmp_path, request):
    # The stub's message names its section, read from its chapter.
    if passed_before(request, *(ROOT / "chapters").glob(f"ch{task.chapter:02d}_*.md")):
        return

    def stub_one(path, text):
        if str(path.relative_to(path.parents[len(task.path.split("/")) - 1])) == task.path:
            return student_edition.stubbed(text, [task])
        return text

    rows = grade.grade(submission(tmp_path / "one-stub", stub_one), out=tmp_path)
    dependents = {other.id for other in TASKS if task.id in other.depends}
    assert set(failing(rows)) == {task.id} | dependents, failing(rows)
    for failed, why in failing(rows).items():
        assert f"Task {task.id} " in why, (failed, why)
    passes(request)


def test_every_stub_has_the_signature_its_task_s_chapter_gives(edition):
    # Issue 26: Task 4.1's execute is chapter 4's, root, grad and retain_graph; the
    # parameters chapters 5 and 12 add are the student's to add with those chapters.
    def arguments(source, qualname):
        return ast.unparse(student_edition.function_node(ast.parse(source), qualname).args)

    for task in TASKS:
        raw = (ROOT / "code" / task.path).read_text()
        given = (edition / "code" / task.path).read_text()
        assert arguments(given, task.qualname) == arguments(
            source_after(raw, task.chapter), task.qualname), task.id
    engine = (edition / "code" / "toygrad" / "autograd" / "engine.py").read_text()
    assert arguments(engine, "execute") == "root, grad, retain_graph=False"


def as_chapter_leaves_it(chapter, task_ids):
    """A submission's change: each task's function as ``chapter`` leaves it (what a
    student who typed the book along has by then), the rest the reference's."""
    tasks = [BY_ID[task_id] for task_id in task_ids]

    def change(path, text):
        for task in tasks:
            if str(path.relative_to(path.parents[len(task.path.split("/")) - 1])) == task.path:
                final = source_after(text, LAST)
                early = source_after(text, chapter)
                function = student_edition.function_node(ast.parse(final), task.qualname)
                earlier = student_edition.function_node(ast.parse(early), task.qualname)
                lines, early_lines = final.splitlines(True), early.splitlines(True)
                first = min([function.lineno] + [d.lineno for d in function.decorator_list])
                start = min([earlier.lineno] + [d.lineno for d in earlier.decorator_list])
                lines[first - 1:function.end_lineno] = early_lines[start - 1:earlier.end_lineno]
                text = "".join(lines)
        return text
    return change


def extended_later(chapter):
    """The tasks of chapters up to ``chapter`` whose function a later chapter adds
    lines to: what a student who typed the book along has differs from the reference."""
    def function(task, after):
        text = source_after((ROOT / "code" / task.path).read_text(), after)
        return ast.unparse(student_edition.function_node(ast.parse(text), task.qualname))

    return [task.id for task in TASKS
            if task.chapter <= chapter and function(task, chapter) != function(task, LAST)]


@pytest.mark.parametrize("chapter", [4, 10])
def test_an_engine_typed_along_loses_only_the_tasks_that_need_later_lines(
        chapter, tmp_path, request):
    # Issue 26: a student whose task functions stand as chapter 4 (or 10) leaves them,
    # execute and AccumulateGrad.apply among them, earns every task that needs nothing
    # later; the others fail with a reason that names the chapter whose lines they need.
    if passed_before(request):
        return
    swapped = extended_later(chapter)
    assert "4.1" in swapped
    rows = grade.grade(submission(tmp_path / f"engine-{chapter}",
                                  as_chapter_leaves_it(chapter, swapped)), out=tmp_path)
    later = {task.id: [c for t, c in task.needs_lines if c > chapter and t in swapped]
             for task in TASKS}
    assert set(failing(rows)) == {task_id for task_id, cs in later.items() if cs}
    assert set(failing(rows))  # chapters 10 and 12 add lines some task needs
    for task_id, why in failing(rows).items():
        for needed in later[task_id]:
            assert f"as chapter {needed} leaves it" in why, (task_id, why)
    passes(request)


def test_an_engine_that_overwrites_instead_of_accumulating_loses_that_task_only(
        tmp_path, request):
    if passed_before(request):
        return

    def overwrite(path, text):
        if path.name == "graph.py":
            changed = text.replace("variable._add_grad(grad)", "variable._new_grad(grad)")
            assert changed != text
            return changed
        return text

    rows = grade.grade(submission(tmp_path / "overwrites", overwrite), out=tmp_path)
    assert set(failing(rows)) == {"4.2"}
    total = sum(row["points"] for row in rows)
    assert total == sum(task.points for task in TASKS) - BY_ID["4.2"].points
    passes(request)


def test_an_engine_that_never_frees_the_graph_loses_the_engine_s_task(tmp_path, request):
    # Issue 27, point 3: every number right, and the graph kept after backward. The
    # engine's task (4.1) fails with what a second pass should have raised.
    if passed_before(request):
        return

    def keep(path, text):
        if path.name == "engine.py":
            changed = text.replace("node.release_variables()", "pass", 1)
            assert changed != text
            return changed
        return text

    rows = grade.grade(submission(tmp_path / "keeps", keep), out=tmp_path)
    assert set(failing(rows)) == {"4.1"}, failing(rows)
    assert "Trying to backward through the graph a second time" in failing(rows)["4.1"]
    passes(request)


def test_a_run_s_report_is_read_line_by_line_and_its_torn_last_line_left_out(tmp_path):
    # The runner appends one JSON object a line (scripts/grade_runner.py); a run killed while
    # writing leaves half a line, and the probe it had begun is the one it was running.
    results = tmp_path / "results.jsonl"
    assert grade.read_results(results)["items"] == {} and grade._running(results) is None
    big = {"observed": list(range(30_000))}  # a line longer than the tail _running reads
    lines = [{"toygrad": "/x/code/toygrad"}, {"running": "a"}, {"item": "a", "entry": big},
             {"error": "import numpy: no"}, {"running": "b"}]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"item": "b", "en')
    data = grade.read_results(results)
    assert data == {"items": {"a": big}, "errors": ["import numpy: no"],
                    "toygrad": ["/x/code/toygrad"], "running": "b"}
    assert grade._running(results) == "b"
    with open(results, "a") as stream:
        stream.write('try": {"observed": 1}}\n')
    assert grade.read_results(results)["running"] is None
    assert grade.read_results(results)["items"]["b"] == {"observed": 1}
    results.write_text(json.dumps(lines[2]) + "\n")
    assert grade._running(results) is None  # the last line, an observation, read in part


def test_grading_refuses_a_folder_without_code(tmp_path):
    with pytest.raises(SystemExit, match="no code/toygrad"):
        grade.grade(tmp_path)


def test_no_solution_reaches_the_student_edition(edition):
    assert student_edition.leaks(edition) == []
    lines = student_edition.solution_lines()
    assert len(lines) > 100  # task bodies and exercise solutions, beyond doubt
    # The check would see one copied line, in code or in a chapter.
    engine_line = next(line for line in lines if "heapq" in line or "received" in line)
    readme = edition / "README.md"
    original = readme.read_text()
    try:
        readme.write_text(original + "\n    " + engine_line + "\n")
        assert student_edition.leaks(edition) == [("README.md", engine_line)]
    finally:
        readme.write_text(original)


def test_the_student_edition_keeps_the_exercises_and_drops_the_solutions(edition):
    for page in (ROOT / "chapters").glob("ch*.md"):
        theirs = (edition / "chapters" / page.name).read_text()
        ours = page.read_text()
        assert theirs.count(":::{exercise}") == ours.count(":::{exercise}") > 0
        assert "solution-start" not in theirs and "solution-start" in ours
        number = int(page.name[2:4])
        for task in (t for t in TASKS if t.chapter == number):
            assert f"pytest -m {task.marker}" in theirs


# The grader's sandbox (issue 27): what a submission runs cannot reach the reference, the
# repository, other files or the network; a task that hangs, a file that does not parse, a
# process that exits: every task still gets its row, with the reason.

def test_the_sandbox_hides_the_repository_and_the_network(tmp_path):
    probe = ("import os, socket\n"
             f"print(os.listdir({str(ROOT)!r}), os.path.exists({str(ROOT / 'code')!r}))\n"
             "try:\n"
             "    socket.create_connection(('pypi.org', 443), timeout=3)\n"
             "    print('network')\n"
             "except OSError:\n"
             "    print('no network')\n"
             "try:\n"
             "    open('/etc/grader-was-here', 'w')\n"
             "    print('wrote outside')\n"
             "except OSError:\n"
             "    print('read-only')\n")
    result = subprocess.run(grade.sandbox(tmp_path, [sys.executable, "-c", probe]),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    listing, network, writes = result.stdout.splitlines()
    venv = Path(sys.prefix).resolve()
    expected = [venv.name] if venv.is_relative_to(ROOT) else []
    assert listing == f"{expected} False"  # only the Python environment, no reference
    assert network == "no network" and writes == "read-only"


def _repository_state():
    """What an instructor's repository holds, as git sees it: the status of every file
    (new ones too) and the changes to tracked files."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                              check=True).stdout
    return git("status", "--porcelain", "--untracked-files=all"), git("diff", "--binary")


@pytest.fixture
def untouched():
    """A hostile or broken submission's grading leaves the repository as it was."""
    before = _repository_state()
    yield
    assert _repository_state() == before, "the grading changed the repository"


def with_first_line(task, line):
    """A submission's change: ``line`` first in the body of ``task``'s function."""
    def change(path, text):
        if not str(path).endswith(task.path):
            return text
        first, _ = student_edition.body_lines(text, task.qualname)
        lines = text.splitlines(keepends=True)
        indent = re.match(r"\s*", lines[first - 1]).group(0)
        lines.insert(first - 1, f"{indent}{line}\n")
        return "".join(lines)
    return change


@pytest.mark.usefixtures("untouched")
def test_a_task_that_hangs_times_out_and_the_others_are_graded(tmp_path, monkeypatch):
    # The submission's SGD hangs when asked for Nesterov momentum (two of 15.1's tests), so
    # the limit is met twice, not once per test. Ten seconds: long enough for 15.2's tests on
    # a machine busy with the other checks (1 s was not, in CI: the first torch.optim step
    # imports more of torch), short enough that the hangs cost little.
    monkeypatch.setattr(grade, "TEST_SECONDS", 10)
    hang = "while nesterov: __import__('time').sleep(0.2)"  # hangs, and leaves the CPU to others
    folder = submission(tmp_path / "hangs", with_first_line(BY_ID["15.1"], hang))
    rows = {row["task"]: row for row in grade.grade(folder, chapter=15, out=tmp_path)}
    assert rows["15.1"]["points"] == 0
    assert "the test ran longer than 10 s" in rows["15.1"]["why"]
    assert rows["15.2"]["points"] == rows["15.2"]["max_points"], rows["15.2"]["why"]


@pytest.mark.usefixtures("untouched")
def test_a_task_that_spins_is_stopped_by_its_cpu_limit(tmp_path, monkeypatch, request):
    # Each probe has its share of CPU time (all threads), besides its minute: the kernel's
    # SIGXCPU stops it, with the reason, and the run goes on.
    if passed_before(request):
        return
    monkeypatch.setattr(grade, "TEST_CPU_SECONDS", 2)
    folder = submission(tmp_path / "spins", with_first_line(BY_ID["15.1"],
                                                            "while nesterov: pass"))
    rows = {row["task"]: row for row in grade.grade(folder, chapter=15, out=tmp_path)}
    assert rows["15.1"]["points"] == 0
    assert "the test used more than 2 s of CPU" in rows["15.1"]["why"], rows["15.1"]["why"]
    assert rows["15.2"]["points"] == rows["15.2"]["max_points"], rows["15.2"]["why"]
    passes(request)


@pytest.mark.usefixtures("untouched")
def test_a_task_that_hangs_and_ignores_the_alarm_is_stopped_from_outside(
        tmp_path, monkeypatch, request):
    # The sandboxed process's own alarm is the submission's to ignore; the grader, watching
    # which probe runs, kills the run a few seconds after the limit, fails that probe's task
    # and runs the other tasks' probes in a fresh sandbox.
    if passed_before(request):
        return
    monkeypatch.setattr(grade, "TEST_SECONDS", 5)
    hang = ("exec('import signal, time\\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\\n"
            "while True: time.sleep(0.2)') if nesterov else None")
    folder = submission(tmp_path / "hangs", with_first_line(BY_ID["15.1"], hang))
    started = time.monotonic()
    rows = {row["task"]: row for row in grade.grade(folder, chapter=15, out=tmp_path)}
    assert rows["15.1"]["points"] == 0
    assert "the test ran longer than 5 s, during this test" in rows["15.1"]["why"]
    assert rows["15.2"]["points"] == rows["15.2"]["max_points"], rows["15.2"]["why"]
    assert time.monotonic() - started < 60
    passes(request)


@pytest.mark.usefixtures("untouched")
def test_a_file_that_does_not_parse_gives_each_task_its_reason(tmp_path):
    def broken(path, text):
        return text + "\ndef (\n" if path.name == "optim.py" else text

    rows = grade.grade(submission(tmp_path / "broken", broken), chapter=15, out=tmp_path)
    assert [row["points"] for row in rows] == [0, 0]
    assert all("SyntaxError" in row["why"] and "optim.py" in row["why"] for row in rows), rows
    assert (tmp_path / "broken-ch15.csv").read_text().count("\n") == 3  # header, two tasks


@pytest.mark.usefixtures("untouched")
def test_a_process_that_exits_leaves_a_row_and_a_reason_for_every_task(tmp_path):
    folder = submission(tmp_path / "exits",
                        with_first_line(BY_ID["15.1"], "import os; os._exit(3)"))
    rows = {row["task"]: row for row in grade.grade(folder, chapter=15, out=tmp_path)}
    assert sorted(rows) == ["15.1", "15.2"]
    assert rows["15.1"]["points"] == 0 and "exit code 3" in rows["15.1"]["why"]
    assert "during this test" in rows["15.1"]["why"]
    # 15.2's tests ran before the exit, or in the run after it: all their points.
    assert rows["15.2"]["points"] == rows["15.2"]["max_points"], rows["15.2"]["why"]


@pytest.mark.usefixtures("untouched")
def test_a_task_that_takes_all_memory_is_stopped_and_the_others_are_graded(
        tmp_path, monkeypatch):
    # Issue 27: unbounded memory. 15.1's function keeps every block it makes (a list of
    # 20 MB strings, written, so resident); the run is killed above the limit, 15.1 fails
    # with the reason, and 15.2's tests run again in a fresh sandbox and earn their points.
    monkeypatch.setattr(grade, "MEMORY_MB", 1000)  # the tests' own use is well below
    grab = "blocks = [b'x' * 20_000_000 for _ in range(10_000)]"
    folder = submission(tmp_path / "greedy", with_first_line(BY_ID["15.1"], grab))
    rows = {row["task"]: row for row in grade.grade(folder, chapter=15, out=tmp_path)}
    assert rows["15.1"]["points"] == 0
    assert "used more than 1000 MB of memory" in rows["15.1"]["why"], rows["15.1"]["why"]
    assert rows["15.2"]["points"] == rows["15.2"]["max_points"], rows["15.2"]["why"]


def test_a_class_is_graded_into_one_gradebook(tmp_path):
    # make grade SUBMISSIONS=folder: a row per student and task, always, and a wide table.
    folder = tmp_path / "class"
    submission(folder / "ada")
    submission(folder / "bob", with_first_line(BY_ID["15.2"], "raise ValueError('oops')"))
    (folder / "cy").mkdir()  # handed in nothing
    grade.grade_class(folder, chapter=15, out=tmp_path / "grades")
    with open(tmp_path / "grades" / "class.csv") as stream:
        rows = list(csv.DictReader(stream))
    assert [(row["student"], row["task"]) for row in rows] == [
        (student, task) for student in ("ada", "bob", "cy") for task in ("15.1", "15.2")]
    points = {(row["student"], row["task"]): int(row["points"]) for row in rows}
    why = {(row["student"], row["task"]): row["why"] for row in rows}
    assert points[("ada", "15.1")] == BY_ID["15.1"].points
    assert points[("ada", "15.2")] == BY_ID["15.2"].points
    assert points[("bob", "15.2")] == 0 and "ValueError: oops" in why[("bob", "15.2")]
    assert points[("cy", "15.1")] == 0 and "no code/toygrad" in why[("cy", "15.1")]
    with open(tmp_path / "grades" / "class-wide.csv") as stream:
        wide = {row["student"]: row for row in csv.DictReader(stream)}
    assert wide["ada"]["total"] == str(BY_ID["15.1"].points + BY_ID["15.2"].points)
    assert wide["bob"]["task 15.1"] == str(BY_ID["15.1"].points) and wide["cy"]["total"] == "0"


EXAMPLE = ROOT / "scripts" / "private_tests_example"  # the instructors' page shows it

# An RMSprop as PyTorch's (torch/optim/rmsprop.py, _single_tensor_rmsprop, not centered): a
# student's answer to the private variant, appended to optim.py.
RMSPROP = """

class RMSprop(Optimizer):
    def __init__(self, params, lr=0.01, alpha=0.99, eps=1e-8, momentum=0.0):
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, momentum=momentum))

    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g, state = p.grad.data, self.state.setdefault(id(p), {})
                square = state.setdefault("square_avg", np.zeros_like(g))
                square *= group["alpha"]
                square += (1 - group["alpha"]) * g * g
                avg = np.sqrt(square) + group["eps"]
                if group["momentum"] > 0:
                    buf = state.setdefault("momentum_buffer", np.zeros_like(g))
                    buf *= group["momentum"]
                    buf += g / avg
                    p.data -= group["lr"] * buf
                else:
                    p.data -= group["lr"] * (g / avg)
"""


def test_an_instructor_s_private_tests_count_for_their_tasks(tmp_path):
    # Issue 27, point 6 (make grade TESTS=folder): the instructors' page's example, a
    # variant of Task 15.2 whose solution is not in the book (an RMSprop optimizer). The
    # reference, which has none, loses 15.2 with the probe's reason and keeps 15.1; a
    # student who writes RMSprop earns 15.2 (the book's Adam checks still count too).
    book = len([item for item in grade.items_of([BY_ID["15.2"]])])
    rows = {row["task"]: row for row in grade.grade(
        submission(tmp_path / "reference"), chapter=15, out=tmp_path, tests_folder=EXAMPLE)}
    assert rows["15.1"]["points"] == BY_ID["15.1"].points
    assert rows["15.2"]["tests"] == book + 2  # the book's checks and the variant's two
    assert rows["15.2"]["points"] == 0
    assert "has no attribute 'RMSprop'" in rows["15.2"]["why"], rows["15.2"]["why"]

    def answer(path, text):
        return text + RMSPROP if path.name == "optim.py" else text

    rows = {row["task"]: row for row in grade.grade(
        submission(tmp_path / "answered", answer), chapter=15, out=tmp_path,
        tests_folder=EXAMPLE)}
    assert rows["15.2"]["points"] == BY_ID["15.2"].points, rows["15.2"]["why"]
    private = tmp_path / "private"
    shutil.copytree(EXAMPLE, private)
    (private / "test_tasks_ch15.py").write_text("")  # would replace the book's own
    with pytest.raises(SystemExit, match="rename test_tasks_ch15.py"):
        grade.grade(submission(tmp_path / "again"), chapter=15, tests_folder=private)


# Hostile submissions (issue 27's acceptance): each tries to earn Task 15.1, whose function
# it leaves a stub (the rest is the reference's code, and earns its points), by a way
# around the work; each gets 0 for 15.1 with a reason, and the rest its points.
REFERENCE_OPTIM = ROOT / "code" / "toygrad" / "optim.py"
CALL = ("(param, grad, buffer, lr=lr, momentum=momentum, dampening=dampening, "
        "weight_decay=weight_decay, nesterov=nesterov, maximize=maximize)")
CHEATS = {
    # The reference's function, by its path in the instructor's repository.
    "reference-by-path": ("line", "import runpy; return runpy.run_path("
                          f"{str(REFERENCE_OPTIM)!r})['sgd_update']{CALL}"),
    # The reference's, by the package the Python environment has installed (its .pth).
    "reference-by-package": ("line", "import glob, runpy, site; return runpy.run_path(open("
                             "glob.glob(site.getsitepackages()[0] + '/*toygrad*.pth')[0])"
                             ".read().strip() + '/toygrad/optim.py')['sgd_update']" + CALL),
    # PyTorch's own SGD, doing the task's work (the sandbox of a task whose code does not
    # work on PyTorch's graphs has no PyTorch).
    "handing-the-work-to-pytorch": ("line", "import torch; p = torch.from_numpy(param); "
                                    "torch.optim.SGD([p], lr=lr)"),
    # The expectations: the task's test module, and any test file near the code.
    "reading-the-tests": ("line", "import glob, os; found = glob.glob(os.path.dirname("
                          "__file__) + '/../../**/test_*.py', recursive=True); "
                          "__import__('test_tasks_ch15') if not found else None; "
                          "raise RuntimeError(f'found {found}')"),
    # pytest, patched at import: every report a pass; the book's verdict module, patched
    # to agree with anything; builtins replaced.
    "patching-pytest-and-builtins": ("init", """
import builtins
try:
    import _pytest.reports
    _pytest.reports.TestReport.passed = property(lambda self: True)
    _pytest.reports.TestReport.failed = property(lambda self: False)
except ImportError:
    pass
try:
    import verdict
    verdict.Check.judge = lambda self, *args, **kwargs: None
    verdict.same = lambda observed, expected: None
    verdict.run = lambda *args, **kwargs: None
except ImportError:
    pass
builtins.NotImplementedError = type("NotImplementedError", (Exception,), {})
"""),
    # A pytest plugin and conftest files that pass every test, where pytest would find them.
    "plugin-and-conftest": ("files", {
        "conftest.py": "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
                       "def pytest_runtest_makereport(item, call):\n"
                       "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n",
        "code/grade_plugin.py": "import pytest\n\n\ndef pytest_runtest_call(item):\n"
                                "    pytest.skip('passed')\n",
        "pytest.ini": "[pytest]\naddopts = -p grade_plugin -p no:randomly\n"}),
}


def cheat(folder, how):
    kind, what = CHEATS[how]
    task = BY_ID["15.1"]

    def change(path, text):
        if path.name == "optim.py":
            text = student_edition.stubbed(text, [task])
            if kind == "line":
                text = with_first_line(task, what)(path, text)
        if kind == "init" and path.name == "__init__.py" and path.parent.name == "toygrad":
            text += what
        return text

    submission(folder, change)
    if kind == "files":
        for name, text in what.items():
            (folder / name).write_text(text)
            if name.endswith("conftest.py"):
                (folder / "code" / "toygrad" / name).write_text(text)
    return folder


@pytest.mark.parametrize("how", sorted(CHEATS))
@pytest.mark.usefixtures("untouched")
def test_a_way_around_the_work_earns_nothing(how, tmp_path, request):
    if passed_before(request):
        return
    rows = {row["task"]: row for row in grade.grade(cheat(tmp_path / how, how), chapter=15,
                                                     out=tmp_path / "grades")}
    assert rows["15.1"]["points"] == 0 and rows["15.1"]["why"], rows["15.1"]
    reason = {"reference-by-path": "No such file",
              "handing-the-work-to-pytorch": "ImportError: PyTorch is not available", "reference-by-package": "No such file",
              "reading-the-tests": "No module named 'test_tasks_ch15'",
              "patching-pytest-and-builtins": "Task 15.1 ",
              "plugin-and-conftest": "NotImplementedError: Task 15.1 "}[how]
    assert reason in rows["15.1"]["why"], rows["15.1"]["why"]
    assert rows["15.2"]["points"] == BY_ID["15.2"].points, rows["15.2"]["why"]
    passes(request)


def _fingerprint(*paths):
    return {str(path): passcache.digest(path.read_bytes()) for path in paths}


@pytest.mark.usefixtures("untouched")
def test_a_submission_cannot_touch_the_repository_or_other_results(tmp_path, request):
    # A submission whose code deletes and writes outside its folder, when imported: the
    # book's files, the repository's git state, another student's results, its own home,
    # the other submissions. Nothing changes; the code itself is the reference's (with the
    # attempts in try blocks), so it earns every point.
    if passed_before(request):
        return
    grades, folder = tmp_path / "grades", tmp_path / "class"
    grade.grade(submission(folder / "ada"), chapter=15, out=grades)
    theirs = [grades / "ada-ch15.csv", grades / "ada-ch15.json",
              folder / "ada" / "code" / "toygrad" / "optim.py"]
    before = _fingerprint(ROOT / "README.md", ROOT / "code" / "toygrad" / "optim.py", *theirs)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout
    targets = [ROOT / "README.md", ROOT / "code" / "toygrad" / "optim.py", *theirs]
    attack = "\nimport os, shutil\n" + "".join(
        f"try:\n    os.remove({str(path)!r})\nexcept OSError:\n    pass\n"
        f"try:\n    open({str(path)!r}, 'w').write('mallory was here')\n"
        f"except OSError:\n    pass\n" for path in targets) + (
        f"shutil.rmtree({str(ROOT / 'chapters')!r}, ignore_errors=True)\n"
        f"shutil.rmtree({str(folder / 'ada')!r}, ignore_errors=True)\n"
        "open(os.path.expanduser('~/.bashrc'), 'a').write('mallory')\n")

    def destroy(path, text):
        return text + attack if path.name == "__init__.py" and path.parent.name == "toygrad" \
            else text

    rows = grade.grade(submission(folder / "mallory", destroy), chapter=15, out=grades)
    assert failing(rows) == {}
    assert _fingerprint(*map(Path, before)) == before
    assert (ROOT / "chapters").is_dir() and (folder / "ada" / "code").is_dir()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout == status
    passes(request)


def test_no_task_test_needs_hypothesis():
    # The grader leaves Hypothesis's pytest plugin out (a second of imports per grading):
    # no module a grading copies may use it.
    chapters = {task.chapter for task in TASKS}
    for name in (*grade.HELPERS, *(f"test_tasks_ch{c:02d}.py" for c in chapters)):
        assert "hypothesis" not in (ROOT / "tests" / name).read_text(), name


def test_only_the_tasks_on_pytorch_s_graphs_have_pytorch_in_the_sandbox():
    # What the student README and the instructors' page say: the probes of chapters 2 and
    # 7 (gradcheck of PyTorch's functions, the walker of PyTorch's graphs) have PyTorch.
    with_torch = {item.task for item in grade.items_of(TASKS) if grade.needs_torch(item)}
    assert with_torch == {task.marker for task in TASKS if task.chapter in (2, 7)}
    assert grade.chapters_with_torch() == [2, 7]  # what the README and the page print
