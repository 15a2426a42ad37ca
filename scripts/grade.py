"""Grade a student's folder offline: ``make grade SUBMISSION=path [CHAPTER=N]``, or a
class: ``make grade SUBMISSIONS=folder-of-folders``.

    .venv/bin/python scripts/grade.py SUBMISSION [--chapter N] [--out DIR]
    .venv/bin/python scripts/grade.py --submissions FOLDER [--chapter N] [--out DIR]
    (either with [--tests FOLDER]: an instructor's private tests too)

The submission is a student edition (``make student``) with some tasks done. Its code is
graded with the book's own task tests (``tests/test_tasks_chNN.py``, not the copies in the
submission, which a student could have changed), in a sandbox (``sandbox``): a fresh
temporary folder that holds only the submission's ``code/toygrad`` and the book's tests,
run with Debian's bubblewrap so that the book's repository (with the reference code), the
machine's other temporary files and the network are out of reach, with its own HOME, a
time limit per test (``TEST_SECONDS``), a CPU limit and a wall-clock limit for the whole
run, and a memory limit (``MEMORY_MB``, the resident memory of the run's processes, read
from outside every tenth of a second). A run that ends early (an exit, a crash, too much
memory, too long) fails the test it was running, with the reason, and the tests not run yet
of the other tasks run again in a fresh sandbox. The grader checks that the tests imported the submission's ``toygrad``, and refuses
to grade anything else. A task earns its points when every one of its tests passes; a task
that earns none always has its reason (the failing test's message, a syntax or import
error in the submission, a timeout, a crash). The table ends with ``total: N / M points``;
the same results go to ``DIR/<submission>.json`` and ``.csv`` (default DIR:
``_build/grades``). ``--tests FOLDER`` (``make grade TESTS=folder``) adds an instructor's
private test files; their tests count for the tasks whose markers they carry.

What the sandbox does not stop: the submission runs inside the test process, so code in it
can still change how pytest reports (the next step is a verdict decided outside it). (The
memory limit is a watch from outside, not an address-space limit, which PyTorch's
reservations break.)
"""

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from tasks import TASKS  # noqa: E402

TEST_SECONDS = 60  # wall clock, per test
RUN_SECONDS = 900  # wall clock, a whole run
CPU_SECONDS = 1800  # CPU time, a whole run
MEMORY_MB = 2048  # resident memory of a run's processes together
RUNS = 5  # runs of one submission's tests, when runs end early
WATCH_SECONDS = 0.1  # how often a run's memory is read

# A pytest plugin, loaded into the grading process: which task each test belongs to, how it
# ended, why it failed, and which toygrad was imported. It writes what it knows after every
# test, so a run that dies still leaves what it had found.
PLUGIN = '''
import json, os, re, signal
import pytest

RESULTS = {"tests": {}, "toygrad": None, "errors": []}
SECONDS = float(os.environ["GRADE_TEST_SECONDS"])


def save():
    with open(os.environ["GRADE_RESULTS"] + ".part", "w") as stream:
        json.dump(RESULTS, stream)
    os.replace(os.environ["GRADE_RESULTS"] + ".part", os.environ["GRADE_RESULTS"])


def pytest_collectreport(report):
    if report.failed:
        lines = [line for line in str(report.longrepr).splitlines() if line.strip()]
        said = [line[1:].strip() for line in lines if line.startswith("E ")]
        why = (said or lines or ["collection failed"])[-1]
        where = [re.search(r'File ".*?(toygrad/[^"]+)", line (\\d+)', line) for line in lines]
        where = [match for match in where if match]
        if where:  # the submission's file that did not import
            why += f" (in {where[-1][1]}, line {where[-1][2]})"
        RESULTS["errors"].append(why[:300])
        save()


def pytest_collection_modifyitems(items):
    for item in items:
        tasks = [m.name for m in item.iter_markers() if m.name.startswith("task")]
        RESULTS["tests"][item.nodeid] = {"tasks": tasks, "outcome": "not run", "why": ""}
    try:
        import toygrad
        RESULTS["toygrad"] = os.path.dirname(toygrad.__file__)
    except BaseException as error:  # a syntax or import error in the submission
        RESULTS["errors"].append(f"import toygrad: {type(error).__name__}: {error}"[:300])
    save()


class TestTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise TestTimeout(f"the test ran longer than {SECONDS:g} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    RESULTS["running"] = item.nodeid
    save()
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    entry = RESULTS["tests"].get(item.nodeid)
    if entry is None or (report.when != "call" and report.passed):
        return
    if report.failed or report.when == "call":
        entry["outcome"] = "passed" if report.passed else "failed"
        if report.failed and call.excinfo is not None:
            entry["why"] = call.excinfo.exconly().splitlines()[0][:300]
        RESULTS.pop("running", None)
        save()
'''

# The book's tests a grading needs: the task tests, and the modules they and the conftest
# import (no other test module, and nothing of the submission's tests/).
HELPERS = ("conftest.py", "tasks.py", "chapters.py", "graphs.py", "verdict.py",
           *sorted(path.name for path in (ROOT / "tests").glob("probes_ch*.py")))


def sandbox(scratch, command):
    """``command`` run with bubblewrap: the machine read-only, the book's repository and
    /tmp hidden (but for the Python environment, if it lives in the repository), the
    scratch folder the only one writable, no network, no process outside."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SystemExit("grading needs bubblewrap, the sandbox (Debian: apt-get install "
                         "bubblewrap; make test installs it)")
    prefix = Path(sys.prefix).resolve()
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", str(ROOT)]
    if prefix.is_relative_to(ROOT):
        args += ["--ro-bind", str(prefix), str(prefix)]
    args += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch),
             "--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"]
    return args + command


def _limit_cpu():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def run_tests(submission, tasks, extra=()):
    """{test id: {tasks, outcome, why}} for the tests of ``tasks``, on the submission's code,
    and the errors that kept tests from running (each a line, for the reasons).

    A run that ends early (the process exits or crashes, uses more than ``MEMORY_MB``, or
    runs past ``RUN_SECONDS``) fails the test it was running, with the reason, and the
    tests it had not run yet run again in a fresh sandbox, up to ``RUNS`` runs in all: each
    task gets the points its own tests earn."""
    code = (submission / "code").resolve()
    if not (code / "toygrad" / "__init__.py").exists():
        raise SystemExit(f"{submission} has no code/toygrad: is it a student edition?")
    files = sorted({f"test_tasks_ch{task.chapter:02d}.py" for task in tasks})
    marker = " or ".join(task.marker for task in tasks)
    tests, errors, only = {}, [], None
    for _ in range(RUNS):
        data, ended = _run_once(code, files, marker, only, extra)
        for test_id, test in data["tests"].items():
            if test_id not in tests or test["outcome"] != "not run":
                tests[test_id] = test
        errors += data["errors"]
        running = data.get("running")
        if not ended:
            break
        if running is None or running not in tests:
            errors.append(ended)  # not in a test: nothing more would run
            break
        tests[running].update(outcome="failed", why=f"{ended}, during this test")
        # Again, the tests not run yet of the tasks that can still earn their points.
        lost = {marker for test in tests.values() if test["outcome"] == "failed"
                for marker in test["tasks"]}
        only = [test_id for test_id, test in tests.items()
                if test["outcome"] == "not run" and not lost & set(test["tasks"])]
        if not only:
            break
    else:
        errors.append(f"{RUNS} runs of the tests ended early; the rest were not run")
    for test in tests.values():
        if test["outcome"] == "not run" and errors and not test["why"]:
            test["why"] = errors[-1]
    return tests, errors


def _run_once(code, files, marker, only=None, extra=()):
    """One sandboxed pytest run of ``files`` and the instructor's ``extra`` test files (the
    tests marked ``marker``, or the test ids ``only``): what the plugin recorded, and why
    the run ended early (None if it did not)."""
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        scratch = Path(scratch).resolve()
        shutil.copytree(code / "toygrad", scratch / "code" / "toygrad", symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        tests = scratch / "tests"
        tests.mkdir()
        for name in (*HELPERS, *files):
            shutil.copy(ROOT / "tests" / name, tests / name)
        for path in extra:  # an instructor's private tests, beside the book's
            shutil.copy(path, tests / path.name)
        files = [*files, *(path.name for path in extra)]
        shutil.copy(ROOT / "pyproject.toml", scratch / "pyproject.toml")  # the markers
        (scratch / "plugin").mkdir()
        (scratch / "plugin" / "grade_plugin.py").write_text(PLUGIN)
        for folder in ("home", "tmp"):
            (scratch / folder).mkdir()
        results = scratch / "results.json"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("PYTHON", "PYTEST"))}  # a clean process
        env.update(PYTHONPATH=os.pathsep.join([str(scratch / "code"), str(scratch / "plugin")]),
                   PYTHONDONTWRITEBYTECODE="1", GRADE_RESULTS=str(results),
                   GRADE_TEST_SECONDS=str(TEST_SECONDS), HOME=str(scratch / "home"),
                   TMPDIR=str(scratch / "tmp"), MPLCONFIGDIR=str(scratch / "tmp"))
        # (No task test uses Hypothesis: its plugin, a second of imports, stays out.)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "-p", "no:hypothesispytest",
                   "-p", "grade_plugin", "--rootdir", str(scratch), "-o", "addopts="]
        if only is None:
            command += ["-m", marker, *[str(tests / name) for name in files]]
        else:
            command += [str(scratch / test_id) for test_id in only]
        ended, said = _watch(sandbox(scratch, command), scratch, env)
        data = (json.loads(results.read_text()) if results.exists()
                else {"tests": {}, "toygrad": None, "errors": []})
        if not ended and not data["tests"] and not data["errors"]:
            data["errors"].append("no test ran" + (f": {said[-1][:300]}" if said else ""))
        if data["toygrad"] is not None and Path(data["toygrad"]).resolve() != (
                scratch / "code" / "toygrad"):
            raise SystemExit(f"refusing to grade: the tests imported {data['toygrad']}, "
                             "not the submission's code")
    return data, ended


def _watch(command, scratch, env):
    """Run ``command``, watching it: killed when its processes use more than ``MEMORY_MB``
    of memory together, or run past ``RUN_SECONDS``. Why it ended early (None if it ended
    by itself with pytest's 0 or 1) and the last lines it printed."""
    with tempfile.TemporaryFile("w+") as out:
        process = subprocess.Popen(command, cwd=scratch, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, text=True,
                                   preexec_fn=_limit_cpu)
        started, ended = time.monotonic(), None
        while process.poll() is None:
            if _memory_mb(process.pid) > MEMORY_MB:
                ended = f"the test used more than {MEMORY_MB} MB of memory"
            elif time.monotonic() - started > RUN_SECONDS:
                ended = f"the test run took longer than {RUN_SECONDS} s"
            if ended:
                process.kill()  # bubblewrap's --die-with-parent ends what runs inside
                process.wait()
                break
            time.sleep(WATCH_SECONDS)
        if ended is None and process.returncode not in (0, 1):  # 1: some test failed
            ended = f"the test run ended early (exit code {process.returncode})"
        out.seek(0)
        said = out.read().strip().splitlines()
    return ended, said


def _memory_mb(pid):
    """The resident memory of process ``pid`` and every process below it, in MB (Linux's
    /proc; 0 for a process that is gone)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                total += next((int(line.split()[1]) for line in status
                               if line.startswith("VmRSS:")), 0)
        except OSError:
            pass
        todo += children.get(current, [])
    return total / 1024


def score(tests, tasks, errors=()):
    """One row per task: its tests passed, its points, and the first reason it failed (for
    a task none of whose tests ran, what kept them from running)."""
    rows = []
    for task in tasks:
        mine = [t for t in tests.values() if task.marker in t["tasks"]]
        passed = sum(t["outcome"] == "passed" for t in mine)
        # The reason: a test that failed, before one that did not run.
        why = next((t["why"] for t in sorted(mine, key=lambda t: t["outcome"] != "failed")
                    if t["outcome"] != "passed"), "")
        if not mine:
            why = errors[0] if errors else "no test of this task ran"
        done = bool(mine) and passed == len(mine)
        rows.append({"task": task.id, "title": task.title, "passed": passed,
                     "tests": len(mine), "points": task.points if done else 0,
                     "max_points": task.points, "why": why})
    return rows


def table(rows):
    lines = [f"{'task':5} {'tests':>7} {'points':>7}  title / why it failed"]
    for row in rows:
        lines.append(f"{row['task']:5} {row['passed']:>3}/{row['tests']:<3} "
                     f"{row['points']:>3}/{row['max_points']:<3}  {row['title']}")
        if row["why"]:
            lines.append(f"{'':24}{row['why'][:100]}")
    total = sum(row["points"] for row in rows)
    lines.append(f"total: {total} / {sum(row['max_points'] for row in rows)} points")
    return "\n".join(lines)


def private_tests(folder):
    """The test files of an instructor's private folder (``TESTS=path``): each ``test_*.py``
    in it. Their tests count for the tasks whose markers they carry (``taskN_K``), beside the
    book's; a name the book's tests use is refused, so that nothing is replaced."""
    if folder is None:
        return ()
    paths = sorted(Path(folder).resolve().glob("test_*.py"))
    if not paths:
        raise SystemExit(f"{folder} holds no test_*.py file")
    taken = {path.name for path in (ROOT / "tests").glob("*.py")}
    clash = [path.name for path in paths if path.name in taken]
    if clash:
        raise SystemExit(f"rename {', '.join(clash)}: the book's tests use that name")
    return paths


def grade(submission, chapter=None, out=ROOT / "_build" / "grades", tests_folder=None):
    submission = Path(submission).resolve()
    tasks = [task for task in TASKS if chapter is None or task.chapter == chapter]
    if not tasks:
        raise SystemExit(f"chapter {chapter} has no tasks")
    tests, errors = run_tests(submission, tasks, private_tests(tests_folder))
    rows = score(tests, tasks, errors)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    name = submission.name + (f"-ch{chapter:02d}" if chapter else "")
    total = sum(row["points"] for row in rows)
    maximum = sum(row["max_points"] for row in rows)
    (out / f"{name}.json").write_text(json.dumps(
        {"submission": str(submission), "chapter": chapter, "tasks": rows,
         "total": total, "max_points": maximum}, indent=2))
    with open(out / f"{name}.csv", "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def grade_class(folder, chapter=None, out=ROOT / "_build" / "grades", tests_folder=None):
    """Grade every submission in ``folder`` (one subfolder per student, named after the
    student): ``class.csv`` has a row per student and task (student, task, points,
    max_points, why), ``class-wide.csv`` a row per student (a column per task, and the
    total), for a spreadsheet or an LMS import. A subfolder that is not a submission still
    gets its rows, with the reason."""
    tasks = [task for task in TASKS if chapter is None or task.chapter == chapter]
    out = Path(out)
    long_rows, wide_rows = [], []
    for student in sorted(path for path in Path(folder).iterdir() if path.is_dir()):
        try:
            rows = grade(student, chapter, out, tests_folder)
        except SystemExit as refused:
            rows = [{"task": task.id, "points": 0, "max_points": task.points,
                     "why": str(refused)} for task in tasks]
        long_rows += [{"student": student.name, "task": row["task"], "points": row["points"],
                       "max_points": row["max_points"], "why": row["why"]} for row in rows]
        wide_rows.append({"student": student.name,
                          **{f"task {row['task']}": row["points"] for row in rows},
                          "total": sum(row["points"] for row in rows)})
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("class.csv", long_rows), ("class-wide.csv", wide_rows)):
        with open(out / name, "w", newline="") as stream:
            writer = csv.DictWriter(stream, fieldnames=list(rows[0]) if rows else ["student"])
            writer.writeheader()
            writer.writerows(rows)
    return long_rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", nargs="?")
    parser.add_argument("--submissions", help="a folder with one submission per student")
    parser.add_argument("--chapter", type=int)
    parser.add_argument("--tests", help="a folder of private test files (test_*.py), whose "
                        "tests count for the tasks whose markers they carry")
    parser.add_argument("--out", default=str(ROOT / "_build" / "grades"))
    args = parser.parse_args()
    if args.submissions:
        rows = grade_class(args.submissions, args.chapter, args.out, args.tests)
        students = {row["student"] for row in rows}
        print(f"graded {len(students)} submissions: {Path(args.out) / 'class.csv'} and "
              f"class-wide.csv")
    elif args.submission:
        print(table(grade(args.submission, args.chapter, args.out, args.tests)))
    else:
        parser.error("give a submission, or --submissions FOLDER")


if __name__ == "__main__":
    main()
