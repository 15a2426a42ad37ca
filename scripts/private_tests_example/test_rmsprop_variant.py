"""The variant's check, kept private: what the probe must return, PyTorch's
RMSprop on the same numbers. The grader reads it in its own process; the
sandbox never sees this file."""

import torch

import probes_ch15
import probes_rmsprop as probes
from verdict import Check, close


def pytorch_s(kwargs, seed=0):
    return probes_ch15.trajectory(torch, "RMSprop", dict(kwargs), "float64",
                                  seed)


CHECKS = [
    Check("task15_2", "rmsprop_steps_as_pytorch_s", probes.rmsprop_toygrad,
          pytorch_s, close(atol=1e-12),
          [(dict(lr=0.01),), (dict(lr=0.01, momentum=0.9),)]),
]
