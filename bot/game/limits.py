"""How many matches one person may play at once (``KARAK_MATCH_LIMIT``), so that nobody fills
the bot's machine, and Discord's patience with the bot, with matches against the AI alone.

Only running matches whose turn timer is shorter than a slow match's (:data:`SLOW`: slow
matches are played across days and wait on their people most of the time) count: those a
person holds a seat at and still plays, and those they still host once their seat went to the
AI (the AI plays on there). A match is refused to the person who starts it when they are at the
limit: its host at Start, ``/goblin learn``, a rematch's host; a slow match always starts, and
a tournament's round seats its players whatever else they play (its host seated it, not them).
A person who joins someone else's lobby is not refused: its host is counted.

A person's count and the start it allows are one step under that person's lock
(:meth:`MatchLimit.room`), so two Starts of one person on two lobbies at once cannot both pass
at the limit. Several processes on one database each hold their own locks: clicks of one person
answered by two processes at the same instant may pass it by one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from bot.game.refusals import Refusal
from bot.game.reminders import SLOW
from bot.storage.interface import Storage
from bot.storage.records import TableRecord
from i18n import msg

#: Matches one person may play at once by default (``KARAK_MATCH_LIMIT``; 0: no limit).
MATCH_LIMIT = 5
#: The highest limit the setting takes.
MAX_MATCH_LIMIT = 1000


class TooMany(Refusal):
    """The person starting a match already plays as many as the bot allows at once
    (``count``: how many they play; ``limit``: how many the bot allows). Once an admin lowered
    the limit below what they play, ending one is not enough: they are told how many to end."""

    def __init__(self, count: int, limit: int, record: TableRecord | None = None) -> None:
        told = (msg("bot.error.too_many_matches", count=count, limit=limit) if count <= limit
                else msg("bot.error.too_many_matches_over", count=count, limit=limit,
                         ends=count - limit + 1))
        super().__init__(told, record)
        self.count = count
        self.limit = limit


def counted(record: TableRecord, user_id: int) -> bool:
    """Whether ``record`` counts among the matches ``user_id`` plays at once: running, not
    slow, and they hold a seat there that they still play, or that went to the AI while they
    still host the match."""
    seat = record.seat_of(user_id)
    return (record.status == "running" and record.timer < SLOW and seat is not None
            and (not record.seats[seat].ai or record.host_id == user_id))


@dataclass
class MatchLimit:
    """The limit of matches at once (``limit``; 0: none) and each person's lock over it."""

    store: Storage
    limit: int = MATCH_LIMIT
    #: Each person's lock while a start of theirs is decided, with the starts holding or
    #: awaiting it (dropped when none is left).
    _locks: dict[int, tuple[asyncio.Lock, list[int]]] = field(default_factory=dict)

    def applies(self, timer: int) -> bool:
        """Whether a match of turn timer ``timer`` is limited (and counted)."""
        return self.limit > 0 and timer < SLOW

    async def playing(self, user_id: int) -> int:
        """How many matches ``user_id`` plays at once (:func:`counted`)."""
        return sum(counted(r, user_id) for r in await self.store.running_of(user_id))

    async def check(self, user_id: int, timer: int, record: TableRecord | None = None) -> None:
        """Refuse (:class:`TooMany`, with ``record``) a match of turn timer ``timer`` that
        ``user_id`` would start now at the limit; without their lock: a start made then must
        be checked again in :meth:`room`."""
        if not self.applies(timer):
            return
        count = await self.playing(user_id)
        if count >= self.limit:
            raise TooMany(count, self.limit, record)

    @asynccontextmanager
    async def room(self, user_id: int, timer: int,
                   record: TableRecord | None = None) -> AsyncIterator[None]:
        """Hold ``user_id``'s lock, refuse as :meth:`check` does, and let the caller start the
        match within (the next start of theirs counts it)."""
        if not self.applies(timer):
            yield
            return
        lock, users = self._locks.setdefault(user_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                await self.check(user_id, timer, record)
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                self._locks.pop(user_id, None)


__all__ = ["MATCH_LIMIT", "MAX_MATCH_LIMIT", "MatchLimit", "TooMany", "counted"]
