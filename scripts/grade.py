"""Grade a student's folder offline: ``make grade SUBMISSION=path [CHAPTER=N]``, or a
class: ``make grade SUBMISSIONS=folder-of-folders``.

    .venv/bin/python scripts/grade.py SUBMISSION [--chapter N] [--out DIR]
    .venv/bin/python scripts/grade.py --submissions FOLDER [--chapter N] [--out DIR]
    (either with [--tests FOLDER]: an instructor's private tests too)

The submission is a student edition (``make student``) with some tasks done. It is graded
with the book's task checks (``tests/test_tasks_chNN.py``'s ``CHECKS``, not the copies in
the submission, which a student could have changed), split in two (``tests/verdict.py``):

- the *probes* (``tests/probes_chNN.py``) run the submission's code on inputs drawn from a
  seed this grading chooses, and report what they observed as plain data. They run in a
  sandbox (``sandbox``): a fresh temporary folder holding only the submission's
  ``code/toygrad``, the probes and ``scripts/grade_runner.py``, run with Debian's
  bubblewrap so that the book's repository (with the reference code and the test files),
  the machine's other temporary files and the network are out of reach and the rest of the
  machine read-only, with its own HOME, a time limit per probe (``TEST_SECONDS``, the
  runner's alarm, and a kill from outside a few seconds later) and a CPU limit per probe
  (``TEST_CPU_SECONDS``, the kernel's SIGXCPU), a CPU limit and a wall-clock limit for the
  whole run, and a memory limit (``MEMORY_MB``, the resident
  memory of the run's processes, read from outside every tenth of a second);
- the *verdict*: this process computes each check's expectation (with PyTorch, or a rule)
  and compares the observation with it. Nothing the submission does to its own process
  (pytest, plugins, conftest files, the book's modules, builtins) reaches this one, and
  the expected values are never in the sandbox: to earn a point, a submission must return
  the right observations for inputs it could not know, which means computing them.

A run that ends early (an exit, a crash, too much memory, too long) fails the probe it was
running, with the reason, and the probes not run yet of the other tasks run again in a
fresh sandbox. The grader checks that the probes imported the submission's ``toygrad``,
and refuses to grade anything else. A task earns its points when every one of its checks
passes; a task that earns none always has its reason (the failing check's message, a
syntax or import error in the submission, with its file and line, a timeout, a crash). The
table ends with ``total: N / M points``; the same results go to ``DIR/<submission>.json``
(with the seed, to grade again with the same inputs: ``--seed``) and ``.csv`` (default DIR:
``_build/grades``). ``--tests FOLDER`` (``make grade TESTS=folder``) adds an instructor's
private checks: test files with ``CHECKS`` as the book's, and their probes in the folder's
other modules (copied into the sandbox; the test files are not).

What the sandbox does not stop: the submission's code may use anything installed in the
Python environment, PyTorch included (chapters 2 and 7 grade code that works on PyTorch's
graphs), so a toygrad that hands its work to PyTorch computes right answers; read the
code behind a surprising score. It runs as the grader's user, with the kernel shared, and
its folder has no size limit (it can fill the disk of the temporary files): for submissions
you do not trust at all, run the grader in a container or a virtual machine.
(The memory limit is a watch from outside, not an address-space limit, which PyTorch's
reservations break.)
"""

import argparse
import ast
import csv
import importlib
import importlib.util
import json
import os
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import verdict  # noqa: E402
from tasks import TASKS  # noqa: E402

TEST_SECONDS = 60  # wall clock, per test (a probe)
TEST_CPU_SECONDS = 120  # CPU time, per probe (the minute on both cores)
KILL_AFTER_SECONDS = 5  # past TEST_SECONDS, a probe that silenced its alarm is killed
RUN_SECONDS = 900  # wall clock, a whole run
CPU_SECONDS = 1800  # CPU time, a whole run
MEMORY_MB = 2048  # resident memory of a run's processes together
RUNS = 5  # runs of one submission's tests, when runs end early
WATCH_SECONDS = 0.1  # how often a run's memory is read

# What a sandbox holds of the book's tests: the probes and the modules they import (plain
# data, and the graphs' structure), never a test file, whose expectations stay outside.
HELPERS = ("verdict.py", "graphs.py",
           *sorted(path.name for path in (ROOT / "tests").glob("probes_ch*.py")))
RUNNER = ROOT / "scripts" / "grade_runner.py"


@dataclass
class Item:
    """One probe run of one check: its id, the task it counts for, the check (with its
    expectation and comparison, which stay in this process) and the case."""
    id: str
    task: str
    check: object
    case: tuple

    def job(self):
        probe = self.check.probe
        return {"id": self.id, "module": probe.__module__, "function": probe.__name__,
                "case": list(self.case)}


def _import(folder, name):
    """Module ``name`` of ``folder``, imported here, in the grader's process, with the
    book's reference toygrad (the expectations need only PyTorch; the probes' modules are
    imported with them)."""
    for path in (str(ROOT / "code"), str(ROOT / "tests"), str(folder)):
        if path not in sys.path:
            sys.path.insert(0, path)
    return importlib.import_module(name)


def items_of(tasks, extra=()):
    """Every check and case of ``tasks``: the book's (``tests/test_tasks_chNN.py``'s
    ``CHECKS``) and those of an instructor's private test files (``extra``)."""
    markers = {task.marker for task in tasks}
    modules = [_import(ROOT / "tests", f"test_tasks_ch{chapter:02d}")
               for chapter in sorted({task.chapter for task in tasks})]
    modules += [_import(path.parent, path.stem) for path in extra]
    items = []
    for module in modules:
        checks = getattr(module, "CHECKS", None)
        if checks is None:
            raise SystemExit(f"{module.__file__} has no CHECKS: a task test is a list of "
                             "verdict.Check (see tests/verdict.py)")
        for check in checks:
            probe = check.probe
            if (probe.__name__ != probe.__qualname__ or "<" in probe.__name__
                    or probe.__module__.startswith("test_")):
                raise SystemExit(
                    f"{check.name}: a probe is a function of a probes module (not of a "
                    f"test file, which stays outside the sandbox), not {probe.__qualname__}")
            if check.task in markers:
                items += [Item(f"{module.__name__}::{check.name}[{verdict.case_id(case)}]",
                               check.task, check, tuple(case)) for case in check.cases]
    return items


# What ``import torch`` finds in a sandbox whose probes do not need PyTorch: a toygrad that
# handed its work to PyTorch would compute right answers without doing the task.
NO_TORCH = (
    'raise ImportError("PyTorch is not available to this task\'s code in the grader\'s '
    'sandbox: toygrad computes its answers itself (only the probes of chapters that work on '
    'PyTorch\'s graphs have it)")\n')


def torch_folder():
    spec = importlib.util.find_spec("torch")
    return Path(spec.submodule_search_locations[0]).resolve()


def sandbox(scratch, command, no_torch=None):
    """``command`` run with bubblewrap: the machine read-only, the book's repository and
    /tmp hidden (but for the Python environment, if it lives in the repository), the
    scratch folder the only one writable, no network, no process outside; and, given
    ``no_torch`` (a file holding ``NO_TORCH``), PyTorch's package hidden behind it."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SystemExit("grading needs bubblewrap, the sandbox (Debian: apt-get install "
                         "bubblewrap; make test installs it)")
    prefix = Path(sys.prefix).resolve()
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", str(ROOT)]
    if prefix.is_relative_to(ROOT):
        args += ["--ro-bind", str(prefix), str(prefix)]
    if no_torch is not None:
        torch = torch_folder()
        args += ["--tmpfs", str(torch), "--ro-bind", str(no_torch), str(torch / "__init__.py"),
                 "--remount-ro", str(torch)]
    args += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch),
             "--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"]
    return args + command


def imports_torch(path):
    """Whether the module at ``path`` imports PyTorch at its top. A probe module that does
    is one whose tasks' code works on PyTorch's graphs (chapters 2 and 7); one that imports
    it only inside a function, for the expectation's run on PyTorch, does not need it in
    the sandbox."""
    top = ast.parse(Path(path).read_text()).body
    names = [alias.name for node in top if isinstance(node, ast.Import)
             for alias in node.names]
    names += [node.module or "" for node in top if isinstance(node, ast.ImportFrom)]
    return any(name.split(".")[0] == "torch" for name in names)


def needs_torch(item):
    """Whether ``item``'s probe runs with PyTorch in its sandbox."""
    return imports_torch(sys.modules[item.check.probe.__module__].__file__)


def chapters_with_torch():
    """The chapters whose probes have PyTorch in the sandbox (the instructors' page)."""
    return sorted(int(path.stem.removeprefix("probes_ch"))
                  for path in (ROOT / "tests").glob("probes_ch*.py") if imports_torch(path))


def _limit_cpu():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def run_tests(submission, items, seed, extra=()):
    """{item id: {tasks, outcome, why}} for ``items`` on the submission's code, their probes
    run in the sandbox with ``seed`` and judged here, and the errors that kept probes from
    running (each a line, for the reasons).

    A run that ends early (the process exits or crashes, uses more than ``MEMORY_MB``, or
    runs past ``RUN_SECONDS``, or one probe past ``TEST_SECONDS``) fails the probe it was
    running, with the reason, and the probes it had not run yet run again in a fresh
    sandbox, up to ``RUNS`` runs in all: each task gets the points its own checks earn."""
    code = (submission / "code").resolve()
    if not (code / "toygrad" / "__init__.py").exists():
        raise SystemExit(f"{submission} has no code/toygrad: is it a student edition?")
    tests = {item.id: {"tasks": [item.task], "outcome": "not run", "why": ""}
             for item in items}
    errors = []
    # Two sandboxes: the probes that need PyTorch (whose code works on PyTorch's graphs)
    # have it, the others' do not, so that a toygrad cannot hand its work to PyTorch.
    for with_torch in (False, True):
        group = [item for item in items if needs_torch(item) == with_torch]
        if group:
            errors += _run_group(code, group, seed, extra, tests, with_torch)
    for test in tests.values():
        if test["outcome"] == "not run" and not test["why"]:
            test["why"] = errors[-1] if errors else "the test did not run"
    return tests, errors


def _run_group(code, items, seed, extra, tests, with_torch):
    """Run ``items``' probes, again in a fresh sandbox after a run that ended early, and
    judge what they observed into ``tests``; the errors that kept probes from running."""
    by_id = {item.id: item for item in items}
    errors, todo = [], list(items)
    for _ in range(RUNS):
        data, ended = _run_once(code, todo, seed, extra, with_torch)
        errors += data["errors"]
        for item_id, entry in data["items"].items():
            if item_id in by_id and tests[item_id]["outcome"] == "not run":
                why = str(entry["error"])[:300] if "error" in entry else _judge(
                    by_id[item_id], entry.get("observed"), seed)
                tests[item_id].update(outcome="failed" if why else "passed", why=why or "")
        running = data.get("running") if isinstance(data.get("running"), str) else None
        if not ended:
            break
        if running not in by_id or tests[running]["outcome"] != "not run":
            errors.append(ended)  # not in a probe: nothing more would run
            break
        tests[running].update(outcome="failed", why=f"{ended}, during this test")
        # Again, the probes not run yet of the tasks that can still earn their points.
        lost = {task for test in tests.values() if test["outcome"] == "failed"
                for task in test["tasks"]}
        todo = [item for item in items
                if tests[item.id]["outcome"] == "not run" and item.task not in lost]
        if not todo:
            break
    else:
        errors.append(f"{RUNS} runs of the tests ended early; the rest were not run")
    return errors


_EXPECTED = {}  # (item id, seed): the expectation, computed once per grading of a class


def _judge(item, observed, seed):
    """None if the submission's ``observed`` passes ``item``'s check, else why: decided
    here, with an expectation the sandbox never saw."""
    key = (item.id, seed)
    if key not in _EXPECTED:
        _EXPECTED[key] = item.check.expected(item.case, seed)
    try:
        return item.check.compare(observed, _EXPECTED[key])
    except Exception as error:  # noqa: BLE001 - an observation of another form
        return f"the observation is not what the check reads ({type(error).__name__}: " \
               f"{error}): {verdict._short(observed, 200)}"


def _run_once(code, items, seed, extra=(), with_torch=True):
    """One sandboxed run of ``items``' probes (PyTorch hidden unless ``with_torch``): what
    the runner reported, and why the run ended early (None if it did not)."""
    with tempfile.TemporaryDirectory(prefix="grade-") as outside:
        scratch = Path(outside).resolve() / "run"  # the sandbox's folder, and only it
        no_torch = None if with_torch else Path(outside).resolve() / "no_torch.py"
        if no_torch is not None:
            no_torch.write_text(NO_TORCH)
        shutil.copytree(code / "toygrad", scratch / "code" / "toygrad", symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        tests = scratch / "tests"
        tests.mkdir()
        for name in HELPERS:
            shutil.copy(ROOT / "tests" / name, tests / name)
        for path in _private_probes(extra):  # an instructor's probes, not the tests
            shutil.copy(path, tests / path.name)
        shutil.copy(RUNNER, scratch / RUNNER.name)
        for folder in ("home", "tmp"):
            (scratch / folder).mkdir()
        job, results = scratch / "job.json", scratch / "results.jsonl"
        job.write_text(json.dumps({"seed": seed, "seconds": TEST_SECONDS,
                                   "cpu_seconds": TEST_CPU_SECONDS,
                                   "items": [item.job() for item in items]}))
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("PYTHON", "PYTEST"))}  # a clean process
        env.update(PYTHONDONTWRITEBYTECODE="1", HOME=str(scratch / "home"),
                   TMPDIR=str(scratch / "tmp"), MPLCONFIGDIR=str(scratch / "tmp"))
        command = [sys.executable, "-I", str(scratch / RUNNER.name), str(job), str(results)]
        ended, said = _watch(sandbox(scratch, command, no_torch), scratch, env,
                             results)
        data = read_results(results)
        data["errors"] = [str(error)[:300] for error in data["errors"]]
        if not ended and not data["items"] and not data["errors"]:
            data["errors"].append("no test ran" + (f": {said[-1][:300]}" if said else ""))
        elsewhere = [path for path in data["toygrad"]
                     if Path(str(path)).resolve() != scratch / "code" / "toygrad"]
        if elsewhere:
            raise SystemExit(f"refusing to grade: the probes imported {elsewhere[0]}, "
                             "not the submission's code")
    return data, ended


def read_results(path):
    """What a run reported, from its ``results.jsonl`` (one event a line, see
    scripts/grade_runner.py): {"items": {id: entry}, "errors": [...], "toygrad": [every
    folder it said toygrad came from], "running": the probe it began and did not finish, or
    None}. A line that is not a whole JSON object (the last, if the run died writing it) is
    left out."""
    data = {"items": {}, "errors": [], "toygrad": [], "running": None}
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return data
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if "running" in event:
            data["running"] = event["running"]
        elif "item" in event:
            if isinstance(event.get("entry"), dict):
                data["items"][str(event["item"])] = event["entry"]
            data["running"] = None
        elif "toygrad" in event:
            data["toygrad"].append(event["toygrad"])
        elif "error" in event:
            data["errors"].append(event["error"])
    return data


def _running(results, tail=65536):
    """The probe a run reports running (None if none, or no report yet): its last whole
    line, read from the end of the file (a "running" line is short; a longer last line is
    an observation, and then no probe is running)."""
    try:
        with open(results, "rb") as stream:
            stream.seek(0, os.SEEK_END)
            stream.seek(max(0, stream.tell() - tail))
            lines = stream.read().split(b"\n")[:-1]  # a line is whole once its newline is
    except OSError:
        return None
    try:
        event = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    return event.get("running") if isinstance(event, dict) else None


def _watch(command, scratch, env, results):
    """Run ``command``, watching it: killed when its processes use more than ``MEMORY_MB``
    of memory together, when one probe runs past ``TEST_SECONDS`` (and a few seconds more:
    the runner's own alarm comes first) or the run past ``RUN_SECONDS``. Why it ended early
    (None if it ended by itself with 0) and the last lines it printed."""
    with tempfile.TemporaryFile("w+") as out:
        process = subprocess.Popen(command, cwd=scratch, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, text=True,
                                   preexec_fn=_limit_cpu)
        started, ended = time.monotonic(), None
        running, since, seen = None, started, None
        while process.poll() is None:
            stamp = results.stat().st_mtime_ns if results.exists() else None
            if stamp != seen:
                seen, now = stamp, _running(results)
                if now != running:
                    running, since = now, time.monotonic()
            if _memory_mb(process.pid) > MEMORY_MB:
                ended = f"the test used more than {MEMORY_MB} MB of memory"
            elif running and time.monotonic() - since > TEST_SECONDS + KILL_AFTER_SECONDS:
                ended = f"the test ran longer than {TEST_SECONDS:g} s"
            elif time.monotonic() - started > RUN_SECONDS:
                ended = f"the test run took longer than {RUN_SECONDS} s"
            if ended:
                process.kill()  # bubblewrap's --die-with-parent ends what runs inside
                process.wait()
                break
            time.sleep(WATCH_SECONDS)
        if ended is None and process.returncode != 0:
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
        hint = getattr(task, "hint", lambda: "")()
        if not done and hint and "NotImplementedError: Task" not in why:
            why = f"{hint}. {why}"
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
    in it, a list of checks (``CHECKS``, as the book's) whose probes are in the folder's
    other modules. Their checks count for the tasks they name, beside the book's; a module
    named like one of the book's tests is refused, so that nothing is replaced."""
    if folder is None:
        return ()
    paths = sorted(Path(folder).resolve().glob("test_*.py"))
    if not paths:
        raise SystemExit(f"{folder} holds no test_*.py file")
    taken = {path.name for path in (ROOT / "tests").glob("*.py")}
    clash = [path.name for path in sorted(Path(folder).resolve().glob("*.py"))
             if path.name in taken]
    if clash:
        raise SystemExit(f"rename {', '.join(clash)}: the book's tests use that name")
    return paths


def _private_probes(extra):
    """The modules beside an instructor's private test files, which hold their probes:
    copied into the sandbox, the test files themselves not."""
    folders = sorted({path.parent for path in extra})
    return [path for folder in folders for path in sorted(folder.glob("*.py"))
            if not path.name.startswith("test_")]


def new_seed():
    """A grading's seed: the inputs its probes draw, which a submission cannot know."""
    return secrets.randbelow(2 ** 31 - 1) + 1


def grade(submission, chapter=None, out=ROOT / "_build" / "grades", tests_folder=None,
          seed=None):
    submission = Path(submission).resolve()
    tasks = [task for task in TASKS if chapter is None or task.chapter == chapter]
    if not tasks:
        raise SystemExit(f"chapter {chapter} has no tasks")
    seed = new_seed() if seed is None else seed
    private = private_tests(tests_folder)
    tests, errors = run_tests(submission, items_of(tasks, private), seed, private)
    rows = score(tests, tasks, errors)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    name = submission.name + (f"-ch{chapter:02d}" if chapter else "")
    total = sum(row["points"] for row in rows)
    maximum = sum(row["max_points"] for row in rows)
    (out / f"{name}.json").write_text(json.dumps(
        {"submission": str(submission), "chapter": chapter, "seed": seed, "tasks": rows,
         "total": total, "max_points": maximum}, indent=2))
    with open(out / f"{name}.csv", "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def grade_class(folder, chapter=None, out=ROOT / "_build" / "grades", tests_folder=None,
                seed=None):
    """Grade every submission in ``folder`` (one subfolder per student, named after the
    student), all with one seed (the expectations are computed once): ``class.csv`` has a
    row per student and task (student, task, points, max_points, why), ``class-wide.csv`` a
    row per student (a column per task, and the total), for a spreadsheet or an LMS
    import. A subfolder that is not a submission still gets its rows, with the reason."""
    tasks = [task for task in TASKS if chapter is None or task.chapter == chapter]
    seed = new_seed() if seed is None else seed
    out = Path(out)
    long_rows, wide_rows = [], []
    for student in sorted(path for path in Path(folder).iterdir() if path.is_dir()):
        try:
            rows = grade(student, chapter, out, tests_folder, seed)
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
    parser.add_argument("--seed", type=int, help="the probes' inputs (default: a new "
                        "random seed; the result files record it)")
    args = parser.parse_args()
    if args.submissions:
        rows = grade_class(args.submissions, args.chapter, args.out, args.tests, args.seed)
        students = {row["student"] for row in rows}
        print(f"graded {len(students)} submissions: {Path(args.out) / 'class.csv'} and "
              f"class-wide.csv")
    elif args.submission:
        print(table(grade(args.submission, args.chapter, args.out, args.tests, args.seed)))
    else:
        parser.error("give a submission, or --submissions FOLDER")


if __name__ == "__main__":
    main()
