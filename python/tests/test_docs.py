"""The examples of docs/python.md and of the module's docstring print what they say they
print; each docstring has one source (the Rust doc comment, the object's ``__doc__``),
never written again in the type stubs."""

import ast
import contextlib
import doctest
import inspect
import io

import pytest

import kalah
import kalah._kalah as native
from conftest import REPO


def first_example(path):
    """The first ```python block of a Markdown file."""
    text = path.read_text()
    start = text.index("```python\n") + len("```python\n")
    return text[start:text.index("```", start)]


def test_the_guides_examples():
    for path in [REPO / "docs" / "python.md", REPO / "python" / "README.md"]:
        code = first_example(path)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code, {})
        said = [line.split("#", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
        assert said, path
        assert out.getvalue().splitlines() == said, path


def test_the_package_metadata_names_its_readme_and_licence():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in Python 3.11 and later")
    project = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())["project"]
    assert (REPO / "python" / project["readme"]).is_file()
    assert project["license"] == "MIT OR Apache-2.0"


def test_the_module_docstring():
    assert doctest.testmod(kalah).failed == 0


def test_every_public_object_has_its_docstring_in_the_module():
    missing = []
    for name in native.__all__:
        if name == "__version__":
            continue
        obj = getattr(native, name)
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, value in vars(obj).items():
                if attr.startswith("_"):
                    continue
                doc = getattr(getattr(obj, attr), "__doc__", None) or ""
                if isinstance(value, staticmethod):
                    doc = value.__func__.__doc__ or ""
                if not doc.strip():
                    missing.append("%s.%s" % (name, attr))
    assert missing == []


def test_the_stubs_hold_no_docstring_but_their_header():
    stub = REPO / "python" / "kalah" / "_kalah.pyi"
    tree = ast.parse(stub.read_text())
    written = [
        getattr(node, "name", "?")
        for node in ast.walk(tree)
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node) is not None
    ]
    assert written == [], "docstrings belong in python/src/ (the module's __doc__)"
    assert ast.get_docstring(tree)


def test_a_solution_reads_in_one_line():
    s = kalah.solve(kalah.Position.start(kalah.Rules(pits=4, seeds=3)))
    text = repr(s)
    assert "\n" not in text
    assert text.startswith("<Solution position='3,3,3,3/0/3,3,3,3/0/A' value=+6 best_move='A2+' ")
    # The principal variation's first 8 moves, then its length.
    assert "pv='%s … %d moves'" % (" ".join(s.pv[:8]), len(s.pv)) in text
    assert text.endswith("method='mtdf' nodes=%d>" % s.nodes)
    over = kalah.solve(kalah.Position("0,0/1/2,1/0/A"))
    assert "best_move=None pv=''" in repr(over)
    pie = kalah.solve(kalah.Position.start(kalah.Rules(pits=3, seeds=2, pie=True)))
    assert repr(pie).endswith(" pie_value=%+d>" % pie.pie_value)
