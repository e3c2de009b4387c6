"""The ways the service turns a request down: each carries the translatable reason to show and,
when known, the table as it was read under its lock (so a stale message can be redrawn)."""

from __future__ import annotations

from bot.storage.records import TableRecord
from i18n import Msg


class Refusal(Exception):
    """A request the service turns down politely; ``reason`` is the message to show."""

    def __init__(self, reason: Msg, record: TableRecord | None = None) -> None:
        super().__init__(reason.key)
        self.reason = reason
        self.record = record


class NoTable(Refusal):
    """No such table, or no active table in the channel."""


class Damaged(Refusal):
    """The table's stored row is corrupt; nothing can be done with it but abandoning it.
    ``place_key`` and ``channels`` are what could be read of where it is played (None, and
    none, when even that is damaged)."""

    def __init__(self, reason: Msg, place_key: str | None = None,
                 channels: tuple[int, ...] = ()) -> None:
        super().__init__(reason)
        self.place_key = place_key
        self.channels = channels


class Stale(Refusal):
    """The click was made on an older version of the table (or lobby): already played."""


class NotSeated(Refusal):
    """The user holds no seat at this table."""


class OutOfTurn(Refusal):
    """The user holds a seat but another seat must decide."""


class Ask(Refusal):
    """The move is easy to regret: nothing was applied, and ``reason`` is the question to ask
    seat ``seat`` before it (:mod:`bot.game.guard`); the answer's button carries ``notation``
    and ``version``."""

    def __init__(self, reason: Msg, record: TableRecord, seat: int, notation: str,
                 version: int) -> None:
        super().__init__(reason, record)
        self.table = record
        self.seat = seat
        self.notation = notation
        self.version = version


class Illegal(Refusal):
    """The engine refused the move (or the notation could not be read)."""


__all__ = ["Ask", "Damaged", "Illegal", "NoTable", "NotSeated", "OutOfTurn", "Refusal", "Stale"]
