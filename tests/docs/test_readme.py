"""The README works as written, and the documentation's links lead somewhere.

* Every ``cardjax ...``, ``python experiments/*.py ...`` and ``python scripts/*.py ...`` command
  line in a fenced block of README.md and docs/*.md parses: the command's module (for a script,
  the ``cardjax.commands`` module the wrapper runs) reads the line's flags with its own argument
  parser (``ArgumentParser.parse_args`` is stopped right after parsing, so nothing trains or
  plays).
* Every ```` ```python ```` block of README.md and docs/games.md runs verbatim in a fresh process
  on the CPU and exits 0.
* ``pip install -e ".[extra]"`` names an extra of pyproject.toml, and ``pytest -n`` has
  pytest-xdist in the test extra.
* Every relative link of README.md, docs/*.md and benchmarks/RESULTS.md points to a file that
  exists, and a link to a heading (``page.md#heading``) to a heading of that page.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pathlib
import re
import shlex
import subprocess
import sys
from unittest import mock

import pytest

from cardjax.commands import main as cardjax_command
from conftest import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS, ROOT / "benchmarks" / "RESULTS.md", ROOT / "benchmarks" / "LOG.md"]
RUN_PYTHON = [README, ROOT / "docs" / "games.md"]  # pages whose python blocks are run
README_MAX_LINES = 200
SHELL = ("bash", "sh", "shell", "console")  # fenced blocks of commands

FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```", re.M | re.S)


def rel(path: pathlib.Path) -> str:
    return str(path.relative_to(ROOT))


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced code block."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def command_lines(block: str) -> list[list[str]]:
    """The shell commands of a block: continuation lines joined, comments dropped, ``&&``
    chains split; each command as its words."""
    joined = re.sub(r"\\\n", " ", block)
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        command: list[str] = []
        for w in words + ["&&"]:
            if w == "&&":
                if command:
                    commands.append(command)
                command = []
            else:
                command.append(w)
    return commands


def page_commands(pages) -> list[tuple[str, list[str]]]:
    """``(page, words)`` of every shell command in the fenced non-python blocks of ``pages``."""
    out = []
    for page in pages:
        for lang, body in fenced_blocks(page.read_text()):
            if lang in SHELL:
                out.extend((rel(page), words) for words in command_lines(body))
    return out


def script_commands() -> list[tuple[str, str, list[str]]]:
    """``(page, script, args)`` of every ``python experiments/*.py`` / ``python scripts/*.py`` and
    (script ``cardjax``) every ``cardjax ...``."""
    out = []
    for page, words in page_commands([README, *DOCS]):
        if len(words) >= 2 and words[0] == "python" and re.fullmatch(
                r"(experiments|scripts)/\w+\.py", words[1]):
            out.append((page, words[1], words[2:]))
        elif words[:1] == ["cardjax"] and len(words) > 1 and not {"help", "--help"} & {*words}:
            out.append((page, "cardjax", words[1:]))
    return out


WRAPPED = re.compile(r"^from (cardjax\.commands\.[\w.]+) import main\b", re.M)


def wrapped(script: str):
    """The ``cardjax.commands`` module a wrapper in scripts/ or experiments/ runs."""
    found = WRAPPED.findall((ROOT / script).read_text())
    assert len(found) == 1, f"{script} is not a wrapper of one cardjax.commands module"
    return importlib.import_module(found[0])


class _Parsed(Exception):
    """Raised right after an argument parser has read its flags."""


def parse_only(script: str, args: list[str]) -> argparse.Namespace:
    """The namespace ``script``'s command makes of ``args``: its ``parse_args`` if it has one,
    else its ``main`` (for ``cardjax``, the dispatcher), stopped as soon as
    ``ArgumentParser.parse_args`` returns."""
    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):
        raise _Parsed(parse(self, args, namespace))

    if script == "cardjax":
        entry = cardjax_command.dispatch
    else:
        module = wrapped(script)
        entry = getattr(module, "parse_args", None) or module.main
    with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_then_stop):
        try:
            entry(args)
        except _Parsed as done:
            return done.args[0]
    raise AssertionError(f"{script} returned without parsing its command line")


SCRIPTS = script_commands()


def test_readme_has_the_commands():
    """The README shows the quickstart, a command per trainer and the arena."""
    text = README.read_text()
    assert "pip install -e . && python experiments/scrofazero.py" in text
    assert 'pip install -e ".[test]" && python -m pytest -q -n 2' in text
    readme_scripts = {s for page, s, _ in SCRIPTS if page == "README.md"}
    for script in ("experiments/scrofazero.py", "experiments/douzero.py",
                   "experiments/shengji.py", "experiments/gongzhu_dmc.py", "scripts/arena.py"):
        assert script in readme_scripts or script in text, script


def test_readme_is_short():
    """The README is the user's page; depth goes to docs/ and benchmarks/RESULTS.md."""
    lines = len(README.read_text().splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES})"


@pytest.mark.parametrize("page,script,args", SCRIPTS,
                         ids=[f"{p}:{s} {' '.join(a)}"[:90] for p, s, a in SCRIPTS])
def test_command_flags_parse(page, script, args, capsys):
    line = " ".join([script, *args] if script == "cardjax" else ["python", script, *args])
    assert script == "cardjax" or (ROOT / script).is_file(), \
        f"{page} runs {script}, which does not exist"
    try:
        parse_only(script, args)
    except SystemExit as e:
        err = capsys.readouterr().err.strip().splitlines()
        pytest.fail(f"{page}: `{line}` does not parse (exit {e.code}): "
                    f"{err[-1] if err else e.code}")


def test_pip_extras_exist():
    """``pip install -e ".[x]"`` in the docs names extras of pyproject.toml; ``pytest -n`` needs
    pytest-xdist in the test extra."""
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    seen = 0
    for page in [README, *DOCS]:
        for name in re.findall(r"pip install -e \"?\.\[([\w,-]+)\]", page.read_text()):
            for extra in name.split(","):
                seen += 1
                assert extra in extras, f"{rel(page)}: no extra {extra!r} in pyproject.toml"
    assert seen, "no `pip install -e .[...]` found in the README"
    for page, words in page_commands([README, *DOCS]):
        if words[:3] == ["python", "-m", "pytest"] and "-n" in words:
            assert any(d.startswith("pytest-xdist") for d in extras["test"]), page


PYTHON_BLOCKS = [(rel(page), i, body) for page in RUN_PYTHON
                 for i, (lang, body) in enumerate(
                     b for b in fenced_blocks(page.read_text()) if b[0] == "python")]


@pytest.mark.parametrize("page,index,code", PYTHON_BLOCKS,
                         ids=[f"{p}:python-{i}" for p, i, _ in PYTHON_BLOCKS])
def test_python_block_runs(page, index, code):
    """The block, verbatim, in a fresh CPU process from the repository root."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, f"{page}, python block {index}:\n{r.stderr[-2000:]}"


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: pathlib.Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


def links(page: pathlib.Path) -> list[str]:
    text = FENCE.sub("", page.read_text())
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code is not a link
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


LINKS = [(page, target) for page in PAGES if page.exists() for target in links(page)]


@pytest.mark.parametrize("page,target", LINKS, ids=[f"{rel(p)}->{t}" for p, t in LINKS])
def test_relative_link_exists(page, target):
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    assert dest.exists(), f"{rel(page)} links to {target}, which does not exist"
    if anchor and dest.suffix == ".md":
        assert anchor in anchors(dest), f"{rel(page)} links to {target}: no such heading"
