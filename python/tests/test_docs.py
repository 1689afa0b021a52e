"""The examples of the README's "Python" section and of the module's docstring print what
they say they print."""

import contextlib
import doctest
import io

import kalah
from conftest import REPO


def readme_example():
    text = (REPO / "README.md").read_text()
    section = text[text.index("\n## Python\n"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


def test_the_readme_example():
    code = readme_example()
    assert len(code.strip().splitlines()) == 5
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    said = [line.split("#", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    assert out.getvalue().splitlines() == said


def test_the_module_docstring():
    assert doctest.testmod(kalah).failed == 0
