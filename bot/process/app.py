"""Entry point: ``python -m bot [--sync] [--check]`` reads the settings, opens the database, has
the composition root (:mod:`bot.process.compose`) build the bot's parts and runs it until it is
stopped.

Any setting problem (no or malformed token, unwritable database, bad timer, shard ids that do not
fit the shard count, a PostgreSQL database that cannot be reached...) stops the bot with one line
on stderr and exit status 2; neither the token nor the database's password is ever printed.
SIGTERM (``docker stop``) and Ctrl-C stop it cleanly: from then on no AI move, timed-out turn or
resumption starts, moves being saved finish, the database is checkpointed, the drawing and
thinking workers stop, and the exit status is 0.

A SQLite file deleted or replaced under the running bot (SQLite would go on writing into the
file it opened, lost at the next start) is found within :data:`WATCH_EVERY` seconds: the bot
stops as on SIGTERM, copies the database it had open beside the path (``NAME.rescued``) and
says so in one line, exit status 2.

A bot that stopped cleanly lets its tables' leases lapse at once (:func:`let_go`): another
process on the same PostgreSQL database takes them up at its next pass, and a restore right
after the stop does not take the stopped bot for one still running.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import discord

from bot.process.logs import log_handler
from bot.process.settings import (
    ConfigProblem,
    Settings,
    env_file_named,
    load_settings,
    unknown_settings,
)
from bot.storage.choice import NoDriver, disk_full, is_database_url, shown
from bot.storage.records import ForeignDatabase, MigrationFailed, NotADatabase
from i18n import Msg, msg, translate

if TYPE_CHECKING:
    from bot.discord_side.client import KarakBot
    from bot.storage.interface import Storage

log = logging.getLogger("karak.bot")
#: Seconds between two looks at the SQLite file the bot has open (deleted or replaced?).
WATCH_EVERY = 5.0
#: The gateway's close code refusing the token (reset in the Developer Portal while the bot ran).
TOKEN_REFUSED = 4004
#: The gateway's close codes refusing the shard settings: an invalid shard, sharding required.
SHARD_REFUSALS = {4010: "bot.cli.shards.invalid", 4011: "bot.cli.shards.required"}


class _NoToken(logging.Filter):
    """Writes the token as ``[token]`` wherever a log record would show it: its message, its
    traceback, its stack (defence in depth: the bot never logs it on purpose, and the rest of
    the record is what an admin needs to read)."""

    HIDDEN = "[token]"

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        """True, once the token is taken out of ``record``."""
        try:
            message = record.getMessage()
        except Exception:  # pragma: no cover - a broken record is not ours to fix
            return True
        if self.token in message:
            record.msg, record.args = message.replace(self.token, self.HIDDEN), None
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            if self.token in text:
                record.exc_info, record.exc_text = None, text.replace(self.token, self.HIDDEN)
        elif record.exc_text and self.token in record.exc_text:
            record.exc_text = record.exc_text.replace(self.token, self.HIDDEN)
        if record.stack_info and self.token in record.stack_info:
            record.stack_info = record.stack_info.replace(self.token, self.HIDDEN)
        return True


#: Libraries whose DEBUG lines carry what the bot sends or saves: discord.py logs gateway payloads
#: and request bodies (interaction tokens, private answers), aiosqlite logs every statement with
#: its parameters (saved game states: every hand and the generator). They stay at INFO or above
#: whatever ``KARAK_LOG_LEVEL`` says.
TALKATIVE_LIBRARIES = ("discord", "aiosqlite")


def setup_logging(settings: Settings) -> None:
    """Log to stderr at the configured level in the configured format (text, or one JSON object
    a line), never letting the token or a saved state through."""
    handler = log_handler(settings.log_format)
    handler.addFilter(_NoToken(settings.token.get_secret_value()))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    for name in TALKATIVE_LIBRARIES:
        logging.getLogger(name).setLevel(max(logging.INFO, root.level))


async def run(settings: Settings, force_sync: bool = False,
              clock: Callable[[], float] = time.time,
              built: Callable[[KarakBot], None] | None = None) -> None:
    """Open the database and run the bot until it is stopped (SIGTERM or SIGINT close it);
    ``clock``: the bot's time (the playground's moves on when asked); ``built`` is given the
    bot once it is built (the playground tells it when its clock jumps)."""
    from bot.discord_side.client import route_to
    from bot.process.compose import from_settings
    from bot.process.metrics import served
    from bot.storage import sqlite
    from bot.storage.choice import open_storage

    route_to(settings.api_base, settings.gateway_url)
    try:
        store = await open_storage(settings.db, clock)
    except Exception as exc:
        problem = database_problem(exc, settings.db)
        if problem is None:
            raise
        raise problem from None
    try:
        bot, metrics = from_settings(store, settings, force_sync, clock)
        if built is not None:
            built(bot)
        async with bot, served(metrics, store, settings.metrics_host, settings.metrics_port):
            stop_on_signals(bot)
            watch = asyncio.create_task(watch_file(store, bot, settings.db), name="file-watch")
            try:
                await bot.start(settings.token.get_secret_value())
            finally:
                watch.cancel()
        if isinstance(store, sqlite.Store) and store.moved():
            raise await rescued(store, Path(settings.db))
        await let_go(bot)
    finally:
        await store.close()


async def let_go(bot: KarakBot) -> None:
    """The bot stopped cleanly: its tables' leases lapse now (another process takes them up,
    and ``python -m bot.admin restore`` does not take it for still running); a database out
    of reach leaves them to lapse by themselves, as a killed process's do."""
    from bot.storage.records import StorageError

    try:
        await bot.scheduler.leases.give_up()
    except StorageError as exc:
        log.info("the tables' leases could not be given up while stopping (%s): "
                 "they lapse by themselves", exc)


async def watch_file(store: Storage, bot: discord.Client, where: str,
                     every: float = WATCH_EVERY) -> None:
    """Stop ``bot`` once the SQLite file ``where`` it has open is deleted or replaced: a look
    at the path every ``every`` seconds, none on a move's way (nothing on PostgreSQL)."""
    from bot.storage import sqlite

    if not isinstance(store, sqlite.Store):
        return
    while not store.moved():
        await asyncio.sleep(every)
    log.warning("the database file %s was deleted or replaced under the bot: stopping", where)
    await bot.close()


async def rescued(store: Storage, path: Path) -> ConfigProblem:
    """Copy the database ``store`` has open, whose file ``path`` no longer names, beside that
    path; the one line saying so (or why it could not be copied)."""
    from bot.storage import sqlite
    from bot.storage.records import StorageError
    from bot.storage.sqlite_backup import free_name

    assert isinstance(store, sqlite.Store)
    target = free_name(path, "rescued")
    try:
        await store.save_as(target)
    except (StorageError, OSError) as exc:
        target.unlink(missing_ok=True)
        return ConfigProblem(translate(msg("bot.cli.db.moved_lost", path=str(path),
                                           error=str(exc))))
    return ConfigProblem(translate(msg("bot.cli.db.moved", path=str(path), saved=str(target))))


def database_problem(exc: Exception, where: str) -> ConfigProblem | None:
    """The one line telling why the database ``where`` could not be opened: a file that is no
    SQLite database, another program's SQLite database or one another program holds locked, a
    full or failing disk, or a PostgreSQL database out of reach (never its password); None when
    ``exc`` is no such problem. The PostgreSQL server's refusals are told apart by their
    standard SQLSTATE code, whatever the driver's exception class."""
    if not is_database_url(where):
        from bot.storage.sqlite import busy, cannot_save

        if isinstance(exc, NotADatabase):
            return ConfigProblem(translate(msg("bot.cli.db.not_sqlite", path=where)))
        if isinstance(exc, ForeignDatabase):
            return ConfigProblem(translate(msg("bot.cli.db.not_ours", path=where)))
        if busy(exc):  # another program holds the file locked past SQLite's wait
            return ConfigProblem(translate(msg("bot.cli.db.locked", path=where)))
        if cannot_save(exc):  # no room for its -wal and -shm, nor to switch a backup to WAL
            return ConfigProblem(translate(msg("bot.cli.db.disk_full", path=where)))
        return None
    refusal = postgres_refusal(exc)
    if refusal is None:
        return None
    return ConfigProblem(translate(refusal_line("bot.cli.db", refusal, where)))


def postgres_refusal(exc: BaseException) -> str | None:
    """Why a PostgreSQL database could not be opened, as the last part of its line's key:
    ``driver`` (not installed), ``unreachable``, ``login``, ``missing`` (no such database), or
    the server's SQLSTATE code of another refusal of the connection; None when ``exc`` is no
    such problem. Told apart by the standard SQLSTATE code, whatever the driver's exception
    class."""
    state = str(getattr(exc, "sqlstate", None) or "")
    if isinstance(exc, NoDriver):
        return "driver"
    if isinstance(exc, OSError):  # refused, unknown host, no answer in time
        return "unreachable"
    if state.startswith("28"):  # invalid authorisation: user name or password
        return "login"
    if state == "3D000":  # invalid catalogue name: no such database
        return "missing"
    if state.startswith(("08", "53", "57P")):  # connection, resources, server starting
        return state
    return None


def refusal_line(section: str, refusal: str, where: str) -> Msg:
    """The line of ``section`` (``bot.cli.db``, ``admin.migrate``...) telling the
    :func:`postgres_refusal` ``refusal`` of the database ``where``, named without its
    password."""
    db = shown(where).split("?", 1)[0]  # a password may also sit among the parameters
    if refusal in ("driver", "unreachable", "login", "missing"):
        return msg(f"{section}.{refusal}", db=db)
    return msg(f"{section}.refused", db=db, code=refusal)


def stop_on_signals(bot: discord.Client) -> None:
    """Close ``bot`` on SIGTERM and SIGINT, once."""
    loop = asyncio.get_running_loop()
    closer = bot.close
    stopping: list[asyncio.Task[None]] = []

    def stop() -> None:
        if not stopping:
            log.info("stopping")
            stopping.append(loop.create_task(closer(), name="shutdown"))

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - not on this platform
            pass


def main(argv: list[str] | None = None) -> int:
    """Run the bot; returns the process exit status."""
    parser = argparse.ArgumentParser(prog="python -m bot",
                                     description=translate(msg("bot.cli.description")))
    parser.add_argument("--sync", action="store_true", help=translate(msg("bot.cli.sync")))
    parser.add_argument("--check", action="store_true", help=translate(msg("bot.cli.check")))
    parser.add_argument("--env-file", type=Path, default=None,
                        help=translate(msg("bot.cli.env_file")))
    args = parser.parse_args(argv)
    try:
        env_file = env_file_named(args.env_file)
        settings = load_settings(env_file=env_file)
    except ConfigProblem as exc:
        print(str(exc), file=sys.stderr)
        return 2
    unknown = unknown_settings(env_file=env_file)  # ignored, but never silently
    if args.check:
        for line in unknown:
            print(line, file=sys.stderr)
        if (problem := file_problem(settings.db)) is not None:  # as the start would refuse it
            print(problem, file=sys.stderr)
            return 2
        print(translate(msg("bot.cli.ok", db=shown(settings.db))))
        return 0
    setup_logging(settings)
    for line in unknown:
        log.warning("%s", line)
    try:
        asyncio.run(run(settings, force_sync=args.sync))
    except KeyboardInterrupt:
        return 0
    except Exception as exc:
        return explain_fatal(exc)
    return 0


def file_problem(where: str) -> str | None:
    """The line the start would stop on for the existing SQLite file ``where`` (no SQLite
    database, another program's, a newer bot's), read without changing it; None when there
    is none to tell before opening it (no such file yet, a PostgreSQL database)."""
    from bot.storage.records import SchemaTooNew
    from bot.storage.sqlite_backup import start_refusal

    if is_database_url(where) or not Path(where).is_file():
        return None
    refusal = start_refusal(Path(where))
    if isinstance(refusal, SchemaTooNew):
        return translate(msg("bot.cli.schema_too_new", found=refusal.found, known=refusal.known))
    problem = None if refusal is None else database_problem(refusal, where)
    return None if problem is None else str(problem)


def migration_line(exc: MigrationFailed) -> Msg:
    """The line telling the admin that a migration failed and what to do: on a full disk, to
    make room and start again (no bug to report); else the previous bot still opens the
    database only when no migration of this start worked before the one that failed."""
    if disk_full(exc.__cause__):
        key = "bot.upgrade.migration_disk_full"
    elif exc.started >= exc.number - 1:
        key = "bot.upgrade.migration_failed"
    else:
        key = "bot.upgrade.migration_failed_later"
    return msg(key, number=exc.number, kept=exc.number - 1, started=exc.started,
               error=str(exc.__cause__ or exc))


def explain_fatal(exc: Exception) -> int:
    """Print one line for the admin about what stopped the bot (details at debug level);
    return the exit status."""
    import aiohttp
    import discord

    from bot.discord_side.client import DevGuildRefused
    from bot.storage.records import SchemaTooNew

    if isinstance(exc, ConfigProblem):
        print(str(exc), file=sys.stderr)
        return 2
    if isinstance(exc, SchemaTooNew):
        print(translate(msg("bot.cli.schema_too_new", found=exc.found, known=exc.known)),
              file=sys.stderr)
        return 2
    if isinstance(exc, MigrationFailed):
        print(translate(migration_line(exc)), file=sys.stderr)
        return 2
    if isinstance(exc, discord.LoginFailure) or (
            isinstance(exc, discord.ConnectionClosed) and exc.code == TOKEN_REFUSED):
        print(translate(msg("bot.cli.login_failed")), file=sys.stderr)
        return 2
    if isinstance(exc, DevGuildRefused):
        print(translate(msg("bot.cli.dev_guild", guild=str(exc.guild), status=exc.status)),
              file=sys.stderr)
        return 2
    if isinstance(exc, discord.ConnectionClosed) and exc.code in SHARD_REFUSALS:
        print(translate(msg(SHARD_REFUSALS[exc.code])), file=sys.stderr)
        return 2
    if isinstance(exc, aiohttp.ClientConnectionError):  # Discord out of reach: try again later
        print(translate(msg("bot.cli.unreachable", error=str(exc) or type(exc).__name__)),
              file=sys.stderr)
        return 1
    if isinstance(exc, discord.PrivilegedIntentsRequired):  # pragma: no cover
        print(translate(msg("bot.cli.intents")), file=sys.stderr)
        return 2
    log.debug("fatal error", exc_info=True)
    print(translate(msg("bot.cli.crashed", error=type(exc).__name__)), file=sys.stderr)
    return 1
