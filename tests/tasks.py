"""The tasks: the parts of toygrad a student builds, chapter by chapter.

Each task is one function or method of ``code/toygrad``, marked in the source by a comment
line ``# Task N.K: title`` just above its ``def``. Its tests carry the marker ``taskN_K``
(``pytest -m task4_1``) and live in ``tests/test_tasks_chNN.py``. ``make student`` replaces
each task's body by a stub that raises ``NotImplementedError`` naming the task
(``scripts/student_edition.py``); ``make grade`` runs the task tests on a student's folder
and scores them (``scripts/grade.py``).

``depends`` lists the tasks whose code a task's tests also run: while one of those is a stub,
the task's tests fail too. ``tests/test_student_edition.py`` checks the list both ways, by
stubbing one task at a time.

A task's stub is its function as the task's own chapter has it (Task 4.1's ``execute`` takes
``root, grad, retain_graph``), and a later chapter that adds lines to it shows them
highlighted, for the student to add in turn. ``needs_lines`` names, for a task whose tests
run such a function, the function's task and the chapter whose lines they need: a student
whose engine stands as chapter 4 leaves it loses those tasks only, and the grader's reason
says which chapter's lines are missing.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    id: str  # "4.1"
    title: str
    path: str  # the file, under code/
    qualname: str  # the function or method in it
    section: str  # the chapter's section that builds it (a label)
    points: int = 10
    depends: tuple = ()
    needs_lines: tuple = ()  # (task id, chapter): that task's function, as the chapter leaves it

    @property
    def chapter(self):
        return int(self.id.split(".")[0])

    @property
    def marker(self):
        return "task" + self.id.replace(".", "_")

    def hint(self):
        """What the grader adds to the reason this task failed: the later chapters' lines
        its tests need in the functions of other tasks."""
        return "; ".join(
            f"this task runs {BY_ID[task].qualname} as chapter {chapter} leaves it: if "
            f"yours lacks the lines chapter {chapter} highlights in it, add them"
            for task, chapter in self.needs_lines)

    def message(self):
        """What the stub raises: which task, and where the book builds it."""
        return (f"Task {self.id} ({self.title}) is not done yet: see chapter "
                f"{self.chapter}, section {self.section}")


TASKS = [
    Task("2.1", "a numerical Jacobian by central differences",
         "toygrad/autograd/gradcheck.py", "numerical_jacobian", "ch02-gradcheck"),
    Task("2.2", "the Jacobian that backward computes, one row per backward",
         "toygrad/autograd/gradcheck.py", "analytical_jacobian", "ch02-gradcheck"),
    Task("3.1", "an operation records its node", "toygrad/scalar.py", "Value._binary",
         "ch03-operation"),
    Task("3.2", "the local derivatives of a product", "toygrad/scalar.py",
         "MulBackward0.apply", "ch03-operation"),
    Task("4.1", "the engine's loop: every node once, newest first",
         "toygrad/autograd/engine.py", "execute", "ch04-engine", depends=("3.2", "4.2")),
    Task("4.2", "a leaf accumulates its gradients", "toygrad/autograd/graph.py",
         "AccumulateGrad.apply", "ch04-overwrite"),
    Task("5.1", "broadcasting's gradient is a sum", "toygrad/ops/shapes.py", "unbroadcast",
         "ch05-broadcasting"),
    Task("5.2", "the two gradients of a matrix product", "toygrad/ops/linalg.py", "Mm.backward",
         "ch05-matmul"),
    Task("6.1", "a saved tensor refuses to be used after an in-place change",
         "toygrad/autograd/function.py", "SavedTensor.unpack", "ch06-ctx"),
    Task("6.2", "a gradient of the wrong shape is summed down, or refused",
         "toygrad/autograd/function.py", "_conform", "ch06-errors", depends=("5.1",)),
    Task("7.1", "one walker for both engines", "toygrad/viz.py", "walk", "ch07-walker"),
    Task("7.2", "a graph as comparable data", "toygrad/viz.py", "graph_structure",
         "ch07-walker", depends=("7.1",)),
    Task("8.1", "the fixed ScipyConv2d's backward", "toygrad/examples/scipy_conv.py",
         "conv2d_backward", "ch08-fixed"),
    Task("8.2", "convolution's backward for batches and channels",
         "toygrad/nn/conv.py", "conv2d_batched_backward", "ch08-batched"),
    Task("10.1", "the engine runs a node's hooks in PyTorch's order",
         "toygrad/autograd/hooks.py", "call_function", "ch10-order",
         depends=("4.2", "5.1", "6.1")),
    Task("10.2", "a non-leaf keeps its gradient when asked",
         "toygrad/autograd/hooks.py", "retain_grad", "ch10-retain-grad",
         depends=("4.1", "4.2", "5.1", "6.1", "10.1"), needs_lines=(("4.1", 10),)),
    Task("11.1", "checkpoint recomputes instead of saving",
         "toygrad/utils/checkpoint.py", "checkpoint", "ch11-checkpoint",
         depends=("6.1", "11.2")),
    Task("11.2", "a saved tensor goes through the pack hook",
         "toygrad/autograd/function.py", "SavedTensor.pack", "ch11-hooks"),
    Task("12.1", "autograd.grad: capture the gradients, run only what leads there",
         "toygrad/autograd/differentiate.py", "grad", "ch12-grad",
         depends=("4.1", "5.1", "6.1"), needs_lines=(("4.1", 12),)),
    Task("12.2", "the Jacobians of a function with several outputs, both ways",
         "toygrad/autograd/gradgradcheck.py", "jacobians", "ch12-gradgradcheck",
         depends=("4.1", "5.1", "6.1", "12.1"), needs_lines=(("4.1", 12),)),
    Task("13.1", "an operation's outputs get their tangents",
         "toygrad/autograd/forward_ad.py", "propagate", "ch13-propagate"),
    Task("13.2", "the Jacobian by forward mode",
         "toygrad/func.py", "jacfwd", "ch13-jacobians", depends=("13.1",)),
    Task("15.1", "SGD's update, with momentum and weight decay",
         "toygrad/optim.py", "sgd_update", "ch15-sgd"),
    Task("15.2", "Adam's step", "toygrad/optim.py", "Adam.step", "ch15-adam"),
    Task("16.1", "the gradient-averaging hook",
         "toygrad/nn/parallel.py", "DistributedDataParallel._average_gradient",
         "ch16-toygrad-ddp", depends=("4.1", "4.2", "5.1", "6.1", "6.2", "10.1"),
         needs_lines=(("4.1", 10),)),
]

BY_ID = {task.id: task for task in TASKS}
