"""The trainer's config: :class:`cardjax.nets.dmc.config.Config` (what a trained network
reads) with its extensions' options checked and readable by name (``cfg.lam``)."""

from __future__ import annotations

import dataclasses

from cardjax.nets.dmc import config as base
from cardjax.train.dmc.extension import Composition, check, compose
from cardjax.train.dmc.extensions import EXTENSIONS


@dataclasses.dataclass(frozen=True)
class Config(base.Config):
    """A DMC run's config: the core fields, the adapter's options and every registered
    extension's options (:mod:`cardjax.train.dmc.extensions`), all checked when it is made;
    ``extensions`` holds every extension option, defaults included, so equal configs are equal."""

    def __post_init__(self):
        super().__post_init__()
        composition = compose(EXTENSIONS, self)
        object.__setattr__(self, "_composition", composition)
        object.__setattr__(self, "extensions", tuple(sorted(composition.values.items())))
        check(composition, self)

    def __getattr__(self, name):
        values = self.__dict__.get("_composition")
        if not name.startswith("_") and values is not None and name in values.values:
            return values.values[name]
        raise AttributeError(f"{type(self).__name__} has no field or extension option {name!r}")

    @property
    def composition(self) -> Composition:
        return self._composition
