"""The time each stage of ``make test`` took, printed as a table at the end (issue 25).

    stages.py start                      forget the stages of an earlier run
    stages.py run NAME [--cached-if CMD] [--pass-key CMD] -- COMMAND...
                                         run COMMAND, record NAME, its seconds and its outcome
    stages.py table                      print what ran (also after a failure or Ctrl-C)

``--cached-if CMD``: a shell condition, tested before COMMAND runs, that is true when the stage
starts from a cache (executions from jupyter-cache, PDFs newer than the site, the Binder
environment already built); the table says "yes" or "no" ("-": the stage has no cache).
``--pass-key CMD``: a shell command that prints a content hash of everything the stage reads
(scripts/passcache.py); when the stage passed before under the same key, COMMAND is not run
and the table says "passed before, same inputs"; a pass records the key as the stage left its
inputs (computed again after it ran: a build changes the site that a later key reads).
A stage can also say itself what came from its cache ("12/14 pages cached"): it appends a
line to the file named by ``$STAGE_NOTE`` (``passcache.note``), which the table shows.
The record is ``_build/stages.tsv``, one line a stage, with when the stage began (seconds
after ``start``) and the CPU seconds its processes used (user and system, of every process
that was waited for): stages can run side by side, so the table ends with both the sum of the
stages' seconds and the wall-clock time of the run, and the CPU column shows which stage keeps
the cores busy; the last line says how busy the whole machine was meanwhile (/proc/stat), which
counts what the column cannot (processes no stage waited for: browsers, sandboxes). Only the standard library: the table is
printed even when the set-up of ``.venv`` failed.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import passcache  # scripts/passcache.py (the standard library only, too)

ROOT = Path(__file__).resolve().parents[1]
RECORD = Path(os.environ.get("STAGES_FILE", ROOT / "_build" / "stages.tsv"))


STARTED = RECORD.with_suffix(".start")  # when `stages.py start` ran (time.time())


def start():
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text("")
    STARTED.write_text(f"{time.time()}\n{_machine_busy() or ''}\n")


def _machine_busy():
    """The seconds of CPU the whole machine has been busy since it booted (every process's,
    all cores; Linux's /proc/stat, less idle and iowait), or None elsewhere."""
    try:
        fields = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _busy_since_start():
    try:
        then = float(STARTED.read_text().split("\n")[1])
    except (OSError, ValueError, IndexError):
        return None
    now = _machine_busy()
    return None if now is None else now - then


def _since_start():
    try:
        return time.time() - float(STARTED.read_text().split("\n")[0])
    except (OSError, ValueError):
        return None


def record(name, seconds, cached, outcome, cpu=None):
    """One stage's row: its seconds, when it began counted from `start` (stages run side
    by side in `make test`), and its CPU seconds (None: not measured)."""
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    since = _since_start()
    began = "" if since is None else f"{max(0.0, since - seconds):.1f}"
    cpu = "" if cpu is None else f"{cpu:.1f}"
    with RECORD.open("a") as out:
        out.write(f"{name}\t{seconds:.1f}\t{cached}\t{outcome}\t{began}\t{cpu}\n")


def run(argv):
    name, argv = argv[0], argv[1:]
    cached = "-"
    if argv[:1] == ["--cached-if"]:
        condition, argv = argv[1], argv[2:]
        cached = "yes" if subprocess.run(condition, shell=True).returncode == 0 else "no"
    key = key_command = None
    began = time.monotonic()  # the key's computation counts in the stage's seconds
    if argv[:1] == ["--pass-key"]:
        key_command, argv = argv[1], argv[2:]
        key = _key(name, key_command)
    if argv[:1] != ["--"] or len(argv) < 2:
        sys.exit("usage: stages.py run NAME [--cached-if CMD] [--pass-key CMD] -- COMMAND...")
    command = argv[1:]
    store = passcache.Store("stages")
    if key is not None and store.get(name, key) is not None:
        print(f"{name}: passed before with the same inputs (key {key[:16]}), not run again")
        record(name, time.monotonic() - began, "passed before, same inputs", "ok")
        return 0
    with tempfile.NamedTemporaryFile("r", prefix="stage-note-", suffix=".txt") as notes:
        code = _run(name, command, cached, began, notes)
    if code == 0 and key is not None:
        # The key as the stage left its inputs (a build leaves the site the next run's key
        # reads): the next run with nothing changed finds it.
        after = _key(name, key_command)
        if after is not None:
            store.put(name, after)
            store.save()
    return code


def _key(name, command):
    """The key a --pass-key command prints, or None (then the stage runs)."""
    done = subprocess.run(command, shell=True, capture_output=True, text=True)
    key = done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None
    if key is None:  # no key, no cache: the stage runs
        print(f"{name}: no key ({done.stderr.strip()[-500:]}); running it", file=sys.stderr)
    return key


def _run(name, command, cached, began, notes):
    child = subprocess.Popen(command, env={**os.environ, "STAGE_NOTE": notes.name})
    stopped = []

    def stop(signum, frame):
        stopped.append(signum)
        raise Interrupted

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    try:
        # wait4: the child's rusage, which holds every process below it that was waited for
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = code = os.waitstatus_to_exitcode(status)
    except Interrupted:
        # Ctrl-C reaches the child too (one process group); another signal, maybe sent to
        # this process alone, is passed on. The child may clean up before its row is written.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if stopped[0] != signal.SIGINT:
            child.send_signal(stopped[0])
        try:
            code = child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            code = child.wait()
        record(name, time.monotonic() - began, _cached(cached, notes),
               f"interrupted ({signal.Signals(stopped[0]).name})")
        return 128 + stopped[0]
    if code < 0:
        outcome = f"interrupted ({signal.Signals(-code).name})"
    else:
        outcome = "ok" if code == 0 else f"failed ({code})"
    record(name, time.monotonic() - began, _cached(cached, notes), outcome,
           usage.ru_utime + usage.ru_stime)
    return 128 - code if code < 0 else code


def _cached(cached, notes):
    """What the stage said came from its cache, else what --cached-if found."""
    said = "; ".join(line.strip() for line in notes.read().splitlines() if line.strip())
    return said.replace("\t", " ") or cached


class Interrupted(Exception):
    pass


def table():
    rows = [(line.split("\t") + ["", ""])[:6]
            for line in RECORD.read_text().splitlines()] if RECORD.exists() else []
    if not rows:
        print("stages: none ran")
        return
    width = max(len("total (wall clock)"), *(len(row[0]) for row in rows))
    cached_width = max(len("cached"), *(len(row[2]) for row in rows))
    print()
    print(f"{'stage':<{width}}  {'began':>7}  {'seconds':>8}  {'cpu':>7}  "
          f"{'cached':<{cached_width}}  outcome")
    for name, seconds, cached, outcome, began, cpu in rows:
        began = f"{float(began):>7.1f}" if began else f"{'':>7}"
        cpu = f"{float(cpu):>7.1f}" if cpu else f"{'':>7}"
        print(f"{name:<{width}}  {began}  {float(seconds):>8.1f}  {cpu}  "
              f"{cached:<{cached_width}}  {outcome}")
    total = sum(float(row[1]) for row in rows)
    cpu = sum(float(row[5]) for row in rows if row[5])
    print(f"{'sum of the stages':<{width}}  {'':>7}  {total:>8.1f}  {cpu:>7.1f}")
    since = _since_start()
    if since is not None:  # stages that ran side by side count once here
        print(f"{'total (wall clock)':<{width}}  {'':>7}  {since:>8.1f}")
        busy = _busy_since_start()
        if busy is not None:  # what the cpu column cannot see: browsers, sandboxes, others
            print(f"machine busy: {busy:.0f} s of CPU in {since:.0f} s on {os.cpu_count()} "
                  f"cores ({busy / (since * os.cpu_count()):.0%} of what they could give)")


def main(argv):
    if argv[:1] == ["start"]:
        start()
    elif argv[:1] == ["run"] and len(argv) > 1:
        sys.exit(run(argv[1:]))
    elif argv[:1] == ["table"]:
        table()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
