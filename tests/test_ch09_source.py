"""Chapter 9's line anchors into PyTorch's source point at what they name.

Every link of chapter 9 into a file of the installed torch's commit carries a
line anchor (#L10 or #L10-L20). For a file the wheel ships (a header, a Python
module, the copy of tools/autograd packaged with torchgen) the anchored lines
are read from the wheel (numbered as in the repository: tests/wheel_source.py)
and must start with the thing the link names.
python_function.cpp is not shipped; its anchor is checked against the line
numbers the compiled library itself reports: with TORCH_SHOW_CPP_STACKTRACES=1
an error raised by a TORCH_CHECK names its file and line, and two checks of
THPFunction_apply must fall inside the anchored function and after the quoted
excerpt's last step. engine.cpp at that commit could not be read while the
chapter was written, so its excerpt of Engine::evaluate_function is quoted from
an older commit; the lines the chapter gives at the installed commit are those
the library reports for the checks it can be made to fail, and the estimated
range of the function is the quoted range moved by the NaN check's offset.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from wheel_source import repo_lines, wheel_file

pytestmark = pytest.mark.ch09

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "chapters/ch09_inside_pytorch.md"
SITE = Path(torch.__file__).resolve().parent.parent
COMMIT = torch.version.git_version
ANCHORED = re.compile(
    r"\]\(https://github\.com/pytorch/pytorch/blob/" + COMMIT
    + r"/([^)#]+)#L(\d+)(?:-L(\d+))?\)")

# What the first anchored line of each link must hold.
FIRST_LINE = {
    ("torch/autograd/function.py", 609): "@classmethod",
    ("torch/autograd/graph.py", 966): "def _engine_run_backward(",
    ("torch/autograd/grad_mode.py", 22): "class no_grad(",
    ("torch/csrc/autograd/engine.h", 40): "TORCH_API void validate_outputs(",
    ("torch/csrc/autograd/engine.h", 86): "struct ReadyQueue {",
    ("torch/csrc/autograd/engine.h", 90): "struct CompareNodeTaskTime {",
    ("torch/csrc/autograd/engine.h", 150): "// Given a list of (Node, input number)",
    ("torch/csrc/autograd/engine.h", 178): "// We pass cpu_ready_queue to evaluate_function",
    ("torch/csrc/autograd/graph_task.h", 30): "not_ready_;",
    ("torch/csrc/autograd/graph_task.h", 31): "dependencies_;",
    ("torch/csrc/autograd/input_buffer.h", 39): "struct InputBuffer {",
    ("torch/csrc/autograd/input_metadata.h", 75): "at::Tensor reduce_grad(",
    ("torch/csrc/autograd/saved_variable.h", 22): "class TORCH_API SavedVariable {",
    ("torch/csrc/autograd/saved_variable.h", 47): "Variable unpack(",
    ("torch/csrc/autograd/custom_function.h", 19): "_wrap_outputs(",
    ("torch/csrc/autograd/python_engine.h", 12): "struct PythonEngine : public Engine {",
    ("torch/csrc/autograd/functions/accumulate_grad.h", 180): "template <typename T>",
    ("aten/src/ATen/SequenceNumber.h", 8): "namespace at::sequence_number {",
    ("c10/core/GradMode.h", 8): "struct C10_API GradMode {",
    ("torch/csrc/autograd/anomaly_mode.h", 16): "static bool should_check_nan() {",
    ("tools/autograd/derivatives.yaml", 1231): "- name: mul.Tensor(",
    ("tools/autograd/gen_autograd_functions.py", 54): "FUNCTION_DECLARATION = CodeTemplate(",
    ("tools/autograd/gen_autograd_functions.py", 98): "FUNCTION_DEFINITION = CodeTemplate(",
    ("tools/autograd/gen_variable_type.py", 610): "SETUP_ANY_REQUIRES_GRAD = CodeTemplate(",
    ("tools/autograd/gen_inplace_or_view_type.py", 527): "def emit_inplace_or_view_body(",
}
# ... and what the last one holds, where the range ends a definition.
LAST_LINE = {
    ("torch/autograd/function.py", 635): "return custom_function_call(",
    ("torch/csrc/autograd/anomaly_mode.h", 18): "}",
    ("torch/csrc/autograd/engine.h", 105): "};",
    ("torch/csrc/autograd/engine.h", 113): "heap_;",
    ("torch/csrc/autograd/engine.h", 158): "const edge_list& outputs = {});",
    ("torch/csrc/autograd/engine.h", 184): "cpu_ready_queue);",
    ("torch/csrc/autograd/input_buffer.h", 86): "};",
    ("torch/csrc/autograd/saved_variable.h", 139): "};",
    ("torch/csrc/autograd/custom_function.h", 28): "bool pure_view);",
    ("torch/csrc/autograd/python_engine.h", 29): "const edge_list& outputs = {}) override;",
    ("torch/csrc/autograd/functions/accumulate_grad.h", 300): "}",
    ("tools/autograd/gen_autograd_functions.py", 192): ")",
    ("tools/autograd/gen_variable_type.py", 638): ")",
}


def anchored_links():
    """(path, first line, last line) of every anchored link of chapter 9."""
    return [(path, int(first), int(last or first))
            for path, first, last in ANCHORED.findall(PAGE.read_text())]


def test_every_link_at_the_installed_commit_has_a_line_anchor():
    text = PAGE.read_text()
    pinned = re.findall(
        r"\]\(https://github\.com/pytorch/pytorch/blob/" + COMMIT
        + r"/([^)]+)\)", text)
    assert pinned and [link for link in pinned if "#L" not in link] == []


@pytest.mark.parametrize(
    "link", [link for link in anchored_links() if wheel_file(link[0])],
    ids=lambda link: f"{link[0]}#L{link[1]}-L{link[2]}")
def test_anchor_starts_at_what_it_names(link):
    path, first, last = link
    lines = repo_lines(path)
    assert first <= last <= len(lines)
    assert (path, first) in FIRST_LINE, f"{path}#L{first}: add what it names"
    assert FIRST_LINE[path, first] in lines[first - 1], lines[first - 1]
    if (path, last) in LAST_LINE and last != first:
        assert LAST_LINE[path, last] in lines[last - 1], lines[last - 1]


def printed_with_traces(code):
    """What a script prints, its errors carrying their C++ traces."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env={**os.environ, "TORCH_SHOW_CPP_STACKTRACES": "1",
             "TORCH_DISABLE_ADDR2LINE": "1"}, timeout=120).stdout


def raised_from(code, source, printed=None):
    """(function, line) in `source` of each error a script prints."""
    printed = printed_with_traces(code) if printed is None else printed
    return [(function, int(line)) for function, line in re.findall(
        r"Exception raised from (\w+) at \S*/" + re.escape(source)
        + r":(\d+)", printed)]


def reported_lines(code):
    """The python_function.cpp lines a script's errors were raised from."""
    return [line for function, line in raised_from(
        code, "torch/csrc/autograd/python_function.cpp")
        if function == "THPFunction_apply"]


FUNCTION_WITH_A_BAD_FLAG = """
import torch

for flag in ("clear_saved_tensors_on_access", "boxed_grads_call"):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    setattr(Bad, flag, 1)  # an int, where THPFunction_apply checks for a bool
    try:
        Bad.apply(torch.ones(2, requires_grad=True))
    except RuntimeError as error:
        print(error)
"""


def test_the_library_places_its_checks_inside_the_anchored_function():
    anchors = [(first, last) for path, first, last in anchored_links()
               if path == "torch/csrc/autograd/python_function.cpp"]
    function = max(anchors, key=lambda anchor: anchor[1] - anchor[0])
    excerpt = min(anchors, key=lambda anchor: anchor[1] - anchor[0])
    checks = reported_lines(FUNCTION_WITH_A_BAD_FLAG)
    assert len(checks) == 2, checks
    # The excerpt's steps 1 to 3 come before the checks, its 4 and 5 after.
    text = PAGE.read_text()
    quoted = text[text.index("```cpp\nPyObject* THPFunction_apply("):]
    quoted = quoted[:quoted.index("\n```\n")]
    assert "set_next_edges" in quoted and "return process_outputs(" in quoted
    assert function[0] == excerpt[0] < min(checks) <= max(checks) < excerpt[1]
    assert excerpt[1] < function[1]


ENGINE = "torch/csrc/autograd/engine.cpp"
# The older commit chapter 9 quotes engine.cpp from (test_claims.HISTORICAL).
QUOTED = "e1253a956f6866469eafd88cc3bfb4627f4b1efc"

ENGINE_CHECKS_THAT_FAIL = """
import warnings
import torch


def backward_with(x, gradient, anomaly=False):
    class Returns(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return gradient(g)

    try:
        with torch.autograd.set_detect_anomaly(anomaly):
            Returns.apply(x).sum().abs().backward()
    except RuntimeError as error:
        print(error)


warnings.simplefilter("ignore")
real = torch.ones(2, 2, requires_grad=True)
complex_input = torch.ones(2, 2, dtype=torch.complex64, requires_grad=True)
backward_with(real, lambda g: g * float("nan"), anomaly=True)       # NaN
backward_with(complex_input, lambda g: torch.ones(2, 2, dtype=torch.long))
backward_with(real, lambda g: g.to_sparse_csr())                    # layout
backward_with(real, lambda g: torch.ones(2, 2, device="meta"))      # device
"""


def engine_anchors(commit):
    """(first, last) of each of chapter 9's links into engine.cpp at commit."""
    links = re.findall(
        r"\]\(https://github\.com/pytorch/pytorch/blob/" + commit + "/"
        + re.escape(ENGINE) + r"#L(\d+)(?:-L(\d+))?\)", PAGE.read_text())
    return [(int(first), int(last or first)) for first, last in links]


def test_the_library_places_the_engine_checks_where_the_chapter_says():
    printed = printed_with_traces(ENGINE_CHECKS_THAT_FAIL)
    checks = raised_from(None, ENGINE, printed)
    assert [function for function, _ in checks] == [
        "evaluate_function"] + ["validate_outputs_impl"] * 3, checks
    # The NaN check fails through TORCH_CHECK, as the chapter says.
    nan_trace = printed.split("Exception raised from ")[1]
    assert "c10::detail::torchCheckFail" in nan_trace
    assert "returned nan values in its 0th output" in printed
    nan_line = checks[0][1]
    validate_lines = [line for _, line in checks[1:]]
    text = PAGE.read_text()
    assert "`validate_outputs_impl`" in text

    # At the quoted commit: the excerpt's range, and its NaN message line.
    quoted = engine_anchors(QUOTED)
    function = max(quoted, key=lambda anchor: anchor[1] - anchor[0])
    message = min(quoted, key=lambda anchor: anchor[1] - anchor[0])
    assert message[0] == message[1] and function[0] < message[0] < function[1]
    excerpt = text[text.index("```cpp\nvoid Engine::evaluate_function("):]
    excerpt = excerpt[:excerpt.index("\n```\n")]
    assert "returned nan values in its" in excerpt
    offset = nan_line - message[0]
    assert f"\n{offset} lines below the quoted message line" in text

    # At the installed commit: the NaN check's own line, the quoted range
    # moved by its offset, and the range of validate_outputs' checks.
    installed = engine_anchors(COMMIT)
    assert (nan_line, nan_line) in installed
    assert (function[0] + offset, function[1] + offset) in installed
    assert (min(validate_lines), max(validate_lines)) in installed
    estimated = (function[0] + offset, function[1] + offset)
    assert estimated[0] < nan_line < estimated[1]
    assert all(line < estimated[0] for line in validate_lines)
    dtype, layout, device = validate_lines
    assert f"[lines {dtype}, {layout} and {device}]" in text
    below = re.search(r"(\d+) and (\d+) lines below the copy's dtype and "
                      r"device checks \((\d+) and (\d+)\)",
                      text.replace("\n", " "))
    assert below, "the offsets of validate_outputs' checks"
    moved_dtype, moved_device, copy_dtype, copy_device = map(
        int, below.groups())
    assert dtype - copy_dtype == moved_dtype
    assert device - copy_device == moved_device


PYTHON_LIBRARY = SITE / "torch" / "lib" / "libtorch_python.so"


def symbols(library):
    """Every symbol of a library, demangled, as `nm -C` prints them."""
    nm = shutil.which("nm")
    assert nm, "nm (binutils) is needed to read the library's symbols"
    return subprocess.run([nm, "-C", str(library)], capture_output=True,
                          text=True, check=True, timeout=300).stdout


def test_the_library_has_the_excerpt_s_signature_but_a_one_argument_unpack_input():
    # The THPFunction_apply excerpt is quoted from an older copy; the library
    # confirms the function's signature and contradicts the copy's
    # unpack_input(inputs, fill_record_function_inputs): 2.13 has one argument.
    listed = symbols(PYTHON_LIBRARY)
    apply = re.findall(r"\bTHPFunction_apply\(([^)]*)\)", listed)
    unpack = set(re.findall(r"\(anonymous namespace\)::unpack_input\(([^)]*)\)",
                            listed))
    assert apply and set(apply) == {"_object*, _object*, _object*"}
    assert unpack == {"_object*"}
    text = PAGE.read_text()
    excerpt = text[text.index("```cpp\nPyObject* THPFunction_apply("):]
    excerpt = excerpt[:excerpt.index("\n```\n")]
    line = next(line for line in excerpt.splitlines() if "unpack_input(" in line)
    assert "fill_record_function_inputs" in line and "2.13: one argument" in line
    assert "only `unpack_input(_object*)`" in " ".join(text.split())


def test_thpfunction_apply_calls_unpack_input_before_making_its_record_function():
    listed = symbols(PYTHON_LIBRARY)
    address = re.search(
        r"^([0-9a-f]+) t \(anonymous namespace\)::THPFunction_apply\(_object\*, "
        r"_object\*, _object\*\)$", listed, flags=re.M)
    assert address, "THPFunction_apply's address"
    start = int(address.group(1), 16)
    code = subprocess.run(
        ["objdump", "-d", "-C", "--no-show-raw-insn",
         f"--start-address={start:#x}", f"--stop-address={start + 0x200:#x}",
         str(PYTHON_LIBRARY)], capture_output=True, text=True, check=True,
        timeout=300).stdout
    called = re.findall(r"call\s+\S+ <([^>]+)>", code)
    peek = called.index("at::sequence_number::peek()@plt")
    assert called[peek + 1] == "(anonymous namespace)::unpack_input(_object*)"
    assert called[peek + 2].startswith("at::RecordFunction::RecordFunction(")
