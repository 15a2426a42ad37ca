"""A variant of Task 15.2, kept private: an RMSprop optimizer in place of
Adam. This module holds its probe, which the grader copies into the sandbox
and runs on the student's code (it may use the book's probes, as here)."""

from probes_ch15 import trajectory_toygrad


def rmsprop_toygrad(kwargs, seed=0):
    """The student's optim.RMSprop: the parameters after each of 20 steps."""
    return trajectory_toygrad("RMSprop", kwargs, "float64", seed)
