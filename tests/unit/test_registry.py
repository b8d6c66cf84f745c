"""The game cards and the registry: every game is found from its package's ``spec.py``, every
name-keyed lookup reads the cards, and ``cardjax.api_test`` catches a game that breaks the
contract."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import pytest
from flax import struct

import cardjax
from cardjax import agents, registry
from cardjax.agents import search
from cardjax.games.mini_doudizhu.env import MiniDouDizhu
from cardjax.games.mini_doudizhu.env import State as MiniState
from cardjax.spec import GameSpec, resolve


def test_the_games_are_found_from_their_packages_in_their_order():
    assert cardjax.GAMES == registry.names() == ("gongzhu", "doudizhu", "mini_doudizhu", "tractor")
    for name in cardjax.GAMES:
        spec = registry.spec(name)
        assert spec.name == name and spec.title and spec.blurb
        env = cardjax.make(name)
        assert env.name == name and env.version == spec.version == "1"
        assert type(env) is spec.env_class()
        assert spec.default_opponent in agents.baselines(name)
        assert set(spec.players) <= set(agents.baselines(name))
        assert spec.duplicate_scheme(env).side in ("team", "sum")
        assert spec.table_class().__name__.endswith("Table")


def test_lookups_read_the_cards():
    assert search.defaults(cardjax.make("gongzhu")) == {"utility": "score", "k": 30.0}
    assert search.defaults(cardjax.make("doudizhu")) == {"utility": "win", "k": 1.0}
    assert "greed" in agents.baselines("gongzhu")
    assert "greed" not in agents.baselines("tractor")
    assert "tractor-pretrained" in agents.baselines("tractor")
    assert "tractor-pretrained" not in agents.baselines("gongzhu")


def test_unknown_names_and_bad_references_are_clear_errors():
    with pytest.raises(ValueError, match="unknown game 'chess'; available: gongzhu, doudizhu"):
        cardjax.make("chess")
    with pytest.raises(ValueError, match="bad options for 'gongzhu'"):
        cardjax.make("gongzhu", no_such_option=1)
    with pytest.raises(ValueError, match="is not 'package.module:attribute'"):
        resolve("cardjax.games.gongzhu.env")
    with pytest.raises(ValueError, match="a game called 'gongzhu' is registered already"):
        registry.register(dataclasses.replace(registry.spec("gongzhu"), title="Another"))
    with pytest.raises(TypeError):
        registry.register({"name": "x"})


def test_a_game_registered_at_run_time_is_made_and_forgotten():
    spec = GameSpec(name="mini_copy", title="Mini copy", blurb="the same rules",
                    env="cardjax.games.mini_doudizhu.env:MiniDouDizhu")
    registry.register(spec)
    try:
        assert "mini_copy" in cardjax.GAMES and cardjax.GAMES[-1] == "mini_copy"
        assert isinstance(cardjax.make("mini_copy"), MiniDouDizhu)
        with pytest.raises(ValueError, match="no duplicate scheme"):
            spec.duplicate_scheme(cardjax.make("mini_copy"))
    finally:
        registry.unregister("mini_copy")
    assert "mini_copy" not in cardjax.GAMES


def test_recorded_versions_are_checked():
    assert registry.check_version("tractor@1", "a run") == "tractor"
    assert registry.check_version("tractor", "a run") == "tractor"  # recorded before versions
    with pytest.raises(ValueError, match=r"a run was made with tractor@7; this cardjax has "
                                         r"tractor@1 \(install a cardjax whose tractor is version 7\)"):
        registry.check_version("tractor@7", "a run")


class _NotZeroSum(MiniDouDizhu):
    def _step(self, state, action, key):
        nxt = super()._step(state, action, key)
        return nxt.replace(rewards=nxt.rewards + jnp.float32(1.0))


class _FirstPick(MiniDouDizhu):
    """Picks the first legal action whatever ``u``: still legal, but not the k-th."""

    def pick_action(self, u, state):
        return jnp.argmax(state.legal_action_mask).astype(jnp.int32)


class _OwnRandom(MiniDouDizhu):
    """A random_action of its own that is not pick_action of its key's uniform number."""

    def random_action(self, key, state):
        return self.pick_action(1.0 - jax.random.uniform(key), state)


# Mini Dou Di Zhu's fields in a dataclass of their own, not a cardjax.core.State
_LOOSE = struct.dataclass(type("_Loose", (), {"__annotations__": {
    f: jax.Array for f in MiniState.__dataclass_fields__}}))


class _NotAState(MiniDouDizhu):
    def init(self, key):
        state = super().init(key)
        return _LOOSE(**{f: getattr(state, f) for f in MiniState.__dataclass_fields__})


def test_the_contract_test_catches_a_broken_game():
    with pytest.raises(AssertionError, match=r"contract: the state \(_Loose\) does not extend "
                                             r"cardjax.core.State"):
        cardjax.api_test(_NotAState(), num=2)
    with pytest.raises(AssertionError, match="contract: rewards are not zero-sum at step 0"):
        cardjax.api_test(_NotZeroSum(), num=2)
    with pytest.raises(AssertionError, match="contract: pick_action.u. is not the floor"):
        cardjax.api_test(_FirstPick(), num=2)
    with pytest.raises(AssertionError, match="contract: random_action is not pick_action"):
        cardjax.api_test(_OwnRandom(), num=2)


def test_runs_and_players_record_their_rules(tmp_path):
    import json
    import shutil

    import numpy as np

    from cardjax.agents import pretrained
    from cardjax.checkpoint import Checkpoints

    ckpt = Checkpoints(str(tmp_path / "run"))
    ckpt.save(1, {"w": np.zeros(2, np.float32)}, {"game": "gongzhu", "lr": 0.1})
    ckpt.wait()
    assert ckpt.config(1) == {"game": "gongzhu", "lr": 0.1}  # read back without its record
    saved_path = tmp_path / "run" / "checkpoints" / "1" / "config" / "metadata"
    saved = json.load(open(saved_path))
    assert saved["rules"] == "gongzhu@1"
    json.dump({**saved, "rules": "gongzhu@5"}, open(saved_path, "w"))
    with pytest.raises(registry.RulesMismatch, match="gongzhu@5; this cardjax has gongzhu@1"):
        ckpt.config(1)
    ckpt.close()

    assert pretrained.info("tractor-pretrained")["rules"] == "tractor@1"
    other = tmp_path / "player"
    shutil.copytree(pretrained.path("tractor-pretrained"), other / "tractor-pretrained")
    meta_path = other / "tractor-pretrained" / "player.json"
    meta = json.load(open(meta_path))
    meta["rules"] = "tractor@2"
    json.dump(meta, open(meta_path, "w"))
    with pytest.raises(ValueError, match="was made with tractor@2; this cardjax has tractor@1"):
        pretrained.load(cardjax.make("tractor"), "tractor-pretrained", directory=str(other))


def test_the_public_subpackages_are_reachable_after_import_cardjax():
    import subprocess
    import sys

    code = ("import cardjax; env = cardjax.make('mini_doudizhu'); "
            "print(cardjax.agents.get(env, 'random').name, cardjax.registry.names()[0], "
            "cardjax.cards.parse_cards('SQ'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["random", "gongzhu", "[10]"]
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        cardjax.nothing_here  # noqa: B018
