"""Write every chapter's snapshot of toygrad before Sphinx reads the pages.

Chapter N's listings are read from ``_build/snapshots/chNN/toygrad`` (toygrad as chapter
N leaves it; see tests/chapters.py), so a page never shows a line of a later chapter.
A file whose text is unchanged is not rewritten: Sphinx rereads a page whose included
file changed, and only then.
"""

import sys
from pathlib import Path


def write_snapshots(app):
    root = Path(app.srcdir)
    sys.path.insert(0, str(root / "tests"))
    try:
        import chapters
    finally:
        sys.path.remove(str(root / "tests"))
    chapters.write_all_snapshots(root)


def setup(app):
    app.connect("builder-inited", write_snapshots)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
