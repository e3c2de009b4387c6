"""Ratings: each server's ratings, each rated match's change per person, and each person's
record against the AI.

A finished match's rating rows are written in the transaction that stores its result
(:func:`store_result`), from the ratings stored at that moment. That transaction first takes
the lock of the match's place (:attr:`~bot.storage.core.db.Dialect.lock_place`: PostgreSQL's
advisory lock, as several processes may end matches of one server at once; SQLite runs one
write transaction at a time), so two matches ending together on one server each see the
other's update or none of it, and the result is numbered (its ``seq``) under that lock.
:meth:`RatingQueries.recompute_ratings` rebuilds the same rows from the stored results, in the
order they were stored (their ``seq``), with the same step (:func:`step`), so two matches
ending in the same instant are rated in the same order both times.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TypeVar

from bot.storage.core.base import Base
from bot.storage.core.db import Db, Dialect
from bot.storage.core.history import insert_result, with_seats
from bot.storage.core.rows import RESULT_COLUMNS, Row, as_float, as_int
from bot.storage.records import (
    AiRecord,
    DamagedResult,
    DamagedResults,
    PlayerRating,
    Rater,
    RatingChange,
    StoredRating,
    TableResult,
    against_ai,
    people,
    won,
)

log = logging.getLogger("karak.storage")
V = TypeVar("V")
RATING_COLUMNS = "guild_id, user_id, mu, sigma, games, wins, last_table"
#: The columns of ``ai_records`` that :func:`read_ai` reads (its place is the query's).
AI_COLUMNS = "user_id, level, hero, games, wins"
CHANGE_COLUMNS = ("c.table_id, c.guild_id, c.user_id, c.mu_before, c.sigma_before, c.mu_after, "
                  "c.sigma_after, r.finished_at")


@dataclass
class Tally:
    """Rating rows being built: the ratings, the changes and the records against the AI."""

    ratings: dict[tuple[int, int], PlayerRating] = field(default_factory=dict)
    changes: list[RatingChange] = field(default_factory=list)
    ai: dict[tuple[str, int, str, str], AiRecord] = field(default_factory=dict)  # by place


def step(tally: Tally, result: TableResult, rater: Rater) -> None:
    """Fold one finished match into ``tally`` (which must hold the ratings of its people). A
    person who never made a move counts as never seated: their seat is one more AI seat, at the
    level it was played at."""
    seated = [s for s in people(result) if s.moved]
    if len(seated) == 1:
        for game in against_ai(result):
            key = (result.place_key, game.user_id, game.level, game.hero)
            done = tally.ai.get(key, AiRecord(game.user_id, game.level, game.hero, 0, 0))
            tally.ai[key] = AiRecord(done.user_id, done.level, done.hero,
                                     done.games + game.games, done.wins + game.wins)
        return
    guild = result.guild_id
    if guild is None:
        return
    current = {u: tally.ratings[(guild, u)].rating for s in seated
               if (u := s.user_id) is not None and (guild, u) in tally.ratings}
    new = rater(result, current)
    for seat in seated:
        user = seat.user_id
        if user is None or user not in new:
            continue
        old = tally.ratings.get((guild, user))
        tally.ratings[(guild, user)] = PlayerRating(
            guild, user, new[user], (old.games if old else 0) + 1,
            (old.wins if old else 0) + won(result, seat), result.table_id)
        tally.changes.append(RatingChange(result.table_id, guild, user, current.get(user),
                                          new[user], result.finished_at))


#: The key space of the ratings' place locks (a place's name is the other half of the key).
RATINGS_LOCK = 0x5241


async def lock_place(db: Db, dialect: Dialect, name: str) -> None:
    """Take the rating lock of place ``name`` (a server's id, or a direct-message place's key)
    until the caller's transaction ends (where the dialect has such locks)."""
    if dialect.lock_place is not None:
        await db.execute(dialect.lock_place, RATINGS_LOCK, name)


async def store_result(db: Db, dialect: Dialect, result: TableResult,
                       rater: Rater | None) -> None:
    """Write a match's result and the rating rows ``rater`` gives (in the caller's
    transaction), under its place's rating lock, taken first: the result is numbered under it.
    A server's lock is named by its id, as the rebuild of one server's ratings takes it; a
    match in direct messages takes the lock of that person's place."""
    await lock_place(db, dialect,
                     result.place_key if result.guild_id is None else str(result.guild_id))
    await insert_result(db, dialect, result)
    if rater is not None:
        await write_ratings(db, dialect, result, rater)


async def write_ratings(db: Db, dialect: Dialect, result: TableResult, rater: Rater) -> None:
    """Write the rating rows of the match ``result`` that just ended (in the caller's
    transaction, under its place's lock), from the ratings and records stored now."""
    users = dialect.many([s.user_id for s in people(result) if s.user_id is not None])
    tally = Tally()
    if result.guild_id is not None:
        rows = await db.fetch(f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? "
                              f"AND {dialect.any_of('user_id')}{dialect.for_update}",
                              result.guild_id, users)
        tally.ratings = {(r.guild_id, r.user_id): r
                         for r in mended(rows, read_rating, rating_row, result.table_id)}
    rows = await db.fetch(f"SELECT {AI_COLUMNS} FROM ai_records WHERE place_key = ? "
                          f"AND {dialect.any_of('user_id')}{dialect.for_update}",
                          result.place_key, users)
    tally.ai = {(result.place_key, r.user_id, r.level, r.hero): r
                for r in mended(rows, read_ai, ai_row(result.place_key), result.table_id)}
    before = dict(tally.ai)
    step(tally, result, rater)
    await save(db, tally, changed_ai={k for k, v in tally.ai.items() if before.get(k) != v})


async def save(db: Db, tally: Tally,
               changed_ai: AbstractSet[tuple[str, int, str, str]] | None = None) -> None:
    """Write ``tally``'s ratings, changes and records against the AI (only ``changed_ai`` of
    those when given) over the stored ones, but none of a forgotten person's: a rebuild rates
    their pseudonym (negative) where they stood, so that everyone else is rated as before, and
    keeps nothing of it."""
    await db.executemany(
        f"INSERT INTO ratings ({RATING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id, user_id) DO UPDATE SET mu = excluded.mu, "
        "sigma = excluded.sigma, games = excluded.games, wins = excluded.wins, "
        "last_table = excluded.last_table",
        [(r.guild_id, r.user_id, r.rating.mu, r.rating.sigma, r.games, r.wins, r.last_table)
         for r in tally.ratings.values() if r.user_id > 0])
    await db.executemany(
        "INSERT INTO rating_changes (table_id, guild_id, user_id, mu_before, sigma_before, "
        "mu_after, sigma_after) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(c.table_id, c.guild_id, c.user_id, c.before.mu if c.before else None,
          c.before.sigma if c.before else None, c.after.mu, c.after.sigma)
         for c in tally.changes if c.user_id > 0])
    await db.executemany(
        "INSERT INTO ai_records (place_key, user_id, level, hero, games, wins) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (place_key, user_id, level, hero) "
        "DO UPDATE SET games = excluded.games, wins = excluded.wins",
        [(k[0], r.user_id, r.level, r.hero, r.games, r.wins) for k, r in tally.ai.items()
         if r.user_id > 0 and (changed_ai is None or k in changed_ai)])


def mended(rows: Sequence[Row], read: Callable[[Row], V], name: Callable[[Row], str],
           table_id: int) -> list[V]:
    """The rows of ``rows`` that ``read`` reads, at the end of match ``table_id``: a damaged
    one (named in a warning) counts as none, so the match is rated as if it were its person's
    first and the row written anew (``ratings --recompute`` rebuilds it from the results); it
    never stops the match's end."""
    out = []
    for row in rows:
        try:
            out.append(read(row))
        except (ValueError, TypeError, OverflowError) as exc:
            log.warning("%s is damaged (%s): table %s rates it as none and writes it anew",
                        name(row), exc, table_id)
    return out


def rating_row(row: Row) -> str:
    """A ``ratings`` row's name in a warning (:data:`RATING_COLUMNS`)."""
    return f"the ratings row of user {row[1]} in server {row[0]}"


def ai_row(place_key: str) -> Callable[[Row], str]:
    """How an ``ai_records`` row of place ``place_key`` is named in a warning
    (:data:`AI_COLUMNS`)."""
    return lambda row: (f"the ai_records row of user {row[0]} at {place_key} "
                        f"(level {row[1]!r:.20}, hero {row[2]!r:.20})")


def read_rating(row: Row) -> PlayerRating:
    """A ``ratings`` row (:data:`RATING_COLUMNS`)."""
    guild, user, mu, sigma, games, wins, last = row
    return PlayerRating(as_int(guild, "guild_id"), as_int(user, "user_id"),
                        StoredRating(as_float(mu, "mu"), as_float(sigma, "sigma")),
                        as_int(games, "games"), as_int(wins, "wins"), as_int(last, "last_table"))


def read_ai(row: Row) -> AiRecord:
    """An ``ai_records`` row."""
    user, level, hero, games, wins = row
    return AiRecord(as_int(user, "user_id"), str(level), str(hero), as_int(games, "games"),
                    as_int(wins, "wins"))


def read_change(row: Row) -> RatingChange:
    """A ``rating_changes`` row joined with its result (:data:`CHANGE_COLUMNS`)."""
    table, guild, user, mu0, sigma0, mu1, sigma1, at = row
    before = None if mu0 is None else StoredRating(as_float(mu0, "mu_before"),
                                                   as_float(sigma0, "sigma_before"))
    return RatingChange(as_int(table, "table_id"), as_int(guild, "guild_id"),
                        as_int(user, "user_id"), before,
                        StoredRating(as_float(mu1, "mu_after"), as_float(sigma1, "sigma_after")),
                        as_float(at, "finished_at"))


def readable_changes(rows: Sequence[Row]) -> list[RatingChange]:
    """The rating changes of ``rows`` (:data:`CHANGE_COLUMNS`), a row damaged in the database
    (or whose result's time is) left out: it never stops the reading of the others."""
    out = []
    for row in rows:
        try:
            out.append(read_change(row))
        except (ValueError, TypeError):
            continue
    return out


class RatingQueries(Base):
    """The ratings part of the store."""

    async def ratings(self, guild_id: int) -> list[PlayerRating]:
        """Every rating of a server (best ``mu`` first; the caller orders by what it shows) but
        a forgotten person's (a pseudonym, negative: see :mod:`bot.storage.core.people`) and a
        damaged one (named once in a warning)."""
        return self._readable(await self._read.fetch(
            f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id > 0 "
            "ORDER BY mu DESC",
            guild_id), read_rating, rating_row)

    async def rating_of(self, guild_id: int, user_id: int) -> PlayerRating | None:
        """A person's rating on a server, or None before their first rated match (and while
        it is damaged: named once in a warning; their next rated match writes it anew)."""
        row = await self._read.fetchrow(
            f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ?",
            guild_id, user_id)
        found = [] if row is None else self._readable([row], read_rating, rating_row)
        return found[0] if found else None

    async def rating_changes(self, guild_id: int, user_id: int) -> list[RatingChange]:
        """A person's rating changes on a server, oldest first."""
        return readable_changes(await self._read.fetch(
            f"SELECT {CHANGE_COLUMNS} FROM rating_changes c JOIN results r USING (table_id) "
            "WHERE c.guild_id = ? AND c.user_id = ? ORDER BY r.seq", guild_id, user_id))

    async def changes_of_table(self, table_id: int) -> list[RatingChange]:
        """The rating changes a finished match made (none when it was not rated)."""
        return readable_changes(await self._read.fetch(
            f"SELECT {CHANGE_COLUMNS} FROM rating_changes c JOIN results r USING (table_id) "
            "WHERE c.table_id = ? ORDER BY c.user_id", table_id))

    async def ai_records(self, place_key: str, user_id: int) -> list[AiRecord]:
        """A person's records against the AI at a place (its key), by level and hero (a
        damaged one left out, named once in a warning)."""
        return self._readable(await self._read.fetch(
            f"SELECT {AI_COLUMNS} FROM ai_records WHERE place_key = ? AND user_id = ? "
            "ORDER BY level, hero", place_key, user_id), read_ai, ai_row(place_key))

    async def player_results(self, place_key: str,
                             user_id: int) -> list[TableResult | DamagedResult]:
        """The results of a place's finished tables where ``user_id`` held a seat, newest
        first (a damaged one in its place)."""
        heads = await self._read.fetch(
            f"SELECT {RESULT_COLUMNS} FROM results WHERE place_key = ? AND table_id IN "
            "(SELECT table_id FROM result_seats WHERE user_id = ?) ORDER BY finished_at DESC, "
            "table_id DESC", place_key, user_id)
        return await with_seats(self._read, self.dialect, heads)

    async def recompute_ratings(self, rater: Rater, guild_id: int | None = None) -> int:
        """Rebuild the ratings (of one server when ``guild_id`` is given, under its rating
        lock; else of all, and the records against the AI) from the stored results in the
        order they were stored, in one transaction; returns the number of matches read.
        Refused with :class:`DamagedResults` before anything is written when a result to read
        is damaged: left out, its people would be rated otherwise than they were."""
        where, args = ("WHERE guild_id = ?", [guild_id]) if guild_id is not None else ("", [])
        async with self._tx() as db:
            # locked before the results are read: a match rated meanwhile by another process
            # waits, then is rated over the rebuilt rows (read after it, it would be lost)
            if guild_id is None:
                if self.dialect.lock_ratings is not None:
                    await db.execute(self.dialect.lock_ratings)
            else:
                await lock_place(db, self.dialect, str(guild_id))
                # read before the results: a person being forgotten meanwhile (who locks
                # these tables whole) is either waited for, their results then read renamed,
                # or waits for this rebuild, and then deletes the rows it writes of them
                await db.fetch("SELECT (SELECT 1 FROM ratings LIMIT 1), "
                               "(SELECT 1 FROM rating_changes LIMIT 1)")
            heads = await db.fetch(f"SELECT {RESULT_COLUMNS} FROM results {where} ORDER BY seq",
                                   *args)
            results = await with_seats(db, self.dialect, heads)
            damaged = tuple(r.table_id for r in results if isinstance(r, DamagedResult))
            if damaged:
                raise DamagedResults(damaged)
            tally = Tally()
            for result in results:
                assert isinstance(result, TableResult)
                step(tally, result, rater)
            if guild_id is None:
                for table in ("ratings", "rating_changes", "ai_records"):
                    await db.execute(f"DELETE FROM {table}")
            else:
                await db.execute("DELETE FROM ratings WHERE guild_id = ?", guild_id)
                await db.execute("DELETE FROM rating_changes WHERE guild_id = ?", guild_id)
            await save(db, tally, changed_ai=None if guild_id is None else set())
        return len(results)


__all__ = ["RatingQueries", "Tally", "save", "step", "store_result", "write_ratings"]
