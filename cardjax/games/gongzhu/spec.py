"""Gongzhu's card (:class:`cardjax.spec.GameSpec`)."""

from cardjax.spec import GameSpec

SPEC = GameSpec(
    name="gongzhu",
    order=1,
    title="Gongzhu",
    blurb="Four seats, two teams. Follow suit; dodge the pig (Q♠) and the hearts, "
          "catch the sheep (J♦).",
    env="cardjax.games.gongzhu.env:Gongzhu",
    players={"if": "cardjax.games.gongzhu.mr_if:make",
             "greed": "cardjax.games.gongzhu.mr_greed:make"},
    default_opponent="greed",
    scheme="cardjax.games.gongzhu.metrics:scheme",
    search=dict(utility="score", k=30.0),  # points; ScrofaZero's c = 30 on the same scale
    table="cardjax.games.gongzhu.table:GongzhuTable",
    table_seconds=73,  # a laptop with nothing cached
    page_options=({"name": "exposure", "label": "Exposure phase", "default": False},),
)
