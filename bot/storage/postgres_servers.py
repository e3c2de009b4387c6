"""The PostgreSQL backend's queries of the servers' settings (the defaults of their new tables,
the language they forced) and of the bot's own metadata, as SQLite's
(:mod:`bot.storage.sqlite_servers`). The :class:`~bot.storage.postgres.Store` takes them in as a
base class."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

import asyncpg

from bot.storage.postgres_rows import Db, changed
from bot.storage.records import ServerDefaults, StorageError
from bot.storage.sqlite_rows import read_defaults


class ServerQueries:
    """The servers' settings and the bot's metadata, on the store's pool (``_pool``) and its
    write transactions (``_tx``)."""

    _pool: asyncpg.Pool

    def _tx(self) -> AbstractAsyncContextManager[Db]:
        raise NotImplementedError  # the store's own

    async def guild_settings(self, guild_id: int | None) -> ServerDefaults | None:
        """A server's defaults for new tables, or None when never set. A level this bot does
        not know reads as the default level."""
        if guild_id is None:
            return None
        row = await self._pool.fetchrow(
            "SELECT abilities, timer, ai_level, undo FROM settings WHERE guild_id = $1",
            guild_id)
        if row is None:
            return None
        return read_defaults(tuple(row))

    async def set_guild_settings(self, guild_id: int, defaults: ServerDefaults) -> None:
        """Store a server's defaults for new tables."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO settings (guild_id, abilities, timer, ai_level, undo) "
                "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (guild_id) DO UPDATE SET "
                "abilities = excluded.abilities, timer = excluded.timer, "
                "ai_level = excluded.ai_level, undo = excluded.undo",
                guild_id, int(defaults.abilities), defaults.timer, defaults.ai_level,
                int(defaults.undo))

    async def guild_locale(self, guild_id: int | None) -> str | None:
        """The language a server forced for its tables, or None (follow Discord's language)."""
        if guild_id is None:
            return None
        value = await self._pool.fetchval("SELECT locale FROM settings WHERE guild_id = $1",
                                          guild_id)
        return None if value is None else str(value)

    async def set_guild_locale(self, guild_id: int, locale: str | None) -> None:
        """Force the language of a server's tables (None: follow Discord's language again).
        Its settings row must exist: store its defaults with :meth:`set_guild_settings` first."""
        async with self._tx() as db:
            status = await db.execute("UPDATE settings SET locale = $1 WHERE guild_id = $2",
                                      locale, guild_id)
            if changed(status) != 1:
                raise StorageError(f"server {guild_id} has no settings yet")

    async def active_in_guild(self, guild_id: int) -> list[int]:
        """Ids of a server's lobbies and running tables (oldest first)."""
        rows = await self._pool.fetch(
            "SELECT id FROM tables WHERE guild_id = $1 AND status IN ('lobby','running') "
            "ORDER BY id", guild_id)
        return [int(r[0]) for r in rows]

    async def get_meta(self, key: str) -> str | None:
        """A stored metadata value (e.g. the hash of the synced command tree)."""
        value = await self._pool.fetchval("SELECT value FROM meta WHERE key = $1", key)
        return None if value is None else str(value)

    async def set_meta(self, key: str, value: str) -> None:
        """Store a metadata value."""
        async with self._tx() as db:
            await db.execute("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) "
                             "DO UPDATE SET value = excluded.value", key, value)


__all__ = ["ServerQueries"]
