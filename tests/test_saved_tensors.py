"""Chapter 11: saved-tensor hooks, checkpointing and anomaly mode, beside PyTorch's."""

import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint

import toygrad
import toygrad.autograd.graph
import toygrad.utils.checkpoint
from toygrad.autograd import anomaly_mode

pytestmark = pytest.mark.ch11

LIBS = (toygrad, torch)


def hooks(lib):
    return (torch.autograd.graph if lib is torch else toygrad.autograd.graph)


def checkpoint(lib):
    return (torch.utils.checkpoint.checkpoint if lib is torch
            else toygrad.utils.checkpoint.checkpoint)


def numbers(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.data


def leaf(lib, array):
    return lib.tensor(np.array(array, dtype=np.float64), requires_grad=True)


def error_of(call):
    try:
        call()
    except Exception as error:
        return type(error).__name__, str(error)
    return None


# Saved-tensor hooks.

def test_pack_sees_each_saved_tensor_and_unpack_gives_it_back():
    seen = {}
    for lib in LIBS:
        log = []

        def pack(t):
            log.append(("pack", tuple(t.shape), t.requires_grad,
                        None if t.grad_fn is None else t.grad_fn.name()))
            return numbers(t).copy()

        def unpack(array):
            log.append(("unpack", array.shape))
            return lib.tensor(array)

        a, b = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, -1.0])
        with hooks(lib).saved_tensors_hooks(pack, unpack):
            y = (a * b.exp()).sum()
        y.backward()
        seen[lib] = log, numbers(a.grad), numbers(b.grad)
    assert seen[toygrad][0] == seen[torch][0]
    assert np.allclose(seen[toygrad][1], seen[torch][1])
    assert np.allclose(seen[toygrad][2], seen[torch][2])


def test_only_the_innermost_hooks_are_used():
    seen = {}
    for lib in LIBS:
        log = []
        outer = hooks(lib).saved_tensors_hooks(
            lambda t: log.append("outer") or t, lambda t: t)
        inner = hooks(lib).saved_tensors_hooks(
            lambda t: log.append("inner") or t, lambda t: t)
        a = leaf(lib, [1.0, 2.0])
        with outer:
            with inner:
                a.exp()
            a.tanh()
        seen[lib] = log
    assert seen[toygrad] == seen[torch] == ["inner", "outer"]


def test_a_python_number_is_not_packed():
    counts = []
    for lib in LIBS:
        log = []
        a = leaf(lib, [1.0, 2.0])
        with hooks(lib).saved_tensors_hooks(lambda t: log.append(t) or t,
                                            lambda t: t):
            a * 2
            a * a
        counts.append(len(log))
    assert counts[0] == counts[1] == 2


def test_the_errors_of_hooks_are_pytorch_s():
    def modifies_in_place(lib):
        a = leaf(lib, [1.0, 2.0])
        with hooks(lib).saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):
            (a * 1.0).exp()

    def unpack_returns_a_number(lib):
        a = leaf(lib, [1.0, 2.0])
        with hooks(lib).saved_tensors_hooks(lambda t: t.detach(), lambda t: 3):
            y = a.exp().sum()
        y.backward()

    def hooks_disabled(lib):
        with hooks(lib).disable_saved_tensors_hooks("no hooks here"):
            with hooks(lib).saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    def backward_twice(lib):
        a = leaf(lib, [1.0, 2.0])
        with hooks(lib).saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = a.exp().sum()
        y.backward()
        y.backward()

    for case in (modifies_in_place, unpack_returns_a_number, hooks_disabled,
                 backward_twice):
        ours, theirs = (error_of(lambda: case(lib)) for lib in LIBS)
        assert theirs is not None and ours == theirs, case.__name__


def test_a_saved_input_changed_in_place_is_packed_as_it_was():
    grads = []
    for lib in LIBS:
        x, b = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
        with hooks(lib).saved_tensors_hooks(lambda t: t.detach().clone(),
                                            lambda t: t):
            a = x * 1.0
            a.mul_(b)  # the node needs a's numbers before the change
        a.sum().backward()
        grads.append((numbers(x.grad), numbers(b.grad)))
    assert np.allclose(grads[0], grads[1])


def test_a_float16_copy_gives_gradients_within_float16_precision():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((5, 4))
    x_numbers = rng.standard_normal((3, 5))
    grads = []
    for lib in LIBS:
        for compress in (False, True):
            x = lib.tensor(x_numbers)
            weight = lib.tensor(w, requires_grad=True)
            pack = ((lambda t: numbers(t).astype(np.float16)) if compress
                    else (lambda t: numbers(t).copy()))
            with hooks(lib).saved_tensors_hooks(
                    pack, lambda a: lib.tensor(a.astype(np.float64))):
                loss = (x @ weight).tanh().sum()
            loss.backward()
            grads.append(numbers(weight.grad))
    exact = grads[0]
    assert not np.array_equal(grads[1], exact)
    assert np.allclose(grads[1], exact, rtol=1e-2, atol=1e-3)


# Checkpointing.

def mlp(lib, weights, x, use_checkpoint):
    h = lib.tensor(x)
    for w in weights:
        if use_checkpoint:
            h = checkpoint(lib)(layer, h, w, use_reentrant=False)
        else:
            h = layer(h, w)
    return (h * h).sum()


def layer(h, w):
    return (h @ w).tanh()


def test_checkpoint_gives_pytorch_s_gradients_on_an_8_layer_mlp():
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((6, 6)) / 2 for _ in range(8)]
    x = rng.standard_normal((4, 6))
    grads = {}
    for lib in LIBS:
        for use in (False, True):
            weights = [leaf(lib, w) for w in ws]
            mlp(lib, weights, x, use).backward()
            grads[lib, use] = [numbers(w.grad) for w in weights]
    for use in (False, True):
        for ours, theirs in zip(grads[toygrad, use], grads[torch, use]):
            assert np.allclose(ours, theirs, rtol=0, atol=1e-10)
    assert all(np.array_equal(a, b) for a, b in
               zip(grads[toygrad, False], grads[toygrad, True]))


def test_checkpoint_runs_the_function_again_in_backward():
    calls = {}
    for lib in LIBS:
        count = []

        def f(h):
            count.append(1)
            return h.exp().sum()

        y = checkpoint(lib)(f, leaf(lib, [1.0, 2.0]), use_reentrant=False)
        calls[lib] = [len(count)]
        y.backward()
        calls[lib].append(len(count))
    assert calls[toygrad] == calls[torch] == [1, 2]


def test_checkpoint_keeps_its_inputs_only():
    kept = []
    for lib in LIBS:
        log = []
        with hooks(lib).saved_tensors_hooks(
                lambda t: log.append(tuple(t.shape)) or t, lambda t: t):
            checkpoint(lib)(layer, lib.tensor(np.ones((2, 3))),
                            leaf(lib, np.ones((3, 4))), use_reentrant=False)
        kept.append(log)
    assert kept[0] == kept[1] == [(2, 3), (3, 4)]


def test_checkpoint_without_use_reentrant_warns_as_pytorch_then_refuses():
    messages = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                checkpoint(lib)(layer, lib.tensor(np.ones((2, 2))),
                                leaf(lib, np.eye(2)))
            except NotImplementedError as error:
                assert "use_reentrant=True" in str(error)
        messages.append([str(w.message) for w in caught
                         if "use_reentrant" in str(w.message)])
    assert messages[0] == messages[1] and len(messages[0]) == 1


# Anomaly mode.

def norm_at_zero(lib):
    p = lib.tensor([1.0, 2.0], requires_grad=True)
    q = lib.tensor([1.0, 2.0])
    squares = (p - q) ** 2  # the line anomaly mode points at
    return squares.sum() ** 0.5


def forward_frames(message, library_folder):
    """The frames a forward traceback lists, without the library's own."""
    lines = message.split("\n")[1:]
    frames, skip = [], False
    for line in lines:
        if line.startswith("  File "):
            skip = library_folder in line
            if not skip:
                frames.append(line)
        elif line.startswith("    ") and not skip:
            frames[-1] += "\n" + line
    return frames


def test_anomaly_mode_names_the_node_and_its_forward_line():
    results = {}
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                error = error_of(lambda: norm_at_zero(lib).backward())
        results[lib] = error, [(w.category, str(w.message)) for w in caught
                               if w.category is UserWarning]
    (ours, our_warnings), (theirs, their_warnings) = results.values()
    assert ours == theirs == (
        "RuntimeError",
        "Function 'PowBackward0' returned nan values in its 0th output.")
    assert our_warnings[0] == their_warnings[0]  # "Anomaly Detection has..."
    ours_text, theirs_text = our_warnings[1][1], their_warnings[1][1]
    assert ours_text.split("\n")[0] == theirs_text.split("\n")[0] == (
        "Error detected in PowBackward0. Traceback of forward call that "
        "caused the error:")
    torch_folder = torch.__file__.rsplit("/", 1)[0]
    theirs_frames = forward_frames(theirs_text.split(" (Triggered internally")[0],
                                   torch_folder)
    assert forward_frames(ours_text, "/toygrad/") == theirs_frames
    assert "squares = (p - q) ** 2" in theirs_frames[-1]


def test_set_detect_anomaly_and_its_state_are_pytorch_s():
    states = []
    for lib, enabled, check_nan in (
            (toygrad, anomaly_mode.is_anomaly_enabled,
             anomaly_mode.is_anomaly_check_nan_enabled),
            (torch, torch.is_anomaly_enabled,
             torch.is_anomaly_check_nan_enabled)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.set_detect_anomaly(True, check_nan=False):
                inside = enabled(), check_nan()
                y = norm_at_zero(lib)
                y.backward()  # no NaN check: no error
        states.append((inside, enabled(), check_nan(),
                       [w for w in caught if w.category is UserWarning]))
    assert states[0] == states[1] == ((True, False), False, True, [])


def test_an_error_in_backward_warns_with_the_forward_traceback_and_hint():
    results = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.set_detect_anomaly(True):
                x = leaf(lib, [1.0, 2.0])
                y = x.exp()
                y.mul_(2)
                error = error_of(lambda: y.sum().backward())
        first = [str(w.message).split("\n")[0] for w in caught]
        results.append((error, first))
    assert results[0] == results[1]
    assert "Good luck!" in results[0][0][1]
    assert results[0][1] == ["Error detected in ExpBackward0. Traceback of "
                             "forward call that caused the error:"]


def test_a_node_made_without_anomaly_mode_has_no_traceback():
    x = toygrad.tensor([0.0], requires_grad=True)
    y = x ** 0.5
    (text,) = anomaly_mode.format_stack(y.grad_fn)
    assert text == ("Error detected in PowBackward0. No forward pass "
                    "information available. Enable detect anomaly during "
                    "forward pass for more information.")


def test_a_node_made_by_a_backward_names_its_parent_in_a_warning_of_its_own():
    seen = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                x = leaf(lib, [0.0, 1.0])
                (x ** 3).sum().backward(create_graph=True)
                gradient = x.grad  # its nodes were made by PowBackward0
                error = error_of(lambda: (gradient ** 0.5).sum().backward())
        texts = [str(w.message) for w in caught if w.category is UserWarning
                 and "Error detected" in str(w.message)
                 or "Previous calculation" in str(w.message)]
        seen.append((error, [text.split(":")[0] for text in texts]))
    assert seen[0] == seen[1]
    assert seen[0][1] == [
        "Error detected in PowBackward0. Traceback of forward call that "
        "caused the error",
        "\n\nPrevious calculation was induced by PowBackward0. Traceback of "
        "forward call that induced the previous calculation"]


def test_a_nan_through_copy_slices_names_it_and_the_in_place_line():
    seen = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                h = leaf(lib, [1.0, 2.0, 3.0]) * 1
                h[1:].div_(0.0)  # the line the traceback must end at
                error = error_of(lambda: (h * 0).sum().backward())
        texts = [str(w.message).split(" (Triggered internally")[0]
                 for w in caught if "Error detected" in str(w.message)]
        seen.append((error, [text.rstrip("\n").split("\n")[-1].strip()
                             for text in texts], texts[0].split(".")[0]))
    assert seen[0] == seen[1]
    assert seen[0][1] == ["h[1:].div_(0.0)  # the line the traceback must end at"]
    assert seen[0][0][1] == ("Function 'torch::autograd::CopySlices' "
                             "returned nan values in its 0th output.")


def run_again_differently(lib, first, again):
    calls = []

    def changes(h):
        calls.append(1)
        return first(h) if len(calls) == 1 else again(h)

    y = checkpoint(lib)(changes, leaf(lib, [0.5, 1.0]), use_reentrant=False)
    return error_of(lambda: y.sum().backward())


def test_the_second_run_stops_once_it_saved_what_backward_needs():
    for lib in LIBS:  # tanh's extra saved tensor is never reached
        assert run_again_differently(lib, lambda h: h.exp(),
                                     lambda h: h.exp().tanh()) is None


def test_a_second_run_that_saves_less_is_refused():
    ours, theirs = (run_again_differently(lib, lambda h: h.exp().tanh(),
                                          lambda h: h.exp()) for lib in LIBS)
    assert theirs[0] == "CheckpointError"  # PyTorch's own checks
    assert ours == ("NotImplementedError",
                    "toygrad does not support PyTorch's CheckpointError: the "
                    "function saved fewer tensors when run again")
