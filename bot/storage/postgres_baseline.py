"""The PostgreSQL baseline: the schema of migration :data:`BASELINE_VERSION` in one script, and
:func:`run_baseline`, which builds a new database with it instead of running every migration up to
that one (the runner, :func:`bot.storage.postgres_schema.migrate`, chooses which).

It is frozen like the migrations: released once, never changed (a later change of the schema is
a new migration in :mod:`bot.storage.postgres_schema`, which runs after the baseline), and it
imports no live code. It stands below the migrations, so it holds the connection type they share.
"""

from __future__ import annotations

from typing import TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy

#: A connection: one of its own, or one lent by a pool.
Db: TypeAlias = "asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]"

#: The schema of migration :data:`BASELINE_VERSION` in one script, what a new database runs
#: instead of every migration up to it: the same tables, columns, keys and indexes as the
#: migrations build (a test compares them), in PostgreSQL's own types.
BASELINE = """
CREATE TABLE tables (
    id BIGSERIAL PRIMARY KEY,
    guild_id BIGINT,
    channel_id BIGINT NOT NULL,
    host_id BIGINT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
    abilities BOOLEAN NOT NULL DEFAULT FALSE,
    timer BIGINT NOT NULL DEFAULT 0,
    seed BIGINT NOT NULL,
    locale TEXT NOT NULL DEFAULT 'en',
    seats JSONB NOT NULL,
    state JSONB,
    version BIGINT NOT NULL DEFAULT 0,
    message_id BIGINT,
    lobby_message_id BIGINT,
    deadline TIMESTAMPTZ,
    winner BIGINT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    revision BIGINT NOT NULL DEFAULT 0,
    ai_level TEXT NOT NULL DEFAULT 'normal',
    catalogue TEXT NOT NULL DEFAULT '',
    lessons BOOLEAN NOT NULL DEFAULT FALSE,
    undo BOOLEAN NOT NULL DEFAULT TRUE,
    hints BOOLEAN,
    place_key TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
    WHERE status IN ('lobby', 'running');
CREATE INDEX tables_status ON tables(status);
CREATE TABLE actions (
    table_id BIGINT NOT NULL REFERENCES tables(id),
    step BIGINT NOT NULL,
    seat BIGINT NOT NULL,
    user_id BIGINT,
    by_ai BOOLEAN NOT NULL DEFAULT FALSE,
    action TEXT NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    seq BIGINT NOT NULL,
    undone BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE settings (
    guild_id BIGINT PRIMARY KEY,
    abilities BOOLEAN NOT NULL DEFAULT FALSE,
    timer BIGINT NOT NULL DEFAULT 0,
    locale TEXT,
    ai_level TEXT NOT NULL DEFAULT 'normal',
    undo BOOLEAN NOT NULL DEFAULT TRUE
);
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE SEQUENCE results_seq;
CREATE TABLE results (
    table_id BIGINT PRIMARY KEY REFERENCES tables(id),
    guild_id BIGINT,
    channel_id BIGINT NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL,
    rounds BIGINT NOT NULL,
    actions BIGINT NOT NULL,
    catalogue TEXT NOT NULL,
    winner_seat BIGINT NOT NULL,
    winner_user_id BIGINT,
    place_key TEXT NOT NULL DEFAULT '',
    seq BIGINT NOT NULL,
    abandoned_by BIGINT
);
CREATE INDEX results_by_guild ON results(guild_id, table_id);
CREATE INDEX results_by_place ON results(place_key, table_id);
CREATE UNIQUE INDEX results_by_seq ON results(seq);
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
    handed_to_ai BOOLEAN NOT NULL DEFAULT FALSE,
    moved BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX result_seats_by_user ON result_seats(user_id) WHERE user_id IS NOT NULL;
CREATE INDEX result_seats_by_user_table ON result_seats(user_id, table_id)
    WHERE user_id IS NOT NULL;
CREATE TABLE rematches (
    table_id BIGINT PRIMARY KEY REFERENCES tables(id),
    offered_by BIGINT NOT NULL,
    offered_at TIMESTAMPTZ NOT NULL,
    ready JSONB NOT NULL,
    message_id BIGINT,
    new_table BIGINT,
    closed BOOLEAN NOT NULL DEFAULT FALSE
);
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
    place_key TEXT NOT NULL,
    user_id BIGINT NOT NULL,
    level TEXT NOT NULL,
    hero TEXT NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    PRIMARY KEY (place_key, user_id, level, hero)
);
CREATE TABLE hints (
    table_id BIGINT NOT NULL REFERENCES tables(id),
    version BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    seat BIGINT NOT NULL,
    answer BYTEA NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (table_id, version, user_id)
);
CREATE TABLE leases (
    table_id BIGINT PRIMARY KEY REFERENCES tables(id),
    owner TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX leases_by_owner ON leases(owner);
CREATE TABLE shares (
    table_id BIGINT NOT NULL REFERENCES tables(id),
    channel_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    posted_at TIMESTAMPTZ NOT NULL,
    message_id BIGINT,
    PRIMARY KEY (table_id, channel_id)
);
CREATE TABLE sharers (
    channel_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    shared_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (channel_id, user_id)
);
"""
#: The migration whose schema :data:`BASELINE` is: the first in PostgreSQL's own types.
BASELINE_VERSION = 15


async def run_baseline(db: Db) -> None:
    """Build a new database at :data:`BASELINE_VERSION` and record it, inside the caller's
    transaction."""
    await db.execute(BASELINE)
    await db.execute("DELETE FROM schema_version")
    await db.execute("INSERT INTO schema_version (version) VALUES ($1)", BASELINE_VERSION)


__all__ = ["BASELINE", "BASELINE_VERSION", "Db", "run_baseline"]
