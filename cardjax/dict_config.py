"""A frozen config dataclass that saves as a JSON dict and reads back, refusing unknown keys."""

from __future__ import annotations

import dataclasses


class DictConfig:
    """``to_dict`` / ``from_dict`` for a trainer's frozen config dataclass (saved as JSON with
    every checkpoint); unknown keys are an error that lists the known ones."""

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict):
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)}; known: {sorted(known)}")
        return cls(**d)
