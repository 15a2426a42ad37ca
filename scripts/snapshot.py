#!/usr/bin/env python3
"""Write toygrad as it stands after a chapter (see tests/chapters.py for the markers).

    python scripts/snapshot.py 4 /tmp/ch04      # /tmp/ch04/toygrad, chapter 4's package
    python scripts/snapshot.py --all            # every chapter's, in _build/snapshots/

Each snapshot imports, and chapter N's tests pass on it:
``PYTHONPATH=/tmp/ch04 python -m pytest -m ch04 tests``.
"""

import argparse
import sys
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
    args = parser.parse_args(argv)
    if args.all:
        for folder in chapters.write_all_snapshots(ROOT):
            print(folder)
    elif args.chapter is not None and args.dest is not None:
        print(chapters.write_snapshot(args.chapter, args.dest))
    else:
        parser.error("give a chapter and a folder, or --all")


if __name__ == "__main__":
    main()
