"""Which backend a ``KARAK_DB`` value names: a file path is an SQLite database (the default, all
most bots ever need), a ``postgresql://`` URL a PostgreSQL database that several bot processes
may share. The drivers are imported only for the backend chosen."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bot.storage.interface import Storage
from bot.storage.records import StorageError

#: How a PostgreSQL database's URL begins.
URL_SCHEMES = ("postgresql://", "postgres://")


class NoDriver(StorageError):
    """``KARAK_DB`` names a PostgreSQL database, but its driver (the ``postgres`` extra:
    asyncpg) is not installed."""


def is_database_url(where: str | Path) -> bool:
    """True when ``where`` names a PostgreSQL database rather than an SQLite file."""
    return isinstance(where, str) and where.startswith(URL_SCHEMES)


def shown(where: str | Path) -> str:
    """``where`` as it may be printed: a URL's password replaced by ``***``."""
    if not is_database_url(where):
        return str(where)
    parts = urlsplit(str(where))
    if parts.password is None:
        return str(where)
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


async def open_storage(where: str | Path, clock: Callable[[], float] = time.time) -> Storage:
    """Open (creating and migrating if needed) the database ``where`` names."""
    if is_database_url(where):
        if importlib.util.find_spec("asyncpg") is None:
            raise NoDriver("KARAK_DB names a PostgreSQL database, but asyncpg is not installed")
        from bot.storage import postgres
        return await postgres.Store.open(str(where), clock=clock)
    from bot.storage import sqlite
    return await sqlite.Store.open(where, clock=clock)


__all__ = ["URL_SCHEMES", "NoDriver", "is_database_url", "open_storage", "shown"]
