"""Train ShengJi+ (Deep Monte Carlo) for Tractor by self-play, and evaluate it against random and
the rule agent.

    cardjax train shengji                                              # small CPU run, minutes
    cardjax train shengji --num_envs 2048 --width 512 --depth 3 --head_width 256 \\
        --head_depth 3 --minibatch 8192 --iterations 600 --eval_every 50 --eval_deals 512 \\
        --out runs/shengji_gpu                                         # one GPU
    cardjax train shengji --out runs/shengji_gpu --resume              # continue a stopped run

Every iteration plays ``--num_envs`` Tractor hands (random level and dealer) with epsilon-greedy
Q networks, one per phase as in the ShengJi+ report -- ``declare``, ``bury`` (one card per
decision), ``chaodi`` and ``play`` (one card, or "done", per decision) -- all four seats sharing a
phase's network and seeing the game from their own seat (``cardjax.train.dmc``, non-lockstep
roles).  Each decision's target is its seat's discounted return (``--gamma`` per decision) of
the per-trick point rewards (``--point_reward`` per point: the points the seat's team took in a
trick, or minus those the other team took, throw penalties and the kitty bonus included) and of
the final level reward (levels gained, or minus the levels the other team gained);
``--discount trick`` discounts per trick instead of per decision (a hand is ~280 decisions, so per
decision the level reward barely reaches the declaration and burial networks).  ``--target trick``
is the report's own target (4.4): a trick decision learns the points of its own trick plus the
final level reward times gamma per trick left, without the later tricks' points.
``--encoding dynamic`` (default) places the cards in the features by the hand's level and trump,
the report's dynamic encoding (``static``: fixed places); ``--trick_facts true`` (default) appends
the cards the seat has not seen, the seat holding the trick and the points on the table.
``--leads units`` makes a lead one decision among the seat's singles, pairs and tractors (no
throws; ``cardjax.games.tractor.leads``); ``--consequences true`` shows each candidate who would
hold the trick after it (``--security true``: and whether the next seat may still take it);
``--counterfactual W`` trains the last seat's other cards on their exact trick points
(``--after_states N``: each with the rest of the hand after it, the networks' value of the state
it leaves; ``--rollouts true`` trains the second and third seats' cards too, on their tricks
played out by the rule player, and ``--after_rollouts true`` values the state each of those
tricks leaves);
``--init_from rule`` lets the rule player make the actors' moves at first (docs/dmc.md has the
strongest command).  ``--throw_penalty 10`` is the env's failed-throw penalty (the report's
combo-move penalty);
``--oracle_iterations N`` shows the other hands and the kitty during training with a
probability falling from 1 to 0 over the first N iterations (oracle guiding, report 4.5); the
trained player always sees them as zeros.  Every ``--eval_every`` iterations (and after the last)
the greedy networks play duplicate hands (teams swapped) against random and the rule agent
(``cardjax.eval.arena``): ``eval.json`` gets the leveling rate against random as ``mean`` +-
``stderr`` (ratio estimator over deals), and the win rate, leveling rate and AAPD (report 4.6)
against both.

The run directory ``--out`` gets ``metrics.jsonl`` (loss per phase network, frames/s = decisions
trained per second, decisions per phase, overflow and truncation counts, ...), ``eval.json``,
``curves.png`` and orbax checkpoints (every ``--checkpoint_every`` iterations); ``--resume``
continues the newest checkpoint exactly as if the run had never stopped.  The evaluation
settings are saved with the run too (``eval_settings.json``; a flag typed on ``--resume``
replaces its saved value).  The games are split over every device of every process
(``--multihost``).  Each evaluation writes the greedy player to ``--out``/``player`` (an artifact
that loads without the trainer: ``cardjax arena --game tractor --a DIR/player --b rule``).
"""

from __future__ import annotations

import jax

from cardjax import agents
from cardjax.commands.train import evaluation
from cardjax.eval import arena
from cardjax.games.tractor import metrics as tractor_metrics
from cardjax.train import dmc
from cardjax.train.dmc import cli as dmc_cli

# The recipe ``cardjax train dmc --game tractor`` runs.
TRAINER = "dmc"
GAME = "tractor"

# Small defaults: an iteration takes a few seconds on a CPU core (the Tractor adapter's defaults
# follow the report: gamma 0.95, epsilon 0.015).  No LSTM: the features hold no move history.
TRAIN_DEFAULTS = dmc_cli.train_defaults(GAME, num_envs=16, width=128, depth=2, head_width=64,
                                        head_depth=2, minibatch=512)
OPPONENTS = ("random", "rule")


def parse_args(argv=None):
    return dmc_cli.make_parser(__doc__, "runs/shengji", 20, TRAIN_DEFAULTS,
                               "duplicate hands against random and the rule agent",
                               skip=("reward",), eval_deals=32).parse_args(argv)


def make_evaluate(cfg: dmc.Config, params, deals: int, seed: int):
    """``evaluate(state) -> dict`` for the runner: the leveling rate against random as
    ``mean``."""
    # the standard game, whatever the training options
    env, player, opponents = evaluation.players(cfg, GAME, tuple(OPPONENTS))

    def evaluate(state):
        me = player._replace(params=jax.device_get(state.params))
        out = {}
        for name, opp in opponents.items():
            r = arena.duplicate_match(env, me, opp, deals=deals, seed=seed,
                                      batch=min(deals, 64), progress=False, per_deal=True)
            rate, se = tractor_metrics.leveling_rate(r["per_game"])
            out[f"vs_{name}"] = {k: r[k] for k in (
                "mean", "stderr", "games", "win_rate", "level_up_rate", "leveling_rate", "aapd",
                "a_attack_points", "b_attack_points", "levels_a", "levels_b")}
            out[f"vs_{name}"]["leveling_rate_stderr"] = se
            for k in ("win_rate", "leveling_rate", "aapd"):
                out[f"{k}_vs_{name}"] = r[k]
        rate, se = out["vs_random"]["leveling_rate"], out["vs_random"]["leveling_rate_stderr"]
        return {"mean": rate, "stderr": se, "opponent": "random", "metric": "leveling_rate",
                **out}

    evaluate.prepare = lambda state: arena.compile_matches(  # compiled while training starts
        env, player._replace(params=jax.device_get(state.params)), opponents.values(), deals,
        seed, min(deals, 64))
    info = {"opponents": list(opponents), "main_opponent": "random", "deals": deals,
            "seed": seed, "scoring": "leveling rate (mean); win rate, AAPD", "play": "greedy"}
    return evaluate, info


def _summarize(last: dict) -> dict:
    return {k: last[k] for k in (
        "leveling_rate_vs_random", "win_rate_vs_random", "aapd_vs_random",
        "leveling_rate_vs_rule", "win_rate_vs_rule", "aapd_vs_rule")}


def main(argv=None) -> dict:
    return dmc_cli.main(parse_args(argv), TRAIN_DEFAULTS, make_evaluate, label="ShengJi+ (DMC)",
                        eval_name="leveling rate vs random", summarize=_summarize,
                        load_player=agents.load)
