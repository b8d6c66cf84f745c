"""The ``cardjax`` command: one subcommand per module of :mod:`cardjax.commands`, one group per
package (``cardjax train``, ``cardjax bench``).

The commands are found by reading the modules' source, not by importing them: a module with a
``main(argv=None)`` is a command, its docstring's first sentence its line in ``cardjax --help``.
A training recipe (``cardjax/commands/train/*.py``) declares ``TRAINER`` and ``GAME``, so that
``cardjax train dmc --game doudizhu`` finds it as ``cardjax train douzero`` does; adding a
command or a recipe is adding its module.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pathlib
import pkgutil
import re
import sys
import textwrap

from cardjax.cli import run_command

DOC = "Train, evaluate and play Chinese card games in JAX."
HERE = pathlib.Path(__file__).parent
PACKAGE = __name__.rpartition(".")[0]
SKIP = ("main",)  # this module


@dataclasses.dataclass(frozen=True)
class Command:
    """A command module (or a group's package), as its source declares it."""

    name: str        # as typed: ``sampling_table`` (``sampling-table`` works too)
    module: str      # ``cardjax.commands.arena``
    summary: str     # one plain-text line
    group: bool = False
    trainer: str | None = None
    game: str | None = None


def plain(text: str) -> str:
    """reST made plain: ``:mod:`x```, ````x```` and ```x``` read as x."""
    text = re.sub(r":[\w:]+:`~?([^`]*)`", r"\1", text)
    return re.sub(r"`{1,2}([^`]*)`{1,2}", r"\1", text)


def summary(doc: str | None) -> str:
    """The first sentence of a docstring's first paragraph, on one line."""
    first = " ".join((doc or "").strip().split("\n\n")[0].split())
    sentence = re.split(r"(?<=[.:;])\s", first, maxsplit=1)[0].rstrip(".:;")
    return plain(sentence)


def _constant(tree: ast.Module, name: str):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def commands(package: str = PACKAGE, folder: pathlib.Path = HERE) -> dict[str, Command]:
    """The commands of ``package`` (whose files are in ``folder``), by name."""
    found = {}
    for info in pkgutil.iter_modules([str(folder)]):
        if info.name.startswith("_") or info.name in SKIP:
            continue
        module = f"{package}.{info.name}"
        if info.ispkg:
            tree = ast.parse((folder / info.name / "__init__.py").read_text())
            found[info.name] = Command(info.name, module, summary(ast.get_docstring(tree)),
                                       group=True)
            continue
        tree = ast.parse((folder / f"{info.name}.py").read_text())
        if not any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body):
            continue  # a helper of the commands, not one
        found[info.name] = Command(info.name, module, summary(ast.get_docstring(tree)),
                                   trainer=_constant(tree, "TRAINER"),
                                   game=_constant(tree, "GAME"))
    return dict(sorted(found.items()))


def listing(prog: str, found: dict[str, Command], recipes: bool = False) -> str:
    """One line per command (wrapped at 100 columns); a recipe's names its trainer and game."""
    rows = []
    for name, c in found.items():
        what = c.summary + (f" ({prog} {name} --help)" if c.group else "")
        if recipes:
            serves = f"{c.trainer} --game {c.game}" if c.game else f"{c.trainer} (its data's game)"
            name = f"{name:<{max(map(len, found))}}  {serves}"
        rows.append((name, what))
    width = max((len(n) for n, _ in rows), default=0) + 4
    return "\n".join(textwrap.fill(what, 100, initial_indent=f"  {name:<{width - 2}}",
                                   subsequent_indent=" " * width, break_on_hyphens=False)
                     for name, what in rows)


def usage(prog: str, found: dict[str, Command], doc: str | None) -> str:
    recipes = any(c.trainer for c in found.values())
    word = "recipe" if recipes else "command"
    head = f"usage: {prog} <{word}> [flags]   ({prog} <{word}> --help: its flags)"
    if recipes:
        head += f"\n       {prog} <trainer> --game <game> [flags]"
    return f"{head}\n\n{plain(' '.join((doc or '').split()))}\n\n{word}s:\n" \
           f"{listing(prog, found, recipes)}\n"


def trainer_usage(prog: str, word: str, serving: list[Command]) -> str:
    """``prog word --help`` for a trainer of several games: its games, and how to see one's
    flags (each game's recipe has its own)."""
    games = {c.game: dataclasses.replace(c, summary=f"{c.summary} (recipe {c.name})")
             for c in sorted(serving, key=lambda c: c.game)}
    return (f"usage: {prog} {word} --game <game> [flags]\n"
            f"       {prog} {word} --game <game> --help   (the flags of that game's recipe)\n\n"
            f"{word} trains a player of one of several games; --game picks the game and its "
            f"recipe.\n\ngames:\n{listing(prog, games)}\n")


def _pop_game(argv: list[str]) -> tuple[str | None, list[str]]:
    """``--game G`` (or ``--game=G``) taken out of ``argv``."""
    for i, word in enumerate(argv):
        if word == "--game" and i + 1 < len(argv):
            return argv[i + 1], argv[:i] + argv[i + 2:]
        if word.startswith("--game="):
            return word.split("=", 1)[1], argv[:i] + argv[i + 1:]
    return None, argv


def resolve(found: dict[str, Command], word: str, rest: list[str], prog: str
            ) -> tuple[Command, list[str]]:
    """The command ``word`` names (a module's name, or a trainer with ``--game``) and its args."""
    name = word.replace("-", "_")
    serving = [c for c in found.values() if c.trainer == name]
    if not serving:
        if name in found:
            return found[name], rest
        raise SystemExit(f"error: {prog}: no command {word!r}; "
                         f"one of: {', '.join(found)} ({prog} --help)")
    if len(serving) == 1 and serving[0].game is None:  # the game is its data's: no --game
        return serving[0], rest
    game, args = _pop_game(rest)
    if game is None and len(serving) == 1:
        return serving[0], rest
    games = [c.game for c in serving]
    match = [c for c in serving if c.game == game]
    if not match:
        raise SystemExit(f"error: {prog} {word}: "
                         + ("--game is required" if game is None else f"no recipe for {game!r}")
                         + f"; games: {', '.join(map(str, games))} ({prog} {word} --help)")
    return match[0], args


def dispatch(argv: list[str], prog: str = "cardjax", package: str = PACKAGE,
             folder: pathlib.Path = HERE, doc: str | None = DOC):
    """Run the command ``argv`` names with the rest of ``argv``, or print a listing (``--help``,
    ``help``; ``help X`` is ``X --help``)."""
    while True:
        found = commands(package, folder)
        if argv[:1] == ["help"] and argv[1:]:
            argv = [*argv[1:], "--help"]
        if not argv or argv[0] in ("-h", "--help", "help"):
            print(usage(prog, found, doc), end="", file=sys.stdout if argv else sys.stderr)
            if not argv:
                raise SystemExit(2)
            return None
        serving = [c for c in found.values() if c.trainer == argv[0].replace("-", "_")]
        if len(serving) > 1 and _pop_game(argv[1:])[0] is None \
                and {"-h", "--help"} & set(argv[1:]):  # a trainer's help, before its game's
            print(trainer_usage(prog, argv[0], serving), end="")
            return None
        command, argv = resolve(found, argv[0], argv[1:], prog)
        prog = f"{prog} {command.name}"
        if not command.group:
            break
        package, folder = command.module, folder / command.name
        doc = importlib.import_module(package).__doc__
    module = importlib.import_module(command.module)
    saved = sys.argv[:]
    # argparse's prog (``cardjax arena``) and the command line a run records as its lineage:
    # the command's words, then its own flags
    sys.argv[:] = [prog] + list(argv)
    try:
        return module.main(argv)
    finally:
        sys.argv[:] = saved


def main(argv=None) -> None:
    """``cardjax <command> [flags]``: the command's ``main(flags)`` under
    :func:`cardjax.cli.run_command` (one-line errors, the compilation cache).  Returns None: a
    console script exits with what its entry point returns."""
    argv = sys.argv[1:] if argv is None else list(argv)
    run_command(lambda: dispatch(argv))

