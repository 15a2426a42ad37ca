"""Chapter 16's line anchors into PyTorch's source point at what they name.

Every link of chapter 16 into the installed torch's commit carries a line anchor, and every
linked file is one the wheel ships (a header or a Python module), so the anchored lines are
read from the wheel. A header in the wheel has one line more at its top than in the
repository (the `#if !defined(TORCH_STABLE_ONLY) ...` guard added when the wheel is
packaged); the compiled library says so itself: with TORCH_SHOW_CPP_STACKTRACES=1, an
error raised in a header names the line it has in the repository, one less than in the
wheel's copy.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from wheel_source import repo_lines as wheel_lines

pytestmark = pytest.mark.ch16

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "chapters/ch16_beyond_one_thread.md"
SITE = Path(torch.__file__).resolve().parent.parent
COMMIT = torch.version.git_version
LINK = re.compile(r"\]\(https://github\.com/pytorch/pytorch/blob/" + COMMIT + r"/([^)]+)\)")
ANCHOR = re.compile(r"^([^#]+)#L(\d+)(?:-L(\d+))?$")

# What the first and the last anchored line hold, in the repository's numbering.
LINES = {
    ("torch/csrc/autograd/graph_task.h", 17): ("// GraphTask holds metadata",
                                                "struct GraphTask"),
    ("torch/csrc/autograd/graph_task.h", 27): ("// To protect reads/writes to not_ready_",
                                                "dependencies_;"),
    ("torch/csrc/autograd/graph_task.h", 142): ("// The value of worker_device",
                                                 "const int reentrant_depth_;"),
    ("torch/csrc/autograd/graph_task.h", 127): ("leaf_streams;", "caller_current_streams_;"),
    ("torch/csrc/autograd/graph_task.h", 176): ("// CPU threads are dedicated",
                                                 "cpu_ready_queue_;"),
    ("c10/core/AutogradState.h", 9): ("// Structure used to pack all the thread local",
                                      "struct C10_API AutogradState {"),
    ("torch/csrc/autograd/node.h", 637): ("// Note [Thread Safety on Autograd Node]",
                                          "std::mutex mutex_;"),
    ("torch/csrc/autograd/engine.h", 31): ("// Maximum reentrant backward depth",
                                           "static constexpr int MAX_DEPTH = 60;"),
    ("torch/csrc/autograd/engine.h", 229): ("virtual void thread_main(",
                                            "void add_thread_pool_task("),
    ("torch/csrc/autograd/engine.h", 224): ("// start device threads",
                                            "device_ready_queues_;"),
    ("torch/csrc/autograd/engine.h", 218): ("std::shared_ptr<ReadyQueue> ready_queue(",
                                            "at::Device device);"),
    ("torch/csrc/autograd/engine.h", 86): ("struct ReadyQueue {", "mutable std::mutex mutex_;"),
    ("torch/csrc/autograd/functions/accumulate_grad.h", 46): (
        "variable_list apply(variable_list&& grads) override;",
        "variable_list apply(variable_list&& grads) override;"),
    ("torch/csrc/autograd/functions/accumulate_grad.h", 61): (
        "tensor_post_acc_grad_hooks()", "}"),
    ("tools/autograd/gen_autograd_functions.py", 910): (
        "# lock the mutex when we release variables", 'thread_lock = ""'),
    ("torch/csrc/autograd/input_buffer.h", 50): ("// Accumulates the variable",
                                                 "Node* fn);"),
    ("torch/csrc/distributed/c10d/reducer.hpp", 74): ("void autograd_hook(size_t index);",
                                                       "void autograd_hook(size_t index);"),
    ("torch/csrc/distributed/c10d/reducer.hpp", 219): (
        "std::vector<c10::intrusive_ptr<torch::autograd::Node>>", "hooks_;"),
    ("torch/utils/checkpoint.py", 279): ("if not torch.autograd._is_checkpoint_valid():",
                                         ")"),
    ("torch/utils/checkpoint.py", 486): ("if use_reentrant is None:", "use_reentrant = True"),
    ("torch/autograd/grad_mode.py", 314): ("class set_multithreading_enabled(",
                                           "thread-local and will not affect"),
    ("torch/nn/parallel/distributed.py", 150): ("# Case 2: Compute default bucket",
                                                "bucket_size_limits = [sys.maxsize]"),
    ("torch/nn/parallel/distributed.py", 104): (
        "bucket_bytes_cap = int(effective_bucket_cap_mb * _MB_TO_BYTES)",
        "bucket_bytes_cap = int(effective_bucket_cap_mb * _MB_TO_BYTES)"),
    ("torch/nn/parallel/distributed.py", 1434): (
        "# Note: reverse list of buckets", "list(reversed(bucket_indices)),"),
    ("torch/nn/parallel/distributed.py", 1769): (
        "# Calling _rebuild_buckets before forward computation",
        "self._has_rebuilt_buckets = True"),
}


def anchored():
    return [ANCHOR.match(link) for link in LINK.findall(PAGE.read_text())]


def test_every_link_at_the_installed_commit_has_a_line_anchor():
    links = anchored()
    assert len(links) >= 15 and None not in links


@pytest.mark.parametrize("match", [m for m in anchored() if m],
                         ids=lambda m: m.group(0))
def test_anchor_starts_and_ends_at_what_it_names(match):
    path, first = match[1], int(match[2])
    last = int(match[3] or first)
    lines = wheel_lines(path)
    assert (path, first) in LINES, f"{path}#L{first}: add what it names"
    start, end = LINES[path, first]
    assert first <= last <= len(lines)
    assert start in lines[first - 1], lines[first - 1]
    assert end in lines[last - 1], lines[last - 1]


def test_a_header_s_lines_are_one_less_in_the_repository_than_in_the_wheel():
    code = ("import torch\n"
            "try:\n"
            "    torch._C._autograd._unsafe_set_version_counter(\n"
            "        (torch.ones(1),), (-1,))\n"
            "except RuntimeError as error:\n"
            "    print(error)\n")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
        env={**os.environ, "TORCH_SHOW_CPP_STACKTRACES": "1",
             "TORCH_DISABLE_ADDR2LINE": "1"})
    reported = int(re.search(r"raised from set_version at \S*/c10/core/TensorImpl\.h:(\d+)",
                             result.stdout)[1])
    wheel = (SITE / "torch/include/c10/core/TensorImpl.h").read_text().splitlines()
    assert "Cannot set a version_counter to a value below 0" in wheel[reported]
    assert wheel_lines("c10/core/TensorImpl.h")[reported - 1] == wheel[reported]
