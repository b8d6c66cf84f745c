"""What a DMC extension is, and how the trainer composes them.

The core trainer (self-play, Monte-Carlo targets, the MSE learner) is DouZero's.  Every research
idea on top of it is one module of ``cardjax/train/dmc/extensions/`` holding an
:class:`Extension` called ``EXTENSION``: its options (a frozen dataclass whose fields' metadata
are its flags, :func:`cardjax.cli.option`), the game capabilities it needs, when it is on, and
``build``, which returns the :class:`Hooks` it adds to the trainer — the way optax chains
gradient transformations: each hook sees what the ones before it made.

The hooks, each optional (None: the extension does not take part in that phase):

- ``fields``: ``{name: (tail shape, dtype)}`` arrays the extension adds to each stored decision
  (:class:`~cardjax.train.dmc.state.Decisions` ``extra``; the replay buffer keeps them);
- ``buffers``: ``{name: (tail shape, dtype)}`` arrays it records at each self-play step;
- ``keys``: how many of each step's random keys it takes (``s["keys"][name]``);
- ``begin(run)``: once per self-play batch (``run``: a dict with ``iteration``, ``B``, ``T``);
- ``observe(run, s)``: before the features are read (may set ``s["keep"]``, the oracle);
- ``choose(run, s, q) -> q``: the candidates' scores the actors choose by;
- ``act(run, s)``: after the actors chose ``s["slot"]`` (may change it);
- ``record(run, s) -> dict``: the step's rows of its ``buffers`` (after the env stepped);
- ``step_stats``: ``{name: zero}`` accumulators, incremented by ``s["stats"]`` in ``act`` or
  ``record``;
- ``returns(run, bufs, final) -> dict``: keywords of :func:`~cardjax.train.dmc.targets.returns`;
- ``targets(run, bufs, final, target, weight) -> (target, weight)``;
- ``decisions(run, bufs, target, weight) -> dict``: its ``fields`` of the batch's decisions;
- ``stats(run, bufs, final, extra, stats) -> dict``: statistics of the batch;
- ``rows(extra) -> int32 [N, n]``: more candidate rows whose Q the learner computes, and
  ``loss(q, extra, w) -> float``: the extension's weighted loss sum on their Q ``[N, n]``;
- ``play``: a dict of play settings of the trained player (the artifact's ``play``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, NamedTuple

from cardjax.nets.dmc import adapter as adapters


class Hooks(NamedTuple):
    fields: dict = {}
    buffers: dict = {}
    keys: int = 0
    begin: Callable | None = None
    observe: Callable | None = None
    choose: Callable | None = None
    act: Callable | None = None
    record: Callable | None = None
    step_stats: dict = {}
    returns: Callable | None = None
    targets: Callable | None = None
    decisions: Callable | None = None
    stats: Callable | None = None
    rows: Callable | None = None
    loss: Callable | None = None
    play: dict = {}


# what each capability an extension may require says of a game, for the error that refuses it
CAPABILITIES = {
    "ticks": "marks trick ends",
    "oracle": "has an oracle view",
    "counterfactuals": "knows the exact step rewards of alternative actions",
    "advises": "names a reference player's move",
}


@dataclasses.dataclass(frozen=True)
class Extension:
    """One research idea on top of the core trainer.

    ``name``: its module's name; ``options``: its frozen options dataclass (defaults: off; its
    ``__post_init__`` checks its own fields); ``on(options) -> bool``; ``requires``: the adapter
    capabilities it needs when on (:data:`CAPABILITIES`; an adapter's capability is a bool, or a
    function of the adapter's options); ``check(options, cfg)``: checks against the rest of the
    config (raise ``ValueError``); ``build(options, cfg, game, resources) -> Hooks``
    (``resources``: what the caller passed: the prior player, ``net``, the networks' module,
    whose ``params`` a self-play step holds in ``s["params"]``)."""

    name: str
    options: type
    on: Callable
    build: Callable
    requires: tuple = ()
    check: Callable | None = None

    def option_names(self) -> tuple:
        return tuple(f.name for f in dataclasses.fields(self.options))

    def offered(self, adapter) -> bool:
        """Whether a game's adapter can have this extension at all (its flags are offered)."""
        return all(getattr(adapter, cap) for cap in self.requires)

    def missing(self, adapter, adapter_options) -> tuple:
        """The capabilities it needs that the game lacks under these adapter options."""
        def has(cap):
            value = getattr(adapter, cap)
            return bool(value(adapter_options) if callable(value) else value)

        return tuple(cap for cap in self.requires if not has(cap))


class Composition(NamedTuple):
    """The extensions of a config: ``(extension, options)`` for every registered one, in their
    registered order, and their options' values by key."""

    parts: tuple
    values: dict

    def active(self) -> tuple:
        return tuple((ext, opts) for ext, opts in self.parts if ext.on(opts))


def compose(extensions: tuple, cfg) -> Composition:
    """Read ``cfg.extensions`` into each extension's options (defaults where a key is absent;
    each options class checks its own fields).  ``ValueError`` names an unknown key."""
    saved = dict(cfg.extensions)
    claimed = {k for ext in extensions for k in ext.option_names()}
    unknown = sorted(set(saved) - claimed)
    if unknown:
        known = sorted(set(cfg.core_names()) | claimed
                       | set(adapters.get(cfg.game).option_names()))
        raise ValueError(f"unknown config keys {unknown} for {cfg.game}; known: {known}")
    parts, values = [], {}
    for ext in extensions:
        opts = ext.options(**{k: saved[k] for k in ext.option_names() if k in saved})
        parts.append((ext, opts))
        values.update(dataclasses.asdict(opts))
    return Composition(tuple(parts), values)


def check(composition: Composition, cfg) -> None:
    """Check the active extensions of ``cfg`` (whose options ``cfg`` already reads by name):
    the game's capabilities each needs, and each one's own check against the rest of the
    config.  ``ValueError`` names what is wrong."""
    adapter = adapters.get(cfg.game)
    for ext, opts in composition.active():
        missing = ext.missing(adapter, cfg.options)
        if missing:
            keys = [k for k in ext.option_names()
                    if getattr(opts, k) != dataclasses.fields(opts)[
                        ext.option_names().index(k)].default]
            raise ValueError(f"{', '.join(keys) or ext.name} needs a game that "
                             f"{' and '.join(CAPABILITIES[c] for c in missing)}, which "
                             f"{cfg.game}'s DMC adapter does not (with these options)")
        if ext.check is not None:
            ext.check(opts, cfg)


def build(composition: Composition, cfg, game, **resources) -> tuple:
    """The :class:`Hooks` of the active extensions, as ``(name, hooks)`` pairs in order."""
    return tuple((ext.name, ext.build(opts, cfg, game, resources))
                 for ext, opts in composition.active())


def merged(hooks: tuple, name: str) -> dict:
    """The union of the dict hook ``name`` (``fields``, ``buffers``, ``step_stats``, ``play``)."""
    out: dict[str, Any] = {}
    for _, h in hooks:
        out.update(getattr(h, name))
    return out
