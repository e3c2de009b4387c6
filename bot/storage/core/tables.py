"""The tables: a lobby created, its seats and settings written, the game started, each move
applied, the table abandoned or finished, and its action log; a table read is kept and served
again while it is what the database holds.

Applying an action is ONE transaction that writes the new state, its version (the previous one
plus one: it only ever grows, a take-back included) and the action log row (numbered by ``seq``,
the order actions were applied), guarded by the previous version, so a state and its log never
disagree and a stale writer changes nothing (of two processes moving one table, the row's lock
lets one in and the other finds the version moved on); a take-back (``undo``) marks the action
it took back ``undone`` in that same transaction (nothing is deleted), and the move that ends a
game writes its result there. The move's ``UPDATE`` returns the row as written, which the store
keeps: the next read of the table costs no parse of its state.

A table read is kept (:data:`RECORDS` at most). Where one process owns the database
(:attr:`~bot.storage.core.db.Dialect.owned`) it is served again without SQL until a write of it
ends (committed or not); elsewhere each read sends the row's stamp it was read at, and the
database returns the stored state only when the row was written since.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import replace

from bot.storage.core.base import Base
from bot.storage.core.db import Db, Row, lock_person
from bot.storage.core.ratings import store_result
from bot.storage.core.rows import (
    LOG_COLUMNS,
    STATE_CACHE,
    TABLE_COLUMNS,
    StateCache,
    as_float,
    as_int,
    keep,
    opt_int,
    read_log_row,
    read_record,
    remember,
)
from bot.storage.core.seated import write_seats
from bot.storage.core.servers import hold_language, write_defaults
from bot.storage.records import (
    CorruptTable,
    DatabaseError,
    Limited,
    LogRow,
    NotHeld,
    Rater,
    SeatInfo,
    ServerDefaults,
    StaleVersion,
    Status,
    StorageError,
    TableExists,
    TableRecord,
    TableResult,
    anchor_column,
    seats_from_json,
    seats_to_json,
    storable,
    table_result,
)
from cards import catalogue_version
from engine import GameState, Undo
from engine.agents import DEFAULT_LEVEL, AiLevel

UNDO = str(Undo())  #: a take-back's notation: its log row marks the action it took back undone
#: Tables whose record is kept, read or written last (beyond it the oldest kept is dropped).
RECORDS = STATE_CACHE
#: The range of a 64-bit integer: a table id outside it names no table.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: Where each column of :data:`TABLE_COLUMNS` is in a row read.
AT = {name.strip(): i for i, name in enumerate(TABLE_COLUMNS.split(","))}


def moved_columns(state: GameState, version: int, text: str, now: float,
                  seats: Sequence[SeatInfo] | None, deadline: float | None,
                  host_id: int | None = None) -> dict[str, object]:
    """The columns a move writes: the state (``text``, stored at ``version``), its take-back's
    anchor when it changed (:func:`~bot.storage.records.anchor_column`), its deadline, the seats
    when they changed, a new host when ``host_id``, and for a finished game its status and
    winner."""
    columns: dict[str, object] = {
        "state": text, "version": version, "deadline": deadline, "updated_at": now,
        **anchor_column(state),
    }
    if seats is not None:
        columns["seats"] = seats_to_json(seats)
    if host_id is not None:
        columns["host_id"] = host_id
    if state.winner is not None:
        columns.update(status="finished", winner=state.winner, finished_at=now, deadline=None)
    return columns


async def abandon_running(db: Db, table_id: int, version: int, now: float,
                          revision: int | None = None) -> bool:
    """Within ``db``'s transaction, mark table ``table_id`` abandoned at ``now`` while it is
    running at ``version`` (and ``revision`` when given; kept as history, its revision
    raised); False, nothing written, when it no longer is."""
    guard = "" if revision is None else " AND revision = ?"
    return await db.execute(
        "UPDATE tables SET status = 'abandoned', deadline = NULL, finished_at = ?, "
        "updated_at = ?, revision = revision + 1 WHERE id = ? AND version = ? "
        f"AND status = 'running'{guard}", now, now, table_id, version,
        *(() if revision is None else (revision,))) == 1


class TableQueries(Base):
    """The tables part of the store: the tables kept (``_records``, each with the stamp it was
    read at), the parsed states kept (``_states``) and the count of table writes ended
    (``_writes``: a read overtaken by a write is not kept)."""

    _states: StateCache
    _records: dict[int, tuple[str | None, TableRecord]]
    _writes: int

    def _conflict(self, exc: DatabaseError) -> bool:
        """True when ``exc`` is the database refusing a row that breaks a unique index."""
        raise NotImplementedError  # the backend's own

    async def _wrote(self, db: Db, table_id: int) -> bool:
        """Called at the end of a write of table ``table_id``, inside its transaction (the
        backend may tell other processes); True when another process holds the table's
        lease (never, where one process owns the database)."""
        return False

    @asynccontextmanager
    async def _table_tx(self, table_id: int, background: bool = False) -> AsyncIterator[Db]:
        """Write table ``table_id``; where one process owns the database its kept record goes
        after, committed or not. ``background``: the write is an AI seat's move, refused
        (:class:`NotHeld`, nothing written) when another process holds the table's lease."""
        try:
            async with self._tx() as db:
                yield db
                if await self._wrote(db, table_id) and background:
                    raise NotHeld(f"table {table_id} is another process's to play")
        finally:
            self._writes += 1
            if self.dialect.owned:
                self._records.pop(table_id, None)

    def _read_table(self) -> str:
        """A table's row (arguments: the stamp of the record kept twice, the table id) with its
        stamp first, and the stored state and anchor only when the row's stamp is not the one
        kept."""
        stamp = self.dialect.stamp
        return (f"SELECT {stamp}, " + TABLE_COLUMNS.replace(
            " state,", f" CASE WHEN {stamp} = ? THEN NULL ELSE state END,").replace(
            " anchor", f" CASE WHEN {stamp} = ? THEN NULL ELSE anchor END") +
            " FROM tables WHERE id = ?")

    def _keep(self, table_id: int, row: Row, writes: int) -> TableRecord:
        """The record of a row read (its stamp first), kept when no write ended since
        ``writes``."""
        record = read_record(row[1:], self._states)
        if writes == self._writes:
            keep(self._records, table_id, (None if row[0] is None else str(row[0]), record),
                 RECORDS)
        return record

    async def create_table(self, *, guild_id: int | None, place_key: str, channel_id: int,
                           host_id: int, seats: Sequence[SeatInfo], abilities: bool, timer: int,
                           seed: int, locale: str = "en", ai_level: AiLevel = DEFAULT_LEVEL,
                           lessons: bool = False, undo: bool = True,
                           threaded: bool = False, hints: bool | None = None,
                           thread_chosen: bool = True) -> TableRecord:
        """Create a lobby (``lessons``: a guided first match; ``undo``: players may take back a
        move; ``threaded``: the match moves to a thread of its own when it starts, as chosen
        now when ``thread_chosen``, else as the server chooses when it starts; ``hints``:
        whether people may ask for hints, None: decided when it starts, kept as the host's
        choice); raises
        :class:`TableExists` when the channel has an active table played in it (a thread whose
        match is running counts as its channel), also when another process created it a moment
        ago; a guided match bound for a thread of its own (``lessons`` and ``threaded``) holds
        no place in the channel and is refused by none. ``locale``: its language, unless its
        server forced one: then the one stored as the table is written, read under the
        server's language lock, so a language change (:meth:`relocalise_guild`) made
        meanwhile, by another process too, is either the one it speaks or finds it and
        changes it."""
        now = self.clock()
        try:
            async with self._tx() as db:
                if guild_id is not None:
                    locale = await hold_language(db, self.dialect, guild_id) or locale
                there = await db.fetchrow(
                    "SELECT id FROM tables WHERE thread_id = ? "
                    "AND status IN ('lobby','running')", channel_id)
                if there is not None:
                    raise TableExists(as_int(there[0], "id"))
                row = await db.fetchrow(
                    "INSERT INTO tables (guild_id, channel_id, host_id, status, abilities, "
                    "timer, seed, locale, seats, version, created_at, updated_at, ai_level, "
                    "catalogue, lessons, undo, place_key, threaded, hints, thread_choice, "
                    "hints_choice) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, "
                    "?, ?, ?, ?, ?, ?) RETURNING id",
                    guild_id, channel_id, host_id, abilities, timer, seed, locale,
                    seats_to_json(seats), now, now, ai_level, catalogue_version(), lessons,
                    undo, place_key, threaded, hints,
                    threaded if thread_chosen else None, hints)
                assert row is not None
                await write_seats(db, as_int(row[0], "id"), seats)
        except DatabaseError as exc:
            if not self._conflict(exc):
                raise
            active = await self.active_in_channel(channel_id)
            raise TableExists(-1 if active is None else active) from None
        assert row is not None
        record = await self.get(as_int(row[0], "id"))
        assert record is not None
        return record

    async def get(self, table_id: int) -> TableRecord | None:
        """The table ``table_id`` as the database holds it, or None; raises
        :class:`CorruptTable` if its row is damaged (a damaged row is never kept). An id no
        64-bit integer can hold (a forged custom_id) is no table."""
        if not INT_MIN <= table_id <= INT_MAX:
            return None
        kept = self._records.get(table_id)
        if kept is not None and self.dialect.owned:
            return kept[1]
        writes = self._writes
        stamp = "" if kept is None else kept[0]
        row = await self._read.fetchrow(self._read_table(), stamp, stamp, table_id)
        if row is None:
            return None
        if kept is not None and row[0] is not None and row[0] == kept[0]:
            return kept[1]
        return self._keep(table_id, row, writes)

    async def active_in_channel(self, channel_id: int, user_id: int | None = None) -> int | None:
        """The id of the lobby or running table played in the channel, if any: a thread's
        match for a thread, else the channel's lobby or the table played in the channel itself
        (not the matches it holds in threads); one person's guided matches (played in the
        channel until each moves to its thread, or for good where Discord refused it) and a
        tournament's matches, several to a channel until each moves to its thread (or for good
        where the server turned threads off), come after the channel's own table, except that
        the one ``user_id`` sits at comes first."""
        mine = ("NOT EXISTS (SELECT 1 FROM table_seats s WHERE s.table_id = tables.id AND "
                "s.user_id = ?), " if user_id is not None else "")
        row = await self._read.fetchrow(
            "SELECT id FROM tables WHERE status IN ('lobby','running') AND (thread_id = ? "
            "OR (channel_id = ? AND thread_id IS NULL)) ORDER BY thread_id IS NULL, "
            f"{mine}tournament_id IS NOT NULL, lessons, id LIMIT 1",
            channel_id, channel_id, *(() if user_id is None else (user_id,)))
        return None if row is None else as_int(row[0], "id")

    async def active_within(self, channel_id: int) -> list[int]:
        """The ids of every lobby and running table a deleted channel takes with it (oldest
        first): those opened in channel ``channel_id`` (played there, or in threads of it) and,
        for a thread, the match played in it."""
        rows = await self._read.fetch(
            "SELECT id FROM tables WHERE status IN ('lobby','running') AND (channel_id = ? "
            "OR thread_id = ?) ORDER BY id", channel_id, channel_id)
        return [as_int(r[0], "id") for r in rows]

    async def set_thread(self, table_id: int, thread_id: int | None, threaded: bool) -> None:
        """The thread the table's match is played in (None: in its channel; ``threaded``
        false: it no longer waits for one)."""
        await self._update(table_id, None, {"thread_id": thread_id, "threaded": threaded})

    async def thread_gone(self, thread_id: int) -> list[int]:
        """Thread ``thread_id`` was deleted: the finished and closed tables played in it name
        it no more (their messages go to their channel, where the history places them); their
        ids. A lobby or running table is no business of this: closing it is."""
        rows = await self._read.fetch(
            "SELECT id FROM tables WHERE thread_id = ? AND status IN ('finished','abandoned') "
            "ORDER BY id", thread_id)
        ids = [as_int(r[0], "id") for r in rows]
        for table_id in ids:
            await self._update(table_id, None, {"thread_id": None}, touch=False)
        return ids

    async def ids_with_status(self, *statuses: Status) -> list[int]:
        """Ids of the tables in any of ``statuses`` (oldest first)."""
        rows = await self._read.fetch(
            f"SELECT id FROM tables WHERE {self.dialect.any_of('status')} ORDER BY id",
            self.dialect.many(list(statuses)))
        return [as_int(r[0], "id") for r in rows]

    async def timers(self) -> list[tuple[int, int, float]]:
        """(id, version, deadline) of every running table whose turn timer is set (oldest
        first), read from those columns alone; a row whose version or deadline is damaged is
        left out (reading the table says what is wrong with it)."""
        rows = await self._read.fetch(
            "SELECT id, version, deadline FROM tables "
            "WHERE status = 'running' AND deadline IS NOT NULL ORDER BY id")
        out: list[tuple[int, int, float]] = []
        for row in rows:
            try:
                out.append((as_int(row[0], "id"), as_int(row[1], "version"),
                            as_float(row[2], "deadline")))
            except ValueError:
                continue
        return out

    async def _update(self, table_id: int, guard: int | None, columns: dict[str, object],
                      bump: bool = False, seats: Sequence[SeatInfo] | None = None,
                      touch: bool = True, lobby: bool = False,
                      revision: int | None = None, limited: Limited | None = None) -> None:
        """Write ``columns`` of one table (guarded by its version when ``guard`` is given, by
        its revision when ``revision`` is, and by its being an open lobby when ``lobby``;
        ``bump``: a lobby change, which raises its revision; ``seats``: the seats written,
        whose people go into ``table_seats`` in the same transaction; ``touch``:
        ``updated_at`` becomes now; ``limited``: checked first, see
        :class:`~bot.storage.records.Limited`); raises :class:`StaleVersion` when no row was
        written."""
        if touch:
            columns["updated_at"] = self.clock()
        sets = ", ".join(f"{name} = ?" for name in columns)
        if bump:
            sets += ", revision = revision + 1"
        values = [*columns.values(), table_id]
        sql = f"UPDATE tables SET {sets} WHERE id = ?"
        if guard is not None:
            sql += " AND version = ?"
            values.append(guard)
        if revision is not None:
            sql += " AND revision = ?"
            values.append(revision)
        if lobby:
            sql += " AND status = 'lobby'"
        async with self._table_tx(table_id) as db:
            if limited is not None:
                await lock_person(db, self.dialect, limited.user_id)
                limited.check(await self._running_in(db, limited.user_id))
            if await db.execute(sql, *values) != 1:
                raise StaleVersion(f"table {table_id} moved on")
            if seats is not None:
                await write_seats(db, table_id, seats)

    async def _running_in(self, db: Db, user_id: int) -> list[TableRecord]:
        """Within ``db``'s transaction: the running tables where ``user_id`` holds a seat (or
        held one that went to the AI), by id, as that transaction sees them (another process's
        start committed before it took their lock is among them); a damaged table is left
        out, as :meth:`~bot.storage.core.seated.SeatedQueries.running_of` leaves it."""
        rows = await db.fetch(
            f"SELECT {TABLE_COLUMNS} FROM tables WHERE status = 'running' AND id IN "
            "(SELECT table_id FROM table_seats WHERE user_id = ?) ORDER BY id", user_id)
        out: list[TableRecord] = []
        for row in rows:
            with suppress(CorruptTable):
                out.append(read_record(row, self._states))
        return out

    async def update_lobby(self, table_id: int, seats: Sequence[SeatInfo],
                           host_id: int | None = None, revision: int | None = None) -> None:
        """Store a lobby's seats (and a new host when the host left); ``revision``: the lobby
        revision they were decided on, whose change meanwhile (by another process too: a seat
        taken or left, the lobby started or closed) raises :class:`StaleVersion`, nothing
        written."""
        changes: dict[str, object] = {"seats": seats_to_json(seats)}
        if host_id is not None:
            changes["host_id"] = host_id
        await self._update(table_id, None, changes, bump=True, seats=seats, revision=revision)

    async def update_seats(self, table_id: int, version: int, seats: Sequence[SeatInfo],
                           host_id: int | None = None, revision: int | None = None) -> None:
        """Store a running table's seats (timeouts, seat handed to the AI, and a new host when
        ``host_id``) at ``version`` (and ``revision``, as :meth:`update_lobby`); its revision
        grows, so a move another process decided on the seats before is refused."""
        changes: dict[str, object] = {"seats": seats_to_json(seats)}
        if host_id is not None:
            changes["host_id"] = host_id
        await self._update(table_id, version, changes, bump=True, seats=seats,
                           revision=revision)

    async def set_status(self, table_id: int, status: Status,
                         revision: int | None = None) -> None:
        """Mark a table abandoned/finished (kept as history); ``revision`` as for
        :meth:`update_lobby`."""
        changes: dict[str, object] = {"status": status, "deadline": None}
        if status in ("finished", "abandoned"):
            changes["finished_at"] = self.clock()
        await self._update(table_id, None, changes, bump=True, revision=revision)

    async def start_game(self, table_id: int, seats: Sequence[SeatInfo], state: GameState,
                         deadline: float | None, revision: int | None = None,
                         hints: bool | None = None, threaded: bool | None = None,
                         limited: Limited | None = None) -> None:
        """Turn a lobby into a running game holding ``state`` (version ``state.step``), played
        with this bot's cards (its catalogue version), whether hints are allowed when
        ``hints`` is given and whether it moves to a thread of its own when ``threaded`` is,
        in one transaction; raises :class:`StaleVersion` when it is no
        longer an open lobby (closed meanwhile, by another process too) or, given
        ``revision``, no longer at that revision (its seats changed since they were read).
        ``limited``: checked first in that transaction, under its person's lock (PostgreSQL's
        advisory lock: another process's start of theirs is waited for, then counted; SQLite
        writes one transaction at a time), see :class:`~bot.storage.records.Limited`."""
        text = storable(state)
        changes: dict[str, object] = {"status": "running", "seats": seats_to_json(seats),
                                      "state": text, "version": state.step,
                                      "deadline": deadline, "catalogue": catalogue_version()}
        if hints is not None:
            changes["hints"] = hints
        if threaded is not None:
            changes["threaded"] = threaded
        await self._update(table_id, 0, changes, bump=True, seats=seats, lobby=True,
                           revision=revision, limited=limited)
        remember(self._states, table_id, text, state)

    async def set_message(self, table_id: int, *, message_id: int | None = None,
                          lobby_message_id: int | None = None) -> None:
        """Remember the table's public message (or its lobby message: a lobby message posted
        again is no change of the lobby, whose ``updated_at`` stays, see
        :meth:`idle_lobbies`)."""
        changes: dict[str, object] = {}
        if message_id is not None:
            changes["message_id"] = message_id
        if lobby_message_id is not None:
            changes["lobby_message_id"] = lobby_message_id
        if changes:
            await self._update(table_id, None, changes, touch=message_id is not None)

    async def idle_lobbies(self, before: float) -> list[tuple[int, int]]:
        """(id, revision) of every open lobby (not a tournament's) whose last change was at
        ``before`` or earlier (oldest first): every lobby change (a seat taken or left, an AI
        seat added, removed or set, a hero picked, its language) writes its ``updated_at``. A
        row whose revision is damaged is left out (reading the table says what is wrong)."""
        rows = await self._read.fetch(
            "SELECT id, revision FROM tables WHERE status = 'lobby' AND tournament_id IS NULL "
            "AND updated_at <= ? ORDER BY id", before)
        out: list[tuple[int, int]] = []
        for row in rows:
            try:
                out.append((as_int(row[0], "id"), as_int(row[1], "revision")))
            except ValueError:
                continue
        return out

    async def close_idle_lobby(self, table_id: int, revision: int, before: float,
                               at: float) -> bool:
        """Close the lobby ``table_id`` as abandoned at ``at`` (kept as history) when it is
        still open at ``revision`` with no change since ``before`` (another process may have
        changed it meanwhile); its ``updated_at`` stays its last change. True when closed."""
        async with self._table_tx(table_id) as db:
            return await db.execute(
                "UPDATE tables SET status = 'abandoned', deadline = NULL, finished_at = ?, "
                "revision = revision + 1 WHERE id = ? AND status = 'lobby' AND revision = ? "
                "AND updated_at <= ?", at, table_id, revision, before) == 1

    async def apply(self, table_id: int, before: int, state: GameState, log: LogRow,
                    seats: Sequence[SeatInfo] | None = None,
                    deadline: float | None = None, rater: Rater | None = None,
                    result: TableResult | None = None, revision: int | None = None,
                    host_id: int | None = None) -> None:
        """In ONE transaction: the new state at version ``before + 1`` (guarded by version
        ``before``, and by ``revision`` when given: the seats the move was decided on, which
        another process may have changed without a move; the row locked until the end) and
        its log row (the table's next ``seq``);
        a take-back (``undo``) also marks the latest action it has not taken back yet
        ``undone``; a finished game is marked ``finished`` with its winner, and its ``result``
        (as the game computed it, finished now; None: the final state's, every person counted
        as having moved) and the rating rows ``rater`` gives written. Raises
        :class:`StaleVersion` (and writes nothing) when the table is no longer at ``before``
        (or ``revision``), and :class:`NotHeld` (nothing written) for an AI seat's move when
        another process holds the table's lease. The row as written is kept."""
        text = storable(state)
        now = self.clock()
        columns = moved_columns(state, before + 1, text, now, seats, deadline, host_id)
        sets = ", ".join(f"{name} = ?" for name in columns)
        async with self._table_tx(table_id, background=log.by_ai) as db:
            writes = self._writes  # this write ends as one more: then the row may be kept
            guard = "" if revision is None else " AND revision = ?"
            row = await db.fetchrow(
                f"UPDATE tables SET {sets} WHERE id = ? AND version = ? AND status = 'running'"
                f"{guard} RETURNING {self.dialect.stamp}, "
                f"{TABLE_COLUMNS.replace(' state,', ' NULL,').replace(' anchor', ' NULL')}",
                *columns.values(), table_id, before, *(() if revision is None else (revision,)))
            if row is None:
                raise StaleVersion(f"table {table_id} is no longer at version {before}")
            if seats is not None:
                await write_seats(db, table_id, seats)
            await db.execute(
                "INSERT INTO actions (table_id, seq, step, seat, user_id, by_ai, action, at) "
                "VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE table_id = ?), "
                "?, ?, ?, ?, ?, ?)",
                table_id, table_id, log.step, log.seat, log.user_id, log.by_ai, log.action,
                log.at)
            if log.action == UNDO:
                await db.execute(
                    "UPDATE actions SET undone = TRUE WHERE table_id = ? AND seq = (SELECT "
                    "MAX(seq) FROM actions WHERE table_id = ? AND undone = FALSE "
                    "AND action != ?)", table_id, table_id, UNDO)
            if state.winner is not None:
                if result is None:
                    result = table_result(
                        table_id, opt_int(row[1 + AT["guild_id"]], "guild_id"),
                        as_int(row[1 + AT["channel_id"]], "channel_id"),
                        str(row[1 + AT["catalogue"]]),
                        seats_from_json(str(row[1 + AT["seats"]])), state, now,
                        str(row[1 + AT["place_key"]]))
                else:
                    result = replace(result, finished_at=now)
                await store_result(db, self.dialect, result, rater)
        remember(self._states, table_id, text, state)  # what storable() just read back
        written = list(row)
        written[1 + AT["state"]] = text
        try:
            self._keep(table_id, tuple(written), writes + 1)
        except CorruptTable:  # a row damaged otherwise: read (and refused) again next time
            pass

    async def abandon(self, table_id: int, version: int, result: TableResult | None = None,
                      rater: Rater | None = None, forfeit: int | None = None,
                      revision: int | None = None) -> None:
        """In ONE transaction: mark the running table at ``version`` abandoned (kept as
        history) and, for a match rated when abandoned, store its ``result`` (abandoned now)
        with the rating rows ``rater`` gives; ``forfeit``: the seat of the person who abandoned
        it, kept on its row of ``tournament_tables`` when a tournament's round opened it (they
        take its last place there, rated or not). Raises :class:`StaleVersion` (and writes
        nothing) when the table is no longer running at ``version``, or no longer at
        ``revision`` when given (its seats changed since the result was worked out from them:
        a seat handed to the AI, a person forgotten)."""
        now = self.clock()
        async with self._table_tx(table_id) as db:
            if not await abandon_running(db, table_id, version, now, revision):
                raise StaleVersion(f"table {table_id} is no longer running at version {version}")
            if result is not None:
                await store_result(db, self.dialect, replace(result, finished_at=now), rater)
            if forfeit is not None:
                await db.execute("UPDATE tournament_tables SET forfeit_seat = ? "
                                 "WHERE table_id = ?", forfeit, table_id)

    async def action_log(self, table_id: int) -> list[LogRow]:
        """Every action applied at the table, in the order applied (undone ones included)."""
        rows = await self._read.fetch(
            f"SELECT {LOG_COLUMNS} FROM actions WHERE table_id = ? ORDER BY seq", table_id)
        return [read_log_row(r) for r in rows]

    async def relocalise(self, table_id: int, locale: str) -> bool:
        """Set the language of a lobby or running table; True when it changed."""
        async with self._table_tx(table_id) as db:
            return await db.execute(
                "UPDATE tables SET locale = ?, updated_at = ? WHERE id = ? AND locale != ? "
                "AND status IN ('lobby','running')", locale, self.clock(), table_id, locale) == 1

    async def relocalise_guild(self, guild_id: int, defaults: ServerDefaults | None,
                               forced: str | None, locale: str) -> tuple[list[int], list[int]]:
        """Force the language of a server (``forced``; None: follow Discord's language
        again), storing its ``defaults`` for new tables first when given (a server that has
        none stored must give them), and set ``locale`` on its lobbies and running tables and
        on its tournaments taking sign-ups or under way, all in one transaction: a database
        that stops part of the way changes nothing; so do its finished tables whose rematch
        offer is open. The ids of the tables, then of the tournaments, whose language
        changed. Made under the server's language lock, as a table of the server is opened
        (:meth:`create_table`): one opened meanwhile speaks the new language, or is changed."""
        tables: list[int] = []
        try:
            async with self._tx() as db:
                await hold_language(db, self.dialect, guild_id)  # a table opened waits
                if defaults is not None:
                    await write_defaults(db, guild_id, defaults)
                if await db.execute("UPDATE settings SET locale = ? WHERE guild_id = ?",
                                    forced, guild_id) != 1:
                    raise StorageError(f"server {guild_id} has no settings yet")
                # a running table's revision is raised: a move another process decided in
                # the former language, written after this, is refused and made again (its
                # outcome shown in this language)
                rows = await db.fetch(
                    "UPDATE tables SET locale = ?, updated_at = ?, revision = revision + "
                    "CASE WHEN status = 'running' THEN 1 ELSE 0 END WHERE guild_id = ? AND "
                    "status IN ('lobby','running') AND locale != ? RETURNING id",
                    locale, self.clock(), guild_id, locale)
                # a finished table whose rematch offer is open speaks as a lobby does (its
                # offer is redrawn, its rematch opened, in its language); it keeps its
                # ``updated_at``, when it finished
                offers = await db.fetch(
                    "UPDATE tables SET locale = ? WHERE guild_id = ? AND status = 'finished' "
                    "AND locale != ? AND id IN (SELECT table_id FROM rematches WHERE "
                    "closed = FALSE AND new_table IS NULL) RETURNING id",
                    locale, guild_id, locale)
                tables = sorted(as_int(r[0], "id") for r in (*rows, *offers))
                for table_id in tables:
                    await self._wrote(db, table_id)
                moved = await db.fetch(
                    "UPDATE tournaments SET locale = ?, updated_at = ? WHERE guild_id = ? AND "
                    "status IN ('signup', 'running') AND locale != ? RETURNING id",
                    locale, self.clock(), guild_id, locale)
        finally:
            self._writes += 1
            if self.dialect.owned:
                for table_id in tables:
                    self._records.pop(table_id, None)
        return tables, sorted(as_int(r[0], "id") for r in moved)

    async def host_of(self, table_id: int) -> int | None:
        """The host of a table read from its row alone (None when unreadable): a damaged
        table's host may still close it."""
        if not INT_MIN <= table_id <= INT_MAX:
            return None
        row = await self._read.fetchrow("SELECT host_id FROM tables WHERE id = ?", table_id)
        value = None if row is None else row[0]
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    async def abandon_damaged(self, table_id: int, channel_id: int) -> None:
        """Mark a table whose row cannot be read abandoned (the row stays for inspection)."""
        async with self._table_tx(table_id) as db:
            await db.execute("UPDATE tables SET status = 'abandoned', revision = revision + 1 "
                             "WHERE id = ? AND channel_id = ?", table_id, channel_id)


__all__ = ["INT_MAX", "INT_MIN", "RECORDS", "UNDO", "TableQueries", "moved_columns"]
