#!/usr/bin/env python3
"""Write toygrad as it stands after a chapter (see tests/chapters.py for the markers).

    python scripts/snapshot.py 4 /tmp/ch04      # /tmp/ch04/toygrad, chapter 4's package
    python scripts/snapshot.py --all            # every chapter's, in _build/snapshots/

Each snapshot imports, and chapter N's tests pass on it:
``PYTHONPATH=/tmp/ch04 python -m pytest -m ch04 tests``. ``make instructor-check`` checks
that for every chapter. ``--test`` (``make check-snapshots``) checks more, and takes a few
minutes: every test of chapters 2 to N on the snapshot after N, for every N (or the
chapters given), as a chapter's author does before adding the next:

    python scripts/snapshot.py --test [N ...]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import chapters  # noqa: E402  (tests/chapters.py)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", nargs="?", type=int)
    parser.add_argument("dest", nargs="?", type=Path)
    parser.add_argument("--all", action="store_true",
                        help="every chapter's snapshot, in _build/snapshots/chNN")
    parser.add_argument("--test", nargs="*", type=int, metavar="N",
                        help="run every test of chapters 2 to N on snapshot N")
    args = parser.parse_args(argv)
    if args.test is not None:
        return test_up_to(args.test or range(min(chapters.CHAPTER_FILES),
                                             chapters.LAST + 1))
    if args.all:
        for folder in chapters.write_all_snapshots(ROOT):
            print(folder)
    elif args.chapter is not None and args.dest is not None:
        print(chapters.write_snapshot(args.chapter, args.dest))
    else:
        parser.error("give a chapter and a folder, or --all")


def test_up_to(numbers):
    """Every test of chapters 2 to N on the snapshot after N, for each N; 1 if any
    failed."""
    failed = []
    with tempfile.TemporaryDirectory() as scratch:
        for number in numbers:
            folder = chapters.write_snapshot(number, Path(scratch) / f"ch{number:02d}")
            marks = " or ".join(f"ch{n:02d}" for n in range(2, number + 1))
            start = time.monotonic()
            result = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                 "-m", f"({marks}) and not instructor and not site and not binder and not pdf",
                 "tests"], cwd=ROOT, capture_output=True, text=True,
                env={**os.environ, "PYTHONPATH": str(folder), "OMP_NUM_THREADS": "1"})
            last = (result.stdout.strip().splitlines() or ["(no output)"])[-1]
            print(f"snapshot ch{number:02d}: {last} ({time.monotonic() - start:.0f} s)",
                  flush=True)
            if result.returncode:
                failed.append(number)
                print(result.stdout[-3000:], result.stderr[-2000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
