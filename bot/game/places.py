"""Where a table is played, and who may look back at it.

A :class:`Place` is a server, or the direct messages of one person: every table has one, and
every read of past matches (history, replays, results, records, leaderboards) is scoped by it. A
direct message has no server id, so "no server" is never a place of its own: the direct messages
of Ann and those of Bob are two places, and Ann's solo matches are hers alone.

Storage keeps a place as its :attr:`Place.key` (``guild:<id>`` or ``dm:<id>``), never empty;
the direct messages of a person forgotten on request are their pseudonym's (``dm:-<number>``,
see :mod:`bot.storage.core.people`), which no person is in.

A :class:`Sight` is what a person may see where they ask: the place, and the channels of it
they may view (the Discord side works them out from the member's roles and the channels'
permission overwrites; the game only reads the answer).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

PlaceKind = Literal["guild", "dm"]


@dataclass(frozen=True, slots=True)
class Place:
    """A server (``kind`` "guild", ``id`` the server's id) or the direct messages of a person
    (``kind`` "dm", ``id`` the person's user id)."""

    kind: PlaceKind
    id: int

    @classmethod
    def server(cls, guild_id: int) -> Place:
        """The server ``guild_id``."""
        return cls("guild", guild_id)

    @classmethod
    def dms(cls, user_id: int) -> Place:
        """The direct messages of person ``user_id`` with the bot."""
        return cls("dm", user_id)

    @classmethod
    def of(cls, guild_id: int | None, user_id: int) -> Place:
        """Where person ``user_id`` is when Discord says server ``guild_id`` (None: outside any
        server, so in their own direct messages)."""
        return cls.server(guild_id) if guild_id is not None else cls.dms(user_id)

    @classmethod
    def from_key(cls, key: str) -> Place:
        """The place stored as ``key``; ValueError for a key that names none."""
        kind, _, number = key.partition(":")
        digits = number[1:] if kind == "dm" and number.startswith("-") else number
        if kind not in ("guild", "dm") or not digits.isdigit():
            raise ValueError(f"not a place: {key!r}")
        return cls("guild" if kind == "guild" else "dm", int(number))

    @property
    def key(self) -> str:
        """The place as storage keeps it."""
        return f"{self.kind}:{self.id}"

    @property
    def guild_id(self) -> int | None:
        """The server's id, or None for a person's direct messages."""
        return self.id if self.kind == "guild" else None


@dataclass(frozen=True, slots=True)
class Sight:
    """What a person asking at ``place`` may look back at: the matches of that place played in
    ``channels`` (None: in any of its channels, as in a person's own direct messages)."""

    place: Place
    channels: frozenset[int] | None = None

    @classmethod
    def of(cls, place: Place, channels: Collection[int] | None) -> Sight:
        """The sight of ``place`` limited to ``channels`` (None: all of them)."""
        return cls(place, None if channels is None else frozenset(channels))

    def sees(self, place_key: str, channel_id: int) -> bool:
        """Whether a match stored at place ``place_key`` in channel ``channel_id`` is in sight."""
        return place_key == self.place.key and (self.channels is None
                                                or channel_id in self.channels)


__all__ = ["Place", "PlaceKind", "Sight"]
