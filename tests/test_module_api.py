"""nn.Module's bookkeeping beside torch.nn.Module's: registration, removal,
tied parameters, buffers, the tree walks, modes, printing and the errors.

Each test runs the same code on both libraries (``lib`` is ``torch`` or
``toygrad``) and compares what a user can observe.
"""

import re

import numpy as np
import pytest
import torch

import toygrad

pytestmark = pytest.mark.ch05

LIBS = (torch, toygrad)


def outcome(f):
    """What ``f()`` returned, or the type and message of what it raised."""
    try:
        return ("ok", f())
    except Exception as error:  # noqa: BLE001 - compared, not hidden
        # A module's class is named by its own library's path.
        return (type(error).__name__, re.sub(
            r"\b(?:torch\.nn\.modules|toygrad\.nn)\.(?:\w+\.)*(\w+)", r"\1",
            str(error)))


def same(run):
    """``run(lib)`` on both libraries gives the same answer."""
    theirs, ours = (outcome(lambda lib=lib: run(lib)) for lib in LIBS)
    assert ours == theirs
    return ours


def param(lib, *shape):
    numbers = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    return lib.nn.Parameter(lib.tensor(numbers))


def names(pairs):
    return [name for name, _ in pairs]


def tied(lib):
    first = lib.nn.Linear(3, 3, dtype=lib.float64)
    second = lib.nn.Linear(3, 3, dtype=lib.float64)
    second.weight = first.weight  # tied
    return lib.nn.Sequential(first, lib.nn.ReLU(), second, first)


def test_tied_parameters_and_modules_are_listed_once():
    same(lambda lib: (names(tied(lib).named_parameters()),
                      len(list(tied(lib).parameters())),
                      names(tied(lib).named_parameters(
                          remove_duplicate=False)),
                      names(tied(lib).named_modules()),
                      names(tied(lib).named_modules(remove_duplicate=False)),
                      names(tied(lib).named_children()),
                      list(tied(lib).state_dict())))


def test_sgd_steps_a_tied_parameter_once():
    def run(lib):
        model = tied(lib)
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor(np.linspace(-1, 1, p.numel())
                                   .reshape(p.shape)))
        x = lib.tensor(np.linspace(-2, 2, 6).reshape(2, 3))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        model(x).sum().backward()
        optimizer.step()
        return [p.detach().numpy().round(12).tolist() if lib is torch
                else p.data.round(12).tolist() for p in model.parameters()]
    same(run)


def test_none_and_del_remove_entries():
    def run(lib):
        layer = lib.nn.Linear(2, 3)
        layer.bias = None
        after_none = (names(layer.named_parameters()),
                      list(layer.state_dict()), layer.bias)
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 2))
        delattr(model, "1")
        return after_none, names(model.named_parameters()), \
            list(model.state_dict()), len(model)
    same(run)


def test_del_of_a_parameter_and_a_plain_attribute():
    def run(lib):
        layer = lib.nn.Linear(2, 3)
        del layer.weight
        layer.note = 1
        del layer.note
        return names(layer.named_parameters()), hasattr(layer, "weight"), \
            hasattr(layer, "note")
    same(run)
    same(lambda lib: delattr(lib.nn.Linear(2, 3), "nothing"))


@pytest.mark.parametrize("attribute, value", [
    ("weight", "tensor"), ("weight", 3), ("bias", "array")])
def test_assigning_a_non_parameter_to_a_parameter_is_a_type_error(attribute,
                                                                  value):
    def run(lib):
        layer = lib.nn.Linear(2, 3)
        numbers = np.ones((3, 2), np.float32)
        setattr(layer, attribute, {"tensor": lib.tensor(numbers),
                                   "array": numbers}.get(value, value))
    assert same(run)[0] == "TypeError"


def test_assigning_to_a_submodule_and_a_buffer_checks_the_kind():
    def to_module(lib):
        model = lib.nn.Sequential(lib.nn.ReLU())
        setattr(model, "0", 5)

    def to_buffer(lib):
        module = lib.nn.Module()
        module.register_buffer("mean", lib.zeros(2))
        module.mean = 5

    assert same(to_module)[0] == "TypeError"
    assert same(to_buffer)[0] == "TypeError"


def test_a_name_moves_between_kinds():
    def run(lib):
        module = lib.nn.Module()
        module.thing = 5
        module.thing = param(lib, 2)
        first = (names(module.named_parameters()), "thing" in vars(module))
        module.thing = lib.nn.ReLU()
        return first, names(module.named_parameters()), \
            names(module.named_children())
    same(run)


def test_register_errors():
    cases = [
        lambda lib: lib.nn.Module().register_parameter("a.b", None),
        lambda lib: lib.nn.Module().register_parameter("", None),
        lambda lib: lib.nn.Module().register_parameter(3, None),
        lambda lib: lib.nn.Module().register_parameter("w", lib.zeros(2)),
        lambda lib: lib.nn.Module().register_parameter(
            "training", param(lib, 2)),
        lambda lib: lib.nn.Module().register_buffer("a.b", None),
        lambda lib: lib.nn.Module().register_buffer("b", 3),
        lambda lib: lib.nn.Module().add_module("m", 3),
        lambda lib: lib.nn.Module().add_module("a.b", lib.nn.ReLU()),
        lambda lib: lib.nn.Module().add_module("", lib.nn.ReLU()),
        lambda lib: lib.nn.Module().add_module("training", lib.nn.ReLU()),
        lambda lib: lib.nn.Linear(2, 3).missing,
        lambda lib: lib.nn.Module()(1),
        lambda lib: lib.nn.Module(3),
    ]
    for case in cases:
        same(case)


def test_a_non_leaf_parameter_is_refused():
    def run(lib):
        module = lib.nn.Module()
        p = param(lib, 2)
        module.register_parameter("w", p * 2)
    assert same(run)[0] in ("TypeError", "ValueError")


def test_buffers_persistent_or_not():
    def run(lib):
        module = lib.nn.Module()
        module.register_buffer("mean", lib.zeros(2))
        module.register_buffer("scratch", lib.ones(2), persistent=False)
        module.register_buffer("empty", None)
        module.w = param(lib, 2)
        outer = lib.nn.Sequential(module)
        outer.register_buffer("count", lib.zeros(1))
        state = outer.state_dict()
        module.mean = lib.ones(2)  # reassigning a buffer keeps it one
        loaded = outer.load_state_dict(state)
        return (names(outer.named_buffers()), len(list(outer.buffers())),
                list(state), names(outer.named_buffers(recurse=False)),
                repr(loaded), module.mean.tolist(),
                state["0.mean"].requires_grad)
    same(run)


def test_load_state_dict_knows_buffers():
    def run(lib):
        module = lib.nn.Module()
        module.register_buffer("mean", lib.zeros(2))
        module.register_buffer("scratch", lib.zeros(2), persistent=False)
        return repr(module.load_state_dict({"scratch": lib.zeros(2)},
                                           strict=False))
    same(run)


def test_modes_apply_and_requires_grad():
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
        states = [model.training, model[0].training]
        assert model.eval() is model
        states += [model.training, model[1].training]
        model.train()
        states += [model.training, model[1].training]
        seen = []
        assert model.apply(lambda m: seen.append(type(m).__name__)) is model
        assert model.requires_grad_(False) is model
        return states, seen, [p.requires_grad for p in model.parameters()]
    same(run)
    same(lambda lib: lib.nn.ReLU().train("yes"))


def test_zero_grad_set_to_none_false_zeros_in_place():
    def run(lib):
        layer = lib.nn.Linear(2, 2)
        layer(lib.ones(1, 2)).sum().backward()
        grad = layer.weight.grad
        layer.zero_grad(set_to_none=False)
        kept = layer.weight.grad is grad
        layer.zero_grad()
        return kept, grad.tolist(), layer.weight.grad
    same(run)


def test_children_modules_and_sequential_indexing():
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(),
                                  lib.nn.Linear(3, 1))
        return (len(list(model.children())), len(list(model.modules())),
                type(model[-1]).__name__, len(model[1:]),
                names(model[1:].named_children()),
                [type(m).__name__ for m in model])
    same(run)
    same(lambda lib: lib.nn.Sequential(lib.nn.ReLU())[3])
    same(lambda lib: lib.nn.Sequential(3))


def test_modules_print_as_in_pytorch():
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(),
                                  lib.nn.Sequential(lib.nn.Linear(3, 1,
                                                                  bias=False)))
        return repr(model), repr(lib.nn.Module())
    same(run)


def test_parameter_repr_and_shared_version():
    def run(lib):
        data = lib.tensor([1.0, 2.0])
        p = lib.nn.Parameter(data)
        data.add_(1)
        empty = lib.nn.Parameter()
        return (repr(p), p._version, p.is_leaf, tuple(empty.shape),
                str(empty.dtype).rsplit(".", 1)[-1])
    same(run)


@pytest.mark.parametrize("name", ["to", "cuda", "double",
                                  "register_forward_hook"])
def test_what_toygrad_lacks_is_refused_by_name(name):
    with pytest.raises(NotImplementedError, match=name):
        getattr(toygrad.nn.Linear(2, 2), name)()
    assert hasattr(torch.nn.Linear(2, 2), name)


def test_a_deleted_weight_is_an_attribute_error_in_forward():
    def run(lib):
        layer = lib.nn.Linear(2, 3)
        del layer.weight
        layer(lib.ones(1, 2))
    assert same(run)[0] == "AttributeError"


def test_a_parameter_and_a_tensor_take_any_attribute():
    """A parameter set as a module attribute is a tensor: ``p.weight = None``
    is an ordinary attribute on it, in torch as here."""
    def run(lib):
        layer = lib.nn.Linear(3, 2, bias=False)
        setattr(layer, "0", lib.nn.Parameter(lib.zeros(3)))
        p = getattr(layer, "0")
        p.weight = None
        t = lib.tensor(1.0)
        t.note = "seen"
        return p.weight, t.note, names(layer.named_parameters())
    assert same(run) == ("ok", (None, "seen", ["weight", "0"]))


def _sequential_story(lib):
    """nn.Sequential as a list of modules: repeated, added, grown, cut (issue 24: the
    random search multiplied a tensor by a Sequential, whose __rmul__ speaks in PyTorch)."""
    nn = lib.nn
    names = []

    def seen(f):
        result = outcome(f)
        if result[0] == "ok" and isinstance(result[1], nn.Module):
            result = ("ok", [type(m).__name__ for m in result[1].children()])
        names.append(str(result).replace("torch.Tensor", "toygrad.Tensor"))

    s = nn.Sequential(nn.ReLU(), nn.Linear(2, 2))
    seen(lambda: s * 2)
    seen(lambda: 3 * s)
    seen(lambda: s * 0)
    seen(lambda: s * 1.5)
    seen(lambda: lib.ones(2) * s)
    seen(lambda: s + s)
    seen(lambda: s + lib.ones(2))
    t = nn.Sequential(nn.ReLU())
    t *= 3
    t += nn.Sequential(nn.Linear(1, 1))
    seen(lambda: t)
    seen(lambda: list(dict(t.named_children())))
    seen(lambda: type(t.pop(1)).__name__)
    seen(lambda: t.insert(0, nn.Linear(3, 3)))
    seen(lambda: t.insert(9, nn.ReLU()))
    seen(lambda: t.insert(0, 5))
    del t[0]
    t[0] = nn.Linear(4, 4)
    seen(lambda: t.append(nn.ReLU()).extend([nn.ReLU()]))
    seen(lambda: len(list(t.parameters())))
    del t[1:3]
    seen(lambda: list(dict(t.named_children())))
    return names


def test_sequential_is_a_list_of_modules_as_pytorch_s():
    assert _sequential_story(toygrad) == _sequential_story(torch)
