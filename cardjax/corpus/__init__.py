"""Game corpora: games played by chosen players, stored to disk and streamed back.

:mod:`cardjax.corpus.store` is the format (a directory of compressed shards and a manifest) and
its reader; :mod:`cardjax.corpus.record` plays and records games.  ``cardjax corpus`` is
the command; ``docs/corpus.md`` describes both.
"""

from cardjax.corpus.record import (
    deal_keys, games_from_actions, make_recorder, record_games, replay,
)
from cardjax.corpus.store import (
    SPLITS, VERSION, Corpus, CorpusError, CorpusWriter, Games, open_with_env, split_of,
    state_fields,
)

__all__ = ["Corpus", "CorpusError", "CorpusWriter", "Games", "SPLITS", "VERSION", "deal_keys",
           "games_from_actions", "make_recorder", "open_with_env", "record_games", "replay",
           "split_of", "state_fields"]
