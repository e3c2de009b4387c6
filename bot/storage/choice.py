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
    """``where`` as it may be printed: a URL's password replaced by ``***``, the one before
    its ``@`` and one among its parameters (``?password=...``) alike."""
    if not is_database_url(where):
        return str(where)
    return masked(str(where), "***")


def masked(url: str, mask: str | None) -> str:
    """The PostgreSQL ``url`` with each password it holds, before its ``@`` or among its
    parameters, replaced by ``mask``, or left out when ``mask`` is None."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        kept = "@" if mask is None else f":{mask}@"
        netloc = netloc.replace(f":{parts.password}@", kept, 1)
    query = []
    for item in parts.query.split("&") if parts.query else []:
        if item.partition("=")[0].strip().lower() != "password":
            query.append(item)
        elif mask is not None:
            query.append(f"{item.partition('=')[0]}={mask}")
    return urlunsplit(parts._replace(netloc=netloc, query="&".join(query)))


async def open_storage(where: str | Path, clock: Callable[[], float] = time.time,
                       patient: bool = False) -> Storage:
    """Open (creating and migrating if needed) the database ``where`` names; ``patient``: a
    PostgreSQL query waits as long as it needs (the admin commands) instead of counting the
    server out of reach after :data:`~bot.storage.postgres.QUERY_WAIT` seconds (the bot)."""
    if is_database_url(where):
        if importlib.util.find_spec("asyncpg") is None:
            raise NoDriver("KARAK_DB names a PostgreSQL database, but asyncpg is not installed")
        from bot.storage import postgres
        if patient:
            return await postgres.Store.open(str(where), clock=clock, wait=None)
        return await postgres.Store.open(str(where), clock=clock)
    from bot.storage import sqlite
    return await sqlite.Store.open(where, clock=clock)


#: PostgreSQL's SQLSTATE for a full disk (``could not extend file``...).
DISK_FULL = "53100"


def disk_full(exc: BaseException | None) -> bool:
    """True when ``exc``, or an error it was raised from, says the database's disk is full:
    SQLite's SQLITE_FULL (``database or disk is full``), PostgreSQL's SQLSTATE 53100. The
    SQLite driver is always there (the standard library)."""
    import sqlite3

    while exc is not None:
        if isinstance(exc, sqlite3.Error) and (
                getattr(exc, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_FULL:
            return True
        if str(getattr(exc, "sqlstate", None) or "") == DISK_FULL:
            return True
        exc = exc.__cause__
    return False


__all__ = ["DISK_FULL", "URL_SCHEMES", "NoDriver", "disk_full", "is_database_url", "masked",
           "open_storage", "shown"]
