"""The SQLite database's schema: numbered migrations, each run once, in order, in its own
transaction (:func:`run_migration`; ``PRAGMA user_version`` counts those applied).

A migration is an SQL script, or a Python function that runs its statements on the connection
(for what SQL alone cannot compute, such as a finished game's places from its stored state). A
migration is never changed once released: a later change of the schema is a new migration.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Iterator

import aiosqlite

from bot.storage.migration_rules import CATALOGUE_5, MigrationFailed, anchor_out_16, result_rows_5

#: A migration: an SQL script, or a function that migrates the connection it is given.
Migration = str | Callable[[aiosqlite.Connection], Awaitable[None]]


async def _results_and_undoable_log(db: aiosqlite.Connection) -> None:
    """Migration 5: the catalogue version of each table (existing tables get the cards' version
    when this migration was released, :data:`~bot.storage.migration_rules.CATALOGUE_5`: they were
    played with those cards), a per-table sequence of the action log that lets a step appear
    twice (an undone action stays, marked ``undone``), and the results of finished games, one
    ``results`` row and a ``result_seats`` row per seat, back-filled from the stored states by
    :func:`~bot.storage.migration_rules.result_rows_5`."""
    await run_script(db, """
    ALTER TABLE tables ADD COLUMN catalogue TEXT NOT NULL DEFAULT '';
    CREATE TABLE actions_by_seq (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL,
        step INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        by_ai INTEGER NOT NULL DEFAULT 0,
        action TEXT NOT NULL,
        at REAL NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seq)
    );
    INSERT INTO actions_by_seq (table_id, seq, step, seat, user_id, by_ai, action, at)
        SELECT table_id, step, step, seat, user_id, by_ai, action, at FROM actions;
    DROP TABLE actions;
    ALTER TABLE actions_by_seq RENAME TO actions;
    CREATE TABLE results (
        table_id INTEGER PRIMARY KEY REFERENCES tables(id),
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        rounds INTEGER NOT NULL,
        actions INTEGER NOT NULL,
        catalogue TEXT NOT NULL,
        winner_seat INTEGER NOT NULL,
        winner_user_id INTEGER
    );
    CREATE INDEX results_by_guild ON results(guild_id, table_id);
    CREATE TABLE result_seats (
        table_id INTEGER NOT NULL REFERENCES results(table_id),
        seat INTEGER NOT NULL,
        user_id INTEGER,
        kind TEXT NOT NULL CHECK (kind IN ('person', 'ai')),
        ai_level TEXT,
        hero TEXT NOT NULL,
        keys INTEGER NOT NULL,
        hp INTEGER NOT NULL,
        place INTEGER NOT NULL,
        handed_to_ai INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX result_seats_by_user ON result_seats(user_id) WHERE user_id IS NOT NULL;
    """)
    await db.execute("UPDATE tables SET catalogue = ?", (CATALOGUE_5,))
    async with db.execute(
            "SELECT id, guild_id, channel_id, seats, state, COALESCE(finished_at, updated_at) "
            "FROM tables WHERE status = 'finished' AND state IS NOT NULL ORDER BY id") as cur:
        finished = await cur.fetchall()
    for row in finished:
        rows = result_rows_5(*row)
        if rows is None:  # a damaged row gets no result (reading the table tells what is wrong)
            continue
        result, seats = rows
        await db.execute(
            "INSERT INTO results (table_id, guild_id, channel_id, finished_at, rounds, actions, "
            "catalogue, winner_seat, winner_user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", result)
        await db.executemany(
            "INSERT INTO result_seats (table_id, seat, user_id, kind, ai_level, hero, keys, hp, "
            "place, handed_to_ai) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", seats)


async def _anchors_apart(db: aiosqlite.Connection) -> None:
    """Migration 16: the anchor of a running game's take-back (the state before the first move
    that can still be taken back) in a column of its own, written when a take-back window opens
    and not with every move; a running game's state that holds it inside is split by
    :func:`~bot.storage.migration_rules.anchor_out_16`."""
    await db.execute("ALTER TABLE tables ADD COLUMN anchor TEXT")
    async with db.execute("SELECT id, state FROM tables WHERE status = 'running' "
                          "AND state IS NOT NULL ORDER BY id") as cur:
        rows = await cur.fetchall()
    for tid, state in rows:
        split = anchor_out_16(state)
        if split is not None:
            await db.execute("UPDATE tables SET state = ?, anchor = ? WHERE id = ?",
                             (*split, tid))


MIGRATIONS: tuple[Migration, ...] = (
    # 1: tables, action log, server settings, key/value metadata
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        host_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
        abilities INTEGER NOT NULL DEFAULT 0,
        timer INTEGER NOT NULL DEFAULT 0,
        seed INTEGER NOT NULL,
        locale TEXT NOT NULL DEFAULT 'en',
        seats TEXT NOT NULL,
        state TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        message_id INTEGER,
        lobby_message_id INTEGER,
        deadline REAL,
        winner INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX tables_status ON tables(status);
    CREATE TABLE actions (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        step INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        by_ai INTEGER NOT NULL DEFAULT 0,
        action TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (table_id, step)
    );
    CREATE TABLE settings (
        guild_id INTEGER PRIMARY KEY,
        abilities INTEGER NOT NULL DEFAULT 0,
        timer INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: a server may force the language of its tables (NULL: the server's language in Discord)
    """
    ALTER TABLE settings ADD COLUMN locale TEXT;
    """,
    # 3: a lobby's revision, bumped by every change, so a click on an older lobby is told apart
    """
    ALTER TABLE tables ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
    """,
    # 4: the level of the AI seats a host adds, and a server's default for new tables
    """
    ALTER TABLE tables ADD COLUMN ai_level TEXT NOT NULL DEFAULT 'normal';
    ALTER TABLE settings ADD COLUMN ai_level TEXT NOT NULL DEFAULT 'normal';
    """,
    # 5: the catalogue version of each table, an action log that keeps undone actions, results
    _results_and_undoable_log,
    # 6: a guided first match (/goblin learn), whose hand messages explain rules as they come
    """
    ALTER TABLE tables ADD COLUMN lessons INTEGER NOT NULL DEFAULT 0;
    """,
    # 7: whether players may take back a move, per table and as a server's default
    """
    ALTER TABLE tables ADD COLUMN undo INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE settings ADD COLUMN undo INTEGER NOT NULL DEFAULT 1;
    """,
    # 8: a person's matches newest first, and the offers to play a finished table again
    """
    CREATE INDEX result_seats_by_user_table ON result_seats(user_id, table_id)
        WHERE user_id IS NOT NULL;
    CREATE TABLE rematches (
        table_id INTEGER PRIMARY KEY REFERENCES tables(id),
        offered_by INTEGER NOT NULL,
        offered_at REAL NOT NULL,
        ready TEXT NOT NULL,
        message_id INTEGER,
        new_table INTEGER,
        closed INTEGER NOT NULL DEFAULT 0
    );
    """,
    # 9: ratings per server, each rated match's changes, records against the AI; left empty:
    # ``python -m bot.admin ratings --recompute`` fills them from the stored results
    """
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        last_table INTEGER NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE TABLE rating_changes (
        table_id INTEGER NOT NULL REFERENCES results(table_id),
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        mu_before REAL,
        sigma_before REAL,
        mu_after REAL NOT NULL,
        sigma_after REAL NOT NULL,
        PRIMARY KEY (table_id, user_id)
    );
    CREATE INDEX rating_changes_by_user ON rating_changes(guild_id, user_id, table_id);
    CREATE TABLE ai_records (
        user_id INTEGER NOT NULL,
        level TEXT NOT NULL,
        hero TEXT NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        PRIMARY KEY (user_id, level, hero)
    );
    """,
    # 10: whether people may ask for hints (NULL: decided when the game starts), and each hint
    # given: one per person and decision (the table's version), its answer kept as data
    """
    ALTER TABLE tables ADD COLUMN hints INTEGER;
    CREATE TABLE hints (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        version INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        answer BLOB NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (table_id, version, user_id)
    );
    """,
    # 11: who does each table's background work (AI turns, turn timer): one lease per table,
    # held by a process (by its name) until it expires
    """
    CREATE TABLE leases (
        table_id INTEGER PRIMARY KEY REFERENCES tables(id),
        owner TEXT NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX leases_by_owner ON leases(owner);
    """,
    # 12: each match's animation posted in a channel (who, when, its message), and when each
    # person last shared one in each channel (the channel's slowmode counts from it)
    """
    CREATE TABLE shares (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        channel_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        posted_at REAL NOT NULL,
        message_id INTEGER,
        PRIMARY KEY (table_id, channel_id)
    );
    CREATE TABLE sharers (
        channel_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        shared_at REAL NOT NULL,
        PRIMARY KEY (channel_id, user_id)
    );
    """,
    # 13: the place of every table, result and record against the AI: a server
    # ('guild:<id>'), or the direct messages of one person ('dm:<id>': a table outside any
    # server belongs to its host), so no two people's direct messages share a past; the records
    # against the AI are counted again from the results, place by place
    """
    ALTER TABLE tables ADD COLUMN place_key TEXT NOT NULL DEFAULT '';
    UPDATE tables SET place_key = CASE WHEN guild_id IS NULL THEN 'dm:' || host_id
                                       ELSE 'guild:' || guild_id END;
    ALTER TABLE results ADD COLUMN place_key TEXT NOT NULL DEFAULT '';
    UPDATE results SET place_key = (SELECT t.place_key FROM tables t
                                    WHERE t.id = results.table_id);
    CREATE INDEX results_by_place ON results(place_key, table_id);
    DROP TABLE ai_records;
    CREATE TABLE ai_records (
        place_key TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        level TEXT NOT NULL,
        hero TEXT NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        PRIMARY KEY (place_key, user_id, level, hero)
    );
    INSERT INTO ai_records (place_key, user_id, level, hero, games, wins)
        SELECT r.place_key, p.user_id, a.ai_level, p.hero, COUNT(*),
               SUM(CASE WHEN r.winner_seat = p.seat AND p.handed_to_ai = 0 THEN 1 ELSE 0 END)
        FROM results r
        JOIN result_seats p ON p.table_id = r.table_id AND p.user_id IS NOT NULL
        JOIN (SELECT DISTINCT table_id, ai_level FROM result_seats
              WHERE kind = 'ai' AND ai_level IS NOT NULL) a ON a.table_id = r.table_id
        WHERE (SELECT COUNT(*) FROM result_seats q
               WHERE q.table_id = r.table_id AND q.user_id IS NOT NULL) = 1
        GROUP BY r.place_key, p.user_id, a.ai_level, p.hero;
    """,
    # 14: the order results were stored in (``seq``: the ratings are computed, and rebuilt, in
    # that order; existing results numbered in the order they ended, then by table), the one
    # who abandoned a match rated at that moment, and whether each seat's person made a move
    # of their own that stands (existing results read from their action logs)
    """
    ALTER TABLE results ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    UPDATE results SET seq = (SELECT n FROM (SELECT table_id, ROW_NUMBER() OVER
        (ORDER BY finished_at, table_id) AS n FROM results) AS o
        WHERE o.table_id = results.table_id);
    CREATE UNIQUE INDEX results_by_seq ON results(seq);
    ALTER TABLE results ADD COLUMN abandoned_by INTEGER;
    ALTER TABLE result_seats ADD COLUMN moved INTEGER NOT NULL DEFAULT 0;
    UPDATE result_seats SET moved = 1 WHERE user_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM actions a WHERE a.table_id = result_seats.table_id
        AND a.seat = result_seats.seat AND a.user_id = result_seats.user_id AND a.by_ai = 0
        AND a.undone = 0 AND a.action != 'undo');
    """,
    # 15: nothing in SQLite (PostgreSQL moves to its own types for JSON, flags and times;
    # SQLite keeps its plain values): the two lists keep the same numbers
    "",
    # 16: the anchor of a running game's take-back in a column of its own
    _anchors_apart,
    # 17: who sits at each table, one row per person and table, kept in step with the seats'
    # JSON (a person's running tables are found by index, not by reading every running table),
    # filled from every stored table; and each person's choice of direct-message reminders
    """
    CREATE TABLE table_seats (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        user_id INTEGER NOT NULL,
        PRIMARY KEY (user_id, table_id)
    );
    CREATE INDEX table_seats_by_table ON table_seats(table_id);
    INSERT OR IGNORE INTO table_seats (table_id, user_id)
        SELECT t.id, json_extract(s.value, '$.user')
        FROM tables t, json_each(CASE WHEN json_valid(t.seats)
                                      AND json_type(t.seats) = 'array'
                                      THEN t.seats ELSE '[]' END) s
        WHERE CASE WHEN s.type = 'object'
                   THEN json_type(s.value, '$.user') END = 'integer';
    CREATE TABLE notify (
        user_id INTEGER PRIMARY KEY,
        dm INTEGER NOT NULL
    );
    """,
    # 18: slow matches' reminders, one per person and turn (named by its deadline in seconds),
    # kept once handled (sent, or not: they were active, their direct messages are closed);
    # when each person last opened or clicked each table; who cannot get direct messages
    """
    CREATE TABLE reminders (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        user_id INTEGER NOT NULL,
        turn INTEGER NOT NULL,
        due REAL NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (table_id, user_id, turn)
    );
    CREATE TABLE seat_seen (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        user_id INTEGER NOT NULL,
        seen_at REAL NOT NULL,
        PRIMARY KEY (table_id, user_id)
    );
    CREATE TABLE dms_closed (
        user_id INTEGER PRIMARY KEY,
        noted_at REAL NOT NULL
    );
    """,
    # 19: a match in a thread of its own: whether it moves to one when it starts, the thread
    # (its messages go there), a server's choice; a channel keeps at most one open lobby and one
    # table played in the channel itself, any number of tables played in threads
    """
    ALTER TABLE tables ADD COLUMN threaded INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE tables ADD COLUMN thread_id INTEGER;
    ALTER TABLE settings ADD COLUMN threads INTEGER;
    DROP INDEX tables_one_active_per_channel;
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running') AND thread_id IS NULL;
    CREATE UNIQUE INDEX tables_one_active_per_thread ON tables(thread_id)
        WHERE status IN ('lobby', 'running') AND thread_id IS NOT NULL;
    """,
    # 20: server tournaments: a tournament (its place, channel, settings, status, the round
    # under way and its deadline, its messages), its entrants (their rating when it started,
    # the rounds seated before they dropped), its rounds (seed, bye), the tables of each round
    # (a running table of ``tables``, marked with its tournament: a channel holds any number
    # of them) and who sat at each seat with the place they took
    """
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        place_key TEXT NOT NULL,
        channel_id INTEGER NOT NULL,
        host_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        rounds INTEGER,
        table_size INTEGER NOT NULL,
        timer INTEGER NOT NULL,
        abilities INTEGER NOT NULL,
        ai_level TEXT,
        round_span INTEGER NOT NULL,
        closes_at REAL,
        seed INTEGER NOT NULL,
        locale TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
        round INTEGER NOT NULL DEFAULT 0,
        deadline REAL,
        signup_message_id INTEGER,
        standings_message_id INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX tournaments_by_status ON tournaments(status);
    CREATE INDEX tournaments_by_place ON tournaments(place_key, id);
    CREATE TABLE tournament_entrants (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        rating INTEGER NOT NULL,
        joined_at REAL NOT NULL,
        dropped_after INTEGER,
        PRIMARY KEY (tournament_id, user_id)
    );
    CREATE TABLE tournament_rounds (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        bye_user INTEGER,
        started_at REAL NOT NULL,
        PRIMARY KEY (tournament_id, round)
    );
    CREATE TABLE tournament_tables (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        pod INTEGER NOT NULL,
        table_id INTEGER NOT NULL REFERENCES tables(id),
        decided INTEGER NOT NULL DEFAULT 0,
        at_deadline INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, round, pod)
    );
    CREATE UNIQUE INDEX tournament_tables_by_table ON tournament_tables(table_id);
    CREATE TABLE tournament_seats (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL,
        pod INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        place INTEGER,
        PRIMARY KEY (tournament_id, round, pod, seat)
    );
    ALTER TABLE tables ADD COLUMN tournament_id INTEGER;
    DROP INDEX tables_one_active_per_channel;
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running') AND thread_id IS NULL AND tournament_id IS NULL;
    """,
    # 21: the seat of a tournament's match whose person abandoned it (/goblin abandon by
    # someone seated there): they take its last place, rated or not
    """
    ALTER TABLE tournament_tables ADD COLUMN forfeit_seat INTEGER;
    """,
    # 22: a guided first match that moves to a thread of its own (/goblin learn in a server
    # with threads on) holds no place in its channel, not even before its thread is opened at
    # its start: it starts beside a lobby waiting there, and a lobby may open beside it
    """
    DROP INDEX tables_one_active_per_channel;
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running') AND thread_id IS NULL AND tournament_id IS NULL
        AND NOT (lessons AND threaded);
    """,
    # 23: where a match is played as chosen when its lobby opened (the host's thread: option,
    # or in the channel where no thread can be: direct messages, inside a thread, a permission
    # missing); NULL: the server's choice when it starts. An existing table keeps what it was
    # given when its lobby opened
    """
    ALTER TABLE tables ADD COLUMN thread_choice INTEGER;
    UPDATE tables SET thread_choice = threaded;
    """,
    # 24: whether people may ask for hints as the host chose when the lobby opened (NULL: on
    # when one person plays), which a rematch decides anew from who sits at it; ``hints``
    # holds what its match was given at its start. An existing table keeps what it had
    """
    ALTER TABLE tables ADD COLUMN hints_choice INTEGER;
    UPDATE tables SET hints_choice = hints;
    """,
    # 25: the Discord language of each person who chose whether to get reminders, as their
    # client last told it (NULL: not known yet), which their reminders speak
    """
    ALTER TABLE notify ADD COLUMN locale TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def statements(script: str) -> Iterator[str]:
    """The statements of an SQL script, each up to the ``;`` that completes it: a ``;`` inside
    a string literal, a quoted name, a comment or a trigger's body does not end a statement
    (SQLite's own :func:`sqlite3.complete_statement` tells). A last statement without ``;`` is
    given as it is."""
    pending = ""
    pieces = script.split(";")
    for index, piece in enumerate(pieces):
        pending += piece if index == len(pieces) - 1 else piece + ";"
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
    if pending.strip():
        yield pending


async def run_script(db: aiosqlite.Connection, script: str) -> None:
    """Run each statement of an SQL script on ``db``, inside the caller's transaction (unlike
    ``executescript``, which commits first)."""
    for statement in statements(script):
        await db.execute(statement)


async def run_migration(db: aiosqlite.Connection, number: int) -> None:
    """Run migration ``number`` (from 1) and record it, inside the caller's transaction; raises
    :class:`~bot.storage.records.MigrationFailed`, naming it, when it fails (the caller's
    transaction rolls it back)."""
    try:
        migration = MIGRATIONS[number - 1]
        if isinstance(migration, str):
            await run_script(db, migration)
        else:
            await migration(db)
        await db.execute(f"PRAGMA user_version = {int(number)}")
    except Exception as exc:
        raise MigrationFailed(number, exc) from exc


async def schema_version(db: aiosqlite.Connection) -> int:
    """The number of migrations applied to the database."""
    async with db.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Migration", "run_migration", "schema_version"]
