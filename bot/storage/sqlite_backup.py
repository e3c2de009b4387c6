"""Backing up and restoring the bot's SQLite database (``python -m bot.admin backup`` and
``restore``).

A backup is made with SQLite's online backup API while the bot runs: the copy is the database
as one moment saw it (every move saved by then), written beside the target first and renamed
into place once complete, so a half-written backup never carries the target's name.

A restore checks the file first (a SQLite database of this bot, at a schema version this bot
knows or can migrate from), then the database it replaces: no bot may be using it (a table's
lease still fresh means a bot renewed it a moment ago; SQLite's own lock tells when any other
program has the file open). The database replaced is kept as ``NAME.before-restore`` (or
``NAME.before-restore-2``...), so nothing is lost; the backup is copied beside it and renamed
into its place. The bot, started again, migrates the restored database and its matches go on.

A PostgreSQL database is backed up with ``pg_dump`` and restored with ``pg_restore``: the
commands say so, with the exact command line, and exit with :data:`USE_POSTGRES_TOOLS`.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.storage.choice import is_database_url, masked
from bot.storage.records import ForeignDatabase, NotADatabase, SchemaTooNew
from bot.storage.sqlite_schema import SCHEMA_VERSION
from i18n import Msg, msg

#: Exit status of a command that did its work.
DONE = 0
#: Exit status of a command refused (bad file, database in use): nothing was changed.
REFUSED = 1
#: Exit status when the database is PostgreSQL: its own tools do the work.
USE_POSTGRES_TOOLS = 3
#: The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"
#: Tables every database of this bot has, whatever its schema version.
OWN_TABLES = frozenset({"tables", "actions", "settings", "meta"})
#: Seconds SQLite waits for a lock before the command says the database is busy.
BUSY_SECONDS = 5.0


@dataclass(frozen=True)
class Outcome:
    """What a command did: its exit status and the message that says so."""

    status: int
    message: Msg


def _fail(key: str, **args: str | int) -> Outcome:
    return Outcome(REFUSED, msg(key, **args))


def _without_password(url: str) -> str:
    """``url`` with its password left out, before its ``@`` and among its parameters alike
    (``pg_dump`` asks for it, or reads ``PGPASSWORD``)."""
    return masked(url, None)


def pg_dump_command(url: str, file: Path) -> str:
    """The ``pg_dump`` command line that backs up the database at ``url`` into ``file``."""
    return f"pg_dump --format=custom --file='{file}' --dbname='{_without_password(url)}'"


def pg_restore_command(url: str, file: Path) -> str:
    """The ``pg_restore`` command line that restores ``file`` into the database at ``url``."""
    return (f"pg_restore --clean --if-exists --single-transaction --exit-on-error "
            f"--dbname='{_without_password(url)}' '{file}'")


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to an existing database file (never creates one)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                           timeout=BUSY_SECONDS, isolation_level=None)


def _locked(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY,
                                                          sqlite3.SQLITE_LOCKED)


def _corrupt(exc: sqlite3.Error) -> bool:
    """SQLite found the file damaged (a copy cut short, a bad disk): past the header that
    tells a SQLite file, so no other program's file."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_CORRUPT


def check_database(path: Path, newer: bool = False) -> Outcome | None:
    """Why ``path`` is not a database this bot can use (None when it is): missing, unreadable,
    not a SQLite file, another program's database, of a newer bot (unless ``newer``: a backup copies
    it as it is), damaged (also past reading its list of tables: cut short), or locked."""
    if not path.is_file():
        return _fail("admin.backup.missing", path=str(path))
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as exc:  # another user's file (copied in by root, say)
        return _fail("admin.backup.unreadable", path=str(path), error=exc.strerror or str(exc))
    if header != SQLITE_HEADER:
        return _fail("admin.backup.not_sqlite", path=str(path))
    try:
        with contextlib.closing(_connect_read_only(path)) as db:
            names = {row[0] for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if not OWN_TABLES <= names or version < 1:
                return _fail("admin.backup.not_ours", path=str(path))
            if version > SCHEMA_VERSION and not newer:
                return _fail("admin.restore.too_new", path=str(path), found=version,
                             known=SCHEMA_VERSION)
            checked = db.execute("PRAGMA quick_check").fetchone()[0]
            if checked != "ok":
                return _fail("admin.backup.damaged", path=str(path), error=str(checked))
    except sqlite3.Error as exc:
        if _locked(exc):
            return _fail("admin.backup.locked", path=str(path))
        if _corrupt(exc):
            return _fail("admin.backup.damaged", path=str(path), error=str(exc))
        return _fail("admin.backup.not_sqlite", path=str(path))
    return None


def foreign(path: Path) -> bool:
    """True when the file ``path`` is another program's SQLite database: it holds tables but
    no schema version of this bot (which the bot, opening it, would migrate from 0, adding its
    tables beside them). Read only; False when it cannot be read (the bot's opening says
    why)."""
    return isinstance(start_refusal(path), ForeignDatabase)


def start_refusal(path: Path) -> NotADatabase | ForeignDatabase | SchemaTooNew | None:
    """What the bot's start would refuse the existing file ``path`` for (None: nothing), read
    only, for ``python -m bot --check``: a file that is no SQLite database (or is damaged past
    opening), another program's database, a newer bot's."""
    try:
        with contextlib.closing(_connect_read_only(path)) as db:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            tables = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'").fetchone()
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_NOTADB,
                                                          sqlite3.SQLITE_CORRUPT):
            return NotADatabase(str(exc))
        return None  # locked, unreadable...: the start says why, as it opens it
    if version > SCHEMA_VERSION:
        return SchemaTooNew(version, SCHEMA_VERSION)
    if version < 1 and tables is not None:
        return ForeignDatabase(f"{path} holds tables but no schema of this bot")
    return None


def _copy(source: Path, target: Path) -> None:
    """Copy the database ``source`` into ``target`` (made or overwritten) with SQLite's online
    backup API, in one step: the copy is the database as one moment saw it."""
    with contextlib.closing(_connect_read_only(source)) as src, \
            contextlib.closing(sqlite3.connect(target, timeout=BUSY_SECONDS,
                                               isolation_level=None)) as dst:
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it


def backup(where: str, target: Path) -> Outcome:
    """Back up the bot's database ``where`` (a file, or a PostgreSQL URL) into ``target``."""
    if is_database_url(where):
        return Outcome(USE_POSTGRES_TOOLS, msg("admin.backup.postgres",
                                               command=pg_dump_command(where, target)))
    if target.exists():
        return _fail("admin.backup.exists", path=str(target))
    if not target.parent.is_dir():
        return _fail("admin.backup.no_folder", path=str(target.parent))
    if not os.access(target.parent, os.W_OK | os.X_OK):  # read-only, or another user's
        return _fail("admin.backup.unwritable_folder", path=str(target.parent))
    source = Path(where)
    if not source.is_file():  # KARAK_DB to mend (a relative path read from another folder...)
        return _fail("admin.no_database", path=str(source))
    # a newer bot's database too: after a step back to an older version, its moves are kept
    if (problem := check_database(source, newer=True)) is not None:
        return problem
    partial = target.with_name(target.name + ".partial")
    try:
        _copy(source, partial)
        partial.replace(target)
    except sqlite3.Error as exc:
        _remove(partial)
        if _locked(exc):
            return _fail("admin.backup.locked", path=str(source))
        return _fail("admin.backup.failed", error=str(exc))
    except OSError as exc:
        _remove(partial)
        return _fail("admin.backup.failed", error=exc.strerror or str(exc))
    return Outcome(DONE, msg("admin.backup.done", source=str(source), path=str(target)))


def _remove(partial: Path) -> None:
    """Remove the file a failed copy left, if any (a folder that turned read-only under the
    copy keeps it: the failure is told all the same)."""
    with contextlib.suppress(OSError):
        partial.unlink(missing_ok=True)


def _utc(moment: float) -> str:
    return datetime.datetime.fromtimestamp(moment, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")


def in_use(path: Path, now: float, lease_ttl: float, command: str = "restore") -> Outcome | None:
    """Why the database ``path`` may not be replaced (or moved) at ``now`` (None when it may):
    a bot holds a table's lease that has not lapsed (it renews its leases, each for
    ``lease_ttl`` seconds, every few seconds while it runs), or another program has the file
    open. The refusal is told as ``command`` (``restore`` or ``migrate``) would say it."""
    try:
        with contextlib.closing(_connect_read_only(path)) as db:
            has_leases = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                                    "AND name = 'leases'").fetchone() is not None
            row = db.execute(
                "SELECT owner, MAX(expires_at) FROM leases WHERE expires_at > ? "
                "GROUP BY owner ORDER BY 2 DESC LIMIT 1", (now,)).fetchone() if has_leases \
                else None
    except sqlite3.Error as exc:
        if _locked(exc):
            return _fail("admin.backup.locked", path=str(path))
        return None  # not a database this bot could run on: nothing to protect but the file
    if row is not None:
        owner, until = str(row[0]), float(row[1])
        return _fail(f"admin.{command}.running", owner=owner, renewed=_utc(until - lease_ttl),
                     until=_utc(until))
    # a bot whose tables need no background work holds no lease: SQLite's lock tells
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=0, isolation_level=None)) as db:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("BEGIN EXCLUSIVE")
            db.execute("ROLLBACK")
    except sqlite3.Error as exc:
        if _locked(exc):
            return _fail(f"admin.{command}.open_elsewhere", path=str(path))
    return None


def kept_name(path: Path) -> Path:
    """Where the database a restore replaces is kept: ``NAME.before-restore``, or with
    ``-2``, ``-3``... when an earlier restore's copy is there."""
    return free_name(path, "before-restore")


def free_name(path: Path, suffix: str) -> Path:
    """``NAME.suffix`` beside ``path``, or ``NAME.suffix-2``, ``-3``... when it is taken."""
    candidate = path.with_name(f"{path.name}.{suffix}")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{suffix}-{number}")
        number += 1
    return candidate


def _keep(target: Path, kept: Path) -> None:
    """Copy the database a restore replaces to ``kept``: through SQLite (the moves still in its
    ``-wal`` included), or byte for byte when SQLite cannot read it (a damaged file)."""
    try:
        _copy(target, kept)
    except sqlite3.Error as exc:
        if _locked(exc):
            raise
        kept.unlink(missing_ok=True)
        shutil.copyfile(target, kept)
        if (wal := _beside(target, "-wal")).exists():
            shutil.copyfile(wal, _beside(kept, "-wal"))


def _beside(path: Path, suffix: str) -> Path:
    """The file SQLite keeps beside ``path`` (``-wal``, ``-shm``, ``-journal``)."""
    return path.with_name(path.name + suffix)


def restore(where: str, source: Path, now: float, lease_ttl: float) -> Outcome:
    """Restore the backup ``source`` into the bot's database ``where``, keeping the database
    replaced (``now`` and ``lease_ttl``: which leases are fresh, see :func:`in_use`)."""
    if is_database_url(where):
        return Outcome(USE_POSTGRES_TOOLS, msg("admin.restore.postgres",
                                               command=pg_restore_command(where, source)))
    if (problem := check_database(source)) is not None:
        return problem
    target = Path(where)
    if target.resolve() == source.resolve():
        return _fail("admin.restore.same_file", path=str(target))
    kept: Path | None = None
    if target.exists():
        if (problem := in_use(target, now, lease_ttl)) is not None:
            return problem
        kept = kept_name(target)
        try:
            _keep(target, kept)
        except (sqlite3.Error, OSError) as exc:
            kept.unlink(missing_ok=True)
            return _fail("admin.restore.cannot_keep", path=str(target), error=str(exc))
    # written beside the target, then put in its place; the replaced database's -wal and -shm
    # go first (their moves are in the kept copy), so none is read with the restored file
    partial = _beside(target, ".restoring")
    try:
        _copy(source, partial)
        for suffix in ("-wal", "-shm", "-journal"):
            _beside(target, suffix).unlink(missing_ok=True)
        partial.replace(target)
    except sqlite3.Error as exc:
        partial.unlink(missing_ok=True)
        return _fail("admin.restore.failed", path=str(target), error=str(exc))
    except OSError as exc:
        partial.unlink(missing_ok=True)
        return _fail("admin.restore.failed", path=str(target), error=exc.strerror or str(exc))
    if kept is not None:
        return Outcome(DONE, msg("admin.restore.done_kept", source=str(source),
                                 path=str(target), kept=str(kept)))
    return Outcome(DONE, msg("admin.restore.done", source=str(source), path=str(target)))


__all__ = ["DONE", "REFUSED", "USE_POSTGRES_TOOLS", "Outcome", "backup", "check_database",
           "foreign", "free_name", "in_use", "kept_name", "pg_dump_command",
           "pg_restore_command", "restore", "start_refusal"]
