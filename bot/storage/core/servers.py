"""The servers' settings (the defaults of their new tables, the language they forced) and the
bot's own metadata."""

from __future__ import annotations

from bot.storage.core.base import Base
from bot.storage.core.db import Db, Dialect
from bot.storage.core.rows import as_int, read_defaults
from bot.storage.records import ServerDefaults
from i18n import LOCALES


async def write_defaults(db: Db, guild_id: int, defaults: ServerDefaults) -> None:
    """Store a server's defaults for new tables in the transaction of ``db`` (its language
    kept)."""
    await db.execute(
        "INSERT INTO settings (guild_id, abilities, timer, ai_level, undo, threads) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
        "abilities = excluded.abilities, timer = excluded.timer, "
        "ai_level = excluded.ai_level, undo = excluded.undo, "
        "threads = excluded.threads",
        guild_id, defaults.abilities, defaults.timer, defaults.ai_level, defaults.undo,
        defaults.threads)


#: The key space of the locks on a server's language (the server's id, as text, the other half
#: of the key): a language change holds it, and so does the opening of a table of that server,
#: so a table opened as the language changes is either opened in the new one or found and
#: changed by it.
LANGUAGE_LOCK = 0x4C41


def forced_locale(value: object) -> str | None:
    """The language a server forced, from its stored ``settings.locale`` (None: it follows
    Discord's language, also for a value that is no language this bot speaks)."""
    return value if isinstance(value, str) and value in LOCALES else None


async def hold_language(db: Db, dialect: Dialect, guild_id: int) -> str | None:
    """Within ``db``'s transaction: take server ``guild_id``'s language lock (where the dialect
    has such locks: SQLite writes one transaction at a time) and read the language it forced
    (None: none)."""
    if dialect.lock_place is not None:
        await db.execute(dialect.lock_place, LANGUAGE_LOCK, str(guild_id))
    row = await db.fetchrow("SELECT locale FROM settings WHERE guild_id = ?", guild_id)
    return None if row is None else forced_locale(row[0])


class ServerQueries(Base):
    """The servers' settings and the bot's metadata."""

    async def guild_settings(self, guild_id: int | None) -> ServerDefaults | None:
        """A server's defaults for new tables, or None when never set (a level this bot does
        not know reads as the default level)."""
        if guild_id is None:
            return None
        row = await self._read.fetchrow(
            "SELECT abilities, timer, ai_level, undo, threads FROM settings WHERE guild_id = ?",
            guild_id)
        return None if row is None else read_defaults(row)

    async def set_guild_settings(self, guild_id: int, defaults: ServerDefaults) -> None:
        """Store a server's defaults for new tables."""
        async with self._tx() as db:
            await write_defaults(db, guild_id, defaults)

    async def guild_locale(self, guild_id: int | None) -> str | None:
        """The language a server forced for its tables, or None (follow Discord's language;
        also for a stored value that is no language this bot speaks)."""
        if guild_id is None:
            return None
        row = await self._read.fetchrow("SELECT locale FROM settings WHERE guild_id = ?",
                                        guild_id)
        return None if row is None else forced_locale(row[0])

    async def active_in_guild(self, guild_id: int) -> list[int]:
        """Ids of a server's lobbies and running tables (oldest first)."""
        rows = await self._read.fetch(
            "SELECT id FROM tables WHERE guild_id = ? AND status IN ('lobby','running') "
            "ORDER BY id", guild_id)
        return [as_int(r[0], "id") for r in rows]

    async def get_meta(self, key: str) -> str | None:
        """A stored metadata value (e.g. the hash of the synced command tree)."""
        row = await self._read.fetchrow("SELECT value FROM meta WHERE key = ?", key)
        return None if row is None else str(row[0])

    async def set_meta(self, key: str, value: str) -> None:
        """Store a metadata value."""
        async with self._tx() as db:
            await db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO "
                             "UPDATE SET value = excluded.value", key, value)


__all__ = ["ServerQueries"]
