"""The toy game's card (:class:`cardjax.spec.GameSpec`): everything cardjax reads about it."""

from cardjax.spec import GameSpec

SPEC = GameSpec(
    name="toy",
    title="Toy",
    blurb="Two seats, eight cards 0..7, three each: the higher card takes the trick; "
          "win two of three.",
    env="toygame.env:Toy",
    players={"low": "toygame.players:make_low"},
    default_opponent="low",
    scheme="toygame.metrics:scheme",
    table="toygame.table:ToyTable",
)
