"""The PostgreSQL database's schema: the same numbered migrations as SQLite's
(:mod:`bot.storage.sqlite_schema`), step for step in PostgreSQL's dialect, each run once, in
order, in its own transaction; the one-row table ``schema_version`` counts those applied.

Several bot processes may open the database at once: each migration runs under a transaction
advisory lock and re-reads the version under it, so it runs exactly once. A migration is never
changed once released: a later change of the schema is a new migration here AND in SQLite's list
(a test compares the schemas both lists build). So a migration never imports live code: its SQL
is written here, and what a Python migration computes is a frozen copy in
:mod:`bot.storage.migration_rules` (standard library only).

A new database runs the baseline (:mod:`bot.storage.postgres_baseline`, the schema of migration
:data:`~bot.storage.postgres_baseline.BASELINE_VERSION` in one script) instead of the migrations
up to it; :func:`migrate` chooses.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncpg

from bot.storage.migration_rules import CATALOGUE_5, MigrationFailed, anchor_out_16, result_rows_5
from bot.storage.postgres_baseline import BASELINE_VERSION, Db, run_baseline

#: A migration: an SQL script, or a function that migrates the connection it is given.
Migration = str | Callable[[Db], Awaitable[None]]
#: The advisory lock key held while migrating (any fixed number: "karak" in ASCII).
MIGRATION_LOCK = 0x6B6172616B


async def _results_and_undoable_log(db: Db) -> None:
    """Migration 5 (as SQLite's): each table's catalogue version (the cards' version when this
    migration was released for existing tables), an action log numbered by ``seq`` that keeps
    undone actions, and the results of finished games back-filled from their stored states."""
    await db.execute("""
    ALTER TABLE tables ADD COLUMN catalogue TEXT NOT NULL DEFAULT '';
    ALTER TABLE actions ADD COLUMN seq BIGINT;
    UPDATE actions SET seq = step;
    ALTER TABLE actions ALTER COLUMN seq SET NOT NULL;
    ALTER TABLE actions ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE actions DROP CONSTRAINT actions_pkey;
    ALTER TABLE actions ADD PRIMARY KEY (table_id, seq);
    CREATE TABLE results (
        table_id BIGINT PRIMARY KEY REFERENCES tables(id),
        guild_id BIGINT,
        channel_id BIGINT NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        rounds BIGINT NOT NULL,
        actions BIGINT NOT NULL,
        catalogue TEXT NOT NULL,
        winner_seat BIGINT NOT NULL,
        winner_user_id BIGINT
    );
    CREATE INDEX results_by_guild ON results(guild_id, table_id);
    CREATE TABLE result_seats (
        table_id BIGINT NOT NULL REFERENCES results(table_id),
        seat BIGINT NOT NULL,
        user_id BIGINT,
        kind TEXT NOT NULL CHECK (kind IN ('person', 'ai')),
        ai_level TEXT,
        hero TEXT NOT NULL,
        keys BIGINT NOT NULL,
        hp BIGINT NOT NULL,
        place BIGINT NOT NULL,
        handed_to_ai INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX result_seats_by_user ON result_seats(user_id) WHERE user_id IS NOT NULL;
    """)
    await db.execute("UPDATE tables SET catalogue = $1", CATALOGUE_5)
    finished = await db.fetch(
        "SELECT id, guild_id, channel_id, seats, state, COALESCE(finished_at, updated_at) "
        "FROM tables WHERE status = 'finished' AND state IS NOT NULL ORDER BY id")
    for row in finished:
        rows = result_rows_5(*row)
        if rows is None:  # a damaged row gets no result (reading the table tells what is wrong)
            continue
        result, seats = rows
        await db.execute(
            "INSERT INTO results (table_id, guild_id, channel_id, finished_at, rounds, actions, "
            "catalogue, winner_seat, winner_user_id) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", *result)
        await db.executemany(
            "INSERT INTO result_seats (table_id, seat, user_id, kind, ai_level, hero, keys, hp, "
            "place, handed_to_ai) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", seats)


async def _anchors_apart(db: Db) -> None:
    """Migration 16 (as SQLite's): the anchor of a running game's take-back in a column of its
    own; a running game's state that holds it inside is split by
    :func:`~bot.storage.migration_rules.anchor_out_16`."""
    await db.execute("ALTER TABLE tables ADD COLUMN anchor JSONB")
    rows = await db.fetch("SELECT id, state FROM tables WHERE status = 'running' "
                          "AND state IS NOT NULL ORDER BY id")
    for tid, state in rows:
        split = anchor_out_16(state)
        if split is not None:
            await db.execute("UPDATE tables SET state = $1, anchor = $2 WHERE id = $3",
                             *split, tid)


MIGRATIONS: tuple[Migration, ...] = (
    # 1: tables, action log, server settings, key/value metadata
    """
    CREATE TABLE tables (
        id BIGSERIAL PRIMARY KEY,
        guild_id BIGINT,
        channel_id BIGINT NOT NULL,
        host_id BIGINT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
        abilities INTEGER NOT NULL DEFAULT 0,
        timer BIGINT NOT NULL DEFAULT 0,
        seed BIGINT NOT NULL,
        locale TEXT NOT NULL DEFAULT 'en',
        seats TEXT NOT NULL,
        state TEXT,
        version BIGINT NOT NULL DEFAULT 0,
        message_id BIGINT,
        lobby_message_id BIGINT,
        deadline DOUBLE PRECISION,
        winner BIGINT,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION
    );
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX tables_status ON tables(status);
    CREATE TABLE actions (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        step BIGINT NOT NULL,
        seat BIGINT NOT NULL,
        user_id BIGINT,
        by_ai INTEGER NOT NULL DEFAULT 0,
        action TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, step)
    );
    CREATE TABLE settings (
        guild_id BIGINT PRIMARY KEY,
        abilities INTEGER NOT NULL DEFAULT 0,
        timer BIGINT NOT NULL DEFAULT 0
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
    ALTER TABLE tables ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
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
        table_id BIGINT PRIMARY KEY REFERENCES tables(id),
        offered_by BIGINT NOT NULL,
        offered_at DOUBLE PRECISION NOT NULL,
        ready TEXT NOT NULL,
        message_id BIGINT,
        new_table BIGINT,
        closed INTEGER NOT NULL DEFAULT 0
    );
    """,
    # 9: ratings per server, each rated match's changes, records against the AI; left empty:
    # ``python -m bot.admin ratings --recompute`` fills them from the stored results
    """
    CREATE TABLE ratings (
        guild_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        games BIGINT NOT NULL,
        wins BIGINT NOT NULL,
        last_table BIGINT NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE TABLE rating_changes (
        table_id BIGINT NOT NULL REFERENCES results(table_id),
        guild_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        mu_before DOUBLE PRECISION,
        sigma_before DOUBLE PRECISION,
        mu_after DOUBLE PRECISION NOT NULL,
        sigma_after DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, user_id)
    );
    CREATE INDEX rating_changes_by_user ON rating_changes(guild_id, user_id, table_id);
    CREATE TABLE ai_records (
        user_id BIGINT NOT NULL,
        level TEXT NOT NULL,
        hero TEXT NOT NULL,
        games BIGINT NOT NULL,
        wins BIGINT NOT NULL,
        PRIMARY KEY (user_id, level, hero)
    );
    """,
    # 10: whether people may ask for hints (NULL: decided when the game starts), and each hint
    # given: one per person and decision (the table's version), its answer kept as data
    """
    ALTER TABLE tables ADD COLUMN hints INTEGER;
    CREATE TABLE hints (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        version BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        seat BIGINT NOT NULL,
        answer BYTEA NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, version, user_id)
    );
    """,
    # 11: who does each table's background work (AI turns, turn timer): one lease per table,
    # held by a process (by its name) until it expires
    """
    CREATE TABLE leases (
        table_id BIGINT PRIMARY KEY REFERENCES tables(id),
        owner TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX leases_by_owner ON leases(owner);
    """,
    # 12: each match's animation posted in a channel (who, when, its message), and when each
    # person last shared one in each channel (the channel's slowmode counts from it)
    """
    CREATE TABLE shares (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        channel_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        posted_at DOUBLE PRECISION NOT NULL,
        message_id BIGINT,
        PRIMARY KEY (table_id, channel_id)
    );
    CREATE TABLE sharers (
        channel_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        shared_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (channel_id, user_id)
    );
    """,
    # 13: the place of every table, result and record against the AI: a server
    # ('guild:<id>'), or the direct messages of one person ('dm:<id>': a table outside any
    # server belongs to its host), so no two people's direct messages share a past; the records
    # against the AI are counted again from the results, place by place
    """
    ALTER TABLE tables ADD COLUMN place_key TEXT NOT NULL DEFAULT '';
    UPDATE tables SET place_key = CASE WHEN guild_id IS NULL THEN 'dm:' || host_id::text
                                       ELSE 'guild:' || guild_id::text END;
    ALTER TABLE results ADD COLUMN place_key TEXT NOT NULL DEFAULT '';
    UPDATE results SET place_key = t.place_key FROM tables t WHERE t.id = results.table_id;
    CREATE INDEX results_by_place ON results(place_key, table_id);
    DROP TABLE ai_records;
    CREATE TABLE ai_records (
        place_key TEXT NOT NULL,
        user_id BIGINT NOT NULL,
        level TEXT NOT NULL,
        hero TEXT NOT NULL,
        games BIGINT NOT NULL,
        wins BIGINT NOT NULL,
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
    # 14 (as SQLite's): the order results were stored in (``seq``, from the sequence
    # ``results_seq``), the one who abandoned a match rated at that moment, and whether each
    # seat's person made a move of their own that stands
    """
    CREATE SEQUENCE results_seq;
    ALTER TABLE results ADD COLUMN seq BIGINT;
    UPDATE results SET seq = o.n FROM (SELECT table_id, ROW_NUMBER() OVER
        (ORDER BY finished_at, table_id) AS n FROM results) AS o
        WHERE o.table_id = results.table_id;
    ALTER TABLE results ALTER COLUMN seq SET NOT NULL;
    CREATE UNIQUE INDEX results_by_seq ON results(seq);
    SELECT setval('results_seq', COALESCE(MAX(seq), 0) + 1, false) FROM results;
    ALTER TABLE results ADD COLUMN abandoned_by BIGINT;
    ALTER TABLE result_seats ADD COLUMN moved INTEGER NOT NULL DEFAULT 0;
    UPDATE result_seats SET moved = 1 WHERE user_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM actions a WHERE a.table_id = result_seats.table_id
        AND a.seat = result_seats.seat AND a.user_id = result_seats.user_id AND a.by_ai = 0
        AND a.undone = 0 AND a.action != 'undo');
    """,
    # 15: PostgreSQL's own types for what SQLite stores as plain values: JSON as JSONB, flags as
    # BOOLEAN, times as TIMESTAMPTZ (a text that is no JSON, a damaged row, is kept as a JSON
    # string: reading its table still tells what is wrong). A new database gets them from the
    # baseline (:data:`~bot.storage.postgres_baseline.BASELINE`) instead
    """
    CREATE FUNCTION pg_temp.as_jsonb(value TEXT) RETURNS JSONB AS $$
    BEGIN
        RETURN value::JSONB;
    EXCEPTION WHEN others THEN
        RETURN to_jsonb(value);
    END $$ LANGUAGE plpgsql IMMUTABLE;
    ALTER TABLE tables
        ALTER COLUMN abilities DROP DEFAULT,
        ALTER COLUMN abilities TYPE BOOLEAN USING abilities <> 0,
        ALTER COLUMN abilities SET DEFAULT FALSE,
        ALTER COLUMN lessons DROP DEFAULT,
        ALTER COLUMN lessons TYPE BOOLEAN USING lessons <> 0,
        ALTER COLUMN lessons SET DEFAULT FALSE,
        ALTER COLUMN undo DROP DEFAULT,
        ALTER COLUMN undo TYPE BOOLEAN USING undo <> 0,
        ALTER COLUMN undo SET DEFAULT TRUE,
        ALTER COLUMN hints TYPE BOOLEAN USING hints <> 0,
        ALTER COLUMN created_at TYPE TIMESTAMPTZ USING to_timestamp(created_at),
        ALTER COLUMN updated_at TYPE TIMESTAMPTZ USING to_timestamp(updated_at),
        ALTER COLUMN finished_at TYPE TIMESTAMPTZ USING to_timestamp(finished_at),
        ALTER COLUMN deadline TYPE TIMESTAMPTZ USING to_timestamp(deadline),
        ALTER COLUMN seats TYPE JSONB USING pg_temp.as_jsonb(seats),
        ALTER COLUMN state TYPE JSONB USING pg_temp.as_jsonb(state);
    ALTER TABLE settings
        ALTER COLUMN abilities DROP DEFAULT,
        ALTER COLUMN abilities TYPE BOOLEAN USING abilities <> 0,
        ALTER COLUMN abilities SET DEFAULT FALSE,
        ALTER COLUMN undo DROP DEFAULT,
        ALTER COLUMN undo TYPE BOOLEAN USING undo <> 0,
        ALTER COLUMN undo SET DEFAULT TRUE;
    ALTER TABLE actions
        ALTER COLUMN by_ai DROP DEFAULT,
        ALTER COLUMN by_ai TYPE BOOLEAN USING by_ai <> 0,
        ALTER COLUMN by_ai SET DEFAULT FALSE,
        ALTER COLUMN undone DROP DEFAULT,
        ALTER COLUMN undone TYPE BOOLEAN USING undone <> 0,
        ALTER COLUMN undone SET DEFAULT FALSE,
        ALTER COLUMN at TYPE TIMESTAMPTZ USING to_timestamp(at);
    ALTER TABLE result_seats
        ALTER COLUMN handed_to_ai DROP DEFAULT,
        ALTER COLUMN handed_to_ai TYPE BOOLEAN USING handed_to_ai <> 0,
        ALTER COLUMN handed_to_ai SET DEFAULT FALSE,
        ALTER COLUMN moved DROP DEFAULT,
        ALTER COLUMN moved TYPE BOOLEAN USING moved <> 0,
        ALTER COLUMN moved SET DEFAULT FALSE;
    ALTER TABLE rematches
        ALTER COLUMN closed DROP DEFAULT,
        ALTER COLUMN closed TYPE BOOLEAN USING closed <> 0,
        ALTER COLUMN closed SET DEFAULT FALSE,
        ALTER COLUMN offered_at TYPE TIMESTAMPTZ USING to_timestamp(offered_at),
        ALTER COLUMN ready TYPE JSONB USING pg_temp.as_jsonb(ready);
    ALTER TABLE results
        ALTER COLUMN finished_at TYPE TIMESTAMPTZ USING to_timestamp(finished_at);
    ALTER TABLE hints
        ALTER COLUMN at TYPE TIMESTAMPTZ USING to_timestamp(at);
    ALTER TABLE leases
        ALTER COLUMN expires_at TYPE TIMESTAMPTZ USING to_timestamp(expires_at);
    ALTER TABLE shares
        ALTER COLUMN posted_at TYPE TIMESTAMPTZ USING to_timestamp(posted_at);
    ALTER TABLE sharers
        ALTER COLUMN shared_at TYPE TIMESTAMPTZ USING to_timestamp(shared_at);
    DROP FUNCTION pg_temp.as_jsonb(TEXT);
    """,
    # 16: the anchor of a running game's take-back in a column of its own
    _anchors_apart,
    # 17: who sits at each table, one row per person and table, kept in step with the seats'
    # JSON (a person's running tables are found by index, not by reading every running table),
    # filled from every stored table; and each person's choice of direct-message reminders
    """
    CREATE TABLE table_seats (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        user_id BIGINT NOT NULL,
        PRIMARY KEY (user_id, table_id)
    );
    CREATE INDEX table_seats_by_table ON table_seats(table_id);
    INSERT INTO table_seats (table_id, user_id)
        SELECT DISTINCT t.id, (s.value ->> 'user')::BIGINT
        FROM tables t CROSS JOIN LATERAL jsonb_array_elements(
            CASE WHEN jsonb_typeof(t.seats) = 'array' THEN t.seats ELSE '[]'::JSONB END) s(value)
        WHERE jsonb_typeof(s.value) = 'object' AND jsonb_typeof(s.value -> 'user') = 'number';
    CREATE TABLE notify (
        user_id BIGINT PRIMARY KEY,
        dm BOOLEAN NOT NULL
    );
    """,
    # 18: slow matches' reminders, one per person and turn (named by its deadline in seconds),
    # kept once handled (sent, or not: they were active, their direct messages are closed);
    # when each person last opened or clicked each table; who cannot get direct messages
    """
    CREATE TABLE reminders (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        user_id BIGINT NOT NULL,
        turn BIGINT NOT NULL,
        due TIMESTAMPTZ NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (table_id, user_id, turn)
    );
    CREATE TABLE seat_seen (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        user_id BIGINT NOT NULL,
        seen_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (table_id, user_id)
    );
    CREATE TABLE dms_closed (
        user_id BIGINT PRIMARY KEY,
        noted_at TIMESTAMPTZ NOT NULL
    );
    """,
    # 19: a match in a thread of its own: whether it moves to one when it starts, the thread
    # (its messages go there), a server's choice; a channel keeps at most one open lobby and one
    # table played in the channel itself, any number of tables played in threads
    """
    ALTER TABLE tables ADD COLUMN threaded BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE tables ADD COLUMN thread_id BIGINT;
    ALTER TABLE settings ADD COLUMN threads BOOLEAN;
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
        id BIGSERIAL PRIMARY KEY,
        guild_id BIGINT NOT NULL,
        place_key TEXT NOT NULL,
        channel_id BIGINT NOT NULL,
        host_id BIGINT NOT NULL,
        name TEXT NOT NULL,
        rounds BIGINT,
        table_size BIGINT NOT NULL,
        timer BIGINT NOT NULL,
        abilities BOOLEAN NOT NULL,
        ai_level TEXT,
        round_span BIGINT NOT NULL,
        closes_at TIMESTAMPTZ,
        seed BIGINT NOT NULL,
        locale TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
        round BIGINT NOT NULL DEFAULT 0,
        deadline TIMESTAMPTZ,
        signup_message_id BIGINT,
        standings_message_id BIGINT,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX tournaments_by_status ON tournaments(status);
    CREATE INDEX tournaments_by_place ON tournaments(place_key, id);
    CREATE TABLE tournament_entrants (
        tournament_id BIGINT NOT NULL REFERENCES tournaments(id),
        user_id BIGINT NOT NULL,
        name TEXT NOT NULL,
        rating BIGINT NOT NULL,
        joined_at TIMESTAMPTZ NOT NULL,
        dropped_after BIGINT,
        PRIMARY KEY (tournament_id, user_id)
    );
    CREATE TABLE tournament_rounds (
        tournament_id BIGINT NOT NULL REFERENCES tournaments(id),
        round BIGINT NOT NULL,
        seed BIGINT NOT NULL,
        bye_user BIGINT,
        started_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (tournament_id, round)
    );
    CREATE TABLE tournament_tables (
        tournament_id BIGINT NOT NULL REFERENCES tournaments(id),
        round BIGINT NOT NULL,
        pod BIGINT NOT NULL,
        table_id BIGINT NOT NULL REFERENCES tables(id),
        decided BOOLEAN NOT NULL DEFAULT FALSE,
        at_deadline BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (tournament_id, round, pod)
    );
    CREATE UNIQUE INDEX tournament_tables_by_table ON tournament_tables(table_id);
    CREATE TABLE tournament_seats (
        tournament_id BIGINT NOT NULL REFERENCES tournaments(id),
        round BIGINT NOT NULL,
        pod BIGINT NOT NULL,
        seat BIGINT NOT NULL,
        user_id BIGINT,
        place BIGINT,
        PRIMARY KEY (tournament_id, round, pod, seat)
    );
    ALTER TABLE tables ADD COLUMN tournament_id BIGINT;
    DROP INDEX tables_one_active_per_channel;
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running') AND thread_id IS NULL AND tournament_id IS NULL;
    """,
    # 21: the seat of a tournament's match whose person abandoned it (/goblin abandon by
    # someone seated there): they take its last place, rated or not
    """
    ALTER TABLE tournament_tables ADD COLUMN forfeit_seat BIGINT;
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
    ALTER TABLE tables ADD COLUMN thread_choice BOOLEAN;
    UPDATE tables SET thread_choice = threaded;
    """,
    # 24: whether people may ask for hints as the host chose when the lobby opened (NULL: on
    # when one person plays), which a rematch decides anew from who sits at it; ``hints``
    # holds what its match was given at its start. An existing table keeps what it had
    """
    ALTER TABLE tables ADD COLUMN hints_choice BOOLEAN;
    UPDATE tables SET hints_choice = hints;
    """,
    # 25: the Discord language of each person who chose whether to get reminders, as their
    # client last told it (NULL: not known yet), which their reminders speak
    """
    ALTER TABLE notify ADD COLUMN locale TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


async def schema_version(db: Db) -> int:
    """The number of migrations applied to the database (0: a new database)."""
    await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    value = await db.fetchval("SELECT MAX(version) FROM schema_version")
    return 0 if value is None else int(value)


async def run_script(db: Db, script: str) -> None:
    """Run an SQL script of any number of statements on ``db``, inside the caller's transaction
    (the server splits it: a statement without arguments is sent as a simple query)."""
    await db.execute(script)


async def run_migration(db: Db, number: int) -> None:
    """Run migration ``number`` (from 1) and record it, inside the caller's transaction; raises
    :class:`~bot.storage.records.MigrationFailed`, naming it, when it fails (the caller's
    transaction rolls it back)."""
    try:
        migration = MIGRATIONS[number - 1]
        if isinstance(migration, str):
            await run_script(db, migration)
        else:
            await migration(db)
        await db.execute("DELETE FROM schema_version")
        await db.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
    except Exception as exc:
        raise MigrationFailed(number, exc) from exc


async def migrate(db: Db, upto: int = SCHEMA_VERSION) -> int:
    """Run every migration up to ``upto`` that the database lacks, each in a transaction under
    the migration lock (another process migrating at once waits, then finds it done); the
    schema version found at the end. A new database brought to
    :data:`~bot.storage.postgres_baseline.BASELINE_VERSION` or later runs the baseline
    (:func:`~bot.storage.postgres_baseline.run_baseline`) instead of the migrations up to it.
    A database of a newer bot (a version above :data:`SCHEMA_VERSION`) is left as it is, its
    version returned: the caller refuses it. A migration refused, by a statement or at its
    COMMIT (a full disk), raises :class:`~bot.storage.records.MigrationFailed` naming it; the
    baseline's refusal is told as the first migration's (the database stays new)."""
    current = 0
    started: int | None = None  # the version found first (the failure of a later one says)
    for number in range(1, upto + 1):
        running: int | None = None  # the migration this transaction runs (1: the baseline)
        try:
            async with db.transaction():
                await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                current = await schema_version(db)
                if started is None:
                    started = current
                if current > SCHEMA_VERSION:
                    return current
                if current == 0 and upto >= BASELINE_VERSION:
                    running = 1
                    await run_baseline(db)
                    current = BASELINE_VERSION
                elif current < number:
                    running = number
                    await run_migration(db, number)
                    current = number
        except MigrationFailed as exc:
            exc.started = started if started is not None else exc.number - 1
            raise
        except asyncpg.PostgresError as exc:
            # the baseline, or the COMMIT, refused by the server (a full disk): rolled back
            if running is None or lost(exc):
                raise
            failed = MigrationFailed(running, exc)
            failed.started = started if started is not None else running - 1
            raise failed from exc
    return current


def lost(exc: asyncpg.PostgresError) -> bool:
    """True when ``exc`` says the connection or the server went away (whether the transaction
    was committed is then unknown): not a refusal of the migration."""
    return str(exc.sqlstate).startswith(("08", "57P"))  # connection lost, server stopping


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Db", "Migration", "lost", "migrate", "run_migration",
           "run_script", "schema_version"]
