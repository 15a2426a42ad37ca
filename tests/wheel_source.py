"""PyTorch's source as the installed wheel ships it, numbered as in the repository.

The wheel ships PyTorch's Python modules and C++ headers, and torchgen's copy of
tools/autograd. A header in the wheel has one line more at its top than in the repository
(the `#if !defined(TORCH_STABLE_ONLY) ...` guard added when the wheel is packaged; the
compiled library's own error lines say so, see tests/test_ch16_source.py), so a link's line
anchor, which GitHub reads in the repository, is a wheel line number minus one.
"""

from pathlib import Path

import torch

SITE = Path(torch.__file__).resolve().parent.parent  # site-packages
GUARD = "#if !defined(TORCH_STABLE_ONLY)"


def wheel_file(path):
    """The installed copy of the repository's file `path`, or None."""
    if path.startswith("tools/autograd/"):
        return SITE / "torchgen" / "packaged" / "autograd" / path.removeprefix(
            "tools/autograd/")
    if path.endswith(".py"):
        return SITE / path
    if path.endswith((".h", ".hpp", ".cuh")):
        return SITE / "torch" / "include" / path.removeprefix("aten/src/")
    return None


def repo_lines(path):
    """The lines of the repository's file `path`, read from the wheel: lines[n - 1] is
    what GitHub shows at #Ln."""
    lines = wheel_file(path).read_text().splitlines()
    if path.endswith((".h", ".hpp", ".cuh")):
        assert lines[0].startswith(GUARD), f"{path}: the packaging's guard is gone"
        return lines[1:]
    return lines
