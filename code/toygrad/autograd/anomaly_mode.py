"""Anomaly mode: find the forward operation behind a failing backward.

With it on, as in PyTorch (``torch/autograd/anomaly_mode.py``, and
``AnomalyMetadata`` in ``torch/csrc/autograd``):

- every node recorded remembers the Python traceback of the forward call that
  created it (and, during a backward with ``create_graph``, the node whose
  backward created it: its *parent*);
- when a node's backward raises, the engine warns with that traceback before
  the error goes on;
- with ``check_nan``, a backward that returns NaN raises, naming the node.
"""

import os
import traceback
import warnings

import numpy as np

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class _AnomalyMode:
    """Global, not per thread, as PyTorch's ``AnomalyMode`` is."""

    enabled = False
    check_nan = True
    current_node = None  # the node whose backward runs now, under anomaly mode


state = _AnomalyMode()


def is_anomaly_enabled():
    return state.enabled


def is_anomaly_check_nan_enabled():
    return state.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    state.enabled, state.check_nan = enabled, check_nan


class detect_anomaly:
    """Context manager that turns anomaly mode on; it warns when made."""

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the "
            "runtime and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc_info):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly mode on or off: as a call, or as a context manager that
    puts the previous setting back at its end."""

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# What a node remembers, and what the engine does with it.

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE += os.sep  # toygrad's folder


def store_stack(node):
    """Keep, in ``node.metadata``, the traceback of the forward call making
    ``node`` (without toygrad's own frames, which in PyTorch are C++), and
    the node whose backward is running, if any."""
    frames = [frame for frame in traceback.extract_stack()
              if not frame.filename.startswith(_PACKAGE)]
    node.metadata = {"traceback_": traceback.format_list(frames)}
    if state.current_node is not None:
        node.metadata["parent_"] = state.current_node


def _name(node):
    """A node's name as PyTorch's ``name()`` gives it: with its C++
    namespace for the nodes PyTorch writes in C++ (``CopySlices``)."""
    return node.name()  # with the namespace, as PyTorch's


def _format_one(metadata, name, is_parent):
    stack = metadata.get("traceback_") if metadata else None
    if stack is None:
        return (f"Error detected in {name}. No forward pass information "
                "available. Enable detect anomaly during forward pass for "
                "more information.")
    if not is_parent:
        return (f"Error detected in {name}. Traceback of forward call that "
                "caused the error:\n" + "".join(stack))
    return (f"Previous calculation was induced by {name}. Traceback of "
            "forward call that induced the previous calculation:\n"
            + "".join(stack))


def format_stack(node):
    """PyTorch's warnings, one per node: the node's forward traceback, then
    each parent's (the node whose backward created it, and so on)."""
    metadata = getattr(node, "metadata", None)
    texts = [_format_one(metadata, _name(node), False)]
    parent = metadata and metadata.get("parent_")
    while parent is not None:
        parent_metadata = getattr(parent, "metadata", None)
        texts.append("\n\n" + _format_one(parent_metadata, _name(parent),
                                           True))
        parent = parent_metadata and parent_metadata.get("parent_")
    return texts


def apply(node, grads_in):
    """``node.apply(*grads_in)`` as the engine runs it in anomaly mode."""
    previous, state.current_node = state.current_node, node
    try:
        grads_out = node.apply(*grads_in)
        if state.check_nan:
            _check_nan(node, grads_out)
    except Exception:
        for text in format_stack(node):
            warnings.warn(text, stacklevel=2)
        raise
    finally:
        state.current_node = previous
    return grads_out


def _check_nan(node, grads_out):
    for index, grad in enumerate(grads_out):
        data = np.asarray(getattr(grad, "data", 0.0))
        if data.dtype.kind == "f" and np.isnan(data).any():
            raise RuntimeError(f"Function '{_name(node)}' returned nan values "
                               f"in its {index}th output.")
