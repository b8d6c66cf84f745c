"""Freeing compiled programs before the kernel's cap on mapped regions (cardjax.programs)."""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import pytest

import cardjax
from cardjax import programs
from cardjax.eval import arena
from cardjax.train import runner


@pytest.fixture
def kept():
    cache = programs.keep({})
    yield cache
    programs._KEPT[:] = [c for c in programs._KEPT if c is not cache]  # by identity: {} == {}


def test_the_mapped_regions_are_this_process_maps():
    if programs.mapped_regions() is None:
        pytest.skip("no /proc here")
    with open("/proc/self/maps") as f:
        lines = sum(1 for _ in f)
    assert abs(programs.mapped_regions() - lines) < 50 and lines > 10
    assert programs.map_limit() >= 1000


def test_a_compiled_cpu_program_maps_regions_that_release_frees(kept):
    if programs.mapped_regions() is None:
        pytest.skip("no /proc here")
    programs.release()
    before = programs.mapped_regions()
    fns = [jax.jit(lambda x, k=k: jnp.sort(jnp.sin(x) * k) + jnp.cumsum(x) * k) for k in range(20)]
    kept.update({k: f.lower(jnp.ones(7)).compile() for k, f in enumerate(fns)})
    grown = programs.mapped_regions()
    assert grown > before + 20  # every program's kernels are mapped while it lives
    programs.release()
    assert kept == {}
    assert programs.mapped_regions() < grown - 20


def test_guard_frees_past_its_share_of_the_cap_only(kept, monkeypatch):
    kept["program"] = object()
    used = 1000
    monkeypatch.setattr(programs, "mapped_regions", lambda: used)
    monkeypatch.setattr(programs, "map_limit", lambda: 3000)
    assert programs.guard() is False and kept  # 1000 of 3000: below half
    used = 1600
    done = []
    thread = threading.Thread(target=lambda: done.append(programs.guard()))
    thread.start()
    thread.join()
    assert done == [False] and kept  # another thread never frees
    assert programs.guard() is True and kept == {}
    monkeypatch.setattr(programs, "mapped_regions", lambda: None)
    kept["program"] = object()
    assert programs.guard() is False and kept  # no /proc: nothing to go by


def test_the_arena_and_the_runner_keep_their_programs_where_release_finds_them():
    assert any(c is arena._PLAY_CACHE for c in programs._KEPT)
    assert any(c is runner._COMPILED for c in programs._KEPT)


def test_compile_cost_measures_a_cold_compile():
    """``compile_cost`` times a compile and sizes its program (a bigger graph is a bigger program
    text), and leaves the persistent cache as it found it."""
    import jax.numpy as jnp

    small = programs.compile_cost(lambda x: x + 1, jnp.zeros(4))
    big = programs.compile_cost(lambda x: jnp.sum(jnp.stack([jnp.sin(x * i) for i in range(40)])),
                                jnp.zeros(4))
    assert small["seconds"] > 0 and big["seconds"] > 0
    assert big["hlo_kb"] > small["hlo_kb"] > 0
    assert jax.config.jax_enable_compilation_cache  # switched back on


def test_compile_cost_compiles_what_the_cache_holds(tmp_path):
    """A program already in the persistent cache is compiled, not loaded (JAX decides once per
    process whether the cache is used; ``compile_cost`` has it decide again), and the cache
    serves the processes' programs again after it."""
    import jax.numpy as jnp

    events = []

    def listen(name, **kw):
        events.append(name)

    jax.monitoring.register_event_listener(listen)

    def f(x):
        return jnp.sum(jnp.stack([jnp.cos(x * i + 0.5) for i in range(30)]))

    x, least = jnp.zeros(3), jax.config.jax_persistent_cache_min_compile_time_secs
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    try:
        jax.jit(lambda a: f(a)).lower(x).compile()  # into the cache (a hit if there already)
        events.clear()
        programs.compile_cost(f, x)
        assert "/jax/compilation_cache/cache_hits" not in events
        events.clear()
        jax.jit(lambda a: f(a)).lower(x).compile()
        assert "/jax/compilation_cache/cache_hits" in events
    finally:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", least)
        jax.monitoring.unregister_event_listener(listen)


def test_the_compile_table_command_measures_every_main_program(tmp_path):
    import json

    from cardjax.commands.bench import compile as command

    rows = command.main(["--games", "mini_doudizhu", "--batch", "4", "--deals", "2", "--json",
                         str(tmp_path / "rows.json")])
    assert [r["program"] for r in rows] == ["step (4 games)", "match random vs random (2 deals)"]
    assert all(r["seconds"] > 0 and r["hlo_kb"] > 0 for r in rows)
    assert json.load(open(tmp_path / "rows.json")) == rows


def test_the_compile_table_has_the_step_of_every_self_play_training_command():
    """Every training command whose trainer learns by self-play (ScrofaZero, DMC) is on the
    table, under its own game; the corpus trainers, whose steps read records, are not."""
    from cardjax.commands.bench import compile as command

    names = {g: sorted(c.name for c in command.training_recipes(g)) for g in cardjax.GAMES}
    assert names == {"gongzhu": ["gongzhu_dmc", "scrofazero"], "doudizhu": ["douzero"],
                     "tractor": ["shengji"], "mini_doudizhu": []}
    assert list(command.training_programs("mini_doudizhu")) == []
    assert command.parse_args(["--no-trainers"]).trainers is False


def test_programs_that_play_many_games_take_their_own_level():
    """On CPU the arena's matches and corpus recording compile at LLVM level 1, whatever
    XLA_FLAGS says (the suite's is 0), and compute what a plain jit does."""
    import jax.numpy as jnp
    import numpy as np

    assert jax.default_backend() == "cpu"
    assert programs.playing_options() == {"xla_backend_optimization_level": 1}
    f = programs.jit_playing(lambda x: jnp.cumsum(x) * 2)
    np.testing.assert_array_equal(f(jnp.arange(5)), np.cumsum(np.arange(5)) * 2)
    # a trainer's step: the waiting level (here the suite's own), the same numbers
    g = programs.jit_training(lambda x: jnp.cumsum(x) * 3)
    np.testing.assert_array_equal(g(jnp.arange(5)), np.cumsum(np.arange(5)) * 3)
    cost = programs.compile_cost(lambda x: x + 1, jnp.zeros(4),
                                 compiler_options=programs.playing_options())
    assert cost["seconds"] > 0 and cost["hlo_kb"] > 0


def test_a_players_move_compiles_at_the_waiting_level_unless_the_process_sets_one(monkeypatch):
    """A player's ``act`` on one state is a program of its own at level 1 on CPU, unless
    XLA_FLAGS set a level for the process (the suite's 0); inside another program (the arena's
    match, a vmap) it is plainly jitted, and both compute the same moves."""
    import jax.numpy as jnp
    import numpy as np

    import cardjax
    from cardjax import agents

    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=false")
    # a move also takes XLA's older emitters (this jaxlib knows them); a trainer's step does not
    assert programs.waiting_options() == {"xla_backend_optimization_level": 1,
                                          "xla_cpu_use_fusion_emitters": False}
    assert programs.training_options() == {"xla_backend_optimization_level": 1}
    monkeypatch.setenv("XLA_FLAGS", "--xla_backend_optimization_level=0")
    assert programs.waiting_options() is None
    assert programs.training_options() is None
    monkeypatch.undo()

    env = cardjax.make("mini_doudizhu")
    player = agents.get(env, "random")
    assert agents.compiled(player) is player  # compiled once
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    states = jax.vmap(env.init)(keys)
    alone = [int(player.act(player.params, k, jax.tree_util.tree_map(lambda x: x[i], states)))
             for i, k in enumerate(keys)]
    inside = jax.jit(jax.vmap(player.act, in_axes=(None, 0, 0)))(player.params, keys, states)
    np.testing.assert_array_equal(np.asarray(inside), alone)
    assert all(bool(jnp.asarray(env.is_legal(jax.tree_util.tree_map(lambda x: x[i], states), a)))
               for i, a in enumerate(alone))


def test_an_option_this_jaxlib_does_not_know_is_left_out():
    """A compiler option the installed jaxlib refuses is dropped (asked once), so a newer or
    older jaxlib without XLA's older emitters still compiles every move."""
    assert programs._known({"xla_cpu_no_such_option_here": False}) == {}
    assert programs._known(programs.OLDER_EMITTERS) == programs.OLDER_EMITTERS


def test_a_baseline_is_built_once_per_env_and_settings():
    """``agents.get`` gives the same player for the same env and settings (one ``act``, so the
    programs compiled for it serve every caller); another env, other settings or a release of
    the kept programs build it again."""
    import cardjax
    from cardjax import agents

    env = cardjax.make("gongzhu")
    greed = agents.get(env, "greed")
    assert agents.get(env, "greed") is greed
    assert agents.get(cardjax.make("gongzhu"), "greed") is not greed
    search = agents.get(env, "ismcts", iterations=10)
    assert agents.get(env, "ismcts", iterations=10) is search
    assert agents.get(env, "ismcts", iterations=20) is not search
    programs.release()
    assert agents.get(env, "greed") is not greed
