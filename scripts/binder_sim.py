#!/usr/bin/env python3
"""Run every chapter the way Binder does, without Docker.

    python scripts/binder_sim.py            # set up (cached), run every chapter, print a table
    python scripts/binder_sim.py prepare    # only the environment and the repository copy

What it simulates (repo2docker's order, see binder/):

1. An environment made from ``binder/`` alone, in ``.binder-sim/venv``: first the Jupyter
   stack repo2docker itself provides (``scripts/binder-base-env.txt``, its pins for Python
   3.11), then ``binder/requirements.txt``. PyTorch's CPU index cannot be reached here, so
   ``torch==X+cpu`` is installed as ``torch==X`` (the same CPU wheel) and the
   ``--extra-index-url`` line is dropped; nothing else changes. Rebuilt only when those
   files change (a hash of them is kept in the venv).
2. The repository as Binder sees it: the files git tracks (or would track: untracked files
   that are not ignored), copied to ``.binder-sim/repo``. Nothing ignored (``_build``,
   ``.venv``, ...) comes along, so a chapter that needs such a file fails here as it would
   on Binder.
3. ``binder/postBuild`` run from that copy's root, with ``NB_PYTHON_PREFIX`` and ``HOME`` as
   repo2docker sets them.
4. Every notebook postBuild wrote (``notebooks/*.ipynb``) executed from its folder, as
   JupyterLab's "Run All" runs it (code cells only; solutions are raw cells), on one CPU
   (``taskset -c 0``), recording the wall time, the CPU time, and the peak memory of the
   kernel's process tree (the kernel plus anything it starts), polled every 0.05 s.

The report goes to ``.binder-sim/report.json``. Budgets: each chapter under 60 s and
1.5 GB. The 60 s are CPU seconds: the kernel's, its children's (reaped: a chapter's worker
processes are joined) and the runner's own, which is what one CPU of Binder's has to do.
The wall clock of this machine, shared with other programs (CI runs the site check beside
this one), counts their turns on CPU 0 too, and made chapters fail that take 35 s alone;
it is recorded, and held under a ceiling of three times the budget, which a chapter that
waits (sleeps, hangs) instead of computing still fails. ``tests/test_binder.py`` (marker ``binder``) runs this and checks the report.
"""

import fcntl
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIM = Path(os.environ.get("BINDER_SIM_DIR", ROOT / ".binder-sim")).resolve()
VENV = SIM / "venv"
REPO = SIM / "repo"
HOME = SIM / "home"
REPORT = SIM / "report.json"
PYTHON = os.environ.get("BINDER_SIM_PYTHON", "python3.11")
BASE_ENV = ROOT / "scripts" / "binder-base-env.txt"

SECONDS_BUDGET = 60
WALL_CEILING_SECONDS = 3 * SECONDS_BUDGET
MEMORY_BUDGET_MB = 1536


def local_requirements(text):
    """binder/requirements.txt as this machine can install it (see the module's doc)."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("--extra-index-url https://download.pytorch.org/whl/cpu"):
            continue
        if stripped.startswith("torch==") and stripped.endswith("+cpu"):
            line = stripped.removesuffix("+cpu")
        lines.append(line)
    return "\n".join(lines) + "\n"


def env_key():
    digest = hashlib.sha256()
    for path in [ROOT / "binder" / "requirements.txt", BASE_ENV]:
        digest.update(path.read_bytes())
    digest.update(PYTHON.encode())
    return digest.hexdigest()[:16]


def clean_env(**extra):
    """The environment a Binder user's processes see: no variables from this machine."""
    env = {
        "HOME": str(HOME),
        "PATH": f"{VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "NB_PYTHON_PREFIX": str(VENV),
        "KERNEL_PYTHON_PREFIX": str(VENV),
        "PYTHONUNBUFFERED": "1",
    }
    env.update(extra)
    return env


def log(message):
    print(f"[binder-sim] {message}", flush=True)


def build_venv():
    key = env_key()
    stamp = VENV / ".binder-sim-key"
    if stamp.exists() and stamp.read_text() == key:
        log(f"environment up to date ({VENV}, key {key})")
        return
    log(f"building {VENV} (binder/ changed or first run; a few minutes)")
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([PYTHON, "-m", "venv", str(VENV)], check=True)
    python = str(VENV / "bin" / "python")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-cache-dir", "--no-compile"]
    subprocess.run(pip + ["-r", str(BASE_ENV)], check=True)
    requirements = SIM / "requirements-local.txt"
    requirements.write_text(
        local_requirements((ROOT / "binder" / "requirements.txt").read_text()))
    subprocess.run(pip + ["-r", str(requirements)], check=True)
    # No bytecode yet: pip would compile every file of every package (41 s of CPU here,
    # mostly files of torch that no chapter loads); warm_up() compiles what the chapters'
    # kernels import, before the first chapter's clock starts (issue 25).
    stamp.write_text(key)


# What every chapter's kernel loads besides the chapters' own imports.
KERNEL_MODULES = ("ipykernel.kernelapp", "ipykernel.ipkernel", "nbclient", "nbformat",
                  "matplotlib_inline.backend_inline")


def notebook_imports():
    """Every module (dotted name) that a code cell of the students' notebooks imports."""
    import ast

    modules = set()
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            source = "\n".join(line for line in source.splitlines()
                               if not line.lstrip().startswith(("%", "!")))
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue  # the chapter's own run reports it
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module)
    return sorted(modules)


def warm_up():
    """Import, as a kernel would (from the notebooks' folder, in a Binder user's
    environment), every module the notebooks import and the kernel's own: Python writes the
    bytecode of each module it loads, so a chapter's time does not include compiling them,
    as on Binder, where pip compiled everything. A module that fails to import here is left
    to the chapter that imports it, which reports the error."""
    code = ("import importlib, sys\n"
            "for name in sys.argv[1:]:\n"
            "    try:\n"
            "        importlib.import_module(name)\n"
            "    except BaseException:\n"
            "        pass\n")
    modules = [*KERNEL_MODULES, *notebook_imports()]
    log(f"compiling what the chapters import ({len(modules)} modules)")
    subprocess.run([str(VENV / "bin" / "python"), "-c", code, *modules],
                   cwd=REPO / "notebooks", env=clean_env(MPLBACKEND="agg"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)


def copy_repository():
    """The files Binder gets: what git tracks or would track, as they are in the work tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    shutil.rmtree(REPO, ignore_errors=True)
    for name in filter(None, listed):
        source = ROOT / name
        if not source.is_file():  # deleted in the work tree but still in the index
            continue
        target = REPO / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def prepare():
    SIM.mkdir(exist_ok=True)
    build_venv()
    copy_repository()
    shutil.rmtree(HOME, ignore_errors=True)
    HOME.mkdir(parents=True)
    postbuild = REPO / "binder" / "postBuild"
    postbuild.chmod(0o755)
    log("running binder/postBuild (output in postBuild.log)")
    with open(SIM / "postBuild.log", "w") as output:
        done = subprocess.run([str(postbuild)], cwd=REPO, env=clean_env(),
                              stdout=output, stderr=subprocess.STDOUT)
    if done.returncode:
        raise RuntimeError("binder/postBuild failed:\n"
                           + (SIM / "postBuild.log").read_text()[-3000:])


def chapters():
    """The chapters' notebook names, in the book's order (from _toc.yml)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [Path(entry["file"]).name for part in toc.get("parts", [])
            for entry in part.get("chapters", [])]


def within_budget(result):
    """Whether a chapter's result passed and kept within the budgets (module docstring)."""
    return (result["ok"] and result.get("cpu_seconds", SECONDS_BUDGET) < SECONDS_BUDGET
            and result["seconds"] < WALL_CEILING_SECONDS
            and result["peak_mb"] < MEMORY_BUDGET_MB)


def run_chapters(names):
    """Execute the chapters' notebooks on one CPU, one after another, each in a fresh kernel
    (as a student opens a chapter and runs it all), from one runner process in the Binder
    environment: {chapter: result}, each logged as it ends. (One runner, not one per
    chapter: starting the runner and importing nbclient cost a second each time, issue 25.)"""
    results = {}
    notebooks = []
    for name in names:
        notebook = REPO / "notebooks" / f"{name}.ipynb"
        if notebook.exists():
            notebooks.append(str(notebook))
        else:
            results[name] = {"chapter": name, "ok": False, "seconds": 0.0,
                             "cpu_seconds": 0.0, "peak_mb": 0.0,
                             "error": f"postBuild wrote no {notebook.name}"}
    if not notebooks:
        return results
    command = ["taskset", "-c", "0", str(VENV / "bin" / "python"), str(Path(__file__)),
               "execute", *notebooks]
    with open(SIM / "runner.log", "w+") as errors:
        runner = subprocess.Popen(command, env=clean_env(), stdout=subprocess.PIPE,
                                  stderr=errors, text=True)
        timer = threading.Timer(20 * SECONDS_BUDGET * len(notebooks), runner.kill)
        timer.start()
        try:
            for line in runner.stdout:
                try:
                    result = json.loads(line)
                except json.JSONDecodeError:
                    continue
                results[result["chapter"]] = result
                log(f"{result['chapter']}: {'ok' if result['ok'] else 'FAILED'} "
                    f"{result['cpu_seconds']:.1f} s CPU ({result['seconds']:.1f} s wall), "
                    f"{result['peak_mb']:.0f} MB")
            runner.wait()
        finally:
            timer.cancel()
        errors.seek(0)
        tail = errors.read()[-2000:]
    for name in names:
        if name not in results:
            results[name] = {"chapter": name, "ok": False, "seconds": 0.0,
                             "cpu_seconds": 0.0, "peak_mb": 0.0,
                             "error": f"runner failed (exit {runner.returncode}): {tail}"}
    return results


def run_chapter_tests(marker):
    """`python -m pytest -m <marker>` as a student types it in a Binder terminal."""
    done = subprocess.run(
        ["taskset", "-c", "0", str(VENV / "bin" / "python"), "-m", "pytest", "-q",
         "-p", "no:cacheprovider", "-m", marker],
        cwd=REPO, env=clean_env(), capture_output=True, text=True, timeout=600)
    return {"marker": marker, "exit": done.returncode, "tail": done.stdout[-1500:]}


# What a chapter's run reads from the repository copy besides its own notebook: everything
# but the chapters' sources (chapters/*.md) and the other notebooks (issue 25: a change to one chapter runs
# that chapter again, and a change to the code, the data or the environment runs them all).
# A notebook whose code cells name the book's pages or scripts (a chapter's file, _toc.yml,
# scripts/) may read the other chapters: its key has them all.
_READS_PAGES = re.compile(r"\.md\b|_toc\.yml|chapters|scripts")


def _reads_pages(notebook):
    cells = json.loads(notebook.read_text()).get("cells", [])
    return any(_READS_PAGES.search("".join(cell.get("source", "")))
               for cell in cells if cell.get("cell_type") == "code")


def chapter_keys(names):
    """{chapter: key}: the content hash of everything a chapter's run on Binder depends on
    (its notebook, the repository copy but the other chapters, this script, the
    environment's key), computed on the copy postBuild left in .binder-sim/repo."""
    import passcache

    everything = passcache.files(REPO, root=REPO)

    def page(name):  # a chapter's source or its notebook (not a figure beside them)
        folder, _, file = name.partition("/")
        return "/" not in file and (folder, Path(file).suffix) in (
            ("chapters", ".md"), ("notebooks", ".ipynb"))

    pages = [(name, path) for name, path in everything if page(name)]
    rest = [(name, path) for name, path in everything if not page(name)]
    common = [rest, passcache.files(Path(__file__)), env_key(), PYTHON,
              f"budgets {SECONDS_BUDGET} s {MEMORY_BUDGET_MB} MB"]
    keys = {}
    for name in names:
        notebook = REPO / "notebooks" / f"{name}.ipynb"
        own = [] if not notebook.exists() else [(f"notebooks/{name}.ipynb", notebook)]
        wide = notebook.exists() and _reads_pages(notebook)
        keys[name] = passcache.digest(*common, own, pages if wide else [],
                                      f"chapter {name}")
    return keys


def run_all(names=None):
    """Set up, execute every chapter, write and return the report. One run at a time.

    A chapter that passed (within both budgets) under the same key is not executed again:
    its result, measured when it ran, is reported as it was, marked ``cached`` (the
    budgets are checked on it again). The ch04 tests in a Binder terminal likewise, keyed
    on the whole copy. PASS_CACHE=0 runs everything."""
    import passcache

    SIM.mkdir(exist_ok=True)
    with open(SIM / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        prepare()
        names = names or chapters()
        keys = chapter_keys(names)
        store = passcache.Store("binder-chapters")
        cached = {name: store.get(name, keys[name]) for name in names}
        cached = {name: result if result and "cpu_seconds" in result else None
                  for name, result in cached.items()}  # measured before CPU time was
        todo = [name for name in names if cached[name] is None]
        if todo:
            warm_up()
        ran = run_chapters(todo)
        results = []
        for name in names:
            if cached[name] is not None:
                result = {**cached[name], "cached": True}
                log(f"{name}: ok {result['cpu_seconds']:.1f} s CPU, "
                    f"{result['peak_mb']:.0f} MB (passed before, same inputs)")
            else:
                result = ran[name]
                if within_budget(result):
                    store.put(name, keys[name], result)
            results.append(result)
        reused = len(names) - len(todo)
        terminal_key = passcache.digest(passcache.files(REPO, root=REPO), env_key(),
                                        passcache.files(Path(__file__)), "pytest -m ch04")
        terminal = store.get("pytest -m ch04", terminal_key)
        if terminal is None:
            terminal = run_chapter_tests("ch04")
            if terminal["exit"] == 0:
                store.put("pytest -m ch04", terminal_key, terminal)
        else:
            terminal = {**terminal, "cached": True}
        store.save()
        passcache.note(f"{len(names) - reused}/{len(names)} chapters executed")
        report = {"cpu": "taskset -c 0", "seconds_budget": SECONDS_BUDGET,
                  "budget_clock": "CPU seconds of the kernel's tree and the runner",
                  "wall_ceiling_seconds": WALL_CEILING_SECONDS,
                  "memory_budget_mb": MEMORY_BUDGET_MB, "chapters": results,
                  "pytest": terminal}
        log(f"pytest -m ch04 in a Binder terminal: exit {report['pytest']['exit']}"
            + (" (passed before, same inputs)" if terminal.get("cached") else ""))
        REPORT.write_text(json.dumps(report, indent=2))
        return report


def table(report):
    rows = ["| Chapter | Result | CPU s | Wall s | Peak MB (kernel tree) |",
            "|---|---|---|---|---|"]
    for r in report["chapters"]:
        rows.append(f"| {r['chapter']} | {'pass' if r['ok'] else 'FAIL'}"
                    f"{' (cached)' if r.get('cached') else ''} | "
                    f"{r['cpu_seconds']:.1f} | {r['seconds']:.1f} | {r['peak_mb']:.0f} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------
# Inside the Binder environment: execute notebooks one after another (run_chapters calls it).

def tree_rss_mb(root_pid):
    """Resident memory of root_pid's descendants (not root_pid itself), in MB."""
    children, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, list(children.get(root_pid, []))
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total / 2**20


def execute(path):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    peak, stop = [0.0], threading.Event()

    def watch():
        while not stop.is_set():
            peak[0] = max(peak[0], tree_rss_mb(os.getpid()))
            stop.wait(0.05)

    # The previous chapter's kernel has left (it is shut down when its run ends): this
    # chapter's peak is its own kernel's.
    deadline = time.monotonic() + 10
    while tree_rss_mb(os.getpid()) > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    watcher = threading.Thread(target=watch, daemon=True)
    client = NotebookClient(notebook, timeout=10 * SECONDS_BUDGET, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    result = {"chapter": path.stem, "ok": True, "error": None}
    before = [resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                  resource.RUSAGE_CHILDREN)]
    start = time.perf_counter()
    watcher.start()
    try:
        client.execute()
    except CellExecutionError as error:
        result["ok"] = False
        result["error"] = str(error)[-3000:]
    except Exception as error:  # kernel died, timeout, ...
        result["ok"] = False
        result["error"] = f"{type(error).__name__}: {error}"[-3000:]
    if result["error"]:
        result["error"] = re.sub(r"\x1b\[[0-9;]*m", "", result["error"])
    result["seconds"] = round(time.perf_counter() - start, 2)
    stop.set()
    watcher.join()
    # nbclient shut the kernel down and waited for it: its CPU time, and that of the
    # processes it joined, is now in this process's children's.
    after = [resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                 resource.RUSAGE_CHILDREN)]
    result["cpu_seconds"] = round(sum(
        (a.ru_utime + a.ru_stime) - (b.ru_utime + b.ru_stime)
        for a, b in zip(after, before)), 2)
    result["peak_mb"] = round(peak[0], 1)
    print(json.dumps(result), flush=True)


def main(argv):
    if argv[:1] == ["execute"]:
        for path in argv[1:]:
            execute(path)
        return 0
    if argv[:1] == ["prepare"]:
        SIM.mkdir(exist_ok=True)
        with open(SIM / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            prepare()
        return 0
    report = run_all(argv or None)
    print(table(report))
    failed = [r for r in report["chapters"] if not within_budget(r)]
    for r in failed:
        print(f"\n{r['chapter']}: {r['error'] or 'over budget'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
