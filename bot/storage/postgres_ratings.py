"""PostgreSQL storage of ratings (as SQLite's, :mod:`bot.storage.sqlite_ratings`, whose pure
parts it shares: the tally, its step and the rows read): each server's ratings, each rated
match's change per person, and each person's record against the AI.

A finished match's rating rows are written in the transaction that stores its result, from the
ratings stored at that moment. Several processes may end matches of one server at once, so that
transaction first takes the advisory lock of the match's place (a server, or a person's direct
messages): two such transactions run one after the other, each seeing the other's ratings or
none of them. The result is numbered (its ``seq``) under that lock, so a server's results are
numbered in the order their ratings were computed, the order the rebuild follows.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import asyncpg

from bot.storage.postgres_rows import Db, insert_result, with_seats
from bot.storage.records import AiRecord, PlayerRating, Rater, RatingChange, TableResult, people
from bot.storage.sqlite_ratings import (
    AI_COLUMNS,
    CHANGE_COLUMNS,
    RATING_COLUMNS,
    Tally,
    read_ai,
    read_change,
    read_rating,
    step,
)
from bot.storage.sqlite_rows import RESULT_COLUMNS

#: The advisory lock key space of ratings (a server's id is added to it).
RATINGS_LOCK = 0x5241


async def lock_ratings(db: Db, result: TableResult) -> None:
    """Take the rating lock of the place ``result`` was played in until the caller's
    transaction ends (taking it again in that transaction waits for nothing): a server's lock
    is named by its id, as the rebuild of one server's ratings takes it; a match in direct
    messages takes the lock of that person's place."""
    await db.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", RATINGS_LOCK,
                     result.place_key if result.guild_id is None else str(result.guild_id))


async def store_result(db: Db, result: TableResult, rater: Rater | None) -> None:
    """Write a match's result and the rating rows ``rater`` gives (in the caller's
    transaction), under its server's rating lock, taken first: the result is numbered under
    it."""
    await lock_ratings(db, result)
    await insert_result(db, result)
    if rater is not None:
        await write_ratings(db, result, rater)


async def write_ratings(db: Db, result: TableResult, rater: Rater) -> None:
    """Write the rating rows of the match ``result`` that just ended (in the caller's
    transaction), from the ratings and records stored now, under the server's lock."""
    users = [s.user_id for s in people(result) if s.user_id is not None]
    await lock_ratings(db, result)
    tally = Tally()
    if result.guild_id is not None:
        rows = await db.fetch(f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = $1 "
                              "AND user_id = ANY($2::bigint[]) FOR UPDATE",
                              result.guild_id, users)
        tally.ratings = {(r.guild_id, r.user_id): r for r in (read_rating(tuple(x)) for x in rows)}
    rows = await db.fetch(f"SELECT {AI_COLUMNS} FROM ai_records WHERE place_key = $1 "
                          "AND user_id = ANY($2::bigint[]) FOR UPDATE", result.place_key, users)
    tally.ai = {(result.place_key, r.user_id, r.level, r.hero): r
                for r in (read_ai(tuple(x)) for x in rows)}
    before = dict(tally.ai)
    step(tally, result, rater)
    await save(db, tally, changed_ai={k for k, v in tally.ai.items() if before.get(k) != v})


async def save(db: Db, tally: Tally,
               changed_ai: AbstractSet[tuple[str, int, str, str]] | None = None) -> None:
    """Write ``tally``'s ratings, changes and records against the AI (only ``changed_ai`` of
    those when given) over the stored ones."""
    await db.executemany(
        f"INSERT INTO ratings ({RATING_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) "
        "ON CONFLICT (guild_id, user_id) DO UPDATE SET mu = excluded.mu, "
        "sigma = excluded.sigma, games = excluded.games, wins = excluded.wins, "
        "last_table = excluded.last_table",
        [(r.guild_id, r.user_id, r.rating.mu, r.rating.sigma, r.games, r.wins, r.last_table)
         for r in tally.ratings.values()])
    await db.executemany(
        "INSERT INTO rating_changes (table_id, guild_id, user_id, mu_before, sigma_before, "
        "mu_after, sigma_after) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [(c.table_id, c.guild_id, c.user_id, c.before.mu if c.before else None,
          c.before.sigma if c.before else None, c.after.mu, c.after.sigma)
         for c in tally.changes])
    await db.executemany(
        "INSERT INTO ai_records (place_key, user_id, level, hero, games, wins) "
        "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (place_key, user_id, level, hero) "
        "DO UPDATE SET games = excluded.games, wins = excluded.wins",
        [(k[0], r.user_id, r.level, r.hero, r.games, r.wins) for k, r in tally.ai.items()
         if changed_ai is None or k in changed_ai])


class RatingQueries:
    """The rating part of the PostgreSQL store (:class:`bot.storage.postgres.Store` is one)."""

    _pool: asyncpg.Pool

    async def ratings(self, guild_id: int) -> list[PlayerRating]:
        """Every rating of a server (best ``mu`` first; the caller orders by what it shows)."""
        return [read_rating(tuple(r)) for r in await self._pool.fetch(
            f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = $1 ORDER BY mu DESC",
            guild_id)]

    async def rating_of(self, guild_id: int, user_id: int) -> PlayerRating | None:
        """A person's rating on a server, or None before their first rated match."""
        row = await self._pool.fetchrow(
            f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = $1 AND user_id = $2",
            guild_id, user_id)
        return None if row is None else read_rating(tuple(row))

    async def rating_changes(self, guild_id: int, user_id: int) -> list[RatingChange]:
        """A person's rating changes on a server, oldest first."""
        return [read_change(tuple(r)) for r in await self._pool.fetch(
            f"SELECT {CHANGE_COLUMNS} FROM rating_changes c JOIN results r USING (table_id) "
            "WHERE c.guild_id = $1 AND c.user_id = $2 ORDER BY r.seq",
            guild_id, user_id)]

    async def changes_of_table(self, table_id: int) -> list[RatingChange]:
        """The rating changes a finished match made (none when it was not rated)."""
        return [read_change(tuple(r)) for r in await self._pool.fetch(
            f"SELECT {CHANGE_COLUMNS} FROM rating_changes c JOIN results r USING (table_id) "
            "WHERE c.table_id = $1 ORDER BY c.user_id", table_id)]

    async def ai_records(self, place_key: str, user_id: int) -> list[AiRecord]:
        """A person's records against the AI at a place (its key), by level and hero."""
        return [read_ai(tuple(r)) for r in await self._pool.fetch(
            f"SELECT {AI_COLUMNS} FROM ai_records WHERE place_key = $1 AND user_id = $2 "
            "ORDER BY level, hero", place_key, user_id)]

    async def player_results(self, place_key: str, user_id: int) -> list[TableResult]:
        """The results of a place's finished tables where ``user_id`` held a seat, newest
        first."""
        heads = await self._pool.fetch(
            f"SELECT {RESULT_COLUMNS} FROM results WHERE place_key = $1 AND "
            "table_id IN (SELECT table_id FROM result_seats WHERE user_id = $2) "
            "ORDER BY finished_at DESC, table_id DESC", place_key, user_id)
        return await with_seats(self._pool, [tuple(h) for h in heads])

    async def recompute_ratings(self, rater: Rater, guild_id: int | None = None) -> int:
        """Rebuild the ratings (of one server when ``guild_id`` is given; else of all, and the
        records against the AI) from the stored results in the order they were stored, in
        one transaction; returns the number of matches read."""
        where, args = ("WHERE guild_id = $1", [guild_id]) if guild_id is not None else ("", [])
        async with self._pool.acquire() as db, db.transaction():
            heads = await db.fetch(
                f"SELECT {RESULT_COLUMNS} FROM results {where} ORDER BY seq",
                *args)
            results = await with_seats(db, [tuple(h) for h in heads])
            tally = Tally()
            for result in results:
                step(tally, result, rater)
            if guild_id is None:
                await db.execute("LOCK TABLE ratings, rating_changes, ai_records")
                for table in ("ratings", "rating_changes", "ai_records"):
                    await db.execute(f"DELETE FROM {table}")
            else:
                await db.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))",
                                 RATINGS_LOCK, str(guild_id))
                await db.execute("DELETE FROM ratings WHERE guild_id = $1", guild_id)
                await db.execute("DELETE FROM rating_changes WHERE guild_id = $1", guild_id)
            await save(db, tally, changed_ai=None if guild_id is None else set())
        return len(results)


__all__ = ["RatingQueries", "lock_ratings", "save", "store_result", "write_ratings"]
