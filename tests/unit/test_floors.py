"""The floors of the package: a module imports only from its own floor and the floors below it
(games < nets < the players and the trainers, side by side < the commands, cardjax.commands).
A trained player loads without its trainer, and a trainer is handed the players it needs (a
prior) by its command instead of importing them.

The imports are read from the source (every ``import``, ``from ... import``, and the module
named to ``importlib.import_module`` or ``cardjax.spec.resolve``), at any depth of the code, so
an import inside a function counts too.
"""

from __future__ import annotations

import ast
import os

import pytest

import cardjax

ROOT = os.path.dirname(cardjax.__file__)
PLAYERS_AND_ABOVE = ("cardjax.agents", "cardjax.play", "cardjax.eval", "cardjax.web")
# floor -> the packages none of its modules may import
RULES = {
    "cardjax.train": PLAYERS_AND_ABOVE,
    "cardjax.nets": ("cardjax.train",) + PLAYERS_AND_ABOVE,
    "cardjax.agents": ("cardjax.train",),
    "cardjax.games": ("cardjax.train", "cardjax.nets.dmc") + PLAYERS_AND_ABOVE,
    "cardjax.search": ("cardjax.games", "cardjax.train", "cardjax.nets") + PLAYERS_AND_ABOVE,
}
LOADERS = ("import_module", "resolve", "__import__")  # calls whose first argument names a module


def modules(package: str):
    """``(module name, path)`` of every ``.py`` file under ``package``."""
    top = os.path.join(ROOT, *package.split(".")[1:])
    for folder, _, files in os.walk(top):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                yield ".".join(rel), path


def _static_prefix(node) -> str | None:
    """The text a module-naming argument starts with (an f-string's part before its first
    field), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0],
                                                                       ast.Constant):
        return node.values[0].value
    return None


def imports(name: str, path: str) -> set[str]:
    """The modules the source of ``name`` imports (``from p import m`` counts as ``p.m`` too)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                up = parts[:len(parts) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            text = _static_prefix(node.args[0]) if called in LOADERS else None
            if text and text.startswith("cardjax."):
                found.add(text.split(":")[0].rstrip("."))
    return found


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def violations(floor: str, banned: tuple) -> list[str]:
    """``"path imports a, b"`` of each module of ``floor`` that imports from ``banned``."""
    out = []
    for name, path in modules(floor):
        bad = {m for m in imports(name, path) if any(_under(m, b) for b in banned)}
        bad = sorted(m for m in bad if not any(o != m and _under(o, m) for o in bad))
        if bad:
            out.append(f"{os.path.relpath(path, os.path.dirname(ROOT))} imports "
                       f"{', '.join(bad)}")
    return out


@pytest.mark.parametrize("floor", sorted(RULES))
def test_a_floor_imports_nothing_above_it(floor):
    assert violations(floor, RULES[floor]) == []


def test_nothing_imports_the_commands():
    """The commands are the top floor: outside them only ``python -m cardjax`` imports one."""
    out = []
    for name, path in modules("cardjax"):
        if _under(name, "cardjax.commands") or name == "cardjax.__main__":
            continue
        if any(_under(m, "cardjax.commands") for m in imports(name, path)):
            out.append(os.path.relpath(path, os.path.dirname(ROOT)))
    assert out == []


def test_the_import_reader_sees_every_kind_of_import(tmp_path):
    """The reader finds plain, from, relative, in-function and by-name imports."""
    src = tmp_path / "mod.py"
    src.write_text("import cardjax.eval.arena as a\n"
                   "from cardjax import agents\n"
                   "from . import sibling\n"
                   "def f(game):\n"
                   "    from cardjax.play import table\n"
                   "    importlib.import_module(f'cardjax.web.x.{game}')\n"
                   "    return resolve('cardjax.agents.dmc:from_artifact')\n")
    found = imports("cardjax.train.dmc.mod", str(src))
    assert {"cardjax.eval.arena", "cardjax.agents", "cardjax.train.dmc.sibling",
            "cardjax.play.table", "cardjax.web.x", "cardjax.agents.dmc"} <= found
