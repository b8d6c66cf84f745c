"""Tractor's card (:class:`cardjax.spec.GameSpec`)."""

from cardjax.spec import GameSpec

SPEC = GameSpec(
    name="tractor",
    order=4,
    title="Tractor",
    blurb="Four seats, two teams. Declare trumps while the cards are dealt, bury the "
          "kitty, then win points in tricks of singles, pairs and tractors.",
    env="cardjax.games.tractor.env:Tractor",
    players={"rule": "cardjax.games.tractor.rule:make"},
    default_opponent="rule",
    scheme="cardjax.games.tractor.metrics:scheme",
    search=dict(utility="score", k=1.0),  # levels gained per hand
    table="cardjax.games.tractor.table:TractorTable",
    table_seconds=171,  # a laptop with nothing cached
    page_options=({"name": "level", "label": "Level", "default": None,
                   "choices": [None] + [str(r) for r in range(2, 11)] + ["J", "Q", "K", "A"]},
                  {"name": "chaodi", "label": "Overturning", "default": True},
                  {"name": "throws", "label": "Throws", "default": True}),
)
