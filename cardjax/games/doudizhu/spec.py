"""Dou Dizhu's card (:class:`cardjax.spec.GameSpec`)."""

from cardjax.spec import GameSpec

SPEC = GameSpec(
    name="doudizhu",
    order=2,
    play_label="Plays",  # rounds of plays, not tricks
    title="Dou Dizhu",
    blurb="Three seats: bid to be the landlord, who plays alone against two peasants. "
          "First to empty the hand wins.",
    env="cardjax.games.doudizhu.env:DouDizhu",
    players={"rule": "cardjax.games.doudizhu.rule:make",
             "bidder": "cardjax.games.doudizhu.bidder:make"},
    default_opponent="rule",
    scheme="cardjax.games.doudizhu.metrics:scheme",
    search={},  # the paper's: wins, k = 1
    table="cardjax.games.doudizhu.table:DouDizhuTable",
    table_seconds=36,  # 3 x the 12 s of a machine three times faster
    page_options=({"name": "bidding", "label": "Bidding", "default": True},
                  {"name": "spring", "label": "Spring doubles", "default": False}),
    complete_player="cardjax.games.doudizhu.bidder:complete",
)
