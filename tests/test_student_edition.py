"""What an instructor relies on: chapters that stand alone, a student edition, a grader.

Slow (each check runs pytest on a copy of the code in a fresh process), so selected with
``-m instructor`` (``make instructor-check``, part of ``make test``).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chapters import LAST, files_up_to

pytestmark = pytest.mark.instructor

ROOT = Path(__file__).resolve().parents[1]


def run(args, code, cwd=ROOT):
    """Run Python with ``code`` (a folder holding a ``toygrad``) first on its path."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True)


def cut(chapter, folder):
    """A copy of the package holding only the files of chapters 2 to ``chapter``."""
    code = folder / "code"
    for name in files_up_to(chapter):
        target = code / "toygrad" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "code" / "toygrad" / name, target)
    return code


@pytest.mark.parametrize("chapter", range(2, LAST + 1))
def test_a_package_cut_after_a_chapter_imports_and_passes_that_chapter_s_tests(
        chapter, tmp_path):
    code = cut(chapter, tmp_path)
    where = run(["-c", "import toygrad; print(toygrad.__file__)"], code)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()) == code / "toygrad" / "__init__.py"
    result = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", f"ch{chapter:02d}",
                  "tests"], code)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1]
