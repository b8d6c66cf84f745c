"""Mini Dou Di Zhu's card (:class:`cardjax.spec.GameSpec`)."""

from cardjax.spec import GameSpec

SPEC = GameSpec(
    name="mini_doudizhu",
    order=3,
    play_label="Plays",  # rounds of plays, not tricks
    title="Mini Dou Di Zhu",
    blurb="Two seats, eighteen cards: play one rank at a time, beat it or pass.",
    env="cardjax.games.mini_doudizhu.env:MiniDouDizhu",
    default_opponent="random",
    scheme="cardjax.games.mini_doudizhu.metrics:scheme",
    search={},  # the paper's: wins, k = 1
    table="cardjax.games.mini_doudizhu.table:MiniTable",
    table_seconds=15,  # 3 x the 5 s of a machine three times faster
)
