"""Grade a student's folder offline: ``make grade SUBMISSION=path [CHAPTER=N]``.

    .venv/bin/python scripts/grade.py SUBMISSION [--chapter N] [--out DIR]

The submission is a student edition (``make student``) with some tasks done. Its code is
graded with the book's own task tests (``tests/test_tasks_chNN.py``, not the copies in the
submission, which a student could have changed), in a fresh Python process whose ``toygrad``
is the submission's: the grader checks that, and refuses to grade anything else. A task
earns its points when every one of its tests passes. The table ends with
``total: N / M points``; the same results go to ``DIR/<submission>.json`` and ``.csv``
(default DIR: ``_build/grades``).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from tasks import TASKS  # noqa: E402

# A pytest plugin, loaded into the grading process: which task each test belongs to, how it
# ended, why it failed, and which toygrad was imported.
PLUGIN = '''
import json, os
import pytest

RESULTS = {"tests": {}, "toygrad": None}


def pytest_collection_modifyitems(items):
    for item in items:
        tasks = [m.name for m in item.iter_markers() if m.name.startswith("task")]
        RESULTS["tests"][item.nodeid] = {"tasks": tasks, "outcome": "not run", "why": ""}


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


def pytest_sessionfinish(session):
    import toygrad
    RESULTS["toygrad"] = os.path.dirname(toygrad.__file__)
    with open(os.environ["GRADE_RESULTS"], "w") as stream:
        json.dump(RESULTS, stream)
'''


def run_tests(submission, tasks):
    """{test id: {tasks, outcome, why}} for the tests of ``tasks``, on the submission's code."""
    code = (submission / "code").resolve()
    if not (code / "toygrad" / "__init__.py").exists():
        raise SystemExit(f"{submission} has no code/toygrad: is it a student edition?")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        (scratch / "grade_plugin.py").write_text(PLUGIN)
        results = scratch / "results.json"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("PYTHON", "PYTEST"))}  # a clean process
        env.update(PYTHONPATH=os.pathsep.join([str(code), str(scratch)]),
                   PYTHONDONTWRITEBYTECODE="1", GRADE_RESULTS=str(results))
        files = sorted({str(ROOT / "tests" / f"test_tasks_ch{task.chapter:02d}.py")
                        for task in tasks})
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "-p", "grade_plugin", "--rootdir", str(ROOT), "-o", "addopts=",
                   "-m", " or ".join(task.marker for task in tasks), *files]
        process = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if not results.exists():
            raise SystemExit("the tests did not run:\n" + process.stdout[-3000:]
                             + process.stderr[-3000:])
        data = json.loads(results.read_text())
    if Path(data["toygrad"]).resolve() != code / "toygrad":
        raise SystemExit(f"refusing to grade: the tests imported {data['toygrad']}, "
                         f"not the submission's {code / 'toygrad'}")
    return data["tests"]


def score(tests, tasks):
    """One row per task: its tests passed, its points, and the first reason it failed."""
    rows = []
    for task in tasks:
        mine = [t for t in tests.values() if task.marker in t["tasks"]]
        passed = sum(t["outcome"] == "passed" for t in mine)
        why = next((t["why"] for t in mine if t["outcome"] != "passed"), "")
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


def grade(submission, chapter=None, out=ROOT / "_build" / "grades"):
    submission = Path(submission).resolve()
    tasks = [task for task in TASKS if chapter is None or task.chapter == chapter]
    if not tasks:
        raise SystemExit(f"chapter {chapter} has no tasks")
    rows = score(run_tests(submission, tasks), tasks)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission")
    parser.add_argument("--chapter", type=int)
    parser.add_argument("--out", default=str(ROOT / "_build" / "grades"))
    args = parser.parse_args()
    print(table(grade(args.submission, args.chapter, args.out)))


if __name__ == "__main__":
    main()
