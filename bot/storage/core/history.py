"""Past matches: a finished match's result written (:func:`insert_result`) and read (a place's
results, or one person's, page by page), the ids of past tables, and the offers to play a
finished table again."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from bot.storage.core.base import Base
from bot.storage.core.db import Db, Dialect, lock_person
from bot.storage.core.rows import (
    RESULT_COLUMNS,
    SEAT_RESULT_COLUMNS,
    Row,
    as_flag,
    as_float,
    as_int,
    opt_int,
    read_results,
)
from bot.storage.core.servers import hold_language
from bot.storage.records import (
    DamagedOffer,
    DamagedResult,
    RematchOffer,
    TableResult,
    TournamentMatch,
)

#: The range of a 64-bit integer column: an id outside it names nothing.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
OFFER_COLUMNS = "table_id, offered_by, offered_at, ready, message_id, new_table, closed"
_HEADS = ", ".join(f"r.{c.strip()}" for c in RESULT_COLUMNS.split(","))


def bounded(value: int) -> int:
    """``value`` within the range of a 64-bit integer column."""
    return max(INT_MIN, min(value, INT_MAX))


async def insert_result(db: Db, dialect: Dialect, result: TableResult) -> None:
    """Write ``result``: its ``results`` row and one ``result_seats`` row per seat (inside the
    caller's transaction; a table has one result: a second one is refused). The row's ``seq``
    is the next one (:attr:`~bot.storage.core.db.Dialect.next_result_seq`): the caller holds
    its place's rating lock, so results are numbered in the order their ratings are
    computed."""
    await db.execute(
        f"INSERT INTO results ({RESULT_COLUMNS}, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        f"{dialect.next_result_seq})",
        result.table_id, result.guild_id, result.channel_id, result.finished_at,
        result.rounds, result.actions, result.catalogue, result.winner_seat,
        result.winner_user_id, result.place_key, result.abandoned_by)
    await db.executemany(
        f"INSERT INTO result_seats ({SEAT_RESULT_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(result.table_id, s.seat, s.user_id, s.kind, s.ai_level, s.hero, s.keys, s.hp, s.place,
          s.handed_to_ai, s.moved) for s in result.seats])


async def with_seats(db: Db, dialect: Dialect,
                     heads: Sequence[Row]) -> list[TableResult | DamagedResult]:
    """The results of the ``results`` rows ``heads`` (:data:`RESULT_COLUMNS`), read with their
    seats and whether each was a guided match (its table's ``lessons``); a damaged one is a
    :class:`DamagedResult` in its place."""
    if not heads:
        return []
    ids = dialect.many([head[0] for head in heads])
    seats = await db.fetch(
        f"SELECT {SEAT_RESULT_COLUMNS} FROM result_seats WHERE "
        f"{dialect.any_of('table_id')} ORDER BY table_id, seat", ids)
    guided = await db.fetch(
        f"SELECT id FROM tables WHERE {dialect.any_of('id')} AND lessons = TRUE", ids)
    return read_results(heads, seats, {as_int(row[0], "id") for row in guided})


def read_offer(row: Row) -> RematchOffer:
    """A ``rematches`` row (:data:`OFFER_COLUMNS`) read."""
    ready = json.loads(str(row[3]))
    if not isinstance(ready, list) or not all(isinstance(u, int) for u in ready):
        raise ValueError("ready must be a list of user ids")
    return RematchOffer(
        table_id=as_int(row[0], "table_id"), offered_by=as_int(row[1], "offered_by"),
        offered_at=as_float(row[2], "offered_at"), ready=tuple(ready),
        message_id=opt_int(row[4], "message_id"), new_table=opt_int(row[5], "new_table"),
        closed=as_flag(row[6], "closed"))


def stored_offer(table_id: int, row: Row) -> RematchOffer:
    """The ``rematches`` row of table ``table_id`` read; :class:`DamagedOffer` when it holds a
    value its column cannot."""
    try:
        return read_offer(row)
    except (ValueError, TypeError, OverflowError) as exc:
        raise DamagedOffer(table_id, str(exc) or type(exc).__name__) from None


def _offer_row(offer: RematchOffer) -> tuple[object, ...]:
    """The values of ``offer``'s ``rematches`` row (:data:`OFFER_COLUMNS`)."""
    return (offer.table_id, offer.offered_by, offer.offered_at, json.dumps(offer.ready),
            offer.message_id, offer.new_table, offer.closed)


async def server_language(db: Db, dialect: Dialect, table_id: int) -> str | None:
    """Within ``db``'s transaction: the language table ``table_id``'s server forced (None:
    none, or no server), read under the server's language lock (see
    :func:`~bot.storage.core.servers.hold_language`). Taken before the transaction writes or
    locks anything of the table, as a language change takes it before the tables it writes."""
    row = await db.fetchrow("SELECT guild_id FROM tables WHERE id = ?", table_id)
    guild_id = None if row is None else row[0]
    if not isinstance(guild_id, int):
        return None
    return await hold_language(db, dialect, guild_id)


class HistoryQueries(Base):
    """Past matches and rematch offers."""

    async def _with_seats(self, heads: Sequence[Row]) -> list[TableResult | DamagedResult]:
        return await with_seats(self._read, self.dialect, heads)

    async def history(self, limit: int = 20) -> list[int]:
        """Ids of finished or abandoned tables, newest first."""
        rows = await self._read.fetch(
            "SELECT id FROM tables WHERE status IN ('finished','abandoned') "
            "ORDER BY id DESC LIMIT ?", limit)
        return [as_int(r[0], "id") for r in rows]

    async def result_of(self, table_id: int) -> TableResult | DamagedResult | None:
        """The result of a finished table, or None (not finished, or no such table); a
        :class:`DamagedResult` when it is stored but cannot be read."""
        if not INT_MIN <= table_id <= INT_MAX:
            return None
        found = await self._with_seats(await self._read.fetch(
            f"SELECT {RESULT_COLUMNS} FROM results WHERE table_id = ?", table_id))
        return found[0] if found else None

    async def matches(self, place_key: str, user_id: int | None = None, limit: int = 20,
                      before: int | None = None, after: int | None = None,
                      channels: Collection[int] | None = None
                      ) -> list[TableResult | DamagedResult]:
        """A place's finished matches, newest first (of person ``user_id`` when given: those
        where they made a move, as one who left before their first move counts as never
        seated; played in one of ``channels`` when given): at most ``limit``, older than table
        ``before`` or just newer than table ``after``; a damaged one in its place, so a page
        counts it."""
        where = ["r.place_key = ?"]
        values: list[object] = [place_key]
        source = "results r"
        if user_id is not None:
            source = "result_seats s JOIN results r ON r.table_id = s.table_id"
            where.append("s.user_id = ? AND s.moved = TRUE")
            values.append(bounded(user_id))
        self._in_channels(where, values, "r.channel_id", channels)
        heads = await self._page(f"SELECT DISTINCT {_HEADS} FROM {source}", where, values,
                                 "r.table_id", before, after, limit)
        return await self._with_seats(heads)

    def _in_channels(self, where: list[str], values: list[object], column: str,
                     channels: Collection[int] | None) -> None:
        """Keep to the matches played in one of ``channels`` (None: anywhere), by ``column``
        (added to ``where`` and ``values``)."""
        if channels is not None:
            where.append(self.dialect.any_of(column))
            values.append(self.dialect.many(sorted(bounded(c) for c in channels)))

    async def _page(self, select: str, where: list[str], values: list[object], column: str,
                    before: int | None, after: int | None, limit: int) -> Sequence[Row]:
        """The rows of ``select`` (its ``where`` conditions and their ``values``), newest
        first by table ``column``: at most ``limit``, older than ``before`` or just newer than
        ``after`` (read upwards from it, then turned round)."""
        if before is not None:
            where.append(f"{column} < ?")
            values.append(bounded(before))
        elif after is not None:
            where.append(f"{column} > ?")
            values.append(bounded(after))
        order = "ASC" if before is None and after is not None else "DESC"
        rows = await self._read.fetch(
            f"{select} WHERE {' AND '.join(where)} ORDER BY {column} {order} LIMIT ?",
            *values, limit)
        if order == "ASC":
            rows.reverse()
        return rows

    async def threads_of(self, table_ids: Collection[int]) -> dict[int, int | None]:
        """The thread each of ``table_ids`` was played in, of those bound for a thread of
        their own: None for one that has none (deleted since, or never opened: the match was
        played in its channel)."""
        if not table_ids:
            return {}
        rows = await self._read.fetch(
            f"SELECT id, thread_id FROM tables WHERE {self.dialect.any_of('id')} "
            "AND (thread_id IS NOT NULL OR threaded = TRUE)",
            self.dialect.many(sorted(bounded(t) for t in table_ids)))
        return {as_int(r[0], "id"): opt_int(r[1], "thread_id") for r in rows}

    async def past_channels(self, place_key: str) -> set[int]:
        """The channels (threads included) a place's finished matches were played in and its
        tournaments held in."""
        rows = await self._read.fetch(
            "SELECT channel_id FROM results WHERE place_key = ? "
            "UNION SELECT channel_id FROM tournaments WHERE place_key = ?", place_key, place_key)
        return {as_int(r[0], "channel_id") for r in rows}

    async def rematch_of(self, table_id: int) -> RematchOffer | None:
        """The rematch offer made at table ``table_id``, or None (:class:`DamagedOffer` when
        its row cannot be read)."""
        row = await self._read.fetchrow(
            f"SELECT {OFFER_COLUMNS} FROM rematches WHERE table_id = ?", bounded(table_id))
        return None if row is None else stored_offer(table_id, row)

    async def save_rematch(self, offer: RematchOffer, was: RematchOffer | None = None) -> bool:
        """Store a new rematch offer, or the change of one, while the stored offer is still
        ``was`` (None: while there is none; its row is locked as it is read): another writer's
        change since it was read (another process's click or timer pass, a person forgotten)
        is never written over. Not written either (False) when a person it adds (who offered
        it, or is ready) no longer sits at the table: forgotten meanwhile, by another process
        too, nothing is kept under their id. True when written. A new offer at a server's
        table makes the table speak the language the server forced (as a language change
        makes an open offer's), read under the server's language lock: a change made
        meanwhile, by another process too, is the one it speaks, or finds it open."""
        added = sorted({offer.offered_by, *offer.ready}
                       - (set() if was is None else {was.offered_by, *was.ready}))
        # a new offer may change its table's language: written as the table's write
        async with self._tx() if was is not None else self._table_tx(offer.table_id) as db:
            for user in added:  # in order: two writers never wait for each other's
                await lock_person(db, self.dialect, user)
            if added:
                row = await db.fetchrow(
                    "SELECT COUNT(*) FROM table_seats WHERE table_id = ? AND "
                    f"{self.dialect.any_of('user_id')}", bounded(offer.table_id),
                    self.dialect.many(added))
                if row is None or as_int(row[0], "count") != len(added):
                    return False
            if was is None:
                # the language lock before the offer's row, which locks its table's row (the
                # row it refers to): in the order a language change takes them
                forced = await server_language(db, self.dialect, offer.table_id)
                if await db.execute(
                        f"INSERT INTO rematches ({OFFER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (table_id) DO NOTHING", *_offer_row(offer)) != 1:
                    return False
                if forced is not None:  # the table speaks the server's forced language
                    await db.execute("UPDATE tables SET locale = ? WHERE id = ? AND locale != ?",
                                     forced, offer.table_id, forced)
                return True
            row = await db.fetchrow(
                f"SELECT {OFFER_COLUMNS} FROM rematches WHERE table_id = ?"
                f"{self.dialect.for_update}", bounded(offer.table_id))
            if row is None or stored_offer(offer.table_id, row) != was:
                return False
            await db.execute(
                "UPDATE rematches SET offered_by = ?, offered_at = ?, ready = ?, "
                "message_id = ?, new_table = ?, closed = ? WHERE table_id = ?",
                *_offer_row(offer)[1:], offer.table_id)
            return True

    async def open_rematches(self) -> list[RematchOffer]:
        """The offers neither started nor closed, oldest first (a damaged one left out, named
        once in a warning)."""
        rows = await self._read.fetch(
            f"SELECT {OFFER_COLUMNS} FROM rematches WHERE closed = FALSE ORDER BY offered_at")
        return self._readable(rows, read_offer, lambda row: f"the rematches row of table {row[0]}")

    async def tournament_matches(self, tournament_id: int, place_key: str,
                                 user_id: int | None = None, limit: int = 20,
                                 before: int | None = None, after: int | None = None,
                                 channels: Collection[int] | None = None
                                 ) -> list[TournamentMatch]:
        """The past matches of tournament ``tournament_id`` played at the place ``place_key``,
        newest first (a later round's tables are newer, and a round's tables are numbered in
        order): those with a stored result and those its round's deadline closed unrated; of
        person ``user_id`` when given (seated there by the tournament), played in one of
        ``channels`` when given; at most ``limit``, older than table ``before`` or just newer
        than table ``after`` (a damaged one left out, named once in a warning)."""
        where = ["tt.tournament_id = ?", "t.place_key = ?",
                 "(r.table_id IS NOT NULL OR tt.at_deadline = TRUE)"]
        values: list[object] = [bounded(tournament_id), place_key]
        if user_id is not None:
            where.append("EXISTS (SELECT 1 FROM tournament_seats s WHERE s.tournament_id = "
                         "tt.tournament_id AND s.round = tt.round AND s.pod = tt.pod AND "
                         "s.user_id = ?)")
            values.append(bounded(user_id))
        self._in_channels(where, values, "t.channel_id", channels)
        rows = await self._page(
            f"SELECT tt.table_id, tt.round, tt.pod, tt.at_deadline, {_HEADS} "
            "FROM tournament_tables tt JOIN tables t ON t.id = tt.table_id "
            "LEFT JOIN results r ON r.table_id = tt.table_id", where, values, "tt.table_id",
            before, after, limit)
        results = {r.table_id: r for r in await self._with_seats(
            [row[4:] for row in rows if row[4] is not None])}
        return self._readable(
            rows, lambda row: TournamentMatch(
                table_id=as_int(row[0], "table_id"), round=as_int(row[1], "round"),
                pod=as_int(row[2], "pod"), at_deadline=as_flag(row[3], "at_deadline"),
                result=results.get(as_int(row[0], "table_id"))),
            lambda row: f"the tournament_tables row of table {row[0]}")


__all__ = ["OFFER_COLUMNS", "HistoryQueries", "bounded", "insert_result", "read_offer",
           "with_seats"]
