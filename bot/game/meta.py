"""The bot's own metadata: which command tree was last synced where, which finished tables had
their result posted (a result is posted once, even across a restart), which turn of each
running table its table message pinged the person to play for (pinged once, even across a
restart), which tournaments' sign-up messages were drawn closed (without their buttons), and
how far each tournament's standings were posted (posted once, even across a restart)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from bot.game.refusals import Refusal
from bot.game.tables import Tables
from bot.storage.interface import Storage
from bot.storage.records import TableRecord

#: Metadata key remembering that a finished table's result was posted.
ANNOUNCED = "announced:{}"
#: Metadata key remembering the turn (``round:turn``) of a table whose table message pinged the
#: person to play last.
PINGED = "pinged:{}"
#: Metadata key remembering that a tournament's sign-up message was drawn without its buttons
#: (or found deleted) once sign-up was over.
SIGNUP_CLOSED = "signup_closed:{}"
#: Metadata key remembering how far a tournament's standings were posted: the round seated
#: when they were (``2``: the standings after round 1, posted with round 2 seated; ``1``: its
#: first round seated, nothing to post yet), or ``final`` once its champion was; followed by
#: :data:`POSTING` while that post is under way (noted before it, its answer not heard yet).
STANDINGS = "standings:{}"
#: The value of :data:`STANDINGS` once a tournament's champion was posted.
FINAL = "final"
#: The mark after the value of :data:`STANDINGS` while its post is under way.
POSTING = "?"
#: How far :meth:`BotMeta.standings_posted` says the standings of a tournament whose champion
#: was posted went (past any round).
FINAL_ROUND = 1 << 30
#: Metadata key of the hash of the last synced command tree.
SYNC_KEY = "commands_hash"


class StandingsNote(NamedTuple):
    """How far a tournament's standings were posted: ``reached``, the round seated then (one
    more than its last round, :data:`FINAL_ROUND`, for its champion); ``made``: False while
    that post is under way (a try whose answer was never heard, after a crash, may have made
    it)."""

    reached: int
    made: bool


@dataclass
class BotMeta:
    """The command-sync digests and the announcements of results."""

    store: Storage
    tables: Tables

    async def unannounced(self, limit: int) -> list[TableRecord]:
        """Finished games among the ``limit`` most recent ended tables whose result was never
        posted (the bot stopped in between)."""
        out: list[TableRecord] = []
        for tid in await self.store.history(limit=limit):
            if await self.was_announced(tid):
                continue
            try:
                record = await self.tables.load(tid)
            except Refusal:
                continue
            if record.status == "finished" and record.state is not None \
                    and record.game.winner is not None:
                out.append(record)
        return out

    async def was_announced(self, table_id: int) -> bool:
        """True when the result of the table was posted."""
        return await self.store.get_meta(ANNOUNCED.format(table_id)) is not None

    async def announced(self, table_id: int) -> None:
        """Remember that the result of the table was posted."""
        await self.store.set_meta(ANNOUNCED.format(table_id), "1")

    async def pinged(self, record: TableRecord) -> None:
        """Remember that a table message of the running table's turn pinged the person to
        play."""
        await self.store.set_meta(PINGED.format(record.id), _turn(record))

    async def ping_owed(self, record: TableRecord) -> bool:
        """True when a person must play the running table's turn and no table message pinged
        them for it (the bot stopped between the move that began the turn and its post). A
        table none was ever remembered for (started by an older bot) is owed none."""
        if record.status != "running" or record.state is None:
            return False
        seat = record.seats[record.game.current]
        if seat.user is None or seat.ai:
            return False
        last = await self.store.get_meta(PINGED.format(record.id))
        return last is not None and last != _turn(record)

    async def signup_closed(self, tournament_id: int) -> None:
        """Remember that the tournament's sign-up message no longer shows its buttons."""
        await self.store.set_meta(SIGNUP_CLOSED.format(tournament_id), "1")

    async def was_signup_closed(self, tournament_id: int) -> bool:
        """True when the tournament's sign-up message was drawn without its buttons."""
        return await self.store.get_meta(SIGNUP_CLOSED.format(tournament_id)) is not None

    async def standings_posted(self, tournament_id: int) -> StandingsNote | None:
        """How far the tournament's standings were noted as posted, and whether that post was
        made; None when nothing was remembered (a tournament started by an older bot, or
        stopped before its first round was noted)."""
        value = await self.store.get_meta(STANDINGS.format(tournament_id))
        if value is None:
            return None
        reached = value.removesuffix(POSTING)
        made = reached == value
        if reached == FINAL:
            return StandingsNote(FINAL_ROUND, made)
        return StandingsNote(int(reached), made) if reached.isdigit() else None

    async def posting_standings(self, tournament_id: int, seated: int, final: bool,
                                made: bool = False) -> None:
        """Remember that the tournament's standings with round ``seated`` seated (``final``:
        its champion) are being posted (noted before the post, so a restart never posts them
        twice: it looks for the post first), or (``made``) were."""
        await self.store.set_meta(STANDINGS.format(tournament_id),
                                  (FINAL if final else str(seated)) + ("" if made else POSTING))

    async def synced(self, key: str) -> str | None:
        """The hash of the command tree last synced for ``key`` (a server or all)."""
        return await self.store.get_meta(f"{SYNC_KEY}:{key}")

    async def remember_sync(self, key: str, digest: str) -> None:
        """Remember the hash of the command tree just synced for ``key``."""
        await self.store.set_meta(f"{SYNC_KEY}:{key}", digest)


def _turn(record: TableRecord) -> str:
    """The running table's turn as the metadata keeps it (a take-back never leaves it)."""
    return f"{record.game.round}:{record.game.turn}"


__all__ = ["BotMeta"]
