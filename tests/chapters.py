"""Which files of ``code/toygrad`` each chapter adds.

A package cut after chapter N holds the files of chapters 2 to N; it imports, and every
test of chapters up to N passes on it (tests/test_student_edition.py proves it). A file
belongs to the first chapter whose code needs it: the tensor operations of chapter 5 are
``Function``s, so ``autograd/function.py`` comes with chapter 5, and chapter 6 explains it.
"""

CHAPTER_FILES = {
    2: ["__init__.py", "autograd/__init__.py", "autograd/gradcheck.py"],
    3: ["scalar.py", "autograd/graph.py"],
    4: ["autograd/engine.py"],
    5: ["tensor.py", "ops.py", "dtypes.py", "views.py", "autograd/function.py",
        "autograd/grad_mode.py", "nn/__init__.py", "nn/functional.py", "optim.py"],
    6: [],
    7: ["viz.py"],
    8: ["nn/conv.py", "examples/__init__.py", "examples/scipy_conv.py",
        "examples/scipy_conv_torch.py"],
    10: ["utils/__init__.py", "utils/hooks.py", "autograd/hooks.py"],
    11: ["autograd/anomaly_mode.py", "utils/checkpoint.py"],
    12: ["autograd/differentiate.py", "autograd/gradgradcheck.py"],
    13: ["autograd/forward_ad.py", "func.py"],
    14: ["examples/scipy_conv_op.py"],
    15: ["nn/layers.py"],
}
LAST = max(CHAPTER_FILES)


def files_up_to(chapter):
    """The package's files in a copy cut after ``chapter``."""
    return [path for number, paths in CHAPTER_FILES.items() if number <= chapter
            for path in paths]
