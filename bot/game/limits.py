"""How many matches one person may play at once (``KARAK_MATCH_LIMIT``), so that nobody fills
the bot's machine, and Discord's patience with the bot, with matches against the AI alone.

Only running matches whose turn timer is shorter than a slow match's (:data:`SLOW`: slow
matches are played across days and wait on their people most of the time) count: those a
person holds a seat at and still plays, and those they still host once their seat went to the
AI (the AI plays on there). A match is refused to the person who starts it when they are at the
limit: its host at Start, ``/goblin learn``, a rematch's host; a slow match always starts, and
a tournament's round seats its players whatever else they play (its host seated it, not them).
A person who joins someone else's lobby is not refused: its host is counted.

A person's count and the start it allows are one step: the start's own write counts their
matches under that person's lock in the database (:meth:`MatchLimit.limited`, PostgreSQL's
advisory lock, which every process on the database waits for; SQLite writes one transaction at
a time), so two Starts of one person at once, answered by one process or by two, cannot both
pass at the limit. The check before it (:meth:`MatchLimit.check`) only refuses early, before a
lobby is opened for a start that cannot pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game.refusals import Refusal
from bot.game.reminders import SLOW
from bot.storage.interface import Storage
from bot.storage.records import Limited, TableRecord
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
    """The limit of matches at once (``limit``; 0: none)."""

    store: Storage
    limit: int = MATCH_LIMIT

    def applies(self, timer: int) -> bool:
        """Whether a match of turn timer ``timer`` is limited (and counted)."""
        return self.limit > 0 and timer < SLOW

    async def playing(self, user_id: int) -> int:
        """How many matches ``user_id`` plays at once (:func:`counted`)."""
        return sum(counted(r, user_id) for r in await self.store.running_of(user_id))

    def refuse(self, user_id: int, running: Sequence[TableRecord],
               record: TableRecord | None = None) -> None:
        """Refuse (:class:`TooMany`, with ``record``) a match ``user_id`` would start when the
        ``running`` tables they sit at make them play as many as the limit."""
        count = sum(counted(r, user_id) for r in running)
        if count >= self.limit:
            raise TooMany(count, self.limit, record)

    async def check(self, user_id: int, timer: int, record: TableRecord | None = None) -> None:
        """Refuse (:class:`TooMany`, with ``record``) a match of turn timer ``timer`` that
        ``user_id`` would start now at the limit; a refusal before anything is opened for it:
        the start itself is checked again as it is written (:meth:`limited`)."""
        if self.applies(timer):
            self.refuse(user_id, await self.store.running_of(user_id), record)

    def limited(self, user_id: int, timer: int,
                record: TableRecord | None = None) -> Limited | None:
        """What the write of ``user_id``'s start of a match of turn timer ``timer`` checks,
        under their lock in the database, refusing it as :meth:`check` does (None: the match
        is not limited)."""
        if not self.applies(timer):
            return None
        return Limited(user_id, lambda running: self.refuse(user_id, running, record))


__all__ = ["MATCH_LIMIT", "MAX_MATCH_LIMIT", "MatchLimit", "TooMany", "counted"]
