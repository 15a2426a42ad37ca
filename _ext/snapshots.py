"""Write every chapter's snapshot of toygrad before Sphinx reads the pages, and show in
each listing what its chapter adds.

Chapter N's listings are read from ``_build/snapshots/chNN/toygrad`` (toygrad as chapter
N leaves it; see tests/chapters.py), so a page never shows a line of a later chapter.
A file whose text is unchanged is not rewritten: Sphinx rereads a page whose included
file changed, and only then.

A listing of chapter N's snapshot that chapter N-1's snapshot also has, in an earlier
form, shows the lines chapter N added highlighted, with a caption that says so: the
reader sees where in the code the new lines go. (A listing that is new as a whole, or
unchanged, is shown plain; ``:emphasize-lines:`` given by hand wins.)
"""

import difflib
import re
import sys
from pathlib import Path

from sphinx.directives.code import LiteralInclude, LiteralIncludeReader

SNAPSHOT = re.compile(r"_build/snapshots/ch(\d\d)/toygrad/(.+)$")


def write_snapshots(app):
    root = Path(app.srcdir)
    sys.path.insert(0, str(root / "tests"))
    try:
        import chapters
    finally:
        sys.path.remove(str(root / "tests"))
    chapters.write_all_snapshots(root)
    chapters.write_task_stubs(root)  # _build/stubs/chNN: what a task's student starts from


def added_lines(old, new):
    """The 1-based numbers of the non-blank lines of ``new`` that ``old`` does not
    have, as a diff of the two lists of lines finds them."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [j + 1 for tag, _, _, j1, j2 in matcher.get_opcodes()
            if tag in ("insert", "replace") for j in range(j1, j2)
            if new[j].strip()]


class SnapshotInclude(LiteralInclude):
    """``literalinclude``; for a listing of a chapter's snapshot, the lines the chapter
    added to the same listing of the chapter before are emphasized."""

    def run(self):
        found = SNAPSHOT.search(self.arguments[0].replace("\\", "/"))
        if found and "emphasize-lines" not in self.options:
            chapter, name = int(found.group(1)), found.group(2)
            lines = self.added(chapter)
            if lines:
                self.options["emphasize-lines"] = ",".join(map(str, lines))
                self.options.setdefault(
                    "caption", f"toygrad/{name} as chapter {chapter} leaves it "
                    f"(highlighted: the lines chapter {chapter} adds)")
        return super().run()

    def added(self, chapter):
        env = self.state.document.settings.env
        _, path = env.relfn2path(self.arguments[0])
        head, _, tail = path.rpartition(f"/ch{chapter:02}/toygrad/")
        earlier = Path(f"{head}/ch{chapter - 1:02}/toygrad/{tail}")
        if chapter <= 2 or not earlier.is_file():
            return []
        try:
            new, _ = LiteralIncludeReader(path, self.options, env.config).read()
            old, _ = LiteralIncludeReader(str(earlier), self.options,
                                          env.config).read()
        except (OSError, ValueError):  # not in the chapter before: all new
            return []
        new_lines = new.splitlines()
        lines = added_lines(old.splitlines(), new_lines)
        if len(lines) == sum(1 for line in new_lines if line.strip()):
            return []  # new as a whole: nothing to point at
        return lines


def setup(app):
    app.connect("builder-inited", write_snapshots)
    app.add_directive("literalinclude", SnapshotInclude, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
