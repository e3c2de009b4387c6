"""Server tournaments as plain rows: a tournament (``tournaments``), its entrants
(``tournament_entrants``), its rounds (``tournament_rounds``), the matches each round opened
(``tournament_tables``, each a running table of ``tables`` marked with its tournament) and who
sat at each of their seats with the place they took (``tournament_seats``).

Every step that moves a tournament on is guarded, so two passes, or two processes, never do it
twice: a round is seated (its tables opened) in ONE transaction guarded by the round the
tournament was at (and by its drops: a player who dropped out meanwhile is never seated), a
table is decided once (guarded by ``decided``; one decided at the round's deadline is closed in
the same transaction, guarded by the version its places were taken at), a tournament finishes
once (guarded by its status and round)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bot.storage.core.base import Base
from bot.storage.core.db import Db, Row
from bot.storage.core.history import INT_MAX, INT_MIN
from bot.storage.core.rows import as_flag, as_float, as_int, as_level, opt_float, opt_int
from bot.storage.core.seated import write_seats
from bot.storage.core.servers import hold_language
from bot.storage.core.tables import abandon_running
from bot.storage.records import (
    TOURNAMENT_STATUSES,
    DamagedTournament,
    EntrantRow,
    NewTournamentTable,
    TournamentRecord,
    TournamentRoundRow,
    TournamentRows,
    TournamentStatus,
    TournamentTableRow,
    seats_to_json,
    storable,
)
from cards import catalogue_version
from engine.agents import AiLevel

#: The columns of ``tournaments`` that :func:`read_tournament` reads, in its order.
TOURNAMENT_COLUMNS = ("id, guild_id, place_key, channel_id, host_id, name, rounds, table_size, "
                      "timer, abilities, ai_level, round_span, closes_at, seed, locale, status, "
                      "round, deadline, signup_message_id, standings_message_id, created_at, "
                      "updated_at")
#: The key space of the channel locks a tournament is opened under (the channel's id is the
#: other half of the key).
CHANNEL_LOCK = 0x544E


def _status(value: object) -> TournamentStatus:
    """A tournament's status column."""
    status = next((s for s in TOURNAMENT_STATUSES if s == value), None)
    if status is None:
        raise ValueError(f"status {value!r:.40}")
    return status


def read_tournament(row: Row) -> TournamentRecord:
    """The tournament in a stored row (:data:`TOURNAMENT_COLUMNS`)."""
    (tid, guild, place_key, channel, host, name, rounds, size, timer, abilities, level, span,
     closes, seed, locale, status, number, deadline, signup, standings, created,
     updated) = row
    return TournamentRecord(
        id=as_int(tid, "id"), guild_id=as_int(guild, "guild_id"), place_key=str(place_key),
        channel_id=as_int(channel, "channel_id"), host_id=as_int(host, "host_id"),
        name=str(name), rounds=opt_int(rounds, "rounds"), table_size=as_int(size, "table_size"),
        timer=as_int(timer, "timer"), abilities=as_flag(abilities, "abilities"),
        ai_level=None if level is None else as_level(level, "ai_level"),
        round_span=as_int(span, "round_span"), closes_at=opt_float(closes, "closes_at"),
        seed=as_int(seed, "seed"), locale=str(locale), status=_status(status),
        round=as_int(number, "round"), deadline=opt_float(deadline, "deadline"),
        signup_message_id=opt_int(signup, "signup_message_id"),
        standings_message_id=opt_int(standings, "standings_message_id"),
        created_at=as_float(created, "created_at"), updated_at=as_float(updated, "updated_at"))


async def _place(db: Db, tournament_id: int, round_number: int, pod: int,
                 places: Sequence[int]) -> None:
    """Within ``db``'s transaction, give each seat of table ``pod`` of the round its place of
    ``places`` (in seat order)."""
    await db.executemany(
        "UPDATE tournament_seats SET place = ? WHERE tournament_id = ? AND round = ? "
        "AND pod = ? AND seat = ?",
        [(place, tournament_id, round_number, pod, seat) for seat, place in enumerate(places)])


class TournamentQueries(Base):
    """The rows of the tournaments and of the matches their rounds open."""

    async def create_tournament(self, *, guild_id: int, place_key: str, channel_id: int,
                                host_id: int, name: str, rounds: int | None, table_size: int,
                                timer: int, abilities: bool, ai_level: AiLevel | None,
                                round_span: int, closes_at: float | None, seed: int,
                                locale: str) -> TournamentRecord | None:
        """A new tournament taking sign-ups (the settings as
        :class:`~bot.storage.records.TournamentRecord` says); None, and nothing written, when
        channel ``channel_id`` holds one taking sign-ups or under way. Checked and written in
        one transaction under the channel's lock (PostgreSQL's advisory lock: a second
        transaction's check waits for the first to end and then sees its row; SQLite's write
        transactions run one at a time), so two opened at the same moment never both pass.
        ``locale``: its language, unless its server forced one: then the one stored, read
        under the server's language lock first, so a language change
        (:meth:`~bot.storage.core.tables.TableQueries.relocalise_guild`) made meanwhile, by
        another process too, is either the one it speaks or finds it and changes it."""
        now = self.clock()
        async with self._tx() as db:
            locale = await hold_language(db, self.dialect, guild_id) or locale
            if self.dialect.lock_place is not None:
                await db.execute(self.dialect.lock_place, CHANNEL_LOCK, str(channel_id))
            row = await db.fetchrow(
                "INSERT INTO tournaments (guild_id, place_key, channel_id, host_id, name, "
                "rounds, table_size, timer, abilities, ai_level, round_span, closes_at, seed, "
                "locale, status, round, created_at, updated_at) SELECT ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, 'signup', 0, ?, ? WHERE NOT EXISTS (SELECT 1 FROM "
                "tournaments WHERE channel_id = ? AND status IN ('signup', 'running')) "
                f"RETURNING {TOURNAMENT_COLUMNS}",
                guild_id, place_key, channel_id, host_id, name, rounds, table_size, timer,
                abilities, ai_level, round_span, closes_at, seed, locale, now, now, channel_id)
        return None if row is None else read_tournament(row)

    async def tournament(self, tournament_id: int) -> TournamentRecord | None:
        """The tournament, or None (an id no 64-bit integer can hold, as a forged custom_id
        may carry, is no tournament); :class:`DamagedTournament` when its row cannot be read
        (named once in a warning)."""
        if not INT_MIN <= tournament_id <= INT_MAX:
            return None
        row = await self._read.fetchrow(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?", tournament_id)
        if row is None:
            return None
        try:
            return read_tournament(row)
        except (ValueError, TypeError, OverflowError) as exc:
            self._damaged(f"the tournaments row of tournament {tournament_id}", exc)
            raise DamagedTournament(tournament_id, str(exc)) from None

    async def tournament_rows(self, tournament_id: int) -> TournamentRows | None:
        """Everything stored of the tournament (None: no such tournament);
        :class:`DamagedTournament` when one of its rows cannot be read (named once in a
        warning)."""
        record = await self.tournament(tournament_id)
        if record is None:
            return None
        try:
            return await self._rows_of(record)
        except (ValueError, TypeError, OverflowError) as exc:
            self._damaged(f"a row of tournament {tournament_id}", exc)
            raise DamagedTournament(tournament_id, str(exc)) from None

    async def _rows_of(self, record: TournamentRecord) -> TournamentRows:
        """Everything stored of the tournament ``record`` (ValueError for a damaged row)."""
        tournament_id = record.id
        entrants = await self._read.fetch(
            "SELECT user_id, name, rating, joined_at, dropped_after FROM tournament_entrants "
            "WHERE tournament_id = ? ORDER BY joined_at, user_id", tournament_id)
        rounds = await self._read.fetch(
            "SELECT round, seed, bye_user, started_at FROM tournament_rounds "
            "WHERE tournament_id = ? ORDER BY round", tournament_id)
        tables = await self._read.fetch(
            "SELECT round, pod, table_id, decided, at_deadline, forfeit_seat FROM "
            "tournament_tables "
            "WHERE tournament_id = ? ORDER BY round, pod", tournament_id)
        seats = await self._read.fetch(
            "SELECT round, pod, user_id, place FROM tournament_seats WHERE tournament_id = ? "
            "ORDER BY round, pod, seat", tournament_id)
        by_pod: dict[tuple[int, int], list[tuple[int | None, int | None]]] = {}
        for r in seats:
            by_pod.setdefault((as_int(r[0], "round"), as_int(r[1], "pod")), []).append(
                (opt_int(r[2], "user_id"), opt_int(r[3], "place")))
        return TournamentRows(
            record=record,
            entrants=tuple(EntrantRow(as_int(r[0], "user_id"), str(r[1]), as_int(r[2], "rating"),
                                      as_float(r[3], "joined_at"), opt_int(r[4], "dropped_after"))
                           for r in entrants),
            rounds=tuple(TournamentRoundRow(as_int(r[0], "round"), as_int(r[1], "seed"),
                                            opt_int(r[2], "bye_user"),
                                            as_float(r[3], "started_at")) for r in rounds),
            tables=tuple(
                TournamentTableRow(
                    round=as_int(r[0], "round"), pod=as_int(r[1], "pod"),
                    table_id=as_int(r[2], "table_id"),
                    seats=tuple(u for u, _ in by_pod.get((as_int(r[0], "round"),
                                                          as_int(r[1], "pod")), [])),
                    places=tuple(p for _, p in by_pod.get((as_int(r[0], "round"),
                                                           as_int(r[1], "pod")), [])),
                    decided=as_flag(r[3], "decided"), at_deadline=as_flag(r[4], "at_deadline"),
                    forfeit=opt_int(r[5], "forfeit_seat"))
                for r in tables))

    async def tournaments_with_status(self, *statuses: TournamentStatus) -> list[int]:
        """Ids of the tournaments with one of ``statuses`` (oldest first)."""
        rows = await self._read.fetch(
            f"SELECT id FROM tournaments WHERE {self.dialect.any_of('status')} ORDER BY id",
            self.dialect.many(list(statuses)))
        return [as_int(r[0], "id") for r in rows]

    async def tournaments_of(self, place_key: str,
                             *statuses: TournamentStatus) -> list[TournamentRecord]:
        """A place's tournaments with one of ``statuses`` (oldest first; a damaged one left
        out, named once in a warning)."""
        rows = await self._read.fetch(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE place_key = ? AND "
            f"{self.dialect.any_of('status')} ORDER BY id", place_key,
            self.dialect.many(list(statuses)))
        return self._readable(rows, read_tournament,
                              lambda row: f"the tournaments row of tournament {row[0]}")

    async def tournament_of_table(self, table_id: int) -> int | None:
        """The tournament whose round opened table ``table_id`` (None: a table of its own)."""
        row = await self._read.fetchrow(
            "SELECT tournament_id FROM tournament_tables WHERE table_id = ?", table_id)
        return None if row is None else as_int(row[0], "tournament_id")

    async def round_ends(self, table_ids: Collection[int]) -> dict[int, float]:
        """When the round that opened each of ``table_ids`` ends: the deadline of a running
        tournament's round under way, for each of its matches (a table of its own, or of a
        round without a deadline, is left out; so is one of a tournament whose deadline is
        damaged, named once in a warning)."""
        if not table_ids:
            return {}
        rows = await self._read.fetch(
            "SELECT tt.table_id, t.deadline, t.id FROM tournament_tables tt JOIN tournaments t "
            "ON t.id = tt.tournament_id WHERE t.status = 'running' AND tt.round = t.round AND "
            f"t.deadline IS NOT NULL AND {self.dialect.any_of('tt.table_id')}",
            self.dialect.many(sorted(set(table_ids))))
        return dict(self._readable(
            rows, lambda r: (as_int(r[0], "table_id"), as_float(r[1], "deadline")),
            lambda r: f"the tournaments row of tournament {r[2]}"))

    async def enter(self, tournament_id: int, user_id: int, name: str, rating: int,
                    limit: int | None = None) -> bool:
        """Sign ``user_id`` up; False when they were already, sign-up is over, or ``limit``
        entrants are in already (counted in the same step: sign-ups arriving together never
        pass it)."""
        now = self.clock()
        async with self._tx() as db:
            # the tournament's row locked first: concurrent sign-ups are counted one by one
            await db.fetchrow(f"SELECT id FROM tournaments WHERE id = ?{self.dialect.for_update}",
                              tournament_id)
            row = await db.fetchrow(
                "INSERT INTO tournament_entrants (tournament_id, user_id, name, rating, "
                "joined_at) SELECT id, ?, ?, ?, ? FROM tournaments WHERE id = ? AND status = "
                "'signup' AND (SELECT COUNT(*) FROM tournament_entrants WHERE tournament_id = "
                "?) < ? ON CONFLICT (tournament_id, user_id) DO NOTHING RETURNING user_id",
                user_id, name, rating, now, tournament_id, tournament_id,
                limit if limit is not None else 2**31 - 1)
        return row is not None

    async def withdraw(self, tournament_id: int, user_id: int) -> bool:
        """Take ``user_id`` off the entrants while sign-up lasts; False when they were not on,
        or sign-up is over."""
        async with self._tx() as db:
            # the tournament's row locked first, as seating the first round locks it
            await db.fetchrow(f"SELECT id FROM tournaments WHERE id = ?{self.dialect.for_update}",
                              tournament_id)
            return await db.execute(
                "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ? AND "
                "EXISTS (SELECT 1 FROM tournaments WHERE id = ? AND status = 'signup')",
                tournament_id, user_id, tournament_id) == 1

    async def drop_entrant(self, tournament_id: int, user_id: int) -> bool:
        """``user_id`` drops out after the rounds seated so far (read in the same step: a
        round being seated is seated before or after the drop, never with it half seen);
        False when they are no entrant, dropped already, or the tournament is not running."""
        async with self._tx() as db:
            # the tournament's row locked first, as seating a round locks it
            await db.fetchrow(f"SELECT id FROM tournaments WHERE id = ?{self.dialect.for_update}",
                              tournament_id)
            return await db.execute(
                "UPDATE tournament_entrants SET dropped_after = (SELECT round FROM tournaments "
                "WHERE id = ?) WHERE tournament_id = ? AND user_id = ? AND dropped_after IS NULL "
                "AND EXISTS (SELECT 1 FROM tournaments WHERE id = ? AND status = 'running')",
                tournament_id, tournament_id, user_id, tournament_id) == 1

    async def seat_tournament_round(self, tournament_id: int, after: int, seed: int,
                                    bye: int | None, tables: Sequence[NewTournamentTable],
                                    deadline: float | None,
                                    ratings: Mapping[int, int] | None = None
                                    ) -> list[int] | None:
        """In ONE transaction: round ``after + 1`` seated (drawn with ``seed``, ``bye`` the
        player with a bye) and its matches opened, each a running table in the tournament's
        channel (moved to a thread of its own when shown), and the tournament running that
        round until ``deadline``; ``ratings``: the entrants' ratings when it started (the
        first round). Guarded by the round the tournament was at and by its entrants: None (and
        nothing written) when it is no longer at round ``after`` (another pass seated it), when
        a player seated (or given the bye) left or dropped out since the seating was drawn, or
        when the first round does not seat every entrant (one signed up meanwhile); else the
        new tables' ids in the order of ``tables``. The matches speak the language the server
        forced (else the tournament's), read under the server's language lock, taken first,
        as a language change takes it: one made meanwhile, by another process too, is either
        the one they speak or finds them and changes them with their tournament."""
        now = self.clock()
        seated = {s.user for t in tables for s in t.seats if s.user is not None and not s.ai}
        if bye is not None:
            seated.add(bye)
        async with self._tx() as db:
            # the server's language lock before the tournament's row, in the order a
            # language change takes them
            guild_row = await db.fetchrow("SELECT guild_id FROM tournaments WHERE id = ?",
                                          tournament_id)
            forced = None if guild_row is None else await hold_language(
                db, self.dialect, as_int(guild_row[0], "guild_id"))
            # the tournament's row locked first, as a sign-up, a leave and a drop lock it: one
            # saved before is seen by the read that follows, one saved after comes once this
            # round is seated (a sign-up or a leave then finds sign-up over)
            await db.fetchrow(f"SELECT id FROM tournaments WHERE id = ?{self.dialect.for_update}",
                              tournament_id)
            playing = {as_int(r[0], "user_id") for r in await db.fetch(
                "SELECT user_id FROM tournament_entrants WHERE tournament_id = ? AND "
                "dropped_after IS NULL", tournament_id)}
            if not seated <= playing or (after == 0 and seated != playing):
                return None
            row = await db.fetchrow(
                "UPDATE tournaments SET round = ?, status = 'running', deadline = ?, "
                "updated_at = ? WHERE id = ? AND round = ? AND status IN ('signup', 'running') "
                "RETURNING guild_id, place_key, channel_id, host_id, timer, abilities, locale, "
                "ai_level",
                after + 1, deadline, now, tournament_id, after)
            if row is None:
                return None
            guild, place_key, channel, host, timer, abilities, locale, ai_level = row
            locale = forced or locale
            if ratings:
                await db.executemany(
                    "UPDATE tournament_entrants SET rating = ? WHERE tournament_id = ? AND "
                    "user_id = ?", [(r, tournament_id, u) for u, r in sorted(ratings.items())])
            await db.execute(
                "INSERT INTO tournament_rounds (tournament_id, round, seed, bye_user, "
                "started_at) VALUES (?, ?, ?, ?, ?)", tournament_id, after + 1, seed, bye, now)
            ids: list[int] = []
            for table in tables:
                added = await db.fetchrow(
                    "INSERT INTO tables (guild_id, channel_id, host_id, status, abilities, "
                    "timer, seed, locale, seats, state, version, deadline, created_at, "
                    "updated_at, ai_level, catalogue, lessons, undo, hints, hints_choice, "
                    "place_key, threaded, tournament_id) VALUES (?, ?, ?, 'running', ?, ?, ?, "
                    "?, ?, ?, ?, ?, ?, ?, ?, ?, FALSE, ?, FALSE, FALSE, ?, ?, ?) RETURNING id",
                    guild, channel, host, abilities, timer, table.seed, locale,
                    seats_to_json(table.seats), storable(table.state), table.state.step,
                    table.deadline, now, now,
                    ai_level or "normal",
                    catalogue_version(), table.undo, place_key, table.threaded, tournament_id)
                assert added is not None
                table_id = as_int(added[0], "id")
                ids.append(table_id)
                await write_seats(db, table_id, table.seats)
                await db.execute(
                    "INSERT INTO tournament_tables (tournament_id, round, pod, table_id) "
                    "VALUES (?, ?, ?, ?)", tournament_id, after + 1, table.pod, table_id)
                await db.executemany(
                    "INSERT INTO tournament_seats (tournament_id, round, pod, seat, user_id) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(tournament_id, after + 1, table.pod, i, None if s.ai else s.user)
                     for i, s in enumerate(table.seats)])
        return ids

    async def decide_tournament_table(self, tournament_id: int, round_number: int, pod: int,
                                      places: Sequence[int], at_deadline: bool) -> bool:
        """Keep the place each seat of table ``pod`` of round ``round_number`` took (in seat
        order; ``at_deadline``: the round's deadline decided it); False (and nothing written)
        when it was decided already."""
        async with self._tx() as db:
            if await db.execute(
                    "UPDATE tournament_tables SET decided = TRUE, at_deadline = ? WHERE "
                    "tournament_id = ? AND round = ? AND pod = ? AND decided = FALSE",
                    at_deadline, tournament_id, round_number, pod) != 1:
                return False
            await _place(db, tournament_id, round_number, pod, places)
        return True

    async def close_at_deadline(self, tournament_id: int, round_number: int, pod: int,
                                places: Sequence[int], table_id: int, version: int,
                                revision: int) -> bool:
        """In ONE transaction: the match of table ``pod`` of round ``round_number`` (table
        ``table_id``) closed as abandoned (not rated) and decided at the round's deadline,
        each seat taking its place of ``places`` (in seat order: the match as it stood at
        ``version`` and ``revision``). False and nothing written when the match is no longer
        running at ``version`` and ``revision`` (a move, or its end, came in meanwhile, or its
        seats changed: one handed to the AI, a person forgotten); False too, the match closed
        all the same, when the table was decided already."""
        now = self.clock()
        async with self._table_tx(table_id) as db:
            if not await abandon_running(db, table_id, version, now, revision):
                return False
            if await db.execute(
                    "UPDATE tournament_tables SET decided = TRUE, at_deadline = TRUE WHERE "
                    "tournament_id = ? AND round = ? AND pod = ? AND table_id = ? AND "
                    "decided = FALSE", tournament_id, round_number, pod, table_id) != 1:
                return False
            await _place(db, tournament_id, round_number, pod, places)
        return True

    async def finish_tournament(self, tournament_id: int, round_number: int) -> bool:
        """The running tournament ends after round ``round_number``; False when it ended
        already (or is at another round)."""
        async with self._tx() as db:
            return await db.execute(
                "UPDATE tournaments SET status = 'finished', deadline = NULL, updated_at = ? "
                "WHERE id = ? AND status = 'running' AND round = ?",
                self.clock(), tournament_id, round_number) == 1

    async def cancel_tournament(self, tournament_id: int) -> bool:
        """Close a tournament still taking sign-ups; False when it is not."""
        async with self._tx() as db:
            return await db.execute(
                "UPDATE tournaments SET status = 'cancelled', updated_at = ? WHERE id = ? AND "
                "status = 'signup'", self.clock(), tournament_id) == 1

    async def cancel_tournaments_in(self, channel_id: int) -> list[int]:
        """Cancel every tournament held in channel ``channel_id`` (taking sign-ups or under
        way: its channel was deleted); the ids of those cancelled now."""
        async with self._tx() as db:
            rows = await db.fetch(
                "UPDATE tournaments SET status = 'cancelled', deadline = NULL, updated_at = ? "
                "WHERE channel_id = ? AND status IN ('signup', 'running') RETURNING id",
                self.clock(), channel_id)
        return sorted(as_int(r[0], "id") for r in rows)

    async def set_tournament_messages(self, tournament_id: int, *,
                                      signup_message_id: int | None = None,
                                      standings_message_id: int | None = None) -> None:
        """Remember the tournament's sign-up message or its standings message."""
        changes = {name: value for name, value in (("signup_message_id", signup_message_id),
                                                   ("standings_message_id",
                                                    standings_message_id))
                   if value is not None}
        if not changes:
            return
        sets = ", ".join(f"{name} = ?" for name in changes)
        async with self._tx() as db:
            await db.execute(f"UPDATE tournaments SET {sets}, updated_at = ? WHERE id = ?",
                             *changes.values(), self.clock(), tournament_id)


__all__ = ["TOURNAMENT_COLUMNS", "TournamentQueries", "read_tournament"]
