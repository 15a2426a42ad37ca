"""How long a chapter takes, from a stated model: the figures of each chapter's "Time to
learn" line, the intro's total and the instructors' page.

    reading    the prose at READING_WORDS words a minute, plus the code a reader reads
               (visible code cells and listings, as the chapter's snapshot has them) at
               CODE_LINES lines a minute; the exercises' solutions and the optional notes
               in collapsed dropdowns are not counted;
    exercises  EXERCISE_MINUTES each;
    tasks      TASK_MINUTES each, plus TASK_LINE_MINUTES per non-blank line of the
               function the student writes (as the task's chapter has it).

Each figure is rounded up to five minutes. ``python scripts/study_time.py --write`` writes
the figures into the chapters' "Time to learn" lines; ``tests/test_book.py`` checks that
they, the intro and the instructors' page agree with this model.
"""

import math
import re
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import chapters  # noqa: E402
from tasks import TASKS  # noqa: E402

READING_WORDS = 150  # words of technical prose a minute
CODE_LINES = 10  # lines of code read (and run) a minute
EXERCISE_MINUTES = 10
TASK_MINUTES = 20  # a task's reading, running its tests, fixing
TASK_LINE_MINUTES = 1  # and a minute for each line of its function

LINE = re.compile(r"^\*\*Time to learn:\*\* about .*$", flags=re.M)
CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", flags=re.S)
INCLUDE = re.compile(r"```\{literalinclude\} \S*_build/snapshots/ch(\d\d)/toygrad/(\S+)\n"
                     r"((?::[^\n]*\n)*)")
HIDDEN = ("remove-input", "remove-cell", "hide-input", "hide-cell")


OPTIONAL = re.compile(r"^````\{solution-start\}.*?^````\{solution-end\}\n````$"
                      r"|^:::\{dropdown\}.*?^:::$", flags=re.M | re.S)


def main_path(text):
    """The page without what a first reading skips: solutions and dropdowns."""
    return OPTIONAL.sub("", text)


def up_to_five(minutes):
    return 5 * math.ceil(minutes / 5)


def prose_words(text):
    body = text.split("---\n", 2)[2]  # without the front matter
    prose = re.sub(r"```.*?```", "", body, flags=re.S)
    return len(re.findall(r"\w+", prose))


def visible_cell_lines(text):
    count = 0
    for cell in CELL.findall(text):
        options = cell.split("\n---\n", 1)[0] if cell.startswith("---\n") else ""
        if any(tag in options for tag in HIDDEN):
            continue
        source = cell.split("\n---\n", 1)[1] if options else cell
        count += sum(1 for line in source.splitlines() if line.strip())
    return count


_snapshots = {}


def _snapshot_file(chapter, path):
    """A file as chapter ``chapter`` leaves it, written to a temporary folder once."""
    if (chapter, path) not in _snapshots:
        text = chapters.source_after((chapters.PACKAGE / path).read_text(), chapter, path)
        target = Path(tempfile.mkdtemp()) / Path(path).name
        target.write_text(text)
        _snapshots[chapter, path] = target
    return _snapshots[chapter, path]


def listing_lines(text):
    from sphinx.directives.code import LiteralIncludeReader

    class Config:
        source_encoding = "utf-8"

    count = 0
    for chapter, path, option_text in INCLUDE.findall(text):
        options = {}
        for line in option_text.splitlines():
            key, _, value = line[1:].partition(":")
            value = value.strip()
            options[key.strip()] = yaml.safe_load(value) if value else None
        options.pop("caption", None)
        listing, _ = LiteralIncludeReader(str(_snapshot_file(int(chapter), path)), options,
                                          Config()).read()
        count += sum(1 for line in listing.splitlines() if line.strip())
    return count


def task_lines(task):
    source = _snapshot_file(task.chapter, task.path.removeprefix("toygrad/"))
    return listing_lines_of(source, task.qualname)


def listing_lines_of(path, qualname):
    from sphinx.directives.code import LiteralIncludeReader

    class Config:
        source_encoding = "utf-8"

    listing, _ = LiteralIncludeReader(str(path), {"pyobject": qualname}, Config()).read()
    return sum(1 for line in listing.splitlines() if line.strip())


def chapter_times(path):
    """(reading, exercises, tasks) minutes for the chapter page ``path``, and the
    numbers of exercises and tasks."""
    text = Path(path).read_text()
    number = int(Path(path).name[2:4])
    read = main_path(text)
    reading = up_to_five(prose_words(read) / READING_WORDS
                         + (visible_cell_lines(read) + listing_lines(read)) / CODE_LINES)
    exercises = len(re.findall(r"^:::\{exercise\}", text, flags=re.M))
    own = [task for task in TASKS if task.chapter == number]
    doing = up_to_five(EXERCISE_MINUTES * exercises)
    building = up_to_five(sum(TASK_MINUTES + TASK_LINE_MINUTES * task_lines(task)
                              for task in own))
    return reading, doing, building, exercises, len(own)


def plural(count, word):
    return f"{count} {word}" + ("" if count == 1 else "s")


def time_line(path):
    reading, doing, building, exercises, tasks = chapter_times(path)
    total = reading + doing + building
    line = (f"**Time to learn:** about {total} minutes: {reading} to read, {doing} for "
            f"the {plural(exercises, 'exercise')}")
    if tasks:
        return line + f", {building} for the {plural(tasks, 'task')}."
    return line + " (no tasks)."


def chapter_pages():
    return sorted((ROOT / "chapters").glob("ch[0-9][0-9]_*.md"))


def total_minutes():
    return sum(sum(chapter_times(path)[:3]) for path in chapter_pages())


def write():
    for path in chapter_pages():
        text = path.read_text()
        new = LINE.sub(time_line(path), text, count=1)
        if new != text:
            path.write_text(new)
            print(f"{path.name}: {time_line(path)}")
    hours = round(total_minutes() / 60)
    intro = ROOT / "intro.md"
    text = intro.read_text()
    new = re.sub(r"about \d+ hours", f"about {hours} hours", text, count=1)
    if new != text:
        intro.write_text(new)
        print(f"intro.md: about {hours} hours")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        for path in chapter_pages():
            print(f"{path.name:28} {time_line(path)}")
        print(f"total: {total_minutes()} minutes")
