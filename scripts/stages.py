"""The time each stage of ``make test`` took, printed as a table at the end (issue 25).

    stages.py start                      forget the stages of an earlier run
    stages.py run NAME [--cached-if CMD] -- COMMAND...
                                         run COMMAND, record NAME, its seconds and its outcome
    stages.py table                      print what ran (also after a failure or Ctrl-C)

``--cached-if CMD``: a shell condition, tested before COMMAND runs, that is true when the stage
starts from a cache (executions from jupyter-cache, PDFs newer than the site, the Binder
environment already built); the table says "yes" or "no" ("-": the stage has no cache).
The record is ``_build/stages.tsv``, one line a stage. Only the standard library: the table is
printed even when the set-up of ``.venv`` failed.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = Path(os.environ.get("STAGES_FILE", ROOT / "_build" / "stages.tsv"))


def start():
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text("")


def record(name, seconds, cached, outcome):
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    with RECORD.open("a") as out:
        out.write(f"{name}\t{seconds:.1f}\t{cached}\t{outcome}\n")


def run(argv):
    name, argv = argv[0], argv[1:]
    cached = "-"
    if argv[:1] == ["--cached-if"]:
        condition, argv = argv[1], argv[2:]
        cached = "yes" if subprocess.run(condition, shell=True).returncode == 0 else "no"
    if argv[:1] != ["--"] or len(argv) < 2:
        sys.exit("usage: stages.py run NAME [--cached-if CMD] -- COMMAND...")
    command = argv[1:]
    began = time.monotonic()
    child = subprocess.Popen(command)
    stopped = []

    def stop(signum, frame):
        stopped.append(signum)
        raise Interrupted

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    try:
        code = child.wait()
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
        record(name, time.monotonic() - began, cached,
               f"interrupted ({signal.Signals(stopped[0]).name})")
        return 128 + stopped[0]
    if code < 0:
        outcome = f"interrupted ({signal.Signals(-code).name})"
    else:
        outcome = "ok" if code == 0 else f"failed ({code})"
    record(name, time.monotonic() - began, cached, outcome)
    return 128 - code if code < 0 else code


class Interrupted(Exception):
    pass


def table():
    rows = [line.split("\t") for line in RECORD.read_text().splitlines()] if RECORD.exists() else []
    if not rows:
        print("stages: none ran")
        return
    width = max(len("stage"), *(len(row[0]) for row in rows))
    print()
    print(f"{'stage':<{width}}  {'seconds':>8}  cached  outcome")
    for name, seconds, cached, outcome in rows:
        print(f"{name:<{width}}  {float(seconds):>8.1f}  {cached:<6}  {outcome}")
    total = sum(float(row[1]) for row in rows)
    print(f"{'total':<{width}}  {total:>8.1f}")


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
