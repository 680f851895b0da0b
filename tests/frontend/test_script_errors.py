"""Bad input to fusejit.script: a ScriptError naming the construct, with file:line:col, the
source line and a caret under the column. Never a crash, never eager evaluation."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import fusejit
from fusejit.frontend import script

SIDE_EFFECTS = []
ALLOWED = {1, 2}


def with_dict(x):
    d = {"a": x}    # (a returned dict is supported; one carried by a loop is not)
    while x.sum() > 0:
        x = x - 1
        d = {"a": d["a"] + 1}
    return d["a"]


def with_listcomp(x):
    return [y for y in x for _ in range(3)]


def with_with(x):
    with open("f") as f:
        return f


def unknown_call(x):
    return np.fft.fft(x)


def undefined_function(x):
    return no_such_function(x)  # noqa: F821


def tensor_bound(x):
    for i in range(x):
        x = x + i
    return x


def uses_global(x):
    global SIDE_EFFECTS
    return x


def lambda_inside(x):
    f = lambda *ys: ys[0]  # noqa: E731
    return f(x)


def with_try(x):
    try:
        return x
    except ValueError:
        return x


def star_args(x):
    parts = (x, x)
    return np.maximum(*parts)


def bad_keyword(x):
    return np.mean(x, initial=1.0)


def slicing(x):
    return x[x > 0]


def python_object(x):
    return x + ALLOWED


def one_branch_only(x, flag: bool):
    if flag:
        y = x
    return y


def recursive(x):
    return recursive(x)


def mismatched_branches(x, flag: bool):
    if flag:
        y = x
    else:
        y = 1
    return y


def returns_in_loop(x, n: int):
    for _i in range(n):
        if n > 3:
            return x
        return x, x
    return x


def string_constant(x):
    return x + "a"


def item_call(x):
    return x.item()


CASES = [
    (with_dict, "a dict", "while x.sum() > 0:"),
    (with_listcomp, "several for clauses whose first runs over run-time values", "return ["),
    (with_with, "a with statement", "with open"),
    (unknown_call, "unknown function 'np.fft.fft'", "return np.fft.fft"),
    (undefined_function, "'no_such_function' is not defined", "no_such_function(x)"),
    (tensor_bound, "a tensor cannot be used as a loop bound", "range(x)"),
    (uses_global, "a global statement", "global SIDE_EFFECTS"),
    (lambda_inside, "a nested function with *args", "lambda *ys"),
    (with_try, "a try statement", "try:"),
    (star_args, "star-args", "*parts"),
    (bad_keyword, "unexpected keyword argument 'initial'", "np.mean(x, initial=1.0)"),
    (slicing, "data-dependent shape", "x[x > 0]"),
    (python_object, "is a Python set", "ALLOWED"),
    (one_branch_only, "assigned in only one branch", "return y"),
    (recursive, "recursive call", "recursive(x)"),
    (mismatched_branches, "different types", "if flag"),
    (returns_in_loop, "different numbers of values", "return x"),
    (string_constant, "does not take a str operand", '"a"'),
    (item_call, "float(x), int(x) or bool(x)", "x.item()"),
]


# Words by which an error says what to write instead.
ALTERNATIVE = re.compile(r"\binstead\b|\bwrite\b|\buse\b|\bconvert\b|\bpass\b|\bassign\b|"
                         r"\bdefine\b|\bmake\b")


@pytest.mark.parametrize("fn, message, snippet", CASES, ids=[c[0].__name__ for c in CASES])
def test_unsupported_python_raises_a_located_script_error(fn, message, snippet):
    with pytest.raises(fusejit.ScriptError) as info:
        script(fn)
    text = str(info.value)
    assert message in text
    assert ALTERNATIVE.search(text.splitlines()[0]), "the error says what to write instead"
    lines, first = inspect.getsourcelines(fn)
    head, shown, caret = text.splitlines()[:3]
    match = re.match(r"^(.*):(\d+):(\d+): ", head)
    assert match and match.group(1) == __file__
    line, col = int(match.group(2)), int(match.group(3))
    assert first <= line < first + len(lines)
    source = lines[line - first].rstrip("\n")
    assert shown.strip() == source.strip() and snippet in source
    # the caret sits under the reported column of the shown line
    assert caret.index("^") - 4 == col and shown[4:] == source


def test_a_lambda_is_scripted_from_its_line_unless_another_on_it_has_its_parameters():
    double = fusejit.jit(lambda x, k=2.0: x * k)
    np.testing.assert_allclose(double(np.arange(3.0)), np.arange(3.0) * 2.0)
    pair = (lambda x: x + 1, lambda x: x - 1)  # which is which cannot be told by line
    with pytest.raises(fusejit.ScriptError, match="several lambdas.*write it as a def"):
        script(pair[0])
    with pytest.raises(fusejit.ScriptError, match=rf"{__file__}:\d+:\d+: .*'np.fft.fft'"):
        script(lambda x: np.fft.fft(x))            # errors point into the lambda's line


def test_builtin_is_rejected():
    with pytest.raises(fusejit.ScriptError, match="needs a Python function"):
        script(np.exp)


class Tracker:
    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x


TRACKER = Tracker()


def calls_an_object(x):
    return TRACKER(x)


def divides_by_zero(n: int):
    return n // 0


def test_nothing_is_evaluated_while_scripting():
    with pytest.raises(fusejit.ScriptError, match="unknown function 'TRACKER'"):
        script(calls_an_object)
    assert TRACKER.calls == 0
    g = script(divides_by_zero)  # emitted, not computed
    assert [n.kind for n in g.nodes() if n.kind != "prim::Constant"] == ["aten::floordiv"]
