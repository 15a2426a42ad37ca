"""Chapter 6: toygrad's grad-mode switches behave as torch 2.13's.

Each test runs one usage on torch and on toygrad and compares what grad
mode is observed inside and after.
"""

import threading

import numpy as np
import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch06

LIBS = (torch, toygrad)


@pytest.fixture(autouse=True)
def grad_mode_on():
    for lib in LIBS:
        lib.set_grad_enabled(True)
    yield
    for lib in LIBS:  # even after a failure, leave grad mode on
        lib.set_grad_enabled(True)


def same(scenario):
    """Run ``scenario(lib)`` for both libraries; they must see the same."""
    seen = {}
    for lib in LIBS:
        lib.set_grad_enabled(True)
        seen[lib] = scenario(lib)
    assert seen[toygrad] == seen[torch]
    return seen[torch]


def mode(lib):
    return lib.is_grad_enabled()


@pytest.mark.parametrize("outer", [True, False])
@pytest.mark.parametrize("called", [False, True], ids=["bare", "called"])
@pytest.mark.parametrize("switch", ["no_grad", "enable_grad"])
def test_no_grad_and_enable_grad_decorate_bare_or_called(
        switch, called, outer):
    def scenario(lib):
        seen = []

        def probe(x):
            """Probe's docstring."""
            seen.append(mode(lib))
            return x + 1

        decorator = getattr(lib, switch)
        decorated = decorator()(probe) if called else decorator(probe)
        lib.set_grad_enabled(outer)
        seen.append(decorated(1))
        seen += [mode(lib), decorated.__name__, decorated.__doc__]
        return seen

    same(scenario)


MANAGERS = {
    "no_grad": lambda lib: lib.no_grad(),
    "enable_grad": lambda lib: lib.enable_grad(),
    "set_grad_enabled(False)": lambda lib: lib.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda lib: lib.set_grad_enabled(True),
}


@pytest.mark.parametrize("outer", [True, False])
@pytest.mark.parametrize("make", MANAGERS.values(), ids=MANAGERS.keys())
def test_context_managers_restore_the_previous_mode(make, outer):
    def scenario(lib):
        lib.set_grad_enabled(outer)
        manager = make(lib)
        seen = [mode(lib)]  # set_grad_enabled acts when called
        with manager as value:
            seen += [value, mode(lib)]
        seen.append(mode(lib))
        with pytest.raises(KeyError):
            with make(lib):
                raise KeyError
        seen.append(mode(lib))
        return seen

    same(scenario)


def test_set_grad_enabled_as_a_function_sets_the_mode_at_once():
    def scenario(lib):
        seen = []
        for value in (False, False, True, False):
            lib.set_grad_enabled(value)
            seen.append(mode(lib))
        return seen

    assert same(scenario) == [False, False, True, False]


@pytest.mark.parametrize("at_call", [True, False])
@pytest.mark.parametrize("at_decoration", [True, False])
@pytest.mark.parametrize("value", [False, True])
def test_set_grad_enabled_as_a_decorator(value, at_decoration, at_call):
    def scenario(lib):
        lib.set_grad_enabled(at_decoration)

        @lib.set_grad_enabled(value)
        def probe():
            seen.append(mode(lib))
            return "result"

        seen = [mode(lib)]  # decorating leaves the mode as it was
        lib.set_grad_enabled(at_call)
        seen += [probe(), mode(lib)]
        return seen

    seen = same(scenario)
    # torch 2.13: the mode applies inside the function only; the call that
    # made the decorator set it, and decorating set it back.
    assert seen == [at_decoration, value, "result", at_call]


def test_a_set_grad_enabled_object_restores_the_mode_of_its_creation():
    def scenario(lib):
        manager = lib.set_grad_enabled(False)
        seen = [mode(lib)]
        for before in (True, False):
            lib.set_grad_enabled(before)
            with manager:
                seen.append(mode(lib))
            seen.append(mode(lib))
        return seen

    assert same(scenario) == [False, False, True, False, True]


@pytest.mark.parametrize("make", MANAGERS.values(), ids=MANAGERS.keys())
def test_decorated_functions_restore_the_mode_after_an_error(make):
    def scenario(lib):
        @make(lib)
        def fail():
            raise KeyError

        seen = [mode(lib)]
        for outer in (True, False):
            lib.set_grad_enabled(outer)
            with pytest.raises(KeyError):
                fail()
            seen.append(mode(lib))
        return seen

    same(scenario)


def test_recursive_decorated_calls_each_restore_their_mode():
    def scenario(lib):
        seen = []

        @lib.set_grad_enabled(False)
        def down(n):
            seen.append(mode(lib))
            if n:
                with lib.enable_grad():
                    down(n - 1)
                    seen.append(mode(lib))
                seen.append(mode(lib))

        down(2)
        seen.append(mode(lib))
        return seen

    same(scenario)


DECORATORS = {
    "no_grad": lambda lib: lib.no_grad,
    "no_grad()": lambda lib: lib.no_grad(),
    "enable_grad": lambda lib: lib.enable_grad,
    "set_grad_enabled(False)": lambda lib: lib.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda lib: lib.set_grad_enabled(True),
}


@pytest.mark.parametrize("outer", [True, False])
@pytest.mark.parametrize("make", DECORATORS.values(), ids=DECORATORS.keys())
def test_decorated_generators_switch_only_while_they_run(make, outer):
    def scenario(lib):
        seen = []

        @make(lib)
        def numbers():
            try:
                seen.append(("start", mode(lib)))
                received = yield 1
                seen.append(("received", received, mode(lib)))
                try:
                    yield 2
                except ValueError:
                    seen.append(("thrown", mode(lib)))
                yield 3
            finally:
                seen.append(("finally", mode(lib)))

        @make(lib)
        def short():
            seen.append(("short", mode(lib)))
            yield 1
            return "returned"

        def delegate():
            seen.append((yield from short()))

        lib.set_grad_enabled(outer)
        generator = numbers()
        for step in (lambda: next(generator),
                     lambda: generator.send("sent"),
                     lambda: generator.throw(ValueError()),
                     generator.close):
            seen += [step(), ("caller", mode(lib))]
        seen += [list(delegate()), ("end", mode(lib))]
        return seen

    same(scenario)


@pytest.mark.parametrize("value", [1, 0, None, "yes", 1.0, np.True_],
                         ids=repr)
def test_set_grad_enabled_takes_only_a_bool(value):
    def scenario(lib):
        lib.set_grad_enabled(False)
        with pytest.raises(TypeError) as error:
            lib.set_grad_enabled(value)
        return str(error.value), mode(lib)

    same(scenario)


def test_grad_mode_belongs_to_a_thread():
    def scenario(lib):
        seen = []

        def in_thread():
            seen.append(mode(lib))  # a new thread starts with grad on
            lib.set_grad_enabled(False)

        with lib.no_grad():
            thread = threading.Thread(target=in_thread)
            thread.start()
            thread.join()
            seen.append(mode(lib))
        seen.append(mode(lib))  # the thread's switch did not leak here
        return seen

    assert same(scenario) == [True, False, True]


def test_operations_follow_the_decorated_mode():
    def scenario(lib):
        x = lib.tensor(np.array([1.0, 2.0]), requires_grad=True)

        def double():
            y = x * 2
            return y.requires_grad, y.grad_fn is None

        return [lib.no_grad(double)(), lib.no_grad()(double)(),
                lib.set_grad_enabled(False)(double)()]

    assert same(scenario) == [(False, True)] * 3


def test_repr_of_set_grad_enabled():
    ours = repr(toygrad.set_grad_enabled(False))
    theirs = repr(torch.set_grad_enabled(False))
    assert ours == theirs.replace("torch", "toygrad", 1)


def test_decorating_a_class_is_refused():
    # torch warns that this is deprecated and wraps the constructor;
    # toygrad does not support it and says so.
    class Model:
        pass

    with pytest.warns(FutureWarning):
        torch.no_grad()(Model)
    for decorator in (toygrad.no_grad, toygrad.no_grad(),
                      toygrad.set_grad_enabled(True)):
        with pytest.raises(NotImplementedError, match="not classes"):
            decorator(Model)
